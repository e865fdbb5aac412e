"""PyTorch reference: multi-head attention, softmax(q k^T / sqrt(d)) v.

The reference `Model` calls `torch.nn.functional.scaled_dot_product_attention`,
the library baseline a user would pick (cuDNN/flash backends on an H100), so
`kernlint verify` times it beside the torch `before` and the Triton `after`.
The ground truth (`truth`) is the same formula evaluated in float64.
q, k, v are fp16 [B, H, S, D]; the output is fp16 [B, H, S, D].
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SHAPES = {
    "seq512": {"B": 8, "H": 16, "S": 512, "D": 64},
    "seq2k": {"B": 4, "H": 16, "S": 2048, "D": 64},
    "seq4k": {"B": 2, "H": 16, "S": 4096, "D": 128},
}

# Tiny sizes for the Triton interpreter; `ragged` leaves a partial key tile.
INTERPRET_SHAPES = {
    "even": {"B": 1, "H": 2, "S": 32, "D": 16},
    "ragged": {"B": 1, "H": 1, "S": 40, "D": 16},
}


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


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
    scores = q.double() @ k.double().transpose(-2, -1) / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=-1) @ v.double()


def get_inputs(shape="seq512", device="cpu", generator=None):
    B, H, S, D = _dims(shape)
    return [torch.randn(B, H, S, D, generator=generator).to(device=device, dtype=torch.float16) for _ in range(3)]


def get_init_inputs(shape="seq512"):
    return []
