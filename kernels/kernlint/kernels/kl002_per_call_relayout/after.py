"""KL002 fixed: the weight is read in its stored [N, K] layout through strides.

    out = fp16((x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias)

The kernel indexes B = weight.T as B[k, n] = weight[n, k] by passing the
weight's strides swapped (stride_bk = weight.stride(1), stride_bn =
weight.stride(0)): no per-call transpose, no copy.  [N, K] is K-major, the
operand layout int8 tensor cores want, so the strided read is also the fast
one.  The kernel is the library's int8 GEMM (`kernlint.kernels._int8_gemm`);
everything else is as in this pair's `before`: int8 `tl.dot` with int32
accumulation, tiles from `@triton.autotune` keyed on (M, N, K), fused
dequant + bias epilogue, L2 swizzle, EVEN_K, split-K.
"""

from kernlint.kernels._int8_gemm import Int8MatmulDequant, int8_matmul_dequant_kernel
from kernlint.kernels._int8_linear import Int8Linear

int8_matmul = Int8MatmulDequant(int8_matmul_dequant_kernel)


class ModelNew(Int8Linear):
    """The library's int8 GEMM reading the weight in place (the before copies weight.T per call)."""

    def forward(self, x, scale_x):
        return int8_matmul.linear(x, self.weight_int8, scale_x, self.scale_w, self.bias)
