"""One JSON object: {"version", "files_checked", "findings", "advice"};
schema: `kernlint schema json`."""

from __future__ import annotations

import json

from kernlint.reporters import RunReport


def document(report: RunReport) -> dict:
    return {
        "version": report.version,
        "files_checked": report.files_checked,
        "findings": [finding.to_json() for finding in report.listed],
        "advice": list(report.advice),
    }


def render(report: RunReport) -> str:
    return json.dumps(document(report), indent=2, sort_keys=False) + "\n"
