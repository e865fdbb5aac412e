"""Pair `kl003_hardcoded_launch_config`: fixed 64x64x32 tiles, 4 warps, 3 stages vs. @triton.autotune keyed on (M, N, K)."""

RULES = ("KL003",)
DESCRIPTION = "fixed 64x64x32 tiles, 4 warps, 3 stages vs. @triton.autotune keyed on (M, N, K)"
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16
# output rounding alone gives ~2e-4).
TOLERANCE = {"float16": 2e-3}
# Other rules a linter may also report on before.py (none: the anti-pattern
# is the only defect), unless listed here.
BEFORE_MAY_ALSO_REPORT = ()
