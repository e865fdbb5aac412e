"""Pair `kl033_multipass_norm`: a row normalization (instance/group/layer norm without affine) over rows longer than one block, three passes (mean, variance, normalize) vs. the statistics in one pass (two passes)."""

RULES = ("KL033",)
DESCRIPTION = (
    "row normalization (x - mean) / sqrt(var + eps), rows longer than one block: three passes (mean, variance, "
    "normalize) vs. the sum and the sum of squares in one pass, then normalize (two passes)"
)
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16 output rounding alone gives ~2e-4;
# E[x^2] - mean^2 in fp32 on unit-variance rows adds far less).
TOLERANCE = {"float16": 2e-3}
# Other rules a linter may also report on before.py (none: the anti-pattern is the only defect).
BEFORE_MAY_ALSO_REPORT = ()
