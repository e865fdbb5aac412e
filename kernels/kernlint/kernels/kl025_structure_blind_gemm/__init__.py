"""Pair `kl025_structure_blind_gemm`: a product with a diagonal matrix as a dense GEMM vs. row scaling."""

RULES = ("KL025",)
DESCRIPTION = (
    "diag(a) @ B (KernelBench level 1 problem 12's formula, N = M = 4096, fp16): torch.diag writes an N x N "
    "matrix and a dense GEMM does 2 N^2 M flops on it, vs. scaling B's rows by a (one elementwise kernel); "
    "the reference is the broadcast product"
)
# fp16 in and out: the GEMM adds N - 1 exact zeros to each product, the
# broadcast rounds the same product once.
TOLERANCE = {"float16": 1e-3}
BEFORE_MAY_ALSO_REPORT = ()
