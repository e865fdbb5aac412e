"""Autotune search spaces shared by the library's autotuned matmul kernels.

Every autotuned kernel in the library (the `after` kernels and the `before`
kernels whose only defect is something else) searches the same space, so a
pair's speedup measures its rule's fix and not a difference in tuning.

The tiles cover the three regimes the library is measured on:
  * skinny M (decode, M <= 32): BLOCK_M 16/32, a long BLOCK_K = 256/512 so
    each program has a wide slab of the weight in flight per iteration (these
    kernels are bound by DRAM latency x bytes in flight), and split-K to put
    enough programs on the SMs when M x N alone gives too few tiles;
  * small M (the seed shape, M = 128): 64 x 32 / 64 x 64 tiles, split-K 1-4;
  * square, compute-bound (4096^3): 128 x 128 / 128 x 256 tiles, 8 warps.
A few BLOCK_K = 32/64 tiles suit kernels whose operands are fp32 in shared
memory (the KL001 `before` kernel), which cannot afford K = 256 tiles.

Under the Triton interpreter (`TRITON_INTERPRET=1`, used by
`kernlint verify --interpret` on machines without a GPU) autotuning would
benchmark on a GPU, so only the first config is returned there.
"""

from __future__ import annotations

import os

# (BLOCK_M, BLOCK_N, BLOCK_K, SPLIT_K, num_warps, num_stages)
INT8_MATMUL_TILES = (
    (32, 32, 128, 1, 4, 4),  # first: the one config used under the interpreter
    (16, 32, 256, 1, 4, 4),
    (16, 64, 256, 1, 4, 4),
    (16, 64, 256, 2, 4, 4),
    (32, 64, 256, 2, 4, 4),
    (64, 32, 256, 1, 4, 4),
    (16, 32, 256, 2, 4, 4),
    (16, 32, 512, 2, 4, 3),
    (16, 64, 512, 1, 4, 3),
    (32, 32, 512, 1, 4, 3),
    (64, 32, 512, 1, 4, 3),
    (64, 32, 256, 2, 4, 4),
    (64, 64, 256, 2, 4, 4),
    (64, 64, 256, 4, 4, 4),
    (128, 64, 256, 4, 8, 3),
    (64, 64, 64, 1, 4, 5),
    (128, 128, 64, 1, 8, 4),
    (128, 128, 128, 1, 8, 3),
    (128, 256, 128, 1, 8, 3),
)

GROUP_M = 8  # rows of tiles that share a column band of B in L2 (tutorial swizzle)

# Split-K keeps one fp32 partial tile per split in a workspace; only shapes
# whose outputs are small enough to keep that workspace cheap may use it.
SPLIT_K_MAX_OUTPUT = 1 << 21  # elements of the [M, N] output


def interpreting() -> bool:
    """True when Triton runs kernels in its CPU interpreter."""
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def int8_matmul_configs():
    """The autotune configs (only the first under the interpreter)."""
    import triton

    configs = [
        triton.Config(
            {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "SPLIT_K": sk, "GROUP_M": GROUP_M},
            num_warps=warps,
            num_stages=stages,
        )
        for bm, bn, bk, sk, warps, stages in INT8_MATMUL_TILES
    ]
    return configs[:1] if interpreting() else configs


def prune_configs(configs, named_args, **kwargs):
    """Drop configs that cannot pay off for this problem size.

    Split-K only where the output is small (its workspace is SPLIT_K x M x N
    fp32); tiles much taller than M only waste work.
    """
    M, N = named_args["M"], named_args["N"]
    kept = []
    for config in configs:
        kw = config.kwargs
        if kw["SPLIT_K"] > 1 and M * N > SPLIT_K_MAX_OUTPUT:
            continue
        if kw["BLOCK_M"] > max(16, 2 * M):
            continue
        kept.append(config)
    return kept or configs[:1]
