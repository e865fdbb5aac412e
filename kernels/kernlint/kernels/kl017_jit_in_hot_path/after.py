"""KL017 fixed: the same SiLU kernel, defined once at module level; after
the first call every launch finds its compiled binary in the kernel's cache."""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _silu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (v * tl.sigmoid(v)).to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        _silu[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        return y
