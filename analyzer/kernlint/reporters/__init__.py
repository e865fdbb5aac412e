"""Output formats: one report, many views.

The runner produces one RunReport: every file's findings, the findings that
suppression comments silenced, the file errors, the verdicts, and the
options that shape what is shown (ReportOptions). What is shown is decided
here, once, and every reporter renders it:

- `shown`: the findings every format lists, in position order: the reported
  ones, plus the suppressed ones (each marked by `suppressed_by`, in the
  format's own way) with --show-suppressed;
- `findings`: the reported ones only; they alone make the exit code, the
  summary, the statistics and the verdicts;
- `statistics`: counts per rule of `findings`, with --statistics, for the
  formats that have a summary (text after the findings, json as
  `statistics`); the finding-per-record formats (json-lines, github,
  gitlab, sarif) and advice have no summary to put it in;
- `quiet`: the summary, statistics and verdict lines are left out; only the
  text format has them (every other format is findings or verdicts only);
- `errors`: file errors go to stderr (kernlint.cli) in every format; a run
  that checked nothing (every path missing, or no Python file under them:
  the CLI warns "No Python files found", as ruff does) prints no text
  report (json and the CI formats still print a valid, empty document);
- `fingerprints`: one line-shift-stable id per finding, over every finding
  reported or suppressed, so SARIF and GitLab give a finding the same id
  whether or not suppressed ones are shown.

A new format is a module here with `render(report) -> str` and an entry in
REPORTERS; the CLI's --format choices come from this table.
"""

from __future__ import annotations

import hashlib
import importlib
import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from kernlint.findings import FileResult, Finding


@dataclass(frozen=True)
class ReportOptions:
    """The options every reporter honours (see the module doc)."""

    show_suppressed: bool = False
    statistics: bool = False
    quiet: bool = False
    color: bool = False  # text only: the other formats are read by programs


@dataclass(frozen=True)
class RunReport:
    """Everything one run produced, in a fixed order (files sorted by path,
    findings by position), so the same input gives the same bytes."""

    version: str
    results: tuple[FileResult, ...]
    advice: tuple[dict[str, str], ...]
    errors: tuple[str, ...] = ()
    options: ReportOptions = field(default_factory=ReportOptions)

    @property
    def findings(self) -> list[Finding]:
        """The reported findings (not the suppressed ones)."""
        return [finding for result in self.results for finding in result.findings]

    @property
    def suppressed(self) -> list[Finding]:
        return [finding for result in self.results for finding in result.suppressed]

    @cached_property
    def shown(self) -> list[Finding]:
        """The findings to list, in position order: the reported ones, and
        with --show-suppressed the suppressed ones too."""
        extra = self.suppressed if self.options.show_suppressed else []
        return sorted([*self.findings, *extra], key=lambda f: f.sort_key)

    @property
    def statistics(self) -> list[tuple[str, str, int]]:
        """(code, name, count) of the reported findings, most frequent
        first, when --statistics asked for them; else empty."""
        if not self.options.statistics:
            return []
        counts = Counter((f.code, f.name) for f in self.findings)
        return [
            (code, name, count) for (code, name), count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        ]

    @property
    def checked_nothing(self) -> bool:
        return not self.results

    @property
    def files_checked(self) -> int:
        return len(self.results)

    @cached_property
    def fingerprints(self) -> dict[int, str]:
        """id(finding) -> its fingerprint, for every reported and suppressed
        finding (see `fingerprints`)."""
        return fingerprints(self.results, sorted([*self.findings, *self.suppressed], key=lambda f: f.sort_key))


def fingerprints(
    results: tuple[FileResult, ...] | list[FileResult], findings: list[Finding] | None = None
) -> dict[int, str]:
    """id(finding) -> a hex digest that survives lines inserted above the
    finding: it hashes the rule code, the path, the reported line's text
    without its indentation, and how many identical (code, path, text)
    findings come before it. `findings` defaults to every finding of
    `results`, in report order."""
    sources = {r.path: (r.source or "").splitlines() for r in results}
    if findings is None:
        findings = [f for r in results for f in r.findings]
    seen: Counter[tuple[str, str, str]] = Counter()
    out: dict[int, str] = {}
    for finding in findings:
        lines = sources.get(finding.path, [])
        text = lines[finding.span.line - 1].strip() if 0 < finding.span.line <= len(lines) else ""
        key = (finding.code, finding.path.replace(os.sep, "/"), text)
        index = seen[key]
        seen[key] += 1
        digest = hashlib.sha256("\0".join((*key, str(index))).encode("utf-8", "surrogatepass")).hexdigest()
        out[id(finding)] = digest
    return out


# name -> module under kernlint.reporters that defines render(report).
REPORTERS: dict[str, str] = {
    "text": "text",
    "json": "json_format",
    "advice": "advice_format",
    "sarif": "sarif",
    "github": "github",
    "gitlab": "gitlab",
    "json-lines": "json_lines",
}


def render(format_name: str, report: RunReport) -> str:
    module = importlib.import_module(f"kernlint.reporters.{REPORTERS[format_name]}")
    renderer: Callable[[RunReport], str] = module.render
    return renderer(report)
