"""Pair `kl027_dead_or_constant_result`: a GEMM, dropout, a mean over the features and a softmax over that kept dimension of size 1 (KernelBench level 2 problem 66 as first released) vs. the ones it always returns, written by one fill."""

RULES = ("KL027",)
DESCRIPTION = (
    "softmax(mean(dropout(x @ W^T + b), dim=1, keepdim=True), dim=1) (KernelBench level 2 problem 66, "
    "Matmul_Dropout_Mean_Softmax, as first released; 1024 x 8192 x 8192, fp16): a GEMM, a mean over its [M, N] "
    "output and a softmax over a dimension of size 1, which is 1 for every input, vs. one fill of the [M, 1] "
    "ones; the reference is the same torch formula"
)
# The before's softmax of one number is exactly 1.0; so is the fill.
TOLERANCE = {"float16": 1e-3}
BEFORE_MAY_ALSO_REPORT = ()
