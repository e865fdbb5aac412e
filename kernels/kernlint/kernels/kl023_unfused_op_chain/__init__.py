"""Pair `kl023_unfused_op_chain`: L1 row normalization as three torch ops (abs, mean, divide) vs. one Triton kernel per row."""

RULES = ("KL023",)
DESCRIPTION = (
    "L1 row normalization x / mean(|x|, dim=1) (KernelBench level 1 problem 38's formula) as three torch kernels "
    "(abs, mean, divide: five passes over the tensor) vs. one Triton kernel that reads each row twice and writes "
    "it once; the reference is the same torch formula"
)
# fp16 in and out; both sum in fp32, in different orders, and round the result to fp16.
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
