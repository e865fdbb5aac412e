"""KL032 fixed: one Triton kernel computes the layer's product with tl.dot on the fp32 tiles (TF32, tl.dot's
default), reading the weight [N, K] K-major as nn.Linear stores it, and adds the bias and applies the ReLU in
its epilogue before the one fp16 store (the tile config is the calibration's TF32 probe's, 128 x 128 x 32)."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        # One config (the interpreter cannot benchmark several): the calibration's TF32 probe config.
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=4, num_stages=3),
    ],
    key=["M", "N", "K"],
)
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def _linear_relu(
    x_ptr,
    w_ptr,
    b_ptr,
    y_ptr,
    M,
    N,
    K,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
    GROUP_M: tl.constexpr,
    EVEN_K: tl.constexpr,
):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    first_pid_m = (pid // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    rows = (offs_m % M).to(tl.int64)
    cols = (offs_n % N).to(tl.int64)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    x_ptrs = x_ptr + rows[:, None] * K + offs_k[None, :]
    # The weight [N, K] read K-major: its tile's unit stride is along K, as TF32's MMAs want it.
    w_ptrs = w_ptr + cols[None, :] * K + offs_k[:, None]
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            x = tl.load(x_ptrs)
            w = tl.load(w_ptrs)
        else:
            k_mask = (k + offs_k) < K
            x = tl.load(x_ptrs, mask=k_mask[None, :], other=0.0)
            w = tl.load(w_ptrs, mask=k_mask[:, None], other=0.0)
        acc = tl.dot(x, w, acc)
        x_ptrs += BLOCK_K
        w_ptrs += BLOCK_K
    bias = tl.load(b_ptr + cols)
    y = tl.maximum(acc + bias[None, :], 0.0)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(y_ptr + offs_m[:, None].to(tl.int64) * N + offs_n[None, :], y.to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features=4096, out_features=4096):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        M, K = x.shape
        N = self.fc.weight.shape[0]
        y = torch.empty(M, N, device=x.device, dtype=torch.float16)
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)
        _linear_relu[grid](x, self.fc.weight, self.fc.bias, y, M, N, K)
        return y


M = K = N = 4096


def get_inputs():
    return [torch.randn(M, K)]


def get_init_inputs():
    return [K, N]
