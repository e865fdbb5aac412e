"""KL009 present: output tiles in row-major order straight from the program id.

    out = x @ weight.T        fp16, fp32 accumulation

The only defect: `pid_m = pid // num_pid_n`, `pid_n = pid % num_pid_n`, so
the programs that run together share one row of A tiles and sweep every
column of B; at 8192^3 B (128 MB) is far larger than L2 and is re-read
from DRAM for every row of tiles. Everything else is as in this pair's
`after`: the same autotune space, EVEN_K heuristic, weight read through
strides as B = weight.T.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl
from kernlint.kernels._fp16_configs import fp16_gemm_configs
from kernlint.kernels._fp16_gemm import Fp16Linear


@triton.autotune(configs=fp16_gemm_configs(), key=["M", "N", "K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def fp16_matmul_row_major_kernel(
    a_ptr,
    b_ptr,
    c_ptr,  # x [M, K]; weight [N, K] read as B = weight.T; out [M, N]
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
    EVEN_K: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    pid_m = pid // num_pid_n
    pid_n = pid % num_pid_n

    # Rows/columns wrap modulo M/N so the loads need no M/N mask; the store is masked.
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_am = (offs_m % M).to(tl.int64)
    offs_bn = (offs_n % N).to(tl.int64)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for kt in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            k_mask = offs_k < K - kt * BLOCK_K
            a = tl.load(a_ptrs, mask=k_mask[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=k_mask[:, None], other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    offs_cm = offs_m.to(tl.int64)
    offs_cn = offs_n.to(tl.int64)
    c_ptrs = c_ptr + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(tl.float16), mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))


# Launched like the `after` kernel (config resolved once per problem), so
# the pair's times differ only by the kernel.
fp16_linear = Fp16Linear(fp16_matmul_row_major_kernel)


class ModelNew(nn.Module):
    """fp16 linear layer, row-major tile order."""

    def __init__(self, in_features=8192, out_features=8192):
        super().__init__()
        self.weight = nn.Parameter(
            torch.randn(out_features, in_features, dtype=torch.float16) * in_features**-0.5,
            requires_grad=False,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return fp16_linear(x, self.weight)
