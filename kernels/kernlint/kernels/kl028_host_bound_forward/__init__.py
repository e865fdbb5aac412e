"""Pair `kl028_host_bound_forward`: a small residual CNN at batch 2 run op by op from Python vs. the same forward replayed as one CUDA graph."""

RULES = ("KL028",)
DESCRIPTION = (
    "a residual CNN written here (a strided conv stem, 8 blocks of conv-BN-ReLU-conv-BN-add-ReLU at 32 channels, "
    "global average pool, linear head; train-mode BatchNorm, fp16), about 60 kernels per call, at batch 2 (the "
    "batch of KernelBench level 3's ResNet-18) and at batch 128: issued op by op from Python vs. captured once "
    "in a CUDA graph and replayed (inputs copied in, output cloned out); the reference is the same torch network"
)
# Both sides run the same cuDNN/ATen kernels in fp16; the graph replays them.
TOLERANCE = {"float16": 1e-2}
# The blocks' conv -> BatchNorm -> ReLU tails (unfused in both files: the pair measures the capture alone).
BEFORE_MAY_ALSO_REPORT = ("KL004",)
