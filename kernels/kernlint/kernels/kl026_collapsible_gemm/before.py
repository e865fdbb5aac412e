"""KL026 before: the GEMM computed in full, then divided, summed over its
outputs and scaled: an [M, N] product written and read back to give M numbers."""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size=8192, hidden_size=8192, scaling_factor=1.5):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size).half())
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = torch.matmul(x, self.weight.T)
        x = x / 2
        x = torch.sum(x, dim=1, keepdim=True)
        return x * self.scaling_factor
