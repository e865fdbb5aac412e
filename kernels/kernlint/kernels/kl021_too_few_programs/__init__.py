"""Pair `kl021_too_few_programs`: a LayerNorm over [16, 64*256*256] launched with one program per row (16 programs on a GPU of 132 SMs) vs. the same statistics split over chunks of each row (a partial-sums kernel and a normalize kernel, thousands of programs)."""

RULES = ("KL021",)
DESCRIPTION = (
    "LayerNorm over the last three dims of an fp16 [16, 64, 256, 256] tensor (KernelBench level 1 problem 40) with "
    "`grid = (16,)`, each program looping twice over its 4 M-element row, vs. `grid = (16, cdiv(N, 16384))` twice: "
    "per-chunk sums and sums of squares, then each chunk normalized from its row's partials"
)
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
