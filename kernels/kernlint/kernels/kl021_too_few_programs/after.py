"""KL021 fixed: each row split into chunks of 16384 elements.

A first kernel writes each chunk's sum and sum of squares (grid (B,
cdiv(N, CHUNK)): 4096 programs at the KernelBench shape); a second, on the
same grid, reduces its row's partials to the mean and rstd and normalizes
its chunk. x is read twice and y written once, as before, by every SM.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 1024
CHUNK = 16384


@triton.jit
def _partial_sums(x_ptr, part_ptr, N, CHUNKS, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    x_row = x_ptr + row * N
    total = tl.zeros((BLOCK,), dtype=tl.float32)
    total_sq = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, CHUNK, BLOCK):
        offs = chunk * CHUNK + start + tl.arange(0, BLOCK)
        v = tl.load(x_row + offs, mask=offs < N, other=0.0).to(tl.float32)
        total += v
        total_sq += v * v
    out = part_ptr + (row * CHUNKS + chunk) * 2
    tl.store(out, tl.sum(total, axis=0))
    tl.store(out + 1, tl.sum(total_sq, axis=0))


@triton.jit
def _normalize(
    x_ptr, w_ptr, b_ptr, y_ptr, part_ptr, N, CHUNKS, eps, CHUNK: tl.constexpr, BLOCK: tl.constexpr, PARTS: tl.constexpr
):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    parts = tl.arange(0, PARTS)
    part_row = part_ptr + row * CHUNKS * 2
    total = tl.sum(tl.load(part_row + parts * 2, mask=parts < CHUNKS, other=0.0), axis=0)
    total_sq = tl.sum(tl.load(part_row + parts * 2 + 1, mask=parts < CHUNKS, other=0.0), axis=0)
    mean = total / N
    rstd = 1.0 / tl.sqrt(total_sq / N - mean * mean + eps)
    x_row = x_ptr + row * N
    y_row = y_ptr + row * N
    for start in range(0, CHUNK, BLOCK):
        offs = chunk * CHUNK + start + tl.arange(0, BLOCK)
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
        chunks = triton.cdiv(N, CHUNK)
        part = torch.empty(B, chunks, 2, device=x.device, dtype=torch.float32)
        y = torch.empty_like(x)
        _partial_sums[(B, chunks)](x, part, N, chunks, CHUNK=CHUNK, BLOCK=BLOCK)
        _normalize[(B, chunks)](
            x,
            self.ln.weight,
            self.ln.bias,
            y,
            part,
            N,
            chunks,
            1e-5,
            CHUNK=CHUNK,
            BLOCK=BLOCK,
            PARTS=triton.next_power_of_2(chunks),
        )
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
