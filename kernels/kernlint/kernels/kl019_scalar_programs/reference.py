"""PyTorch reference: y = leaky_relu(x, 0.01), elementwise.

x is fp16 [M, N]; the output is fp16 [M, N].  `truth` evaluates it in
float64.  Both shapes hold millions of elements, the grid sizes that
one-program-per-element kernels are launched with.
"""

import torch
import torch.nn as nn

SLOPE = 0.01
SHAPES = {
    "small": {"M": 1024, "N": 1024},
    "large": {"M": 8192, "N": 4096},
}
INTERPRET_SHAPES = {
    "even": {"M": 4, "N": 64},
    "ragged": {"M": 3, "N": 40},
}


class Model(nn.Module):
    def forward(self, x):
        return torch.nn.functional.leaky_relu(x, SLOPE)


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
    return torch.where(x > 0, x, x * SLOPE)


def get_inputs(shape="small", device="cpu", generator=None):
    M, N = _dims(shape)
    return [torch.randn(M, N, generator=generator).to(device=device, dtype=torch.float16)]


def get_init_inputs(shape="small"):
    return []
