"""The architect's verdict with the seed prompt's keys plus `path`: one
object for one file, a JSON array for several; schema: `kernlint schema
advice`."""

from __future__ import annotations

import json

from kernlint.reporters import RunReport


def render(report: RunReport) -> str:
    advice = list(report.advice)
    payload = advice[0] if len(advice) == 1 else advice
    return json.dumps(payload, indent=2) + "\n"
