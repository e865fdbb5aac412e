"""One JSON object: {"version", "files_checked", "findings", "advice"}, and
with --statistics "statistics" (per rule: code, name, count); schema:
`kernlint schema json`."""

from __future__ import annotations

import json

from kernlint.reporters import RunReport


def document(report: RunReport) -> dict:
    out: dict = {
        "version": report.version,
        "files_checked": report.files_checked,
        "findings": [finding.to_json() for finding in report.shown],
        "advice": list(report.advice),
    }
    if report.options.statistics:
        out["statistics"] = [{"code": code, "name": name, "count": count} for code, name, count in report.statistics]
    return out


def render(report: RunReport) -> str:
    return json.dumps(document(report), indent=2, sort_keys=False) + "\n"
