"""Pair `kl008_multipass_softmax`: row softmax over rows longer than one block, three passes (max, exp-sum, normalize) vs. online softmax (two passes)."""

RULES = ("KL008",)
DESCRIPTION = (
    "row softmax, rows longer than one block: three passes (max, exp-sum, normalize) vs. online softmax (two passes)"
)
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16
# output rounding alone gives ~2e-4).
TOLERANCE = {"float16": 2e-3}
# Other rules a linter may also report on before.py (none: the anti-pattern
# is the only defect), unless listed here.
BEFORE_MAY_ALSO_REPORT = ()
