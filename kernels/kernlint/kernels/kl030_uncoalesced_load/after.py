"""KL030 fixed: one program per (b, block of 128 columns), its lanes on adjacent columns.

Each program walks down the rows 32 at a time, loading a [32, 128] tile whose rows are 128 adjacent elements
(coalesced), and sums it over the rows: every sector it reads is used whole.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_R = 32
BLOCK_C = 128


@triton.jit
def _sum_dim1_rows(x_ptr, out_ptr, D1, D2, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    b = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    rows = tl.arange(0, BLOCK_R)
    base = x_ptr + b.to(tl.int64) * D1 * D2
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r0 in range(0, D1, BLOCK_R):
        r = r0 + rows
        tile = tl.load(base + r[:, None] * D2 + cols[None, :], mask=(r[:, None] < D1) & (cols[None, :] < D2), other=0.0)
        acc += tl.sum(tile, axis=0)
    tl.store(out_ptr + b * D2 + cols, acc, mask=cols < D2)


class ModelNew(nn.Module):
    def forward(self, x):
        B, D1, D2 = x.shape
        out = torch.empty(B, D2, device=x.device, dtype=x.dtype)
        _sum_dim1_rows[(B, triton.cdiv(D2, BLOCK_C))](x, out, D1, D2, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
        return out


batch_size = 16
dim1 = 4096
dim2 = 4096


def get_inputs():
    return [torch.randn(batch_size, dim1, dim2)]


def get_init_inputs():
    return []
