"""The architect's verdict for one file: is it worth optimizing, and the ONE
optimization to make.

Findings are ranked by the cost model's estimate for this file
(`expected_speedup.for_this_file`, KernelBench mode: the whole entry point
before vs after the finding's fix, at the file's own shapes), largest
first. A file is worth optimizing when that estimate is at least 1.2x (the
architect prompt's 20% bar); under 1.1x it is not, and between the two it
is not either, with a reason that says the gain is marginal. A finding the
model cannot size (no static shapes, not a KernelBench-style file, a fix
it does not model) ranks by its rule's measured gain on the reference-fix
library, after every finding estimated to pay for this file, and the verdict
then says that the file's shapes are unknown; without records, by severity
and each rule's documented `priority` (lower first). Where the model sizes
the file but not the fix, the gain of deleting the code the finding names
outright bounds it (`at_most`, Amdahl's law): a bound under 1.2x is a "no",
whatever the rule's pair measured on its own kernel.

Tuning findings (a fixed tile config, an EVEN_K path: category tuning,
named Memory Layout Optimization in the prompt's words) rank by their
estimate for the file like any other where the cost model makes one (KL003:
the file's tile config against the best of the autotuning set at its
shapes, both at measured per-config rates). Without one they rank after
every other performance finding of the file: what a fixed config costs
depends on how far it is from the best one at the file's shapes, and their
rule's pair measures a config chosen badly on purpose. A file with tuning
findings only still gets them where its shapes are unknown (the pair's
range, said to be the pair's); where the file has static shapes but the
model cannot price the tuning fix (a tl.dot kernel whose product no shape
match names), the pair's gain says nothing about this file's config, so
the verdict is "no" and says the gain is not estimated.
"""

from __future__ import annotations

from kernlint import claims
from kernlint.discovery import is_other_backend_file, is_test_file
from kernlint.findings import NO_FIX_MODEL, Category, Finding, Severity
from kernlint.registry import rule_by_code_or_name

WORTH_IT = 1.2  # the architect prompt: "Expected speedup >= 20%"
MARGINAL = 1.1  # the architect prompt: "< 10%: not worth it"

ADVICE_KEYS = (
    "worth_optimizing",
    "reason",
    "bottleneck",
    "optimisation method",
    "modification plan",
    "expected_speedup",
    "path",
)


def file_estimate(finding: Finding) -> dict | None:
    """The cost model's estimate for the file, when it could make one."""
    estimate = (finding.expected_speedup or {}).get("for_this_file")
    return estimate if estimate and estimate.get("status") == "estimated" else None


def _gain(finding: Finding, target_gpu: str | None) -> tuple[float | None, bool]:
    """(gain, for this file?): the file's KernelBench-mode estimate, else the pair's measured gain."""
    gain, own = claims.file_gain(finding.expected_speedup)
    return (gain, True) if own else (claims.measured_gain(finding.code, target_gpu), False)


def _at_most(finding: Finding) -> float | None:
    """For a finding the model cannot price at a file it sizes: the KernelBench-mode gain of deleting the
    code it names (an upper bound on its fix), or None."""
    estimate = (finding.expected_speedup or {}).get("for_this_file") or {}
    bound = (estimate.get("at_most") or {}).get("kernelbench")
    return float(bound) if bound is not None else None


def _rank(finding: Finding, target_gpu: str | None) -> tuple:
    gain, own = _gain(finding, target_gpu)
    bound = _at_most(finding)
    if not own and bound is not None:
        gain = min(gain, bound) if gain is not None else bound  # no fix gains more than deleting the code
    rule = rule_by_code_or_name(finding.code)
    priority = rule.priority if rule is not None else 99
    return (
        finding.category is Category.TUNING and not own,
        # A fix estimated to pay for this file comes before one whose gain is only its rule's pair's.
        not (own and (gain or 0.0) >= WORTH_IT),
        -(gain or 0.0),
        not own,
        finding.severity.rank,
        priority,
        finding.span.line,
        finding.span.column,
    )


def best_finding(findings: tuple[Finding, ...] | list[Finding], target_gpu: str | None = None) -> Finding | None:
    """The performance finding the verdict is about (the largest estimated gain first), or None."""
    candidates = [f for f in findings if f.category.is_performance]
    return min(candidates, key=lambda f: _rank(f, target_gpu)) if candidates else None


def verdict(path: str, findings: tuple[Finding, ...] | list[Finding], target_gpu: str | None = None) -> dict[str, str]:
    candidates = [f for f in findings if f.category.is_performance]
    broken = sorted(
        {
            f"{f.code} (line {f.span.line})"
            for f in findings
            if f.severity is Severity.ERROR and f.category is Category.HAZARD
        }
    )
    blocker = _blocker(findings)
    if blocker is not None and not is_test_file(path) and not is_other_backend_file(path):
        return _fix_first(path, blocker, candidates, target_gpu)
    if not candidates:
        others = sorted({f.code for f in findings})
        reason = "No performance anti-pattern was found"
        if broken:
            # A kernel that cannot compile or run has no speed to improve yet.
            reason += f"; the file does not run as written: {', '.join(broken)} must be fixed first."
        else:
            reason += f" (only {', '.join(others)}, which do not change speed)." if others else "."
        return _no(path, reason)
    if is_test_file(path):
        return _no(
            path,
            f"A test file ({', '.join(sorted({f.code for f in candidates}))} found): its tensors have a test's shapes, "
            "so kernlint claims no speedup for it; the findings point at code to fix where it runs in production.",
        )
    if is_other_backend_file(path):
        return _no(
            path,
            f"Code for a non-NVIDIA backend ({', '.join(sorted({f.code for f in candidates}))} found): kernlint's "
            "speedups are measured on an H100, so it claims none here; the findings point at the pattern to fix.",
        )
    best = best_finding(candidates, target_gpu)
    assert best is not None
    gain, own = _gain(best, target_gpu)
    where = f"{best.code} {best.name} at line {best.span.line}"
    if own and gain is not None and gain < WORTH_IT:
        size = "marginal (10-20%)" if gain >= MARGINAL else "under 10%"
        return _no(
            path,
            f"The largest estimated gain for this file, {where}, is {gain:.2f}x in KernelBench timing "
            f"at the file's own shapes: {size}, under the 20% bar.",
        )
    if not own and gain is not None and gain < WORTH_IT:
        return _no(
            path,
            f"The largest measured gain, {where}, is {gain:.2f}x on the reference-fix library, under the 20% bar "
            f"({unknown_text(_why_unknown(best))}).",
        )
    bound = _at_most(best)
    if not own and bound is not None and bound < WORTH_IT:
        return _no(
            path,
            f"{where} is not estimated for this file ({_why_unknown(best)}), but the code it names takes little "
            f"of the call at the file's own shapes: deleting it outright would gain at most {bound:.2f}x in "
            "KernelBench timing, under the 20% bar.",
        )
    if not own and best.category is Category.TUNING and _why_unknown(best).startswith(NO_FIX_MODEL):
        return _no(
            path,
            f"Only a tuning finding is left, {where}, and its gain at this file's shapes is not estimated "
            f"({_why_unknown(best)}): its reference pair measures a config chosen badly on purpose, which says "
            "nothing about this file's config.",
        )
    if gain is None and best.severity is Severity.INFO:
        return _no(
            path,
            f"Only small or context-dependent gains were found ({where} is the largest), none measured above 20%.",
        )
    rule = rule_by_code_or_name(best.code)
    assert rule is not None
    others = sorted({f"{f.code} (line {f.span.line})" for f in candidates if f is not best})
    reason = f"{where}: {best.message.rstrip('.')}."
    if not own:
        text = unknown_text(_why_unknown(best))
        reason += f" {text[0].upper()}{text[1:]}: the gain is the reference pair's."
    if others:
        reason += f" Also found: {', '.join(others)}."
    if broken:
        reason += f" The file does not run as written: {', '.join(broken)} must be fixed first."
    return {
        "worth_optimizing": "yes",
        "reason": reason,
        "bottleneck": rule.bottleneck,
        # Named by its category in the prompt's terms, then the method.
        "optimisation method": f"{best.category.prompt_name}: {rule.method}",
        "modification plan": best.plan,
        "expected_speedup": _speedup_text(best, candidates, target_gpu),
        "path": path,
    }


def _why_unknown(finding: Finding) -> str:
    estimate = (finding.expected_speedup or {}).get("for_this_file") or {}
    return str(estimate.get("reason") or "the rule has no cost model of its fix")


def unknown_text(reason: str) -> str:
    """Why the file has no estimate, in words that say which part is missing:
    its shapes, or a model of the rule's fix (the shapes may be known)."""
    if reason.startswith(NO_FIX_MODEL):
        return f"not estimated for this file ({reason})"
    return f"the file's shapes are unknown ({reason})"


def estimate_text(estimate: dict) -> str:
    """One line: the file's estimate in each mode, at its shapes, and what dominates."""
    modes = ", ".join(
        f"{estimate[mode]:.2f}x ({label})"
        for mode, label in (("kernelbench", "KernelBench"), ("eager", "eager"), ("graph", "CUDA graph"))
        if estimate.get(mode) is not None
    )
    before, after = estimate["before_us"], estimate["after_us"]
    inputs = "; ".join(estimate.get("inputs") or []) or "no tensor inputs"
    return (
        f"{modes} for this file ({estimate['entry_point']} {before['kernelbench']:.1f} -> {after['kernelbench']:.1f} us "
        f"per call in KernelBench timing, estimated at its inputs {inputs}, from {', '.join(estimate['shapes_from'])}; "
        f"cost model calibrated on {estimate['gpu']}, {estimate['calibration']}"
        + (
            f"; priced without a probe of its own: {'; '.join(estimate['unprobed'])}"
            if estimate.get("unprobed")
            else ""
        )
        + ")"
    )


def pair_text(claim: dict) -> str:
    """The rule's reference pair's measurement, named as the pair's."""
    if claim.get("measured"):
        return f"the rule's reference pair measured {claim['summary']}"
    return "the rule's reference fix is not measured on a GPU yet"


def _speedup_text(best: Finding, candidates: list[Finding], target_gpu: str | None) -> str:
    claim = best.expected_speedup or {}
    estimate = file_estimate(best)
    pair = pair_text(claim)
    if estimate is not None:
        text = f"{estimate_text(estimate)}; {pair}"
    else:
        text = f"{unknown_text(_why_unknown(best))}; {pair}"
    codes = frozenset(f.code for f in candidates)
    if len(codes) > 1:
        combined = claims.combined_speedup(codes, target_gpu)
        if combined and combined.get("measured"):
            text += f"; with the file's {', '.join(sorted(codes))} fixes applied together: {combined['summary']}"
    return text


def _blocker(findings: tuple[Finding, ...] | list[Finding]) -> Finding | None:
    """The first error that keeps the file from running and whose rule names its fix's category."""
    for finding in sorted(findings, key=lambda f: (f.span.line, f.span.column)):
        rule = rule_by_code_or_name(finding.code)
        if finding.severity is Severity.ERROR and rule is not None and rule.fix_category is not None:
            return finding
    return None


def _fix_first(path: str, blocker: Finding, candidates: list[Finding], target_gpu: str | None) -> dict[str, str]:
    """A file that cannot run: its first optimization is the fix that makes it run. The reason names the
    performance findings that remain for the fixed file."""
    rule = rule_by_code_or_name(blocker.code)
    assert rule is not None and rule.fix_category is not None
    reason = (
        f"{blocker.code} {blocker.name} at line {blocker.span.line}: {blocker.message.rstrip('.')}. "
        "The file does not run as written, so it is slower than anything that does: that fix comes first."
    )
    best = best_finding(candidates, target_gpu)
    if best is not None:
        others = sorted({f"{f.code} (line {f.span.line})" for f in candidates})
        reason += f" Once it runs: {', '.join(others)}."
    speedup = "not estimated: the file fails at its first launch, so there is no time to compare"
    if best is not None:
        speedup += (
            f"; once it runs, {best.code} at line {best.span.line}: {_speedup_text(best, candidates, target_gpu)}"
        )
    return {
        "worth_optimizing": "yes",
        "reason": reason,
        "bottleneck": rule.bottleneck,
        "optimisation method": f"{rule.fix_category.prompt_name}: {rule.method}",
        "modification plan": blocker.plan,
        "expected_speedup": speedup,
        "path": path,
    }


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
