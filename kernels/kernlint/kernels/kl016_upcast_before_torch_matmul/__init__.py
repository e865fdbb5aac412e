"""Pair `kl016_upcast_before_torch_matmul`: x.float() @ w.t().float() in torch vs. an int8 Triton kernel with fused dequant."""

RULES = ("KL016",)
DESCRIPTION = "x.float() @ w.t().float() in torch vs. an int8 Triton kernel with fused dequant"
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16
# output rounding alone gives ~2e-4).
TOLERANCE = {"float16": 2e-3}
# Other rules a linter may also report on before.py (none: the anti-pattern
# is the only defect), unless listed here.
BEFORE_MAY_ALSO_REPORT = ("KL002", "KL004")
