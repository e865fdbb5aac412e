"""Pair `kl011_per_call_allocation`: a constant frequency table built per call vs. a registered buffer."""

RULES = ("KL011",)
DESCRIPTION = (
    "a rotary-style scale whose constant frequency table is built on every call "
    "(torch.arange(...).float() on the host, .to(device)) vs. the same kernel reading a registered buffer"
)
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
