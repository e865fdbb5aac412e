"""PyTorch reference for the GEMV pair: the library's INT8 matmul with
row-wise dequantization and bias (kernlint.kernels.int8_problem), at GEMV
sizes."""

from kernlint.kernels.int8_problem import Model, get_init_inputs, get_inputs

__all__ = ["INTERPRET_SHAPES", "SHAPES", "Model", "get_init_inputs", "get_inputs"]

# Problem sizes this pair is measured on (M = rows of x, K = in_features,
# N = out_features): single-token decode GEMVs (M = 1) on LLM-sized weights,
# where the weight read is the whole cost, and M = 2 (two tokens).
SHAPES = {
    "gemv": {"M": 1, "K": 4096, "N": 4096},
    "gemv_mlp": {"M": 1, "K": 4096, "N": 14336},
    "gemv_m2": {"M": 2, "K": 8192, "N": 8192},
}

# Tiny sizes for `kernlint verify --interpret` (the Triton interpreter on the
# CPU).  `even` divides every tile; `ragged` exercises the masks on N and K.
INTERPRET_SHAPES = {
    "even": {"M": 1, "K": 256, "N": 64},
    "ragged": {"M": 2, "K": 300, "N": 72},
}
