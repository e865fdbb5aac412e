"""KL025 fixed: the diagonal product as row scaling.

diag(a) @ B multiplies row i of B by a[i]: one broadcast multiply that
reads B and a once and writes C once, with no N x N matrix and no GEMM.
"""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a.unsqueeze(1) * b
