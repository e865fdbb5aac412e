"""KL007 fixed: one causal flash-attention kernel with online softmax.

One program per block of queries of one (batch, head) walks the key and
value tiles up to its own last query (the tiles above the diagonal are all
masked, so they are never loaded), keeping a running row max, a rescaled
running sum and the fp32 output accumulator on chip; the [S, S] scores never
reach memory. A head size that is not a power of two (96) is padded to the
next one in registers and masked on load and store.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl
from kernlint.kernels._configs import interpreting
from kernlint.kernels._launch import AutotunedLauncher, specialization_key

_CONFIGS = [
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 32}, num_warps=4, num_stages=3),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 32}, num_warps=4, num_stages=4),
]


@triton.autotune(configs=_CONFIGS[:1] if interpreting() else _CONFIGS, key=["S", "D"])
@triton.heuristics({"BLOCK_D": lambda args: max(16, triton.next_power_of_2(args["D"]))})
@triton.jit
def _causal_flash_attention(
    q_ptr,
    k_ptr,
    v_ptr,
    o_ptr,
    S,
    D,
    BH,  # (batch, head) pairs: the grid's second axis
    qk_scale,
    stride_bh,
    stride_s,
    BLOCK_D: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * stride_bh
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    q_mask = (offs_m[:, None] < S) & (offs_d[None, :] < D)
    q = tl.load(q_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], mask=q_mask, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], tl.float32)
    # Keys past this block's last query are masked for every row: stop there.
    end = tl.minimum(S, (pid_m + 1) * BLOCK_M)
    for start in range(0, end, BLOCK_N):
        offs_n = start + tl.arange(0, BLOCK_N)
        kv_mask = (offs_n[:, None] < S) & (offs_d[None, :] < D)
        rows = offs_n[:, None] * stride_s + offs_d[None, :]
        k = tl.load(k_ptr + base + rows, mask=kv_mask, other=0.0)
        v = tl.load(v_ptr + base + rows, mask=kv_mask, other=0.0)
        qk = tl.dot(q, tl.trans(k)) * qk_scale  # log2 domain: qk_scale includes log2(e)
        visible = (offs_n[None, :] <= offs_m[:, None]) & (offs_n[None, :] < S)
        qk = tl.where(visible, qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + offs_m[:, None] * stride_s + offs_d[None, :], acc.to(o_ptr.dtype.element_ty), mask=q_mask)


def causal_attention_grid(meta):
    """One program per BLOCK_M queries of one (batch, head)."""
    return (triton.cdiv(meta["S"], meta["BLOCK_M"]), meta["BH"])


# The config is resolved once per problem; later calls launch the compiled kernel directly.
causal_attention = AutotunedLauncher(_causal_flash_attention, causal_attention_grid)


class ModelNew(nn.Module):
    def forward(self, q, k, v):
        B, H, S, D = q.shape
        q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
        out = torch.empty_like(q)
        qk_scale = 1.4426950408889634 / math.sqrt(D)
        key = specialization_key(q.get_device(), (q.dtype, S, D, B * H), (q, k, v, out))
        causal_attention(key, (q, k, v, out, S, D, B * H, qk_scale, S * D, D))
        return out
