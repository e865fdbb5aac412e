"""INT8 GEMM in Triton with the dequant scales, the bias and the fp16 cast
applied to the accumulator in its epilogue (KL004's fix): one kernel reads
each input once and writes fp16 once. The GEMM is the same as before.py's;
its config is resolved once per problem and later calls launch the compiled
kernel directly (kernlint.kernels._launch)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl
from kernlint.kernels._configs import int8_matmul_configs
from kernlint.kernels._launch import AutotunedLauncher, specialization_key


def _configs():
    return [
        triton.Config(
            {k: v for k, v in c.kwargs.items() if k != "SPLIT_K"}, num_warps=c.num_warps, num_stages=c.num_stages
        )
        for c in int8_matmul_configs()
        if c.kwargs.get("SPLIT_K", 1) == 1
    ]


@triton.autotune(configs=_configs(), key=["M", "N", "K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def int8_matmul_dequant_kernel(
    a_ptr,
    b_ptr,
    scale_x_ptr,
    scale_w_ptr,
    bias_ptr,
    c_ptr,
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
    GROUP_M: tl.constexpr,
    EVEN_K: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group_id = pid // (GROUP_M * num_pid_n)
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % (GROUP_M * num_pid_n)) % group_size_m)
    pid_n = (pid % (GROUP_M * num_pid_n)) // group_size_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_m % M).to(tl.int64)[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + (offs_n % N).to(tl.int64)[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for kt in range(0, tl.cdiv(K, BLOCK_K)):
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
    # Epilogue: per-row and per-column vectors loaded once, applied to the accumulator.
    mask_m = offs_m < M
    mask_n = offs_n < N
    scale_x = tl.load(scale_x_ptr + offs_m, mask=mask_m, other=0.0)
    scale_w = tl.load(scale_w_ptr + offs_n, mask=mask_n, other=0.0)
    bias = tl.load(bias_ptr + offs_n, mask=mask_n, other=0.0).to(tl.float32)
    out = acc.to(tl.float32) * (1.0 / (127.0 * 127.0))
    out = out * scale_x[:, None] * scale_w[None, :] + bias[None, :]
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, out.to(tl.float16), mask=mask_m[:, None] & mask_n[None, :])


def int8_matmul_grid(meta):
    """One program per output tile."""
    return (triton.cdiv(meta["M"], meta["BLOCK_M"]) * triton.cdiv(meta["N"], meta["BLOCK_N"]),)


# The config is resolved once per problem; later calls launch the compiled kernel directly.
int8_matmul_dequant_launcher = AutotunedLauncher(int8_matmul_dequant_kernel, int8_matmul_grid)


def int8_matmul_dequant(x, weight_int8, scale_x, scale_w, bias):
    """fp16 [M, N] = dequant(x [M, K] int8 @ weight_int8 [N, K] int8 .T) + bias"""
    M, K = x.shape
    N = weight_int8.shape[0]
    stride_am, stride_ak = x.stride()
    stride_wn, stride_wk = weight_int8.stride()
    key = specialization_key(
        x.get_device(), (M, N, K, stride_am, stride_ak, stride_wn, stride_wk), (x, weight_int8, scale_x, scale_w, bias)
    )
    c = torch.empty((M, N), device=x.device, dtype=torch.float16)
    # B = weight.T: B[k, n] = weight[n, k], read through swapped strides, no copy.
    int8_matmul_dequant_launcher(
        key, (x, weight_int8, scale_x, scale_w, bias, c, M, N, K, stride_am, stride_ak, stride_wk, stride_wn, N, 1)
    )
    return c


class ModelNew(nn.Module):
    def __init__(self, in_features=2048, out_features=2048):
        super().__init__()
        self.weight_int8 = nn.Parameter(
            torch.randint(-128, 127, (out_features, in_features), dtype=torch.int8), requires_grad=False
        )
        self.scale_w = nn.Parameter(torch.randn(out_features, dtype=torch.float32).abs() * 0.01, requires_grad=False)
        self.bias = nn.Parameter(torch.randn(out_features, dtype=torch.float16) * 0.01, requires_grad=False)

    def forward(self, x: torch.Tensor, scale_x: torch.Tensor) -> torch.Tensor:
        return int8_matmul_dequant(x, self.weight_int8, scale_x, self.scale_w, self.bias)
