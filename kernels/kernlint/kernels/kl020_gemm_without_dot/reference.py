"""PyTorch reference: C = A @ B with fp16 operands (A [M, K], B [K, N]) and an
fp16 result C [M, N], KernelBench level 1's square and standard matmul
problems at fp16.

`truth` evaluates the product in float64.
"""

import torch
import torch.nn as nn

SHAPES = {
    "square": {"M": 2048, "K": 2048, "N": 2048},
    "standard": {"M": 2048, "K": 8192, "N": 4096},
}
INTERPRET_SHAPES = {
    "even": {"M": 64, "K": 32, "N": 64},
    "ragged": {"M": 40, "K": 24, "N": 72},
}


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["K"], shape["N"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    M, K, N = _dims(shape)
    return 2 * (M * K + K * N + M * N)


def truth(model, a, b):
    return a.double() @ b.double()


def get_inputs(shape="square", device="cpu", generator=None):
    M, K, N = _dims(shape)
    a = torch.randn(M, K, generator=generator).to(device=device, dtype=torch.float16)
    b = torch.randn(K, N, generator=generator).to(device=device, dtype=torch.float16)
    return [a, b]


def get_init_inputs(shape="square"):
    return []
