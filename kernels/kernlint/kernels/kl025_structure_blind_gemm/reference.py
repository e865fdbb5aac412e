"""PyTorch reference: the product of a diagonal matrix and a dense one,
C = diag(a) @ B = a[:, None] * B (KernelBench level 1, problem 12).
a is fp16 [N], B fp16 [N, M]; C is fp16 [N, M].
"""

import torch
import torch.nn as nn

SHAPES = {
    "kernelbench": {"N": 4096, "M": 4096},
    "n1k": {"N": 1024, "M": 1024},
}

INTERPRET_SHAPES = {
    "even": {"N": 16, "M": 32},
    "ragged": {"N": 7, "M": 13},
}

INT8_GEMM = False
SHAPE_NOTE = "diagonal times dense: the reference column is the broadcast product"


class Model(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return a.unsqueeze(1) * b


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["N"], shape["M"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    N, M = _dims(shape)
    return 2 * (N + 2 * N * M)  # a and B read once, C written once, fp16


def truth(model, a, b):
    return a.double().unsqueeze(1) * b.double()


def get_inputs(shape="kernelbench", device="cpu", generator=None):
    N, M = _dims(shape)
    a = torch.rand(N, generator=generator).half()
    b = torch.rand(N, M, generator=generator).half()
    return [a.to(device), b.to(device)]


def get_init_inputs(shape="kernelbench"):
    return []
