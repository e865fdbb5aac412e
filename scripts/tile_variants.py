"""Write a KernelBench-style file once per tl.dot tile config, for timing a kernel's tiles on a GPU.

    python scripts/tile_variants.py OUT_DIR FILE...

Each FILE's forward must fix its tiles on one line, `BLOCK_M, BLOCK_N, BLOCK_K = 128, 64, 32`, and its warps
and stages on another, `num_warps=4, num_stages=3,` (as the generated convolutions of fixtures/fresh/ do);
the variant replaces both. Files are named `<file prefix>_<BM>x<BN>x<BK>_w<W>_s<S>.py`. Time them with
`scripts/time_files.py` (checks/h200/fresh_tiles_h200.jsonl holds one run).
"""

import os
import re
import sys

CONFIGS = [
    (128, 64, 32, 4, 3),
    (128, 128, 32, 8, 3),
    (128, 32, 32, 4, 3),
    (64, 128, 32, 4, 3),
    (64, 64, 32, 4, 3),
    (32, 128, 64, 4, 4),
    (64, 64, 64, 4, 3),
]
TILES = re.compile(r"^(\s*)BLOCK_M, BLOCK_N, BLOCK_K = \d+, \d+, \d+$", re.M)
WARPS = re.compile(r"^(\s*)num_warps=\d+, num_stages=\d+,$", re.M)


def main() -> int:
    out, files = sys.argv[1], sys.argv[2:]
    os.makedirs(out, exist_ok=True)
    for path in files:
        with open(path, encoding="utf-8") as handle:
            source = handle.read()
        if len(TILES.findall(source)) != 1 or len(WARPS.findall(source)) != 1:
            print(f"{path}: not one tile line and one warps line", file=sys.stderr)
            return 1
        prefix = os.path.basename(path).split("_")[0]
        for bm, bn, bk, warps, stages in CONFIGS:
            text = TILES.sub(rf"\1BLOCK_M, BLOCK_N, BLOCK_K = {bm}, {bn}, {bk}", source)
            text = WARPS.sub(rf"\1num_warps={warps}, num_stages={stages},", text)
            name = f"{prefix}_{bm}x{bn}x{bk}_w{warps}_s{stages}.py"
            with open(os.path.join(out, name), "w", encoding="utf-8") as handle:
                handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
