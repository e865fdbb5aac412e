"""KL026 fixed: the sum moved through the division and the GEMM.

sum_j (x W^T)_j = x (W^T 1): the weight summed over its rows (one read of
W, in fp32) and one GEMV of x with that vector give the M results; the
division and the scale apply to M numbers. The summed weight is computed
per call, so it follows the weight when it changes.
"""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size=8192, hidden_size=8192, scaling_factor=1.5):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(hidden_size, input_size).half())
        self.scaling_factor = scaling_factor

    def forward(self, x):
        summed = self.weight.sum(dim=0, dtype=torch.float32)  # [I]: W^T 1
        out = torch.mv(x.float(), summed) * (self.scaling_factor / 2)
        return out.unsqueeze(1).half()
