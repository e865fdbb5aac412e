"""KL011 before: the constant frequency table is rebuilt on every call.

`torch.arange` and the power run on the host and `.to(x.device)` copies the
table from pageable memory, synchronously, before the kernel can launch.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rotary_scale(x_ptr, f_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0).to(tl.float32)
    f = tl.load(f_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * N + cols, (x * tl.cos(row.to(tl.float32) * f)).to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim=4096):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        inv_freq = (1.0 / 10000 ** (torch.arange(0, self.dim).float() / self.dim)).to(x.device)
        M, N = x.shape
        y = torch.empty_like(x)
        _rotary_scale[(M, triton.cdiv(N, 1024))](x, inv_freq, y, N, BLOCK=1024)
        return y
