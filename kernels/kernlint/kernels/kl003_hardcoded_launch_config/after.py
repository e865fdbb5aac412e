"""KL003 fixed: tiles, warps, stages and split-K come from `@triton.autotune`.

    out = fp16((x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias)

The config search space (`kernlint.kernels._configs`) covers skinny decode
shapes (16-32 row tiles, BLOCK_K = 256, split-K) and square GEMMs (128 x 128
and 128 x 256 tiles, 8 warps), keyed on (M, N, K) so each problem size gets
its own best config, resolved once per problem: later calls launch the
compiled kernel directly (`kernlint.kernels._launch`), so the autotuner
costs no host time per call.  The kernel is the library's int8 GEMM
(`kernlint.kernels._int8_gemm`); everything else is as in this pair's
`before`: int8 `tl.dot` with int32 accumulation, weight read through
strides, fused dequant + bias epilogue, L2 swizzle, EVEN_K.
"""

from kernlint.kernels._int8_gemm import Int8MatmulDequant, int8_matmul_dequant_kernel
from kernlint.kernels._int8_linear import Int8Linear

int8_matmul = Int8MatmulDequant(int8_matmul_dequant_kernel)


class ModelNew(Int8Linear):
    """The library's int8 GEMM, autotuned; this pair's before launches one fixed config."""

    def forward(self, x, scale_x):
        return int8_matmul.linear(x, self.weight_int8, scale_x, self.scale_w, self.bias)
