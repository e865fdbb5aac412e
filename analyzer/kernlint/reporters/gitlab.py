"""GitLab Code Quality report: a JSON array of Code Climate issues.

Each issue has `description`, `check_name`, `fingerprint` (the SARIF
reporter's line-shift-stable hash), `severity` (info, minor, major, critical,
blocker) and `location` with the path and the begin/end lines (Code Climate allows
`lines` or `positions`, not both; GitLab reads `lines.begin`). Code Quality
has no notion of a suppressed issue: with --show-suppressed one is listed
with severity `info` and `(suppressed by ...)` after its description.
"""

from __future__ import annotations

import json
import os

from kernlint.findings import Category
from kernlint.reporters import RunReport

SEVERITIES = {"error": "critical", "warning": "major", "info": "minor"}
CATEGORIES = {Category.HAZARD: "Bug Risk", Category.API: "Compatibility", Category.INTERNAL: "Bug Risk"}


def issues(report: RunReport) -> list[dict]:
    out = []
    for finding in report.shown:
        span = finding.span
        description = f"{finding.code} {finding.message}"
        severity = SEVERITIES[finding.severity.value]
        if finding.suppressed_by is not None:
            description += f" (suppressed by `{finding.suppressed_by}`)"
            severity = "info"
        out.append(
            {
                "type": "issue",
                "description": description,
                "check_name": f"{finding.code} {finding.name}",
                "fingerprint": report.fingerprints[id(finding)],
                "severity": severity,
                "categories": [CATEGORIES.get(finding.category, "Performance")],
                "location": {
                    "path": finding.path.replace(os.sep, "/"),
                    "lines": {"begin": span.line, "end": span.end_line},
                },
            }
        )
    return out


def render(report: RunReport) -> str:
    return json.dumps(issues(report), indent=2, ensure_ascii=False) + "\n"
