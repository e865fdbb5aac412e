"""Expected speedups, taken from `kernlint verify` measurement records.

Stub until the reference-fix library has records: every performance rule
answers "unmeasured".
"""

from __future__ import annotations


def expected_speedup(code: str, target_gpu: str | None = None) -> dict | None:
    return {"measured": False, "summary": f"unmeasured: no kernlint verify record for {code}"}


def combined_speedup(codes: frozenset[str], target_gpu: str | None = None) -> dict | None:
    return None


def measured_gain(code: str, target_gpu: str | None = None) -> float | None:
    return None
