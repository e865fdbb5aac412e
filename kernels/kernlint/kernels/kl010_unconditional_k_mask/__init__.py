"""Pair `kl010_unconditional_k_mask`: fp16 GEMM, K-loop loads masked on K every iteration vs. an EVEN_K heuristic with unmasked loads."""

RULES = ("KL010",)
DESCRIPTION = "fp16 GEMM, K-loop loads masked on K every iteration vs. an EVEN_K heuristic with unmasked loads"
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16
# output rounding alone gives ~2e-4).
TOLERANCE = {"float16": 2e-3}
# Other rules a linter may also report on before.py (none: the anti-pattern
# is the only defect), unless listed here.
BEFORE_MAY_ALSO_REPORT = ()
