"""KL019 before: one program per element.

Each program loads one fp16 value, applies the slope and stores it; the
grid has x.numel() programs, each a whole thread block using one lane.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _leaky_relu(x_ptr, y_ptr, slope):
    pid = tl.program_id(0)
    v = tl.load(x_ptr + pid).to(tl.float32)
    tl.store(y_ptr + pid, tl.where(v > 0, v, v * slope).to(tl.float16))


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _leaky_relu[(x.numel(),)](x, y, 0.01)
        return y
