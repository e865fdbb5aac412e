"""Pair `kl029_slow_library_kernel`: nn.MaxPool2d(3, stride=1) (PyTorch's CUDA kernel, which also computes the
window's argmax) vs. an index-free Triton sliding-window kernel."""

RULES = ("KL029",)
DESCRIPTION = (
    "A 3x3, stride-1 max pool over an fp16 NCHW tensor: nn.MaxPool2d (PyTorch's CUDA kernel, one thread per output "
    "with generic index arithmetic, the window's argmax found as well) vs. one Triton kernel in which each program "
    "takes a block of one output row and reduces the window's nine shifted loads; the reference is nn.MaxPool2d"
)
# A max selects one of its inputs: both sides return the same numbers.
TOLERANCE = {"float16": 1e-6}
BEFORE_MAY_ALSO_REPORT = ()
