"""A rule's plan applied to files nobody here wrote, measured: each original beside its fixed copy, the
speedup the GPU measured, and the one kernlint estimated for that finding's fix at the file's shapes.

    python scripts/fixed_plans.py \
        --timings kernels/kernlint/kernels/measurements/checks/h200/fixed_plans_h200.jsonl \
        --calibration kernels/kernlint/kernels/measurements/checks/h200/calibration_h200.json

The timings are `scripts/time_files.py`'s JSON lines (KernelBench mode) for originals and fixed copies timed
in one device call; a fixed copy lives in a folder `fixed_klNNN/` (the rule whose plan it applies) under the
original's basename, and is paired with the original of that basename elsewhere under fixtures/. Where a
file was timed more than once, its median counts. The estimate is the original's finding of that rule,
`expected_speedup.for_this_file.kernelbench`, with the calibration record given (the library's default
otherwise). A pair counts as agreeing on worth where both the measurement and the estimate are on the same
side of the verdict's 1.2x bar; where the original has no such finding (or no estimate for it), kernlint
claims no gain, which agrees with a measurement under the bar. Reads the files; executes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXED = re.compile(r"/fixed_(kl\d{3})/[^/]+$")  # a subfolder holds variants, not the plan as it stands
WORTH = 1.2


def _medians(path: str) -> dict[str, float]:
    times: dict[str, list[float]] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            run = json.loads(line)
            if run.get("status") == "ok" and run.get("rel_err", 1.0) <= 1e-2:
                times.setdefault(run["file"], []).append(run["new_us"])
    return {name: statistics.median(values) for name, values in times.items()}


def _original(fixed: str) -> str | None:
    name = os.path.basename(fixed)
    for folder, dirs, files in os.walk(os.path.join(REPO, "fixtures")):
        dirs[:] = sorted(d for d in dirs if not d.startswith("fixed"))
        if name in files:
            return os.path.relpath(os.path.join(folder, name), REPO)
    return None


def _estimate(path: str, code: str) -> float | None:
    from kernlint.runner import run

    outcome = run([os.path.join(REPO, path)])
    for finding in outcome.report.findings:
        claim = (finding.expected_speedup or {}).get("for_this_file") or {}
        if finding.code == code and claim.get("status") == "estimated":
            return claim["kernelbench"]
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timings", required=True, help="scripts/time_files.py's JSON lines")
    parser.add_argument("--calibration", help="a calibration record (default: the library's)")
    args = parser.parse_args(argv)

    from kernlint import cost

    if args.calibration:
        record = cost.load_calibration(args.calibration)
        if record is None:
            print(f"{args.calibration}: not a calibration record", file=sys.stderr)
            return 2
        cost.calibration = lambda target_gpu=None: record  # type: ignore[assignment]
    times = _medians(args.timings)
    rows = []
    for fixed in sorted(times):
        match = FIXED.search("/" + fixed)
        original = _original(fixed) if match else None
        if match is None or original is None or original not in times:
            continue
        code = match.group(1).upper()
        measured = times[original] / times[fixed]
        estimated = _estimate(original, code)
        rows.append((code, os.path.basename(fixed), times[original], times[fixed], measured, estimated))
    agree = 0
    for code, name, before, after, measured, estimated in rows:
        said = f"{estimated:5.2f}x" if estimated is not None else " none"
        same = (measured >= WORTH) == (estimated is not None and estimated >= WORTH)
        agree += same
        print(
            f"{code}  {name[:42]:44s} {before:9,.0f} -> {after:9,.0f} us  measured {measured:5.2f}x"
            f"  estimated {said}  {'' if same else 'DISAGREE'}"
        )
    print(f"\n{len(rows)} fixed files; the estimate on the measurement's side of {WORTH}x on {agree}")
    # A file without the finding claims no gain: 1.0x.
    ratios = [(estimated or 1.0) / measured for *_, measured, estimated in rows]
    for bound in (1.3, 1.5):
        within = sum(1 for r in ratios if 1 / bound <= r <= bound)
        print(f"the estimate within {bound}x of the measured speedup on {within} of {len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
