"""Pair `kl002_per_call_relayout`: per-call weight.t().contiguous() vs. reading the [N, K] weight through strides."""

RULES = ("KL002",)
DESCRIPTION = "per-call weight.t().contiguous() vs. reading the [N, K] weight through strides"
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16
# output rounding alone gives ~2e-4).
TOLERANCE = {"float16": 2e-3}
# Other rules a linter may also report on before.py (none: the anti-pattern
# is the only defect), unless listed here.
BEFORE_MAY_ALSO_REPORT = ()
