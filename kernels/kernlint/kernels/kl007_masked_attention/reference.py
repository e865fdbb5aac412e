"""PyTorch reference: causal multi-head attention, softmax(mask(q k^T / sqrt(d))) v,
as minGPT's CausalSelfAttention computes it between its projections.

The reference `Model` calls `scaled_dot_product_attention(is_causal=True)`,
the library baseline (cuDNN/flash backends on an H100). The ground truth
(`truth`) is the same formula in float64. q, k, v are fp16 [B, H, S, D];
the output is fp16 [B, H, S, D]. `kernelbench` is level 3 problem 43's
attention (n_embd 768 over 8 heads: D = 96, not a power of two).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SHAPES = {
    "kernelbench": {"B": 128, "H": 8, "S": 512, "D": 96},
    "seq1k": {"B": 16, "H": 12, "S": 1024, "D": 64},
}

# Tiny sizes for the Triton interpreter; `ragged` leaves partial tiles on S and D.
INTERPRET_SHAPES = {
    "even": {"B": 1, "H": 2, "S": 32, "D": 16},
    "ragged": {"B": 1, "H": 1, "S": 40, "D": 12},
}

INT8_GEMM = False
SHAPE_NOTE = "causal attention: the reference column is scaled_dot_product_attention(is_causal=True)"


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["B"], shape["H"], shape["S"], shape["D"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    B, H, S, D = _dims(shape)
    return 4 * B * H * S * D * 2  # q, k, v read and the output written once, fp16


def truth(model, q, k, v):
    S = q.shape[-2]
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    causal = torch.ones(S, S, dtype=torch.bool, device=q.device).tril()
    return torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1) @ v.double()


def get_inputs(shape="kernelbench", device="cpu", generator=None):
    B, H, S, D = _dims(shape)
    return [torch.randn(B, H, S, D, generator=generator).to(device=device, dtype=torch.float16) for _ in range(3)]


def get_init_inputs(shape="kernelbench"):
    return []
