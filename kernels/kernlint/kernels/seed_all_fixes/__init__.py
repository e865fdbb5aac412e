"""Pair `seed_all_fixes`: the seed kernel as given vs. all three fixes together."""

RULES = ("KL001", "KL002", "KL003")
DESCRIPTION = "seed kernel as given vs. int8 tl.dot + strided weight read + autotuned tiles"
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16
# output rounding alone gives ~2e-4).
TOLERANCE = {"float16": 2e-3}
# Other rules a linter may also report on before.py: the seed file is kept
# exactly as given, with its deprecated allow_tf32=True and its row-major
# tile order.
BEFORE_MAY_ALSO_REPORT = ("KL009", "KL010", "KL012", "KL014")
