"""KL015 present: an int8 GEMV (M = 1-2) run through `tl.dot` with a 1-row tile.

    out = fp16((x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias)

The only defect: every autotune config has BLOCK_M = 1, so each `tl.dot`
multiplies a 1 x BLOCK_K slice of x by a BLOCK_K x BLOCK_N weight tile; the
MMA pads the single row to the tensor-core block and the weight tile goes
through shared memory and a layout conversion to feed it.  Otherwise as the
fixed kernel: autotuned, int32 accumulation, weight read through strides
(no copy), fused dequant + bias epilogue, EVEN_K, launched the same way
(`kernlint.kernels._int8_gemv`).
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


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 1, "BLOCK_N": 64, "BLOCK_K": 256}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 1, "BLOCK_N": 32, "BLOCK_K": 256}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 1, "BLOCK_N": 32, "BLOCK_K": 512}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 1, "BLOCK_N": 64, "BLOCK_K": 512}, num_warps=8, num_stages=3),
        triton.Config({"BLOCK_M": 1, "BLOCK_N": 128, "BLOCK_K": 128}, num_warps=4, num_stages=4),
        triton.Config({"BLOCK_M": 1, "BLOCK_N": 16, "BLOCK_K": 1024}, num_warps=4, num_stages=3),
    ],
    key=["M", "N", "K"],
    prune_configs_by={"early_config_prune": first_config_under_interpreter},
)
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def int8_gemv_dot_kernel(
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
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    EVEN_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    m_mask = offs_m < M
    n_mask = offs_n < N
    x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
    w_ptrs = w_ptr + offs_k[:, None] * stride_wk + offs_n[None, :] * stride_wn  # weight.T tile, no copy

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for kt in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            x = tl.load(x_ptrs, mask=m_mask[:, None], other=0)
            w = tl.load(w_ptrs, mask=n_mask[None, :], other=0)
        else:
            k_mask = offs_k < K - kt * BLOCK_K
            x = tl.load(x_ptrs, mask=m_mask[:, None] & k_mask[None, :], other=0)
            w = tl.load(w_ptrs, mask=k_mask[:, None] & n_mask[None, :], other=0)
        acc = tl.dot(x, w, acc, out_dtype=tl.int32)
        x_ptrs += BLOCK_K * stride_xk
        w_ptrs += BLOCK_K * stride_wk

    scale_x = tl.load(scale_x_ptr + offs_m, mask=m_mask, other=0.0)
    scale_w = tl.load(scale_w_ptr + offs_n, mask=n_mask, other=0.0)
    bias = tl.load(bias_ptr + offs_n, mask=n_mask, other=0.0).to(tl.float32)
    out = scale_w[None, :] * (scale_x[:, None] * (acc.to(tl.float32) * (1.0 / (127.0 * 127.0)))) + bias[None, :]
    out_ptrs = out_ptr + offs_m[:, None] * stride_om + offs_n[None, :] * stride_on
    tl.store(out_ptrs, out.to(tl.float16), mask=m_mask[:, None] & n_mask[None, :])


def gemv_grid(meta):
    """One program per BLOCK_M rows of x and BLOCK_N outputs."""
    return (triton.cdiv(meta["M"], meta["BLOCK_M"]), triton.cdiv(meta["N"], meta["BLOCK_N"]))


# Launched like the `after` kernel (config resolved once per problem), so
# the pair's times differ only by the kernel.
int8_gemv_dequant = Int8Gemv(int8_gemv_dot_kernel, gemv_grid)


class ModelNew(nn.Module):
    """The int8 GEMV through a 1-row tl.dot tile."""

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
