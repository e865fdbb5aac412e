"""`path:line:col: CODE [name] message`, one line per finding, then a
summary: for one file, its verdict in one line; for several, one line per
file worth optimizing, the TOP_FILES with the largest estimated gain (with
--quiet, the finding lines only; with --statistics, the counts per rule
only). Every file's full verdict stays in `--format advice` and json: on a
whole library a verdict line per file was most of the output (issue 28). What is listed and counted: kernlint.reporters."""

from __future__ import annotations

from collections import Counter

import click
from kernlint.reporters import RunReport

SEVERITY_COLORS = {"error": "red", "warning": "yellow", "info": "cyan"}
TOP_FILES = 5


def render(report: RunReport) -> str:
    if report.checked_nothing:
        return ""  # nothing was checked: the error lines say why, "All checks passed" would not
    if report.options.statistics:
        # The counts alone, as ruff's --statistics (issue 28: the findings
        # used to come first).
        return "".join(f"{count:>5}  {code}  {name}\n" for code, name, count in report.statistics)
    style = (lambda text, **kw: click.style(text, **kw)) if report.options.color else (lambda text, **kw: text)
    lines = []
    for finding in report.shown:
        location = f"{finding.path}:{finding.span.line}:{finding.span.column}:"
        code = style(finding.code, fg=SEVERITY_COLORS[finding.severity.value], bold=True)
        silenced = f" (suppressed by `{finding.suppressed_by}`)" if finding.suppressed_by else ""
        lines.append(f"{style(location, bold=True)} {code} [{finding.name}] {finding.message}{silenced}")
    if not report.options.quiet:
        lines += summary(report, style)
    return "".join(line + "\n" for line in lines)


def summary(report: RunReport, style) -> list[str]:
    lines = []
    findings = report.findings
    if findings:
        by_severity = Counter(f.severity.value for f in findings)
        parts = ", ".join(f"{by_severity[s]} {s}" for s in ("error", "warning", "info") if by_severity[s])
        files = len({f.path for f in findings})
        noun = "finding" if len(findings) == 1 else "findings"
        lines.append(
            f"Found {len(findings)} {noun} ({parts}) in {files} of {report.files_checked} "
            f"file{'s' if report.files_checked != 1 else ''}."
        )
    else:
        lines.append(
            style(
                f"All checks passed ({report.files_checked} file{'s' if report.files_checked != 1 else ''}).",
                fg="green",
            )
        )
    if len(report.results) == 1:
        for advice in report.advice:
            if advice["worth_optimizing"] == "yes":
                lines.append(
                    f"Verdict for {advice['path']}: worth optimizing. {advice['optimisation method']} "
                    f"Expected speedup: {advice['expected_speedup']}. "
                    f"(`kernlint --format advice {advice['path']}` for the full plan)"
                )
    else:
        lines += _worth_optimizing(report)
    return lines


def _worth_optimizing(report: RunReport) -> list[str]:
    """The files whose verdict is "worth optimizing", ranked by their
    estimated gain: the cost model's estimate for the file of its best fix
    (kernlint.claims.file_gain), or, where the file's shapes are unknown, the
    measured gain of the rule's reference pair; unmeasured ones last, then
    by path."""
    from kernlint import claims

    worth = {a["path"] for a in report.advice if a["worth_optimizing"] == "yes"}
    if not worth:
        return []
    ranked = []
    for result in report.results:
        if result.path not in worth:
            continue
        gains = [(claims.file_gain(f.expected_speedup), f) for f in result.findings if f.category.is_performance]
        measured = [(gain, own, f) for (gain, own), f in gains if gain is not None]
        if measured:
            gain, own, best = max(measured, key=lambda t: (t[0], t[1], -t[2].severity.rank, -t[2].span.line))
            whose = "for this file" if own else f"the pair's, {claims.not_estimated_why(best.expected_speedup)}"
            ranked.append(
                (-gain, result.path, f"{gain:.1f}x ({whose}) from {best.code} {best.name} (line {best.span.line})")
            )
        else:
            ranked.append((0.0, result.path, "unmeasured"))
    ranked.sort()
    total = report.files_checked
    lines = [
        f"{len(worth)} of {total} files worth optimizing"
        + (f"; the {TOP_FILES} with the largest estimated gain:" if len(worth) > TOP_FILES else ":")
    ]
    lines += [f"  {path}: {why}" for _, path, why in ranked[:TOP_FILES]]
    lines.append(
        "(gain: the KernelBench-mode speedup of the file's best fix, estimated at its shapes, or its rule's "
        "reference pair's where it has no estimate; `kernlint --format advice PATH` for its plan)"
    )
    return lines
