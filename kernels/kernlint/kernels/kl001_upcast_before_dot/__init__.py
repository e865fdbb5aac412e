"""Pair `kl001_upcast_before_dot`: int8 tiles cast to fp32 before tl.dot vs. int8 tl.dot with int32 accumulation."""

RULES = ("KL001",)
DESCRIPTION = "int8 tiles cast to fp32 before tl.dot vs. int8 tl.dot with int32 accumulation"
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16
# output rounding alone gives ~2e-4).
TOLERANCE = {"float16": 2e-3}
# Other rules a linter may also report on before.py (none: the anti-pattern
# is the only defect), unless listed here.
BEFORE_MAY_ALSO_REPORT = ()
