"""PyTorch reference: y = silu(x) = x * sigmoid(x), elementwise.

x is fp16 [M, N]; the output is fp16 [M, N].  `truth` evaluates it in
float64.  The decode shape is small on purpose: there the per-call cost of
building the kernel is everything; at prefill the kernel's own time counts.
"""

import torch
import torch.nn as nn

SHAPES = {
    "decode": {"M": 16, "N": 4096},
    "prefill": {"M": 4096, "N": 4096},
}
INTERPRET_SHAPES = {
    "even": {"M": 4, "N": 64},
    "ragged": {"M": 3, "N": 40},
}


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.silu(x)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["N"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    M, N = _dims(shape)
    return 2 * M * N * 2  # x read, y written (fp16)


def truth(model, x):
    x = x.double()
    return x * torch.sigmoid(x)


def get_inputs(shape="decode", device="cpu", generator=None):
    M, N = _dims(shape)
    return [torch.randn(M, N, generator=generator).to(device=device, dtype=torch.float16)]


def get_init_inputs(shape="decode"):
    return []
