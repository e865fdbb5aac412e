"""Pair `kl020_gemm_without_dot`: an fp16 GEMM computed as a K loop of outer-product multiply-adds on the CUDA cores vs. the same product with `tl.dot` tiles on the tensor cores."""

RULES = ("KL020",)
DESCRIPTION = (
    "C = A @ B (fp16 operands, fp32 accumulation, fp16 result) with a 64x64 output tile per program and "
    "`for k in range(K): acc += a[:, None] * b[None, :]` (one column of A and one row of B per step) vs. the "
    "tiled `tl.dot` kernel (128x128x32 tiles, GROUP_M ordering, EVEN_K fast path)"
)
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
