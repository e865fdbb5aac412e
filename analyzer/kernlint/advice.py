"""The architect's verdict for one file: is it worth optimizing, and the ONE
optimization to make.

Findings are ranked by measured gain when the reference-fix library has a
record for their rule (the largest `measured_gain` first); without records,
by severity and then by each rule's documented `priority` (lower first). A
file is worth optimizing when its top finding's measured gain is at least
1.2x (the architect prompt's 20% bar), or, unmeasured, when it is a
performance warning.
"""

from __future__ import annotations

from kernlint import claims
from kernlint.findings import Finding, Severity
from kernlint.registry import rule_by_code_or_name

WORTH_IT = 1.2  # the architect prompt: "Expected speedup >= 20%"

ADVICE_KEYS = (
    "worth_optimizing",
    "reason",
    "bottleneck",
    "optimisation method",
    "modification plan",
    "expected_speedup",
    "path",
)


def _rank(finding: Finding, target_gpu: str | None) -> tuple:
    gain = claims.measured_gain(finding.code, target_gpu)
    rule = rule_by_code_or_name(finding.code)
    priority = rule.priority if rule is not None else 99
    return (
        -(gain or 0.0),
        finding.severity.rank,
        priority,
        finding.span.line,
        finding.span.column,
    )


def verdict(path: str, findings: tuple[Finding, ...] | list[Finding], target_gpu: str | None = None) -> dict[str, str]:
    candidates = [f for f in findings if f.category.is_performance]
    if not candidates:
        others = sorted({f.code for f in findings})
        reason = "No performance anti-pattern was found"
        reason += f" (only {', '.join(others)}, which do not change speed)." if others else "."
        return _no(path, reason)
    best = min(candidates, key=lambda f: _rank(f, target_gpu))
    gain = claims.measured_gain(best.code, target_gpu)
    if gain is not None and gain < WORTH_IT:
        return _no(
            path,
            f"The largest measured gain, {best.code} {best.name} at line {best.span.line}, is "
            f"{gain:.2f}x on the reference-fix library, under the 20% bar.",
        )
    if gain is None and best.severity is Severity.INFO:
        return _no(
            path,
            f"Only small or context-dependent gains were found ({best.code} {best.name} at line "
            f"{best.span.line} is the largest), none measured above 20%.",
        )
    rule = rule_by_code_or_name(best.code)
    assert rule is not None
    others = sorted({f"{f.code} (line {f.span.line})" for f in candidates if f is not best})
    reason = f"{best.code} {best.name} at line {best.span.line}: {best.message.rstrip('.')}."
    if others:
        reason += f" Also found: {', '.join(others)}."
    return {
        "worth_optimizing": "yes",
        "reason": reason,
        "bottleneck": rule.bottleneck,
        # Named by its category in the prompt's terms, then the method.
        "optimisation method": f"{rule.category.prompt_name}: {rule.method}",
        "modification plan": best.plan,
        "expected_speedup": _speedup_text(best, candidates, target_gpu),
        "path": path,
    }


def _speedup_text(best: Finding, candidates: list[Finding], target_gpu: str | None) -> str:
    claim = best.expected_speedup or {}
    text = str(claim.get("summary", "unmeasured"))
    codes = frozenset(f.code for f in candidates)
    if len(codes) > 1:
        combined = claims.combined_speedup(codes, target_gpu)
        if combined and combined.get("measured"):
            text += f"; with the file's {', '.join(sorted(codes))} fixes applied together: {combined['summary']}"
    return text


def _no(path: str, reason: str) -> dict[str, str]:
    return {
        "worth_optimizing": "no",
        "reason": reason,
        "bottleneck": "",
        "optimisation method": "",
        "modification plan": "",
        "expected_speedup": "",
        "path": path,
    }
