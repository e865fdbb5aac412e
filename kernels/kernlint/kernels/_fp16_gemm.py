"""The library's fixed fp16 GEMM, shared by the pairs whose fix it is.

    out = x @ weight.T        fp16, fp32 accumulation

Output tiles in grouped order (GROUP_M rows of tiles at a time, so programs
that run together share A rows and B columns in L2: KL009's fix), an EVEN_K
heuristic below the autotuner that drops the K mask when K divides BLOCK_K
(KL010's fix), the weight read through strides as B = weight.T, one autotune
space (kernlint.kernels._fp16_configs) shared with the pairs' `before`s.
Each tile is offered to the autotuner twice, with the K mask dropped where K
allows it and kept (UNMASKED_K), so the mask-free loop is chosen wherever it
measures no slower; on the H100 the two have measured within a few percent
of each other, either way, at 4096^3 and 8192^3.  The config is resolved once
per problem and later calls launch the compiled kernel directly
(kernlint.kernels._launch), at the host cost of a plain launch.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl
from kernlint.kernels._fp16_configs import GROUP_M, fp16_gemm_configs
from kernlint.kernels._launch import AutotunedLauncher, specialization_key


@triton.autotune(configs=fp16_gemm_configs(mask_choice=True), key=["M", "N", "K"])
@triton.heuristics(
    {
        "GROUP_M": lambda args: GROUP_M,
        "EVEN_K": lambda args: args["UNMASKED_K"] and args["K"] % args["BLOCK_K"] == 0,
    }
)
@triton.jit
def fp16_matmul_kernel(
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
    GROUP_M: tl.constexpr,
    UNMASKED_K: tl.constexpr,  # autotuned: may the K loop drop its mask (EVEN_K)?
    EVEN_K: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

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


def fp16_matmul_grid(meta):
    """One program per output tile."""
    return (triton.cdiv(meta["M"], meta["BLOCK_M"]) * triton.cdiv(meta["N"], meta["BLOCK_N"]),)


class Fp16Linear:
    """fp16 [M, N] = x [M, K] @ weight [N, K].T through one autotuned kernel with
    `fp16_matmul_kernel`'s runtime parameters (each pair's `before` launches its
    own kernel through one too, so a pair's times differ only by its kernels).

    The config is resolved once per problem key (device, sizes, strides,
    alignments); later calls launch the compiled kernel directly
    (kernlint.kernels._launch).
    """

    def __init__(self, kernel):
        self.launcher = AutotunedLauncher(kernel, fp16_matmul_grid)

    def __call__(self, x, weight):
        assert x.dtype == torch.float16 and weight.dtype == torch.float16
        M, K = x.shape
        N = weight.shape[0]
        stride_am, stride_ak = x.stride()
        stride_wn, stride_wk = weight.stride()
        key = specialization_key(x.get_device(), (M, N, K, stride_am, stride_ak, stride_wn, stride_wk), (x, weight))
        c = torch.empty((M, N), device=x.device, dtype=torch.float16)
        # B = weight.T: read through swapped strides, no copy.
        self.launcher(key, (x, weight, c, M, N, K, stride_am, stride_ak, stride_wk, stride_wn, N, 1))
        return c


fp16_linear = Fp16Linear(fp16_matmul_kernel)


class ModelNew(nn.Module):
    """fp16 linear layer: grouped tile order and the EVEN_K fast path."""

    def __init__(self, in_features=8192, out_features=8192):
        super().__init__()
        self.weight = nn.Parameter(
            torch.randn(out_features, in_features, dtype=torch.float16) * in_features**-0.5,
            requires_grad=False,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return fp16_linear(x, self.weight)
