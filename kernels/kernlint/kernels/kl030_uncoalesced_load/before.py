"""KL030 before: one program per output (b, j), its lanes walking down column j.

Each program sums D1 elements a row (D2 elements) apart, 256 lanes a step: every lane's element comes in a
32-byte sector of its own. Adjacent programs read adjacent columns, so the sectors are shared through L2, but
the loads issue a transaction per lane.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 256


@triton.jit
def _sum_dim1_columns(x_ptr, out_ptr, D1, D2, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    b = pid // D2
    j = pid % D2
    base = x_ptr + b.to(tl.int64) * D1 * D2 + j
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for r0 in range(0, D1, BLOCK):
        rows = r0 + tl.arange(0, BLOCK)
        acc += tl.load(base + rows * D2, mask=rows < D1, other=0.0)
    tl.store(out_ptr + pid, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        B, D1, D2 = x.shape
        out = torch.empty(B, D2, device=x.device, dtype=x.dtype)
        _sum_dim1_columns[(B * D2,)](x, out, D1, D2, BLOCK=BLOCK)
        return out


batch_size = 16
dim1 = 4096
dim2 = 4096


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return []
