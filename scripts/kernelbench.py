"""kernlint's verdict on KernelBench's problems, and its agreement with labels.

    python scripts/kernelbench.py --root DIR                 # per-level verdict counts
    python scripts/kernelbench.py --root DIR --labels FILE   # and the agreement with FILE's labels
    python scripts/kernelbench.py --root DIR --json          # one line per problem, JSON

DIR is a KernelBench checkout's problem folder, the one holding level1/,
level2/ and level3/ (KernelBench/KernelBench in the public repository).
kernlint lints each problem (no execution) and takes its verdict: worth
optimizing or not (the cost model's estimate at the file's own shapes
against the 20% bar) and the category of the one optimization it picks.

A labels file (TOML or JSON) maps a problem, `level1/38_L1Norm_`, to
`{worth = "yes" | "no" | "borderline", category = "operator-fusion" | ...,
reason = "..."}`. The agreement counts the confidently labelled problems
(yes or no) whose verdict matches, per level and overall, and the category
agreement among the problems both call worth it. Labels name the four
categories of the architect prompt; kernlint's `tuning` counts as
memory-layout, as its verdict names it (Category.prompt_name).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter

LEVELS = ("level1", "level2", "level3")
DEFAULT_ROOT = os.environ.get("KERNELBENCH_DIR", "/work/kb/KernelBench")
CATEGORY_AS_PROMPT = {"tuning": "memory-layout"}


def problems(root: str) -> list[tuple[str, str]]:
    """(problem id `levelN/stem`, path) of every problem file under `root`, in a stable order."""
    found = []
    for level in LEVELS:
        folder = os.path.join(root, level)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder), key=_numbered):
            if name.endswith(".py"):
                found.append((f"{level}/{name.removesuffix('.py')}", os.path.join(folder, name)))
    return found


def _numbered(name: str) -> tuple[int, str]:
    head = name.split("_", 1)[0]
    return (int(head) if head.isdigit() else 1 << 30, name)


def verdicts(root: str) -> list[dict]:
    from kernlint.advice import best_finding, verdict
    from kernlint.claims import file_gain
    from kernlint.engine import lint_source

    out = []
    for problem, path in problems(root):
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        result = lint_source(os.path.basename(path), text)
        answer = verdict(path, result.findings)
        best = best_finding(result.findings)
        worth = answer["worth_optimizing"]
        category = None
        gain = None
        if best is not None:
            gain, own = file_gain(best.expected_speedup)
            gain = gain if own else None
        if worth == "yes" and best is not None:
            category = CATEGORY_AS_PROMPT.get(best.category.value, best.category.value)
        out.append(
            {
                "problem": problem,
                "level": problem.split("/", 1)[0],
                "worth": worth,
                "category": category,
                "rule": best.code if best is not None else None,
                "gain": gain,
                "codes": sorted({f.code for f in result.findings}),
            }
        )
    return out


def load_labels(path: str) -> dict[str, dict]:
    with open(path, "rb") as handle:
        data = handle.read()
    if path.endswith(".json"):
        labels = json.loads(data)
    else:
        import tomllib

        labels = tomllib.loads(data.decode("utf-8"))
    labels = labels.get("problems", labels)
    for problem, label in labels.items():
        if label.get("worth") not in ("yes", "no", "borderline"):
            raise SystemExit(f"{path}: {problem}: worth must be yes, no or borderline, not {label.get('worth')!r}")
    return labels


def agreement(rows: list[dict], labels: dict[str, dict]) -> dict:
    """Per level and overall: confident labels, verdicts that match, and the category agreement where both say yes."""
    by_problem = {row["problem"]: row for row in rows}
    missing = sorted(p for p in labels if p not in by_problem)
    table: dict[str, dict] = {}
    for scope in (*LEVELS, "all"):
        confident = agree = both_yes = same_category = 0
        disagreements = []
        for problem, label in sorted(labels.items()):
            row = by_problem.get(problem)
            if row is None or (scope != "all" and row["level"] != scope) or label["worth"] == "borderline":
                continue
            confident += 1
            if row["worth"] == label["worth"]:
                agree += 1
            else:
                disagreements.append(f"{problem}: label {label['worth']}, kernlint {row['worth']} ({row['rule']})")
            if row["worth"] == label["worth"] == "yes":
                both_yes += 1
                if row["category"] == label.get("category"):
                    same_category += 1
                else:
                    disagreements.append(
                        f"{problem}: category label {label.get('category')}, kernlint {row['category']} ({row['rule']})"
                    )
        table[scope] = {
            "labelled": sum(
                1 for p in labels if p in by_problem and (scope == "all" or by_problem[p]["level"] == scope)
            ),
            "confident": confident,
            "agree": agree,
            "both_yes": both_yes,
            "same_category": same_category,
            "disagreements": disagreements,
        }
    return {"levels": table, "missing": missing}


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--root", default=DEFAULT_ROOT, help="the folder holding level1/ level2/ level3/")
    parser.add_argument("--labels", help="a TOML or JSON labels file (problem -> worth, category, reason)")
    parser.add_argument("--json", action="store_true", help="print one JSON object per problem")
    parser.add_argument("--verbose", action="store_true", help="list the disagreements")
    args = parser.parse_args(argv)
    if not any(os.path.isdir(os.path.join(args.root, level)) for level in LEVELS):
        print(f"no level1/ level2/ level3/ under {args.root}", file=sys.stderr)
        return 2
    rows = verdicts(args.root)
    if args.json:
        for row in rows:
            print(json.dumps(row, sort_keys=True))
        return 0
    for level in LEVELS:
        mine = [r for r in rows if r["level"] == level]
        if not mine:
            continue
        worth = Counter(r["worth"] for r in mine)
        categories = Counter(r["category"] for r in mine if r["worth"] == "yes")
        shown = ", ".join(f"{c} {n}" for c, n in sorted(categories.items()))
        print(
            f"{level}: {len(mine)} problems, worth optimizing {worth['yes']}, not {worth['no']} ({shown or 'no yes'})"
        )
    if args.labels:
        result = agreement(rows, load_labels(args.labels))
        for scope, row in result["levels"].items():
            print(
                f"agreement {scope}: {row['labelled']} labelled, verdict {_pct(row['agree'], row['confident'])} "
                f"of the confident labels, category {_pct(row['same_category'], row['both_yes'])} where both say yes"
            )
        if result["missing"]:
            print(f"labels for problems not found under {args.root}: {', '.join(result['missing'])}")
        if args.verbose:
            for line in result["levels"]["all"]["disagreements"]:
                print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
