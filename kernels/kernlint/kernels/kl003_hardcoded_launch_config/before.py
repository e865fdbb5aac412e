"""KL003 present: one hard-coded launch config for every problem size.

    out = fp16((x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias)

The only defect: the launch always uses the seed's 64 x 64 x 32 tiles with
4 warps and 3 stages, too few programs for skinny shapes and too small a
tile for square ones.  The kernel is otherwise the fixed one: int8 `tl.dot`
with int32 accumulation, weight read through strides, fused dequant + bias
epilogue, L2 swizzle, EVEN_K (here decided on the host, since the tile is
known there).
"""

import torch
import triton
import triton.language as tl
from kernlint.kernels._epilogue import dequant_bias_store
from kernlint.kernels._int8_linear import Int8Linear


@triton.jit
def int8_fixed_tile_matmul_dequant_kernel(
    a_ptr,
    b_ptr,  # int8 x [M, K]; int8 weight [N, K] read as B = weight.T
    scale_x_ptr,
    scale_w_ptr,  # fp32 [M], fp32 [N]
    bias_ptr,
    c_ptr,  # fp16 [N], fp16 out [M, N]
    partials_ptr,
    counters_ptr,  # split-K workspace (unused when SPLIT_K == 1)
    M,
    N,
    K,
    stride_am,
    stride_ak,
    stride_bk,
    stride_bn,
    stride_cm,
    stride_cn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    SPLIT_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    EVEN_K: tl.constexpr,
):
    # Output tile of this program, in grouped order; program_id(1) is its K split.
    pid = tl.program_id(0)
    pid_k = tl.program_id(1)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    # This split's share of K, in whole BLOCK_K steps.
    k_tiles = tl.cdiv(tl.cdiv(K, BLOCK_K), SPLIT_K)
    k_start = pid_k * k_tiles * BLOCK_K

    # Rows/columns wrap modulo M/N so the loads need no M/N mask; the store is masked.
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_am = (offs_m % M).to(tl.int64)
    offs_bn = (offs_n % N).to(tl.int64)
    offs_k = k_start + tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for kt in range(0, k_tiles):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            k_mask = offs_k < K - kt * BLOCK_K
            a = tl.load(a_ptrs, mask=k_mask[None, :], other=0)
            b = tl.load(b_ptrs, mask=k_mask[:, None], other=0)
        acc = tl.dot(a, b, acc, out_dtype=tl.int32)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    dequant_bias_store(
        acc,
        offs_m,
        offs_n,
        pid,
        pid_k,
        scale_x_ptr,
        scale_w_ptr,
        bias_ptr,
        c_ptr,
        partials_ptr,
        counters_ptr,
        M,
        N,
        stride_cm,
        stride_cn,
        SPLIT_K,
    )


def int8_matmul_dequant(x, weight_int8, scale_x, scale_w, bias):
    """fp16 [M, N] = dequant(x [M, K] int8 @ weight_int8 [N, K] int8 .T) + bias."""
    assert x.dtype == torch.int8 and weight_int8.dtype == torch.int8
    assert scale_x.dtype == torch.float32 and scale_w.dtype == torch.float32
    assert bias.dtype == torch.float16
    M, K = x.shape
    N = weight_int8.shape[0]
    c = torch.empty((M, N), device=x.device, dtype=torch.float16)
    grid = (triton.cdiv(M, 64) * triton.cdiv(N, 64), 1)
    int8_fixed_tile_matmul_dequant_kernel[grid](
        x,
        weight_int8,
        scale_x,
        scale_w,
        bias,
        c,
        c,
        c,  # no split-K: workspace unused
        M,
        N,
        K,
        x.stride(0),
        x.stride(1),
        weight_int8.stride(1),
        weight_int8.stride(0),  # B = weight.T, no copy
        c.stride(0),
        c.stride(1),
        BLOCK_M=64,
        BLOCK_N=64,
        BLOCK_K=32,
        SPLIT_K=1,
        GROUP_M=8,
        EVEN_K=K % 32 == 0,
        num_warps=4,
        num_stages=3,
    )
    return c


class ModelNew(Int8Linear):
    """Int8, strided, fused-epilogue kernel launched with one fixed config."""

    def forward(self, x: torch.Tensor, scale_x: torch.Tensor) -> torch.Tensor:
        return int8_matmul_dequant(x, self.weight_int8, scale_x, self.scale_w, self.bias)
