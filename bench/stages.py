"""Where lint time goes: `python bench/stages.py [--files N] [--out FILE]`.

Lints the first N Python files of flag-gems 5.0.2 (fetched by bench.py into
.cache/bench/) in this process under cProfile, with kernlint's own per-stage
timer beside it (parse, model, each rule), and prints both. The stage table
is wall time without the profiler's overhead; the profile shows which
functions inside a stage cost most.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from kernlint.model import build_model  # noqa: E402
from kernlint.registry import all_rules  # noqa: E402
from kernlint.source import SourceError, decode, may_hold_kernel_code, parse  # noqa: E402

from bench import CORPORA, fetch  # noqa: E402


def stages(texts: list[tuple[str, str]]) -> dict[str, float]:
    sys.setrecursionlimit(20_000)
    spent: dict[str, float] = {"parse": 0.0, "model": 0.0}
    for path, text in texts:
        if not may_hold_kernel_code(text):
            continue
        start = time.process_time()
        try:
            module = parse(text)
        except SourceError:
            continue
        spent["parse"] += time.process_time() - start
        start = time.process_time()
        model = build_model(path, text, module)
        spent["model"] += time.process_time() - start
        for rule in all_rules():
            start = time.process_time()
            try:
                list(rule().check(model))
            except Exception:  # noqa: BLE001 - a profile, not a lint
                pass
            spent[rule.code] = spent.get(rule.code, 0.0) + time.process_time() - start
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    folder = fetch("flag-gems", CORPORA["flag-gems"])
    paths = sorted(folder.rglob("*.py"))[: args.files]
    texts = [(str(p), decode(p.read_bytes())) for p in paths]
    spent = stages(texts)
    total = sum(spent.values())
    lines = [
        f"# Where lint time goes (first {len(texts)} files of flag-gems 5.0.2)",
        "",
        f"Command: `python bench/stages.py --files {args.files}`. CPU seconds per stage, in one process.",
        "",
        "| stage | CPU s | share |",
        "|---|---|---|",
    ]
    for name, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        if seconds >= 0.01:
            lines.append(f"| {name} | {seconds:.2f} | {100 * seconds / total:.0f}% |")
    profiler = cProfile.Profile()
    profiler.enable()
    stages(texts)
    profiler.disable()
    buffer = io.StringIO()
    pstats.Stats(profiler, stream=buffer).sort_stats("tottime").print_stats(20)
    top = [line for line in buffer.getvalue().splitlines() if line.strip()][-21:]
    lines += ["", "Top functions by own time (cProfile, tottime):", "", "```text", *top, "```"]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
