"""Pair `kl015_small_dot_tile`: an int8 GEMV (M = 1-2) through tl.dot with a 1-row tile vs. a multiply-and-reduce kernel without tl.dot."""

RULES = ("KL015",)
DESCRIPTION = "int8 GEMV through tl.dot with a 1-row tile vs. a multiply-and-reduce kernel (no tl.dot)"
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16
# output rounding alone gives ~2e-4).
TOLERANCE = {"float16": 2e-3}
# Other rules a linter may also report on before.py (none: the anti-pattern
# is the only defect), unless listed here.
BEFORE_MAY_ALSO_REPORT = ()
