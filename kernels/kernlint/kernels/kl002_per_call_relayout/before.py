"""KL002 present: the int8 weight is transposed and copied on every call.

    out = fp16((x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias)

The only defect: the host wrapper materializes `weight_int8.t().contiguous()`
([K, N], a full read and write of the weight) on every forward before the
kernel reads it.  The kernel is the `after`'s own (the library's int8 GEMM,
`kernlint.kernels._int8_gemm`), launched the same way, reading the copy.
"""

import torch
import torch.nn as nn
from kernlint.kernels._int8_gemm import Int8MatmulDequant, int8_matmul_dequant_kernel

int8_matmul = Int8MatmulDequant(int8_matmul_dequant_kernel)


def int8_matmul_dequant(x, weight_int8, scale_x, scale_w, bias):
    """fp16 [M, N] = dequant(x [M, K] int8 @ weight_int8 [N, K] int8 .T) + bias."""
    b = weight_int8.t().contiguous()  # [K, N] copy of the weight, every call
    return int8_matmul(x, b, b.stride(0), b.stride(1), b.shape[1], scale_x, scale_w, bias)


class ModelNew(nn.Module):
    """Autotuned int8 kernel whose wrapper re-lays out the weight on every call."""

    def __init__(self, in_features=2048, out_features=2048):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight_int8 = nn.Parameter(
            torch.randint(-128, 127, (out_features, in_features), dtype=torch.int8),
            requires_grad=False,
        )
        self.scale_w = nn.Parameter(
            torch.randn(out_features, dtype=torch.float32).abs() * 0.01,
            requires_grad=False,
        )
        self.bias = nn.Parameter(
            torch.randn(out_features, dtype=torch.float16) * 0.01,
            requires_grad=False,
        )

    def forward(self, x: torch.Tensor, scale_x: torch.Tensor) -> torch.Tensor:
        return int8_matmul_dequant(x, self.weight_int8, scale_x, self.scale_w, self.bias)
