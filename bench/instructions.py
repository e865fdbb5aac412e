"""Lint cost in instructions: `python bench/instructions.py [--every N] [--out FILE]`.

bench.py's ratios are in seconds, and on a shared machine seconds move
10-20% from run to run, more than most single changes to the engine are
worth. This counts the instructions the CPU executes instead (valgrind's
callgrind; Python and libcst are deterministic, so a count repeats to the
last digits) for the same two comparisons: kernlint's lint against libcst's
parse of the same files, on every Nth file of flag-gems 5.0.2, and on the
generated 4,000- and 8,000-line kernel files. Instructions are not time
(cache misses cost more than their count), so this judges a change, and
bench.py still gives the seconds.

Each count is one process under callgrind: imports and one warm-up lint
(first-use costs) are done in all three, so `lint - none` and `floor - none`
are the files' own costs. It needs `valgrind` on the PATH and takes a few
minutes.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import CORPORA, fetch, generated_kernel  # noqa: E402

# Run under callgrind as `python -c RUNNER MODE WARM_UP FILE...`: MODE is
# "none" (imports and the warm-up lint only), "floor" (libcst's parse) or
# "lint".
RUNNER = """
import gc, sys
sys.setrecursionlimit(20_000)
import libcst
from kernlint.engine import lint_bytes
from kernlint.limits import GC_THRESHOLDS
mode, warm_up, paths = sys.argv[1], sys.argv[2], sys.argv[3:]
lint_bytes(warm_up, open(warm_up, "rb").read())
datas = [(path, open(path, "rb").read()) for path in paths]
gc.freeze(); gc.set_threshold(*GC_THRESHOLDS)
if mode == "floor":
    for path, data in datas:
        libcst.parse_module(data.decode("utf-8"))
elif mode == "lint":
    for path, data in datas:
        lint_bytes(path, data)
"""

WARM_UP = Path(__file__).resolve().parent.parent / "fixtures" / "seed" / "kernel.py"
TOTAL = re.compile(r"^summary:\s*(\d+)", re.MULTILINE)


def instructions(mode: str, paths: list[str]) -> int:
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "callgrind.out")
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-c",
                RUNNER,
                mode,
                str(WARM_UP),
                *paths,
            ],
            check=True,
            capture_output=True,
        )
        found = TOTAL.search(Path(out).read_text())
        if found is None:
            raise RuntimeError(f"no instruction total in callgrind's output for {mode}")
        return int(found.group(1))


def ratios(paths: list[str]) -> dict[str, float]:
    """Instructions (millions) of the files' parse and lint, and lint/parse."""
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        none, floor, lint = pool.map(lambda mode: instructions(mode, paths), ("none", "floor", "lint"))
    return {"floor": (floor - none) / 1e6, "lint": (lint - none) / 1e6, "ratio": (lint - none) / (floor - none)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=60, help="every Nth file of flag-gems (default 60)")
    parser.add_argument("--out", type=Path, help="also write the Markdown table here")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("bench/instructions.py needs valgrind on the PATH (apt install valgrind)", file=sys.stderr)
        return 2
    folder = fetch("flag-gems", CORPORA["flag-gems"])
    sample = [str(p) for p in sorted(folder.rglob("*.py"))[:: args.every]]
    rows = [(f"flag-gems, every {args.every}th file ({len(sample)} files)", ratios(sample))]
    with tempfile.TemporaryDirectory() as scratch:
        for lines in (4000, 8000):
            path = Path(scratch) / f"generated_{lines}.py"
            path.write_text(generated_kernel(lines))
            rows.append((f"generated {lines:,}-line kernel file", ratios([str(path)])))
    out = [
        "# kernlint lint cost in instructions (callgrind)",
        "",
        f"Command: `python bench/instructions.py{' --every ' + str(args.every) if args.every != 60 else ''}"
        f"{' --out ' + str(args.out) if args.out else ''}`. Python {sys.version.split()[0]}. "
        "Millions of instructions for the files' own work (imports and a warm-up lint subtracted); "
        "the parse floor is libcst's parse_module, as in bench.py.",
        "",
        "| files | parse floor (M instr.) | kernlint lint (M instr.) | lint / floor |",
        "|---|---|---|---|",
    ]
    out += [f"| {name} | {row['floor']:,.0f} | {row['lint']:,.0f} | {row['ratio']:.2f}x |" for name, row in rows]
    text = "\n".join(out) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
