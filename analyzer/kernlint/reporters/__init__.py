"""Output formats. Each reporter turns a RunReport into the text to print.

A new format is a module here with `render(report) -> str` and an entry in
REPORTERS; the CLI's --format choices come from this table.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from kernlint.findings import FileResult, Finding


@dataclass(frozen=True)
class RunReport:
    """Everything one run produced, in a fixed order (files sorted by path,
    findings by position), so the same input gives the same bytes."""

    version: str
    results: tuple[FileResult, ...]
    advice: tuple[dict[str, str], ...]
    color: bool = False
    statistics: bool = False
    shown_suppressed: tuple[Finding, ...] = field(default_factory=tuple)

    @property
    def findings(self) -> list[Finding]:
        return [finding for result in self.results for finding in result.findings]

    @property
    def listed(self) -> list[Finding]:
        """The findings to print: the reported ones, and with --show-suppressed
        the suppressed ones too (marked by `suppressed_by`), in position order."""
        if not self.shown_suppressed:
            return self.findings
        return sorted([*self.findings, *self.shown_suppressed], key=lambda f: f.sort_key)

    @property
    def files_checked(self) -> int:
        return len(self.results)


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
