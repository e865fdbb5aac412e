"""KL002 present: the int8 weight is transposed and copied on every call.

    out = fp16((x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias)

The only defect: the host wrapper materializes `weight_int8.t().contiguous()`
([K, N], a full read and write of the weight) on every forward before the
kernel reads it.  The kernel itself is the fixed one: int8 `tl.dot` with
int32 accumulation, autotuned tiles (same search space as `after`), fused
dequant + bias epilogue, L2 swizzle, EVEN_K, split-K.
"""


import torch
import torch.nn as nn
import triton
import triton.language as tl

from kernlint.kernels._configs import int8_matmul_configs, prune_configs
from kernlint.kernels._epilogue import dequant_bias_store, split_k_workspace


@triton.autotune(
    configs=int8_matmul_configs(),
    key=["M", "N", "K"],
    prune_configs_by={"early_config_prune": prune_configs},
)
@triton.heuristics({"EVEN_K": lambda args: args["K"] % (args["BLOCK_K"] * args["SPLIT_K"]) == 0})
@triton.jit
def int8_kn_matmul_dequant_kernel(
    a_ptr, b_ptr,                  # int8 x [M, K]; int8 B [K, N]
    scale_x_ptr, scale_w_ptr,      # fp32 [M], fp32 [N]
    bias_ptr, c_ptr,               # fp16 [N], fp16 out [M, N]
    partials_ptr, counters_ptr,    # split-K workspace (unused when SPLIT_K == 1)
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
    SPLIT_K: tl.constexpr, GROUP_M: tl.constexpr, EVEN_K: tl.constexpr,
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
        acc, offs_m, offs_n, pid, pid_k,
        scale_x_ptr, scale_w_ptr, bias_ptr, c_ptr, partials_ptr, counters_ptr,
        M, N, stride_cm, stride_cn, SPLIT_K,
    )


def int8_matmul_dequant(x, weight_int8, scale_x, scale_w, bias):
    """fp16 [M, N] = dequant(x [M, K] int8 @ weight_int8 [N, K] int8 .T) + bias."""
    assert x.dtype == torch.int8 and weight_int8.dtype == torch.int8
    assert scale_x.dtype == torch.float32 and scale_w.dtype == torch.float32
    assert bias.dtype == torch.float16
    M, K = x.shape
    N = weight_int8.shape[0]
    b = weight_int8.t().contiguous()  # [K, N] copy of the weight, every call
    c = torch.empty((M, N), device=x.device, dtype=torch.float16)
    partials, counters = split_k_workspace(x.device, M, N)

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]), meta["SPLIT_K"])

    int8_kn_matmul_dequant_kernel[grid](
        x, b, scale_x, scale_w, bias, c, partials, counters,
        M, N, K,
        x.stride(0), x.stride(1),
        b.stride(0), b.stride(1),
        c.stride(0), c.stride(1),
    )
    return c


class ModelNew(nn.Module):
    """Autotuned int8 kernel whose wrapper re-lays out the weight on every call."""

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
        return int8_matmul_dequant(x, self.weight_int8, scale_x, self.scale_w, self.bias)
