"""KL029 fixed: the 3x3, stride-1 max pool as an index-free Triton kernel.

Each program takes BLOCK_W outputs of one output row of one (batch,
channel) plane and loads the window's nine shifted input vectors: the
overlapping loads hit in L1/L2, so the input comes from memory about once
and no index is computed or stored.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_W = 256


@triton.jit
def max_pool2d_kernel(x_ptr, out_ptr, H, W, OH, OW, K: tl.constexpr, BLOCK_W: tl.constexpr):
    row = tl.program_id(0)  # (plane, output row), plane = batch x channel
    plane = (row // OH).to(tl.int64)
    oh = row % OH
    ow = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
    mask = ow < OW
    acc = tl.full([BLOCK_W], float("-inf"), tl.float32)
    for kh in tl.static_range(K):
        base = x_ptr + plane * H * W + (oh + kh) * W
        for kw in tl.static_range(K):
            acc = tl.maximum(acc, tl.load(base + ow + kw, mask=mask, other=float("-inf")))
    tl.store(out_ptr + (plane * OH + oh) * OW + ow, acc.to(out_ptr.dtype.element_ty), mask=mask)


def max_pool2d(x: torch.Tensor, k: int = 3) -> torch.Tensor:
    x = x.contiguous()
    B, C, H, W = x.shape
    OH, OW = H - k + 1, W - k + 1
    out = torch.empty(B, C, OH, OW, device=x.device, dtype=x.dtype)
    block = min(BLOCK_W, triton.next_power_of_2(OW))
    max_pool2d_kernel[(B * C * OH, triton.cdiv(OW, block))](x, out, H, W, OH, OW, K=k, BLOCK_W=block)
    return out


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return max_pool2d(x)


# The pair's "large" shape.
batch_size = 16
channels = 64
height = width = 512


def get_inputs():
    return [torch.randn(batch_size, channels, height, width, dtype=torch.float16)]


def get_init_inputs():
    return []
