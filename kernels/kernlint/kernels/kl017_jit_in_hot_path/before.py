"""KL017 before: the SiLU kernel is defined inside `forward`.

Every call executes the `def` under `@triton.jit` again and gets a new
kernel object; Triton keeps compiled binaries on that object, so each call
starts with an empty cache and compiles (or reloads from the disk cache)
before it can launch.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 1024


class ModelNew(nn.Module):
    def forward(self, x):
        @triton.jit
        def _silu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            mask = offs < n
            v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_ptr + offs, (v * tl.sigmoid(v)).to(tl.float16), mask=mask)

        y = torch.empty_like(x)
        n = x.numel()
        _silu[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
        return y
