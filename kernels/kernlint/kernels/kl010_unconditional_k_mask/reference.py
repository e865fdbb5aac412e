"""PyTorch reference (KernelBench form): the fp16 GEMM problem
(kernlint.kernels.fp16_problem) at this pair's shapes."""

from kernlint.kernels.fp16_problem import Model, dram_bytes, kernelbench_functions, truth

__all__ = ["INTERPRET_SHAPES", "SHAPES", "Model", "dram_bytes", "get_init_inputs", "get_inputs", "truth"]

# Problem sizes (M = rows of x, K = in_features, N = out_features); the
# shape names are the library's common ones. K is a multiple of every
# BLOCK_K, as in almost every production GEMM, so the EVEN_K path applies:
# `seed` a square 4096^3 GEMM, `decode` a skinny LLM decode step, `large`
# 8192^3.
SHAPES = {
    "seed": {"M": 4096, "K": 4096, "N": 4096},
    "decode": {"M": 16, "K": 8192, "N": 8192},
    "large": {"M": 8192, "K": 8192, "N": 8192},
}

# Tiny sizes for `kernlint verify --interpret`: `even` divides the
# interpreter's 32 x 32 x 32 tile; `ragged` exercises the M, N and K masks.
INTERPRET_SHAPES = {
    "even": {"M": 64, "K": 64, "N": 96},
    "ragged": {"M": 40, "K": 72, "N": 56},
}

get_inputs, get_init_inputs = kernelbench_functions(SHAPES, INTERPRET_SHAPES)
