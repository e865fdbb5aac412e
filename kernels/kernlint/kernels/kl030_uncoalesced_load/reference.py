"""PyTorch reference: a sum over dimension 1 of an fp32 [B, D1, D2] tensor (KernelBench level 1 problem 47's
operation), kept as [B, D2].

`truth` evaluates it in float64.
"""

import torch
import torch.nn as nn

SHAPES = {
    "kernelbench": {"B": 16, "D1": 4096, "D2": 4096},
    "narrow": {"B": 128, "D1": 256, "D2": 256},
}
INTERPRET_SHAPES = {
    "even": {"B": 2, "D1": 32, "D2": 256},
    "ragged": {"B": 3, "D1": 70, "D2": 300},  # a partial block of rows and of columns
}


# The pair's output dtype (the library's pairs are fp16 unless they say otherwise): the problem is fp32, the
# dtype the calibration's strided-lanes probe measured.
OUTPUT_DTYPE = torch.float32


class Model(nn.Module):
    def forward(self, x):
        return torch.sum(x, dim=1)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["B"], shape["D1"], shape["D2"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    B, D1, D2 = _dims(shape)
    return 4 * (B * D1 * D2 + B * D2)


def truth(model, x):
    return x.double().sum(dim=1)


def get_inputs(shape="kernelbench", device="cpu", generator=None):
    B, D1, D2 = _dims(shape)
    return [torch.randn(B, D1, D2, generator=generator).to(device=device)]


def get_init_inputs(shape="kernelbench"):
    return []
