"""Pair `kl017_jit_in_hot_path`: a SiLU kernel defined under `@triton.jit` inside `forward` (a new kernel object, so a compile or disk-cache reload, every call) vs. the same kernel at module level."""

RULES = ("KL017",)
DESCRIPTION = (
    "`@triton.jit def _silu(...)` written inside ModelNew.forward, so each call builds a new kernel object "
    "whose compile cache is empty, vs. the same kernel defined once at module level. A compile cannot be "
    "captured in a CUDA graph, so the gain is eager time"
)
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
