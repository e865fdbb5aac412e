"""Pair `kl006_host_sync_in_hot_path`: an input check that branches on `.item()` every call vs. the same check as a device-side assert, around the same fused int8 GEMM."""

RULES = ("KL006",)
DESCRIPTION = (
    "`if (scale_x <= 0).any().item(): raise` before the fused int8 GEMM (a host sync per call) vs. "
    "`torch._assert_async((scale_x > 0).all())` (the same check on the device, no sync). A host sync cannot "
    "be captured in a CUDA graph, so before.py has no graph time: the gain is eager time"
)
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
