"""The fused int8 GEMM behind the same input check kept on the device
(KL006's fix): the check runs inside the GEMM launch, program 0 of the grid
writes whether every scale_x is positive to a one-element flag, and
`torch._assert_async(flag)` fails the stream if it is not, without the host
waiting for the GPU; the call stays asynchronous and can be captured in a
CUDA graph.

The check costs no launch of its own: a call launches the GEMM and the
assert, against the before's two reductions, a device-to-host copy and a
wait.  (`torch._assert_async((scale_x > 0).all())` would keep the check on
the device too, at three launches: on a host-bound call that is as much host
time as the before's synchronous check when the GPU has nothing queued.)
The GEMM is the library's fused int8 GEMM of the KL004 pair (the same body,
called from this kernel), launched through `kernlint.kernels._launch`.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl
from kernlint.kernels._launch import AutotunedLauncher, jit_function, specialization_key
from kernlint.kernels.kl004_unfused_epilogue import after as fused_gemm

# The fused GEMM's @triton.jit body, called inside this kernel.
int8_matmul_dequant_body = jit_function(fused_gemm.int8_matmul_dequant_kernel)
CHECK_BLOCK = tl.constexpr(1024)  # scale_x entries program 0 checks per step


@triton.autotune(configs=fused_gemm._configs(), key=["M", "N", "K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def checked_int8_matmul_dequant_kernel(
    a_ptr,
    b_ptr,
    scale_x_ptr,
    scale_w_ptr,
    bias_ptr,
    c_ptr,
    ok_ptr,  # int32 [1]: 1 if every scale_x > 0, else 0 (written by program 0)
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
    if tl.program_id(0) == 0:
        # NaN is not positive: it fails the check as a negative scale does.
        offs = tl.arange(0, CHECK_BLOCK)
        bad = tl.zeros((CHECK_BLOCK,), dtype=tl.int32)
        for start in range(0, M, CHECK_BLOCK):
            s = tl.load(scale_x_ptr + start + offs, mask=start + offs < M, other=1.0)
            bad += tl.where(s > 0, 0, 1)
        tl.store(ok_ptr, (tl.sum(bad) == 0).to(tl.int32))
    int8_matmul_dequant_body(
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
        BLOCK_M,
        BLOCK_N,
        BLOCK_K,
        GROUP_M,
        EVEN_K,
    )


checked_int8_matmul = AutotunedLauncher(checked_int8_matmul_dequant_kernel, fused_gemm.int8_matmul_grid)


class ModelNew(nn.Module):
    def __init__(self, in_features=2048, out_features=2048):
        super().__init__()
        self.weight_int8 = nn.Parameter(
            torch.randint(-128, 127, (out_features, in_features), dtype=torch.int8), requires_grad=False
        )
        self.scale_w = nn.Parameter(torch.randn(out_features, dtype=torch.float32).abs() * 0.01, requires_grad=False)
        self.bias = nn.Parameter(torch.randn(out_features, dtype=torch.float16) * 0.01, requires_grad=False)
        # The check's flag: written by every call's GEMM before the assert reads it.
        self.register_buffer("scale_x_ok", torch.zeros(1, dtype=torch.int32), persistent=False)

    def forward(self, x: torch.Tensor, scale_x: torch.Tensor) -> torch.Tensor:
        M, K = x.shape
        N = self.weight_int8.shape[0]
        stride_am, stride_ak = x.stride()
        stride_wn, stride_wk = self.weight_int8.stride()
        key = specialization_key(
            x.get_device(),
            (M, N, K, stride_am, stride_ak, stride_wn, stride_wk),
            (x, self.weight_int8, scale_x, self.scale_w, self.bias),
        )
        c = torch.empty((M, N), device=x.device, dtype=torch.float16)
        checked_int8_matmul(
            key,
            (
                x,
                self.weight_int8,
                scale_x,
                self.scale_w,
                self.bias,
                c,
                self.scale_x_ok,
                M,
                N,
                K,
                stride_am,
                stride_ak,
                stride_wk,
                stride_wn,
                N,
                1,
            ),
        )
        torch._assert_async(self.scale_x_ok, "scale_x must be positive")
        return c
