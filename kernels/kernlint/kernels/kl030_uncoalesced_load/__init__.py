"""Pair `kl030_uncoalesced_load`: a sum over the middle dimension of an fp32 [B, D1, D2] with one program per (batch, column), its lanes walking down the column a row apart, vs. one program per (batch, block of columns) whose lanes read adjacent columns of each row."""

RULES = ("KL030",)
DESCRIPTION = (
    "torch.sum(x, dim=1) of an fp32 [16, 4096, 4096] tensor (KernelBench level 1 problem 47's form) with one "
    "program per output, loading D1 elements a row apart in 256-lane steps, vs. a grid of (B, D2 / 256) programs "
    "each summing 256 adjacent columns down the rows"
)
# The library reads its relative-error bound under "float16" for every pair; this pair is fp32.
TOLERANCE = {"float16": 1e-4}
BEFORE_MAY_ALSO_REPORT = ()
