"""The cost model against the GPU: estimated vs measured speedup of each validation pair.

    python scripts/costmodel.py            # print the table
    python scripts/costmodel.py --check    # exit 1 unless the issue-25 bars hold
    python scripts/costmodel.py --markdown # the table for docs/measurements.md
    python scripts/costmodel.py --calibration REC --records DIR  # the model on another GPU (see below)

Each pair in fixtures/costmodel/ is a KernelBench-style file (NAME_before.py)
and the fix of its finding (NAME_after.py), measured on the H100 with
`kernlint verify NAME_after.py --reference NAME_before.py`
(kernels/kernlint/kernels/measure_costmodel.sh; records in
kernels/kernlint/kernels/measurements/costmodel/). kernlint lints the before
(no execution) and estimates, for the finding of the pair's rule, the whole
entry point's speedup in each mode from the calibration record; this script
puts the two side by side.

With --calibration and --records, the same files are estimated from another
calibration record (made by `kernlint.kernels.calibrate` on another GPU) and
compared with the `verify` records of that GPU in DIR (those files it has):
a check that the model's structure carries over to a GPU it was not built on,
its constants re-measured rather than fitted. The H200 check is
kernels/kernlint/kernels/measurements/checks/h200/.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAIRS = os.path.join(REPO, "fixtures", "costmodel")
RECORDS = os.path.join(REPO, "kernels", "kernlint", "kernels", "measurements", "costmodel")
MODES = ("kernelbench", "eager", "graph")
WITHIN = 1.5


def rows(records: str = RECORDS) -> list[dict]:
    from kernlint.engine import lint_source

    out = []
    for name in sorted(n.removesuffix(".json") for n in os.listdir(records) if n.endswith(".json")):
        if not os.path.exists(os.path.join(PAIRS, name + "_before.py")):
            continue  # a calibration record beside the verify records
        with open(os.path.join(records, name + ".json"), encoding="utf-8") as handle:
            measured = json.load(handle)["speedup"]
        rule = name.split("_", 1)[0].upper()
        path = os.path.join(PAIRS, name + "_before.py")
        with open(path, encoding="utf-8") as handle:
            result = lint_source(os.path.relpath(path, REPO), handle.read())
        estimates = [(f.expected_speedup or {}).get("for_this_file") for f in result.findings if f.code == rule]
        estimate = next(
            (e for e in estimates if e and e.get("status") == "estimated"), estimates[0] if estimates else None
        )
        out.append({"name": name, "rule": rule, "measured": measured, "estimate": estimate or {}})
    return out


def ratio(row: dict, mode: str) -> float | None:
    """How far the estimate is from the measurement (>= 1), None where either is missing."""
    m, e = row["measured"].get(mode), row["estimate"].get(mode)
    return max(m, e) / min(m, e) if m and e else None


def close(table: list[dict], mode: str) -> list[str]:
    """The pairs whose estimate lands within WITHIN of the measurement in `mode`."""
    return [row["name"] for row in table if (r := ratio(row, mode)) is not None and r <= WITHIN]


def verdict_agrees(row: dict) -> bool:
    """Worth optimizing (the prompt's 20% bar, KernelBench mode) the same by estimate and measurement."""
    from kernlint.advice import WORTH_IT

    return (row["measured"]["kernelbench"] >= WORTH_IT) == ((row["estimate"].get("kernelbench") or 0) >= WORTH_IT)


def markdown(table: list[dict]) -> int:
    print(
        "| pair | measured KernelBench / eager / graph | estimated KernelBench / eager / graph | worth it? measured / estimated |"
    )
    print("|---|---|---|---|")

    def cell(values: dict) -> str:
        return " / ".join("–" if values.get(m) is None else f"{values[m]:.2f}×" for m in MODES)

    from kernlint.advice import WORTH_IT

    for row in table:
        est = row["estimate"]
        yes = lambda v: "yes" if (v or 0) >= WORTH_IT else "no"  # noqa: E731
        print(
            f"| {row['name']} ({row['rule']}) | {cell(row['measured'])} | {cell(est)} "
            f"| {yes(row['measured']['kernelbench'])} / {yes(est.get('kernelbench'))} |"
        )
    print()
    for line in summary(table):
        print(f"- {line}")
    return 0


def summary(table: list[dict]) -> list[str]:
    """How many estimates land within WITHIN of the measurement, per mode, and how many verdicts agree."""
    counted = {mode: sum(row["measured"].get(mode) is not None for row in table) for mode in MODES}
    lines = [
        f"{mode}: estimate within {WITHIN}x of the measurement on {len(close(table, mode))} of {counted[mode]}"
        for mode in MODES
    ]
    verdicts = sum(verdict_agrees(row) for row in table)
    lines.append(f"worth optimizing (>= 1.2x KernelBench) agrees with the measurement on {verdicts} of {len(table)}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--markdown", action="store_true", help="one row per pair, for the docs")
    parser.add_argument("--calibration", help="estimate from this calibration record instead of the library's")
    parser.add_argument("--records", default=RECORDS, help="the verify records to compare with (default: the H100's)")
    args = parser.parse_args()
    if args.calibration:
        from kernlint import cost

        other = cost.load_calibration(args.calibration, os.path.relpath(args.calibration, REPO))
        if other is None:
            parser.error(f"{args.calibration}: not a calibration record")
        cost.calibration = lambda target_gpu=None: other  # type: ignore[assignment]
        print(f"estimates from {other.path} ({other.gpu}); measurements from {os.path.relpath(args.records, REPO)}\n")
    table = rows(args.records)
    if args.markdown:
        return markdown(table)
    print("| pair | mode | measured | estimated | ratio |")
    print("|---|---|---|---|---|")
    for row in table:
        est = row["estimate"]
        for mode in MODES:
            m, e, r = row["measured"].get(mode), est.get(mode), ratio(row, mode)
            if m is None:
                continue
            shown = "–" if e is None else f"{e:.2f}x"
            print(f"| {row['name']} | {mode} | {m:.2f}x | {shown} | {'–' if r is None else f'{r:.2f}'} |")
        if est.get("status") != "estimated":
            print(f"| {row['name']} | – | – | {est.get('reason', 'no finding')} | – |")
    print()
    print("\n".join(summary(table)))
    counted = {mode: sum(row["measured"].get(mode) is not None for row in table) for mode in MODES}
    verdicts = sum(verdict_agrees(row) for row in table)
    ok = all(len(close(table, m)) >= counted[m] - 2 for m in MODES) and verdicts == len(table)
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
