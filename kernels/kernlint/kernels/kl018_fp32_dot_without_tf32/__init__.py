"""Pair `kl018_fp32_dot_without_tf32`: an fp32 GEMM whose tl.dot sets `input_precision="ieee"` (FMA on the CUDA cores) vs. the same kernel with TF32 (the tensor cores)."""

RULES = ("KL018",)
DESCRIPTION = (
    'an fp32 GEMM (C = A @ B, fp32 operands, fp32 accumulation, fp16 result) with `tl.dot(a, b, acc, input_precision="ieee")` vs. the '
    'same kernel, configs and tile order with `input_precision="tf32"`. TF32 moves the result by about '
    "1e-3 relative (norm-wise about 5e-4 on random data): inside this pair's tolerance, not bit-exact fp32"
)
# Norm-wise relative error against float64; TF32 stays near 5e-4 on randn inputs.
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
