"""PyTorch reference: out = sum(x @ W^T / 2, dim=1, keepdim=True) * s
(KernelBench level 2, problem 14). x is fp16 [M, I], W fp16 [H, I]; the
output is fp16 [M, 1]. The sum over the H outputs commutes with the
product: out = (x @ (W^T 1)) / 2 * s.
"""

import torch
import torch.nn as nn

SHAPES = {
    "kernelbench": {"M": 1024, "I": 8192, "H": 8192},
    "m128": {"M": 128, "I": 4096, "H": 4096},
}

INTERPRET_SHAPES = {
    "even": {"M": 4, "I": 16, "H": 32},
    "ragged": {"M": 3, "I": 12, "H": 20},
}

INT8_GEMM = False
SHAPE_NOTE = "a GEMM summed over its outputs: the reference column is the torch formula"
SCALING_FACTOR = 1.5


class Model(nn.Module):
    def __init__(self, input_size=8192, hidden_size=8192, scaling_factor=SCALING_FACTOR):
        super().__init__()
        self.weight = nn.Parameter((torch.randn(hidden_size, input_size) * input_size**-0.5).half())
        self.scaling_factor = scaling_factor

    def forward(self, x):
        x = torch.matmul(x, self.weight.T)
        x = x / 2
        x = torch.sum(x, dim=1, keepdim=True)
        return x * self.scaling_factor


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["I"], shape["H"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    M, I, H = _dims(shape)
    return 2 * (M * I + H * I + M)  # x and W read once, the [M, 1] output written, fp16


def truth(model, x):
    return (x.double() @ model.weight.double().T / 2).sum(dim=1, keepdim=True) * model.scaling_factor


def get_inputs(shape="kernelbench", device="cpu", generator=None):
    M, I, _ = _dims(shape)
    return [torch.rand(M, I, generator=generator).half().to(device)]


def get_init_inputs(shape="kernelbench"):
    _, I, H = _dims(shape)
    return [I, H, SCALING_FACTOR]
