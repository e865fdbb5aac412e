"""Pair `kl026_collapsible_gemm`: a GEMM divided, summed over its outputs and scaled (KernelBench level 2 problem 14) vs. the same numbers from a GEMV with the weight summed once."""

RULES = ("KL026",)
DESCRIPTION = (
    "x @ W^T / 2, summed over the outputs and scaled (KernelBench level 2 problem 14's formula; 1024 x 8192 x 8192, "
    "fp16): a GEMM and two passes over its [M, N] output vs. the weight summed over its rows once and one GEMV; "
    "the reference is the same torch formula"
)
# fp16 in and out; the torch `before` rounds its [M, N] product and the
# halved product to fp16 before the sum (about 1e-3 of relative error at the
# interpreter's tiny shapes), the GEMV sums in fp32.
TOLERANCE = {"float16": 3e-3}
BEFORE_MAY_ALSO_REPORT = ()
