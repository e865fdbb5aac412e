"""PyTorch reference: C = A @ B with fp32 operands (A [M, K], B [K, N]) and an
fp16 result C [M, N] (the library's pairs all compare fp16 outputs).

torch runs an fp32 matmul without TF32 unless asked
(`torch.backends.cuda.matmul.allow_tf32`), so the reference keeps fp32
numerics; `truth` evaluates the product in float64.
"""

import torch
import torch.nn as nn

SHAPES = {
    "square": {"M": 4096, "K": 4096, "N": 4096},
    "rows256": {"M": 256, "K": 4096, "N": 4096},
}
INTERPRET_SHAPES = {
    "even": {"M": 64, "K": 64, "N": 64},
    "ragged": {"M": 40, "K": 72, "N": 56},
}


class Model(nn.Module):
    def forward(self, a, b):
        return torch.matmul(a, b).to(torch.float16)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["K"], shape["N"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    M, K, N = _dims(shape)
    return 4 * (M * K + K * N) + 2 * M * N


def truth(model, a, b):
    return a.double() @ b.double()


def get_inputs(shape="square", device="cpu", generator=None):
    M, K, N = _dims(shape)
    a = torch.randn(M, K, generator=generator).to(device=device)
    b = torch.randn(K, N, generator=generator).to(device=device)
    return [a, b]


def get_init_inputs(shape="square"):
    return []
