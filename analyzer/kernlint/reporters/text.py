"""`path:line:col: CODE [name] message`, one line per finding, then a
summary and each file's verdict in one line."""

from __future__ import annotations

from collections import Counter

import click

from kernlint.reporters import RunReport

SEVERITY_COLORS = {"error": "red", "warning": "yellow", "info": "cyan"}


def render(report: RunReport) -> str:
    style = (lambda text, **kw: click.style(text, **kw)) if report.color else (lambda text, **kw: text)
    lines = []
    for finding in report.listed:
        location = f"{finding.path}:{finding.span.line}:{finding.span.column}:"
        code = style(finding.code, fg=SEVERITY_COLORS[finding.severity.value], bold=True)
        silenced = f" (suppressed by `{finding.suppressed_by}`)" if finding.suppressed_by else ""
        lines.append(f"{style(location, bold=True)} {code} [{finding.name}] {finding.message}{silenced}")
    findings = report.findings
    if report.statistics and findings:
        counts = Counter((f.code, f.name) for f in findings)
        lines.append("")
        for (code, name), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
            lines.append(f"{count:>5}  {code}  {name}")
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
        lines.append(style(f"All checks passed ({report.files_checked} file{'s' if report.files_checked != 1 else ''}).", fg="green"))
    for advice in report.advice:
        if advice["worth_optimizing"] == "yes":
            lines.append(
                f"Verdict for {advice['path']}: worth optimizing. {advice['optimisation method']} "
                f"Expected speedup: {advice['expected_speedup']}. "
                f"(`kernlint --format advice {advice['path']}` for the full plan)"
            )
    return "\n".join(lines) + "\n"
