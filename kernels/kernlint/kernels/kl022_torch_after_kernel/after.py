"""KL022 fixed: GELU and the scale in the kernel's epilogue.

The LayerNorm kernel applies GELU (erf form, as torch's default) and the
scaling factor to its fp32 result before the one fp16 store: y is written
once and never read back.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _layernorm_gelu_scale(x_ptr, w_ptr, b_ptr, y_ptr, M, N, eps, scale, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, BLOCK_N)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    offs = rows[:, None].to(tl.int64) * N + cols[None, :]
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=1) / N
    diff = tl.where(mask, x - mean[:, None], 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(diff * diff, axis=1) / N + eps)
    w = tl.load(w_ptr + cols, mask=cols < N, other=0.0)
    b = tl.load(b_ptr + cols, mask=cols < N, other=0.0)
    y = diff * rstd[:, None] * w[None, :] + b[None, :]
    y = 0.5 * y * (1.0 + tl.math.erf(y * 0.7071067811865476))
    tl.store(y_ptr + offs, (y * scale).to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape, scaling_factor):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape, eps=1e-5)
        self.scaling_factor = scaling_factor

    def forward(self, x):
        M, N = x.shape
        y = torch.empty_like(x)
        block_n = triton.next_power_of_2(N)
        rows = max(1, 4096 // block_n)
        _layernorm_gelu_scale[(triton.cdiv(M, rows),)](
            x, self.ln.weight, self.ln.bias, y, M, N, 1e-5, self.scaling_factor, ROWS=rows, BLOCK_N=block_n
        )
        return y
