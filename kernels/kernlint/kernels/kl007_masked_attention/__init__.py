"""Pair `kl007_masked_attention`: minGPT's causal attention in torch (scale, masked_fill, softmax, dropout between the matmuls) vs. a fused causal flash-attention Triton kernel."""

RULES = ("KL007",)
DESCRIPTION = (
    "causal self-attention spelled as in minGPT (KernelBench level 3 problem 43: q @ k^T, a scale, masked_fill "
    "with a causal mask buffer, softmax, dropout, @ v; B 128, 8 heads, T 512, head size 96, fp16) vs. one causal "
    "flash-attention Triton kernel that skips the masked key tiles; the reference is "
    "scaled_dot_product_attention(is_causal=True)"
)
# fp16 inputs and output; the torch `before` rounds scores and probabilities to
# fp16 between its kernels.
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
