"""Pair `kl009_missing_l2_swizzle`: fp16 GEMM, row-major tile order (pid // num_pid_n) vs. GROUP_M = 8 grouped order."""

RULES = ("KL009",)
DESCRIPTION = "fp16 GEMM, row-major tile order (pid // num_pid_n) vs. GROUP_M = 8 grouped order"
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16
# output rounding alone gives ~2e-4).
TOLERANCE = {"float16": 2e-3}
# Other rules a linter may also report on before.py (none: the anti-pattern
# is the only defect), unless listed here.
BEFORE_MAY_ALSO_REPORT = ()
