"""Pair `kl031_tf32_operand_layout`: an fp32 GEMM on TF32 whose tl.dot reads B [K, N] row-major (unit stride along N) vs. the same kernel reading a K-major copy of B made in the call."""

RULES = ("KL031",)
DESCRIPTION = (
    "an fp32 GEMM (C = A @ B, A [M, K] and B [K, N] row-major, TF32 tl.dot, fp32 accumulation, fp16 result) "
    "loading B's tiles with their unit stride along N vs. the same kernel, config and tile order loading them "
    "from `b.t().contiguous()` (B's transpose, made in the call: K contiguous), its copy timed with it"
)
# Both sides run TF32: norm-wise about 5e-4 relative on randn inputs (as the KL018 pair's after).
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
