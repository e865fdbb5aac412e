"""GitLab Code Quality report: a JSON array of Code Climate issues.

Each issue has `description`, `check_name`, `fingerprint` (the SARIF
reporter's line-shift-stable hash), `severity` (info, minor, major, critical,
blocker) and `location` with the path and the begin/end lines (Code Climate allows
`lines` or `positions`, not both; GitLab reads `lines.begin`).
"""

from __future__ import annotations

import json
import os

from kernlint.findings import Category
from kernlint.reporters import RunReport
from kernlint.reporters.sarif import fingerprints

SEVERITIES = {"error": "critical", "warning": "major", "info": "minor"}
CATEGORIES = {Category.HAZARD: "Bug Risk", Category.API: "Compatibility", Category.INTERNAL: "Bug Risk"}


def issues(report: RunReport) -> list[dict]:
    findings = report.findings
    prints = fingerprints(report.results, findings)
    out = []
    for finding in findings:
        span = finding.span
        out.append({
            "type": "issue",
            "description": f"{finding.code} {finding.message}",
            "check_name": f"{finding.code} {finding.name}",
            "fingerprint": prints[id(finding)],
            "severity": SEVERITIES[finding.severity.value],
            "categories": [CATEGORIES.get(finding.category, "Performance")],
            "location": {
                "path": finding.path.replace(os.sep, "/"),
                "lines": {"begin": span.line, "end": span.end_line},
            },
        })
    return out


def render(report: RunReport) -> str:
    return json.dumps(issues(report), indent=2, ensure_ascii=False) + "\n"
