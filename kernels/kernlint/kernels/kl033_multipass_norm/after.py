"""KL033 fixed: the row's statistics in one pass, then one normalize pass.

    out = (x - mean) / sqrt(var + eps)        x fp32 [M, N], out fp16 [M, N]

The first pass accumulates the sum and the sum of squares per lane in fp32 (var = E[x^2] - mean^2, clamped at
zero); the lanes are combined once after the loop, and a second pass normalizes and writes. Rows of a large
mean relative to their spread lose precision in E[x^2] - mean^2: Welford's running mean and M2 per lane,
merged after the loop, keep it at the same two passes. Everything else is as in this pair's `before`: the same
block size and warps, fp32 math, one program per row.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl
from kernlint.kernels._configs import interpreting
from kernlint.kernels.kl033_multipass_norm.reference import EPS


@triton.jit
def norm_two_pass_kernel(x_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    y_row = y_ptr + row * n_cols
    cols = tl.arange(0, BLOCK)

    s = tl.zeros((BLOCK,), tl.float32)
    q = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, n_cols, BLOCK):
        x = tl.load(x_row + off + cols, mask=off + cols < n_cols, other=0.0)
        s += x
        q += x * x
    mean = tl.sum(s, 0) / n_cols
    var = tl.maximum(tl.sum(q, 0) / n_cols - mean * mean, 0.0)
    rstd = 1.0 / tl.sqrt(var + eps)

    for off in range(0, n_cols, BLOCK):
        x = tl.load(x_row + off + cols, mask=off + cols < n_cols, other=0.0)
        tl.store(y_row + off + cols, ((x - mean) * rstd).to(tl.float16), mask=off + cols < n_cols)


def row_norm(x):
    """fp16 [M, N] rows of fp32 x normalized."""
    assert x.dtype == torch.float32 and x.dim() == 2 and x.is_contiguous()
    M, N = x.shape
    y = torch.empty((M, N), device=x.device, dtype=torch.float16)
    block = min(triton.next_power_of_2(N), 2048 if interpreting() else 4096)
    norm_two_pass_kernel[(M,)](x, y, N, EPS, BLOCK=block, num_warps=8)
    return y


class ModelNew(nn.Module):
    """Row normalization, two passes."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return row_norm(x)
