"""The fused int8 GEMM behind an input check that reads a device value on
the host every call (KL006's anti-pattern): `.item()` waits for the GPU to
finish all queued work before the GEMM can even be launched."""

import torch
import torch.nn as nn
from kernlint.kernels.kl004_unfused_epilogue.after import int8_matmul_dequant


class ModelNew(nn.Module):
    def __init__(self, in_features=2048, out_features=2048):
        super().__init__()
        self.weight_int8 = nn.Parameter(
            torch.randint(-128, 127, (out_features, in_features), dtype=torch.int8), requires_grad=False
        )
        self.scale_w = nn.Parameter(torch.randn(out_features, dtype=torch.float32).abs() * 0.01, requires_grad=False)
        self.bias = nn.Parameter(torch.randn(out_features, dtype=torch.float16) * 0.01, requires_grad=False)

    def forward(self, x: torch.Tensor, scale_x: torch.Tensor) -> torch.Tensor:
        if (scale_x <= 0).any().item():
            raise ValueError("scale_x must be positive")
        return int8_matmul_dequant(x, self.weight_int8, scale_x, self.scale_w, self.bias)
