"""PyTorch reference (KernelBench form): the fp16 GEMM problem
(kernlint.kernels.fp16_problem) at this pair's shapes."""

from kernlint.kernels.fp16_problem import Model, dram_bytes, kernelbench_functions, truth

__all__ = ["INTERPRET_SHAPES", "SHAPES", "Model", "dram_bytes", "get_init_inputs", "get_inputs", "truth"]

# Problem sizes (M = rows of x, K = in_features, N = out_features). The
# shape names are the library's common ones. `seed` is 8192^3: A and B are
# 128 MB each, far beyond the H100's 50 MB L2, so tile order decides how
# often they are re-read from DRAM; `decode` has a single row of tiles (no
# order to change); `large` is a wide 16384 x 4096 x 8192 GEMM.
SHAPES = {
    "seed": {"M": 8192, "K": 8192, "N": 8192},
    "decode": {"M": 16, "K": 8192, "N": 8192},
    "large": {"M": 16384, "K": 4096, "N": 8192},
}

# Tiny sizes for `kernlint verify --interpret`: `even` divides the
# interpreter's 32 x 32 x 32 tile; `ragged` exercises the M, N and K masks.
INTERPRET_SHAPES = {
    "even": {"M": 64, "K": 64, "N": 96},
    "ragged": {"M": 40, "K": 72, "N": 56},
}

get_inputs, get_init_inputs = kernelbench_functions(SHAPES, INTERPRET_SHAPES)
