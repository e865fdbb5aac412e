"""Pair `kl019_scalar_programs`: a LeakyReLU kernel with one program per element (scalar load and store) vs. the same op over 1024-element blocks."""

RULES = ("KL019",)
DESCRIPTION = (
    "LeakyReLU(0.01) on fp16 with `grid = (x.numel(),)` and scalar `tl.load(x_ptr + pid)` per program vs. "
    "`grid = (cdiv(n, 1024),)` with `tl.arange(0, 1024)` offsets and a mask"
)
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
