"""KL016 fixed: an int8 Triton kernel with the dequant fused, no fp32 upcast.

    out = fp16((x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias)

Instead of upcasting x and the weight to fp32 and calling `torch.matmul`
(three fp32 copies and an fp32 GEMM, then four elementwise kernels), one
kernel multiplies the int8 operands on the int8 tensor-core path with int32
accumulation and applies scales and bias in its epilogue.  The rule's other
fix, `torch._int_mm` followed by the epilogue in torch, was measured too
(`kernlint verify` records it as `int_mm` per shape): it needs M > 16, so it
cannot serve the decode shape, and its separate epilogue kernels make it
slower than this fused kernel (see the record).  The kernel is the library's
int8 GEMM (`kernlint.kernels._int8_gemm`): the weight is read through
strides in its stored [N, K] layout, tiles are autotuned on (M, N, K).
"""

from kernlint.kernels._int8_gemm import Int8MatmulDequant, int8_matmul_dequant_kernel
from kernlint.kernels._int8_linear import Int8Linear

int8_matmul = Int8MatmulDequant(int8_matmul_dequant_kernel)


class ModelNew(Int8Linear):
    """The library's int8 GEMM in place of the fp32 torch.matmul of this pair's before."""

    def forward(self, x, scale_x):
        return int8_matmul.linear(x, self.weight_int8, scale_x, self.scale_w, self.bias)
