"""Pair `kl022_torch_after_kernel`: a Triton LayerNorm whose output goes through GELU and a scale in torch (two more passes over the tensor) vs. the same kernel applying GELU and the scale before its store."""

RULES = ("KL022",)
DESCRIPTION = (
    "LayerNorm over the last dim of fp16 [M, N] rows (the tail of KernelBench level 2 problem 34, "
    "LayerNorm -> GELU -> scaling) in a Triton kernel, then `F.gelu(y)` and `y * scaling_factor` in torch, vs. "
    "GELU (erf form) and the scale applied in the kernel's epilogue: one write of y instead of three writes and two reads"
)
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
