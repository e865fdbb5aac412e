"""KL016 present: int8 operands upcast to fp32 before `torch.matmul` (host code).

    out = fp16((x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias)

The seed's reference computation as a `ModelNew`: x and the weight are
converted to fp32 (`.float()`) and multiplied with `torch.matmul` (an fp32
GEMM), then dequantized and biased with elementwise torch ops.  Converting
the parameter and leaving the epilogue unfused come with the pattern
(KL002/KL004 may be reported too); the rule's fix removes all three.
"""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    """INT8 matmul computed in fp32 by torch."""

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
        result = x.float() @ self.weight_int8.t().float()
        divfactor = 1.0 / (127.0 * 127.0)
        output = self.scale_w[None, :] * (scale_x[:, None] * (result * divfactor))
        output = output + self.bias[None, :]
        return output.to(torch.float16)
