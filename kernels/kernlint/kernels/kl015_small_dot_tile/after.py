"""KL015 fixed: the int8 GEMV is a multiply-and-reduce, without `tl.dot`.

    out = fp16((x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias)

One program per (ROWS rows of x, BLOCK_N outputs): it streams BLOCK_N rows
of the weight, BLOCK_K bytes each (contiguous, coalesced), multiplies each
weight tile by the BLOCK_K slice of every one of its rows of x in int32 and
reduces over K in registers: no MMA padding, no shared-memory staging or
layout conversion.  A program takes up to two rows of x (ROWS, from M), so
at M = 2 each weight tile is read from memory once for both rows.

The K loop is a `tl.range` with `num_stages`: Triton software-pipelines the
loads of a loop without `tl.dot` (asynchronous copies, NUM_STAGES tiles in
flight) only when the loop asks for it, and a GEMV is bound by the bytes it
keeps in flight.  Otherwise as the `before` kernel: autotuned (same
BLOCK_N x BLOCK_K space), exact int32 accumulation, fused dequant + bias
epilogue, EVEN_K, launched the same way (`kernlint.kernels._int8_gemv`).
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl
from kernlint.kernels._configs import interpreting
from kernlint.kernels._int8_gemv import Int8Gemv


def first_config_under_interpreter(configs, named_args, **kwargs):
    # The interpreter cannot benchmark configs: run the first one there.
    return configs[:1] if interpreting() else configs


# (BLOCK_N, BLOCK_K, num_warps, num_stages): the `before` kernel's BLOCK_N x
# BLOCK_K space; the stages are the K loop's tiles in flight.
GEMV_TILES = (
    (64, 256, 4, 4),
    (32, 256, 4, 4),
    (32, 512, 4, 3),
    (64, 512, 8, 3),
    (128, 128, 4, 4),
    (16, 1024, 4, 3),
)


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_N": bn, "BLOCK_K": bk, "NUM_STAGES": stages}, num_warps=warps, num_stages=stages)
        for bn, bk, warps, stages in GEMV_TILES
    ],
    key=["M", "N", "K"],
    prune_configs_by={"early_config_prune": first_config_under_interpreter},
)
@triton.heuristics(
    {
        "EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0,
        # Two rows of x per program share each weight tile; one row when M = 1.
        "ROWS": lambda args: 2 if args["M"] >= 2 else 1,
    }
)
@triton.jit
def int8_gemv_reduce_kernel(
    x_ptr,
    w_ptr,  # int8 x [M, K]; int8 weight [N, K]
    scale_x_ptr,
    scale_w_ptr,  # fp32 [M], fp32 [N]
    bias_ptr,
    out_ptr,  # fp16 [N], fp16 out [M, N]
    M,
    N,
    K,
    stride_xm,
    stride_xk,
    stride_wn,
    stride_wk,
    stride_om,
    stride_on,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    NUM_STAGES: tl.constexpr,
    EVEN_K: tl.constexpr,
    ROWS: tl.constexpr,
):
    row0 = tl.program_id(0) * ROWS
    pid_n = tl.program_id(1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    n_mask = offs_n < N
    # A second row past M re-reads row0 (no mask needed on its loads); its store is masked.
    row1 = tl.minimum(row0 + 1, M - 1)
    x0_ptrs = x_ptr + row0 * stride_xm + offs_k * stride_xk
    x1_ptrs = x_ptr + row1 * stride_xm + offs_k * stride_xk
    w_ptrs = w_ptr + offs_n[:, None] * stride_wn + offs_k[None, :] * stride_wk

    acc0 = tl.zeros((BLOCK_N,), dtype=tl.int32)
    acc1 = tl.zeros((BLOCK_N,), dtype=tl.int32)
    for kt in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=NUM_STAGES):
        if EVEN_K:
            w = tl.load(w_ptrs, mask=n_mask[:, None], other=0).to(tl.int32)
            x0 = tl.load(x0_ptrs)
        else:
            k_mask = offs_k < K - kt * BLOCK_K
            w = tl.load(w_ptrs, mask=n_mask[:, None] & k_mask[None, :], other=0).to(tl.int32)
            x0 = tl.load(x0_ptrs, mask=k_mask, other=0)
        acc0 += tl.sum(w * x0.to(tl.int32)[None, :], axis=1)
        if ROWS == 2:
            if EVEN_K:
                x1 = tl.load(x1_ptrs)
            else:
                x1 = tl.load(x1_ptrs, mask=offs_k < K - kt * BLOCK_K, other=0)
            acc1 += tl.sum(w * x1.to(tl.int32)[None, :], axis=1)
        x0_ptrs += BLOCK_K * stride_xk
        x1_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk

    scale_w = tl.load(scale_w_ptr + offs_n, mask=n_mask, other=0.0)
    bias = tl.load(bias_ptr + offs_n, mask=n_mask, other=0.0).to(tl.float32)
    scale_x0 = tl.load(scale_x_ptr + row0)
    out0 = scale_w * (scale_x0 * (acc0.to(tl.float32) * (1.0 / (127.0 * 127.0)))) + bias
    tl.store(out_ptr + row0 * stride_om + offs_n * stride_on, out0.to(tl.float16), mask=n_mask)
    if ROWS == 2:
        scale_x1 = tl.load(scale_x_ptr + row1)
        out1 = scale_w * (scale_x1 * (acc1.to(tl.float32) * (1.0 / (127.0 * 127.0)))) + bias
        n_end = tl.where(row0 + 1 < M, N, 0)  # no second row: store nothing
        tl.store(out_ptr + row1 * stride_om + offs_n * stride_on, out1.to(tl.float16), mask=offs_n < n_end)


def gemv_grid(meta):
    """One program per ROWS rows of x and BLOCK_N outputs."""
    return (triton.cdiv(meta["M"], meta["ROWS"]), triton.cdiv(meta["N"], meta["BLOCK_N"]))


int8_gemv_dequant = Int8Gemv(int8_gemv_reduce_kernel, gemv_grid)


class ModelNew(nn.Module):
    """The int8 GEMV as a multiply-and-reduce kernel."""

    def __init__(self, in_features=2048, out_features=2048):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight_int8 = nn.Parameter(
            torch.randint(-128, 127, (out_features, in_features), dtype=torch.int8),
            requires_grad=False,
        )
        self.scale_w = nn.Parameter(
            torch.randn(out_features, dtype=torch.float32).abs() * 0.01,
            requires_grad=False,
        )
        self.bias = nn.Parameter(
            torch.randn(out_features, dtype=torch.float16) * 0.01,
            requires_grad=False,
        )

    def forward(self, x: torch.Tensor, scale_x: torch.Tensor) -> torch.Tensor:
        return int8_gemv_dequant(x, self.weight_int8, scale_x, self.scale_w, self.bias)
