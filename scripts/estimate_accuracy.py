"""The cost model's estimate of a corpus's own files against their measured time: each KernelBench-style file's
`ModelNew.forward` (and its reference `Model.forward`, where the file holds both and the model sizes it),
KernelBench mode, against `scripts/time_files.py`'s JSON lines for the same files.

    python scripts/estimate_accuracy.py --corpus fixtures/fresh3 \
        --timings kernels/kernlint/kernels/measurements/checks/h200/fresh3_h200.jsonl \
        --calibration kernels/kernlint/kernels/measurements/checks/h200/calibration_h200.json

Prints one line per sized file (measured and estimated µs, their ratio, the largest cost term), sorted by the
ratio, then how many are within 1.5x and 2x. Estimate with the calibration record of the GPU that measured the
files (the library's H100 record by default). Reads the files; executes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def measured(path: str) -> dict[str, dict]:
    """By file name: the first correct run's times (`ref_us`, `new_us`) from time_files.py's JSON lines."""
    out: dict[str, dict] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            run = json.loads(line)
            if run.get("status") == "ok" and run.get("rel_err", 1.0) <= 1e-2:
                out.setdefault(os.path.basename(run["file"]), run)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, help="a folder of KernelBench-style files")
    parser.add_argument("--timings", required=True, help="scripts/time_files.py's JSON lines for them")
    parser.add_argument("--calibration", help="a calibration record (default: the library's)")
    args = parser.parse_args(argv)

    from kernlint import cost
    from kernlint.model import build_model
    from kernlint.source import parse

    calibration = cost.load_calibration(args.calibration) if args.calibration else cost.calibration()
    if calibration is None:
        print("no calibration record", file=sys.stderr)
        return 2
    c = calibration.constants
    times = measured(args.timings)
    rows = []
    for name in sorted(times):
        path = os.path.join(args.corpus, name)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        entry = build_model(path, source, parse(source)).entry_point
        if entry is None or entry.unknown or not entry.ops:
            continue
        estimate = cost.entry_time(entry.ops, c).kernelbench
        largest = cost.largest_terms(entry.ops, c, 1)
        term = f"{largest[0]['op']} (line {largest[0]['line']})" if largest else ""
        rows.append((times[name]["new_us"] / estimate, name, times[name]["new_us"], estimate, term))
    rows.sort()
    for ratio, name, real, estimate, term in rows:
        print(f"{name[:44]:46s} measured {real:10,.0f} us  estimated {estimate:10,.0f} us  {ratio:5.2f}x  {term[:60]}")
    within = sum(1 for r in rows if 1 / 1.5 <= r[0] <= 1.5)
    within2 = sum(1 for r in rows if 1 / 2 <= r[0] <= 2)
    print(f"\n{calibration.gpu} record ({calibration.path}): {len(rows)} files sized of {len(times)} timed")
    print(f"ModelNew estimate within 1.5x of the measurement: {within} of {len(rows)}; within 2x: {within2}")
    slow = sum(1 for r in rows if r[0] > 1.5)
    print(f"measured more than 1.5x slower than estimated: {slow}; faster: {len(rows) - within - slow}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
