"""One compact JSON object per finding per line (the `json` format's finding
shape), for streaming into `jq`, log shippers and the like. No findings, no
output."""

from __future__ import annotations

import json

from kernlint.reporters import RunReport


def render(report: RunReport) -> str:
    return "".join(
        json.dumps(finding.to_json(), separators=(",", ":"), ensure_ascii=False) + "\n" for finding in report.shown
    )
