"""KL024 before: a multi-layer GRU run by nn.GRU (cuDNN).

cuDNN runs each layer's recurrence as a sequence of small per-step kernels
(a [B, H] x [H, 3H] GEMM and the gate math): at batch 10 each step is a few
microseconds of launch and synchronization for a few hundred kilobytes of
work, 512 steps x 6 layers of it.
"""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, input_size=128, hidden_size=256, num_layers=6):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers=num_layers, bias=True, batch_first=False).half()

    def forward(self, x: torch.Tensor, h0: torch.Tensor) -> torch.Tensor:
        output, _ = self.gru(x, h0)
        return output
