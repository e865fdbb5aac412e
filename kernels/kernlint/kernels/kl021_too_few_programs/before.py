"""KL021 before: one program per row for 16 rows of 4 M elements.

LayerNorm over a row of N = 64*256*256 elements with `grid = (B,)`: each
program reads its whole row twice (sums, then normalize) in 1024-element
steps. With B = 16 the GPU's 132 SMs run 16 programs; the others idle.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 1024


@triton.jit
def _layernorm_rows(x_ptr, w_ptr, b_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * N
    y_row = y_ptr + row * N
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    total_sq = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(x_row + offs, mask=offs < N, other=0.0).to(tl.float32)
        total += v
        total_sq += v * v
    mean = tl.sum(total, axis=0) / N
    var = tl.sum(total_sq, axis=0) / N - mean * mean
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < N
        v = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=mask, other=0.0)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0)
        tl.store(y_row + offs, ((v - mean) * rstd * w + b).to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape, eps=1e-5)

    def forward(self, x):
        B = x.shape[0]
        N = x.numel() // B
        y = torch.empty_like(x)
        _layernorm_rows[(B,)](x, self.ln.weight, self.ln.bias, y, N, 1e-5, BLOCK=BLOCK)
        return y


# KernelBench level 1 problem 40's sizes (the pair's "kernelbench" shape), in fp16.
batch_size = 16
features = 64
dim1 = 256
dim2 = 256


def get_inputs():
    return [torch.rand(batch_size, features, dim1, dim2, dtype=torch.float16)]


def get_init_inputs():
    return [(features, dim1, dim2)]
