"""The validation files' estimates with probes measured elsewhere merged into the calibration: a check of a
cost-model mechanism before its probes are measured on the calibration's own GPU (the model keeps reading
the committed record; nothing here is written).

    python scripts/probe_whatif.py RECORD PREFIX [PREFIX ...]

RECORD is a calibration-style record (its `probes`); the constants derived from the probes whose names
start with a PREFIX replace or join the committed record's. Prints each validation file (fixtures/costmodel/)
whose estimate changes: the estimate with the committed record, with the merged one, and the measurement.
For example, the triton_dot_programs_* probes measured on an H200
(kernels/kernlint/kernels/measurements/checks/dot_programs_h200/probes_h200.json) against the H100 record.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(REPO, "scripts")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("record")
    parser.add_argument("prefixes", nargs="+")
    args = parser.parse_args()
    import costmodel
    from kernlint import cost

    with open(args.record, encoding="utf-8") as handle:
        other = json.load(handle)
    committed = cost.calibration()
    if committed is None:
        print("no calibration record", file=sys.stderr)
        return 2
    # The other record's probes beside the committed record's own, so that derived constants see both.
    merged_record = {**committed_record(cost), "probes": {**committed_record(cost)["probes"]}}
    merged_record["probes"].update({k: v for k, v in other["probes"].items() if k.startswith(tuple(args.prefixes))})
    added = {
        k: v
        for k, v in cost.derive_constants(merged_record).items()
        if k not in committed.constants or committed.constants[k] != v
    }
    print(
        f"{len(added)} constants from {args.record}: "
        + ", ".join(sorted(added)[:4])
        + (" ..." if len(added) > 4 else "")
    )
    before = {row["name"]: row for row in costmodel.rows()}
    cost.calibration = lambda target_gpu=None: replace(committed, constants={**committed.constants, **added})  # type: ignore[assignment]
    print("| file | mode | estimate (committed) | estimate (merged) | measured |")
    print("|---|---|---|---|---|")
    for row in costmodel.rows():
        old = before[row["name"]]["estimate"]
        if all(old.get(m) == row["estimate"].get(m) for m in costmodel.MODES):
            continue
        for mode in costmodel.MODES:
            print(
                f"| {row['name']} | {mode} | {old.get(mode)} | {row['estimate'].get(mode)} | {row['measured'].get(mode)} |"
            )
    return 0


def committed_record(cost) -> dict:  # noqa: ANN001 - the cost module
    path = os.path.join(REPO, "kernels", "kernlint", cost.calibration().path)  # type: ignore[union-attr]
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


if __name__ == "__main__":
    sys.exit(main())
