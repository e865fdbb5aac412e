"""Pair `kl007_materialized_attention`: softmax(q @ k^T) @ v in torch vs. a fused flash-attention Triton kernel."""

RULES = ("KL007",)
DESCRIPTION = (
    "attention with the score matrix materialized in torch (q @ k.transpose, softmax, @ v) vs. a fused "
    "flash-attention Triton kernel with online softmax; the reference is scaled_dot_product_attention"
)
# fp16 inputs and output; the torch `before` rounds scores and probabilities to
# fp16 between its three kernels.
TOLERANCE = {"float16": 2e-3}
BEFORE_MAY_ALSO_REPORT = ()
