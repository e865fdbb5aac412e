"""Pair `kl005_per_step_launch_loop`: a GRU layer over a sequence with two launches per time step vs. one persistent Triton kernel with the time loop inside."""

RULES = ("KL005",)
DESCRIPTION = (
    "GRU layer (KernelBench level-3 shape: seq 512, batch 10, input 128, hidden 256, fp16): an addmm and a "
    "cell kernel per time step vs. one input-projection GEMM for all steps and one persistent kernel; "
    "the reference is nn.GRU (cuDNN), the library baseline"
)
# Relative L2 error allowed per output dtype: the hidden state is rounded to
# fp16 at every step and the error of 512 steps adds up (contracting).
TOLERANCE = {"float16": 5e-3}
BEFORE_MAY_ALSO_REPORT = ()
