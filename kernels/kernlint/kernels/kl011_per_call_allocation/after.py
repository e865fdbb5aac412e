"""KL011 fixed: the table is built once in `__init__` and registered as a
buffer (it follows `module.to(device)`); forward only launches the kernel."""

import torch
import torch.nn as nn
import triton
from kernlint.kernels.kl011_per_call_allocation.before import _rotary_scale


class ModelNew(nn.Module):
    def __init__(self, dim=4096):
        super().__init__()
        self.dim = dim
        self.register_buffer("inv_freq", 1.0 / 10000 ** (torch.arange(0, dim).float() / dim), persistent=False)

    def forward(self, x):
        M, N = x.shape
        y = torch.empty_like(x)
        _rotary_scale[(M, triton.cdiv(N, 1024))](x, self.inv_freq, y, N, BLOCK=1024)
        return y
