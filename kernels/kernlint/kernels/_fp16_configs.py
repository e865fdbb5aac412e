"""Autotune search space of the library's fp16 GEMM kernels (the KL009 and
KL010 pairs): before and after of a pair search the same space, so the
speedup measures the rule's fix and not a difference in tuning.

Tiles for an H100 on large square fp16 GEMMs (128 x 256 and 128 x 128 with
8 warps, the sizes the Triton matmul tutorial settles on), one 64 x 64 tile
for skinny M. Under the interpreter only the first (small) config is used.
"""

from __future__ import annotations

from kernlint.kernels._configs import interpreting

# (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages); the first is the
# interpreter's config.
FP16_GEMM_TILES = (
    (32, 32, 32, 4, 4),
    (128, 256, 64, 8, 3),
    (128, 128, 64, 8, 4),
    (64, 64, 64, 4, 4),
)

GROUP_M = 8  # rows of tiles that share a column band of B in L2 (tutorial swizzle)


def fp16_gemm_configs(*, mask_choice: bool = False):
    """The autotune configs (only the first under the interpreter).

    With `mask_choice`, every tile comes twice, with UNMASKED_K True and
    False: a kernel that drops its K mask where K allows it (EVEN_K) also
    offers the autotuner the masked loop, so the mask-free kernel is only
    chosen where it measures no slower (the space is a superset of a
    kernel's without the choice).
    """
    import triton

    choices = (True, False) if mask_choice else (None,)
    configs = [
        triton.Config(
            {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, **({} if unmasked is None else {"UNMASKED_K": unmasked})},
            num_warps=warps,
            num_stages=stages,
        )
        for bm, bn, bk, warps, stages in FP16_GEMM_TILES
        for unmasked in choices
    ]
    return configs[:1] if interpreting() else configs
