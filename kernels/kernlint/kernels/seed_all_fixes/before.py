"""The seed kernel, exactly as given in the seed problem (kernlint's `before`).

It has all three defects that `seed_all_fixes/after.py` fixes together:
KL001 (int8 tiles cast to fp32 before `tl.dot`), KL002 (the int8 weight is
transposed and copied on every call) and KL003 (fixed 64x64x32 tiles, no
autotune).  Below this docstring the file is the seed's code, unedited.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def int8_matmul_rowwise_dequant_kernel(
    a_ptr,  # int8  [M, K]
    b_ptr,  # int8  [K, N]  (weight_int8.T)
    scale_x_ptr,  # fp32 [M]
    scale_w_ptr,  # fp32 [N]
    bias_ptr,  # fp16 [N]
    c_ptr,  # fp16 [M, N]
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
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)

    # Pointers to first K-slab of A and B
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)

    # Main K-loop
    for k in range(0, K, BLOCK_K):
        k_remaining = K - k

        a = tl.load(
            a_ptrs,
            mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_remaining),
            other=0,
        )
        b = tl.load(
            b_ptrs,
            mask=(offs_k[:, None] < k_remaining) & (offs_n[None, :] < N),
            other=0,
        )

        a_f32 = tl.cast(a, tl.float32)
        b_f32 = tl.cast(b, tl.float32)

        acc += tl.dot(a_f32, b_f32, allow_tf32=True)

        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    # Dequantization and scaling
    divfactor = 1.0 / (127.0 * 127.0)

    scale_x = tl.load(
        scale_x_ptr + offs_m,
        mask=offs_m < M,
        other=0.0,
    )  # [BLOCK_M]
    scale_w = tl.load(
        scale_w_ptr + offs_n,
        mask=offs_n < N,
        other=0.0,
    )  # [BLOCK_N]

    acc = acc * divfactor
    acc = acc * scale_x[:, None]
    acc = acc * scale_w[None, :]

    # Bias add (bias is fp16 -> upcast to fp32)
    bias = tl.load(
        bias_ptr + offs_n,
        mask=offs_n < N,
        other=0.0,
    )  # fp16
    bias_f32 = tl.cast(bias, tl.float32)
    acc = acc + bias_f32[None, :]

    # Store to fp16
    c = tl.cast(acc, tl.float16)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    mask_out = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, c, mask=mask_out)


def fused_int8_rowwise_dequant_matmul(x, weight_int8, scale_x, scale_w, bias):
    """
    x:           int8  [M, K]
    weight_int8: int8  [N, K]  (original storage, we transpose here)
    scale_x:     fp32 [M]
    scale_w:     fp32 [N]
    bias:        fp16 [N]
    returns:     fp16 [M, N]
    """
    assert x.dtype == torch.int8
    assert weight_int8.dtype == torch.int8
    assert scale_x.dtype == torch.float32
    assert scale_w.dtype == torch.float32
    assert bias.dtype == torch.float16

    M, K = x.shape
    N = weight_int8.shape[0]

    # Prepare B = weight_int8.T [K, N], contiguous for coalesced loads
    b = weight_int8.t().contiguous()

    c = torch.empty((M, N), device=x.device, dtype=torch.float16)

    def grid(META):
        return (
            max(1, triton.cdiv(M, META["BLOCK_M"])),
            max(1, triton.cdiv(N, META["BLOCK_N"])),
        )

    int8_matmul_rowwise_dequant_kernel[grid](
        x,
        b,
        scale_x,
        scale_w,
        bias,
        c,
        M,
        N,
        K,
        x.stride(0),
        x.stride(1),
        b.stride(0),
        b.stride(1),
        c.stride(0),
        c.stride(1),
        BLOCK_M=64,
        BLOCK_N=64,
        BLOCK_K=32,
        num_warps=4,
        num_stages=3,
    )

    return c


class ModelNew(nn.Module):
    """
    Triton-optimized INT8 MatMul with Row-wise Dequantization.

    Semantics match the reference Model:
        output = (x.float() @ weight_int8.t().float()) * scale_x * scale_w / (127*127) + bias
        output is returned as float16.
    """

    def __init__(self, in_features=2048, out_features=2048):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features

        # Match original parameter shapes & dtypes for easy state_dict loading
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
        return fused_int8_rowwise_dequant_matmul(x, self.weight_int8, scale_x, self.scale_w, self.bias)
