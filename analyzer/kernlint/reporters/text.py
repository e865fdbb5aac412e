"""`path:line:col: CODE [name] message`, one line per finding, then a
summary and each file's verdict in one line (with --quiet, the finding
lines only; with --statistics, the counts per rule only). What is listed and counted: kernlint.reporters."""

from __future__ import annotations

from collections import Counter

import click
from kernlint.reporters import RunReport

SEVERITY_COLORS = {"error": "red", "warning": "yellow", "info": "cyan"}


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
    for advice in report.advice:
        if advice["worth_optimizing"] == "yes":
            lines.append(
                f"Verdict for {advice['path']}: worth optimizing. {advice['optimisation method']} "
                f"Expected speedup: {advice['expected_speedup']}. "
                f"(`kernlint --format advice {advice['path']}` for the full plan)"
            )
    return lines
