"""kernlint's verdict on the held-out corpus, beside an expert's labels and the H100.

`fixtures/heldout/` holds KernelBench-style solution files (a PyTorch `Model`,
a Triton `ModelNew`) written by hand for this evaluation, and labelled
(`labels.toml`: worth optimizing, the best category, a roofline reason)
before kernlint was run on them. `kernlint verify FILE` measured each
`ModelNew` against its own `Model` on an H100
(`kernels/kernlint/kernels/measurements/heldout/`, made by
`kernels/kernlint/kernels/measure_heldout.sh`).

    python scripts/heldout.py [--markdown]
    python scripts/heldout.py --corpus fixtures/fresh \
        --timings kernels/kernlint/kernels/measurements/checks/h200/fresh_h200.jsonl

prints, per file, the measured speedup over PyTorch, the label, and
kernlint's verdict; then issue 26's bars: of the files slower than PyTorch,
how many kernlint calls worth optimizing; worth/no agreement with the
labels; category agreement where both say yes; internal errors.

`--corpus` reads another corpus of the same form (`fixtures/fresh/`: files a
strong generator's first attempt might be, see its README), and `--timings`
its speedups from `scripts/time_files.py`'s JSON lines instead of `verify`
records: the mean of KernelBench-mode calls, a file counted only where its
output is within 1e-2 of the reference's largest value (the median where a
file was timed more than once).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import tomllib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(REPO, "fixtures", "heldout")
RECORDS = os.path.join(REPO, "kernels", "kernlint", "kernels", "measurements", "heldout")
CATEGORIES = ("Operator Fusion", "Algorithm Replacement", "Kernel Launch Reduction", "Memory Layout Optimization")


def verdict(path: str) -> dict:
    """kernlint's verdict for one file: worth, category, the codes it found, internal errors."""
    from kernlint.runner import run

    outcome = run([path])
    (advice,) = outcome.report.advice
    method = advice.get("optimisation method") or ""
    category = next((c for c in CATEGORIES if method.startswith(c)), None)
    codes = sorted({f.code for f in outcome.report.findings})
    return {
        "worth": advice["worth_optimizing"],
        "category": category if advice["worth_optimizing"] == "yes" else None,
        "codes": codes,
        "internal_error": any(code in ("KL999", "KL902") for code in codes),
    }


def timed(path: str) -> dict[str, float]:
    """Speedups by file name from `scripts/time_files.py`'s JSON lines: the median of a file's correct runs."""
    runs: dict[str, list[float]] = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            run = json.loads(line)
            if run.get("status") == "ok" and run.get("rel_err", 1.0) <= 1e-2:
                runs.setdefault(os.path.basename(run["file"]).removesuffix(".py"), []).append(run["speedup"])
    return {name: sorted(s)[len(s) // 2] for name, s in runs.items()}


def measured(name: str) -> float | str | None:
    """ModelNew's speedup over the file's own Model, KernelBench mode (mean); "timeout" where
    ModelNew passed its correctness check but could not finish its timing within the limit
    while Model did (slower than PyTorch, by how much unmeasured); None if not measured."""
    path = os.path.join(RECORDS, name + ".json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        record = json.load(handle)
    speedup = record.get("speedup") or {}
    if speedup:
        return speedup.get("kernelbench_mean") or speedup.get("kernelbench")
    status = {m["role"]: (m["status"], m.get("detail") or "") for m in record["models"]}
    reference, candidate = status.get("reference"), status.get("candidate")
    if (
        reference
        and reference[0] == "ok"
        and candidate
        and candidate[0] == "timeout"
        and "timing phase" in candidate[1]
    ):
        return "timeout"
    return None


def rows(corpus: str = CORPUS, timings: dict[str, float] | None = None) -> list[dict]:
    with open(os.path.join(corpus, "labels.toml"), "rb") as handle:
        labels = tomllib.load(handle)
    out = []
    for file in sorted(labels):
        label, name = labels[file], file.removesuffix(".py")
        path = os.path.join(corpus, file)
        out.append(
            {
                "name": name,
                "label_worth": label["worth_optimizing"],
                "label_category": label.get("category"),
                "measured": timings.get(name) if timings is not None else measured(name),
                **verdict(path),
            }
        )
    return out


def bars(table: list[dict]) -> dict[str, tuple[int, int]]:
    """(hits, out of) for each of issue 26's bars on the independent set."""
    slower = [
        r for r in table if r["measured"] == "timeout" or (isinstance(r["measured"], float) and r["measured"] < 1.0)
    ]
    both_yes = [r for r in table if r["worth"] == "yes" and r["label_worth"] == "yes"]
    return {
        "slower than PyTorch, called worth optimizing (>= 80%)": (
            sum(r["worth"] == "yes" for r in slower),
            len(slower),
        ),
        "worth/no agrees with the label (>= 85%)": (sum(r["worth"] == r["label_worth"] for r in table), len(table)),
        "category agrees where both say yes (>= 75%)": (
            sum(r["category"] == r["label_category"] for r in both_yes),
            len(both_yes),
        ),
        "files without an internal error (all)": (sum(not r["internal_error"] for r in table), len(table)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    parser.add_argument("--corpus", default=CORPUS, help="a folder of such files with its labels.toml")
    parser.add_argument("--timings", help="scripts/time_files.py's JSON lines for the corpus (not verify records)")
    args = parser.parse_args(argv)
    table = rows(args.corpus, timed(args.timings) if args.timings else None)
    if args.markdown:
        print("| file | measured vs PyTorch | label | kernlint | findings |")
        print("|---|---|---|---|---|")
    for r in table:
        speed = f"{r['measured']:.2f}x" if isinstance(r["measured"], float) else (r["measured"] or "-")
        label = r["label_worth"] + (f" ({r['label_category']})" if r["label_category"] else "")
        said = r["worth"] + (f" ({r['category']})" if r["category"] else "")
        if args.markdown:
            print(f"| {r['name']} | {speed} | {label} | {said} | {' '.join(r['codes']) or '-'} |")
        else:
            print(f"{r['name']:<40} {speed:>9}  label {label:<34} kernlint {said:<34} {' '.join(r['codes'])}")
    print()
    for bar, (hits, total) in bars(table).items():
        share = f"{100 * hits / total:.0f}%" if total else "-"
        print(f"{'- ' if args.markdown else ''}{bar}: {hits} of {total} ({share})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
