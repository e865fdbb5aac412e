"""The fused dequant + bias epilogue shared by the library's matmul kernels.

    out[m, n] = fp16(acc[m, n] * scale_x[m] * scale_w[n] / 127**2 + bias[n])

applied to the accumulator tile in registers, so the int32/fp32 product never
goes to memory.  With split-K (SPLIT_K > 1) the SPLIT_K programs of one output
tile each store an fp32 partial tile to a workspace and bump the tile's
counter; the program that arrives last sums the partials, applies the
epilogue, stores the fp16 tile and resets the counter to zero for the next
launch (so the workspace needs no memset per call).  Launches of one kernel
on one stream are ordered, which is all the counter protocol needs; two
streams must not share a workspace.
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl
from kernlint.kernels._configs import SPLIT_K_MAX_OUTPUT

MAX_SPLIT_K = 4
_WORKSPACES: dict = {}


def split_k_workspace(device, M, N):
    """(partials, counters) for a split-K launch, cached per device and size.

    Shapes too large for split-K (see `_configs.prune_configs`) get 1-element
    dummies: their configs never take the split-K path.
    """
    key = (str(device), M, N)
    if key not in _WORKSPACES:
        if M * N <= SPLIT_K_MAX_OUTPUT:
            partials = torch.empty((MAX_SPLIT_K, M, N), device=device, dtype=torch.float32)
            counters = torch.zeros(triton.cdiv(M, 16) * triton.cdiv(N, 16), device=device, dtype=torch.int32)
        else:
            partials = torch.empty(1, device=device, dtype=torch.float32)
            counters = torch.zeros(1, device=device, dtype=torch.int32)
        _WORKSPACES[key] = (partials, counters)
    return _WORKSPACES[key]


@triton.jit
def dequant_bias_store(
    acc,
    offs_m,
    offs_n,
    tile_id,
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
    SPLIT_K: tl.constexpr,
):
    """Store fp16(acc * scale_x * scale_w / 127^2 + bias) for one output tile."""
    acc = acc.to(tl.float32)
    m_mask = offs_m < M
    n_mask = offs_n < N
    c_mask = m_mask[:, None] & n_mask[None, :]
    last = True
    if SPLIT_K > 1:
        # Publish this split's partial tile, then count arrivals on the tile.
        tile_offs = offs_m[:, None].to(tl.int64) * N + offs_n[None, :]
        tl.store(partials_ptr + pid_k * M * N + tile_offs, acc, mask=c_mask, cache_modifier=".cg")
        tl.debug_barrier()
        arrived = tl.atomic_add(counters_ptr + tile_id, 1, sem="acq_rel")
        last = arrived == SPLIT_K - 1
        if last:
            # Every partial, this program's own included, is now in L2.
            acc = tl.zeros_like(acc)
            for s in tl.static_range(SPLIT_K):
                acc += tl.load(partials_ptr + s * M * N + tile_offs, mask=c_mask, other=0.0, cache_modifier=".cg")
            tl.store(counters_ptr + tile_id, 0)
    if last:
        scale_x = tl.load(scale_x_ptr + offs_m, mask=m_mask, other=0.0)
        scale_w = tl.load(scale_w_ptr + offs_n, mask=n_mask, other=0.0)
        bias = tl.load(bias_ptr + offs_n, mask=n_mask, other=0.0).to(tl.float32)
        out = scale_w[None, :] * (scale_x[:, None] * (acc * (1.0 / (127.0 * 127.0)))) + bias[None, :]
        c_ptrs = c_ptr + offs_m[:, None].to(tl.int64) * stride_cm + offs_n[None, :] * stride_cn
        tl.store(c_ptrs, out.to(tl.float16), mask=c_mask)
