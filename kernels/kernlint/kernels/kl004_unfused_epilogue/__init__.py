"""Pair `kl004_unfused_epilogue`: an int8 Triton GEMM that writes its int32 accumulator, then dequant scales, bias and the fp16 cast as torch ops vs. the same GEMM with them in its epilogue."""

RULES = ("KL004",)
DESCRIPTION = (
    "int8 GEMM writing int32, then `* scale_x * scale_w / 127**2 + bias` and `.to(fp16)` in torch "
    "vs. the same autotuned GEMM with the scales, bias and cast applied to the accumulator before one fp16 store"
)
# Relative L2 error ||out - ref|| / ||ref|| allowed per output dtype (fp16
# output rounding alone gives ~2e-4).
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
