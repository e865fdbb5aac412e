"""Pair `kl032_fp32_torch_gemm`: an fp32 linear layer on cuBLAS's fp32 path (torch's default, no TF32), then ReLU, vs. one Triton kernel computing the product with tl.dot on TF32 and the bias and ReLU in its epilogue."""

RULES = ("KL032",)
DESCRIPTION = (
    "relu(x @ W^T + b) with fp32 x [M, K], W [N, K] and b [N], fp16 result: `nn.Linear` (cuBLAS's fp32 GEMM, "
    "TF32 off as torch leaves it) and `torch.relu` vs. one Triton kernel, tl.dot on the fp32 tiles (TF32), the "
    "weight read K-major as nn.Linear stores it, bias and ReLU in the epilogue. TF32 moves the result by about "
    "1e-3 relative (norm-wise about 5e-4 on random data): inside this pair's tolerance, not bit-exact fp32"
)
# As the KL018 pair's TF32 side: norm-wise about 5e-4 relative on randn inputs.
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ("KL004",)  # the ReLU and the cast after nn.Linear: the plan fuses them too
