"""KL009 fixed: output tiles in grouped order (GROUP_M rows of tiles at a time).

    out = x @ weight.T        fp16, fp32 accumulation

Programs that run together cover a GROUP_M x num_pid_n band of tiles, so
they share A rows and B columns in L2 (the Triton tutorial's swizzle).
Everything else is as in this pair's `before`: the same autotune space,
EVEN_K heuristic, weight read through strides as B = weight.T.
"""

from kernlint.kernels._fp16_gemm import ModelNew, fp16_linear

__all__ = ["ModelNew", "fp16_linear"]
