"""PyTorch reference: y = x * cos(row * inv_freq[col]), inv_freq = 10000^(-col/dim).

x is fp16 [M, dim]; the module holds the constant frequency table as a
buffer; the output is fp16 [M, dim].  `truth` evaluates it in float64.
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


def inv_freq_table(dim):
    return 1.0 / 10000 ** (torch.arange(0, dim).float() / dim)


class Model(nn.Module):
    def __init__(self, dim=4096):
        super().__init__()
        self.dim = dim
        self.register_buffer("inv_freq", inv_freq_table(dim), persistent=False)

    def forward(self, x):
        pos = torch.arange(x.shape[0], device=x.device, dtype=torch.float32)
        return (x.float() * torch.cos(pos[:, None] * self.inv_freq[None, :])).to(torch.float16)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["N"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    M, N = _dims(shape)
    return 2 * M * N * 2 + 4 * N  # x read, y written (fp16), the table read


def truth(model, x):
    M, N = x.shape
    pos = torch.arange(M, dtype=torch.float64, device=x.device)
    freq = 1.0 / 10000 ** (torch.arange(0, N, dtype=torch.float64, device=x.device) / N)
    return x.double() * torch.cos(pos[:, None] * freq[None, :])


def get_inputs(shape="decode", device="cpu", generator=None):
    M, N = _dims(shape)
    return [torch.randn(M, N, generator=generator).to(device=device, dtype=torch.float16)]


def get_init_inputs(shape="decode"):
    return [_dims(shape)[1]]
