"""KL023 fixed: L1 row normalization in one Triton kernel.

One program per row: a first loop over the row's column blocks sums |x| in
fp32, a second loop reads the row again (from L2: a 32 KiB fp16 row of a
program still running) and stores x / mean. |x| never reaches memory and
there is one launch instead of three.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_C = 2048  # columns per step: 8 elements a thread at 8 warps


@triton.jit
def l1_normalize_rows_kernel(x_ptr, out_ptr, C, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * stride_row
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, C, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.abs(tl.load(x_ptr + base + offs, mask=offs < C, other=0.0).to(tl.float32))
    inv_mean = C / tl.sum(acc, axis=0)
    for start in range(0, C, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < C
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(out_ptr + base + offs, (x * inv_mean).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        block = min(BLOCK_C, triton.next_power_of_2(cols))
        l1_normalize_rows_kernel[(rows,)](x, out, cols, x.stride(0), BLOCK=block, num_warps=8)
        return out
