"""PyTorch reference: y = gelu(layer_norm(x)) * scaling_factor over the last
dim, the tail of KernelBench level 2 problem 34 (ConvTranspose3d ->
LayerNorm -> GELU -> scaling) without the convolution: x fp16 [M, N], the
LayerNorm's weight and bias fp32 [N], the result fp16.

`truth` evaluates it in float64.
"""

import torch
import torch.nn as nn

EPS = 1e-5
SCALE = 2.0
SHAPES = {
    "kernelbench": {"M": 1048576, "N": 64},
    "wide": {"M": 16384, "N": 1024},
}
INTERPRET_SHAPES = {
    "even": {"M": 128, "N": 64},
    "ragged": {"M": 37, "N": 48},
}


class Model(nn.Module):
    def __init__(self, normalized_shape, scaling_factor):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape, eps=EPS)
        self.scaling_factor = scaling_factor
        with torch.no_grad():
            g = torch.Generator().manual_seed(0)
            self.ln.weight.copy_(1.0 + 0.1 * torch.randn(normalized_shape, generator=g))
            self.ln.bias.copy_(0.1 * torch.randn(normalized_shape, generator=g))

    def forward(self, x):
        y = torch.nn.functional.gelu(self.ln(x.float()))
        return (y * self.scaling_factor).to(torch.float16)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["N"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    M, N = _dims(shape)
    return 2 * (2 * M * N) + 4 * (2 * N)  # x read, y written (fp16); weight and bias (fp32)


def truth(model, x):
    x = x.double()
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    y = (x - mean) / torch.sqrt(var + EPS) * model.ln.weight.double() + model.ln.bias.double()
    return torch.nn.functional.gelu(y) * model.scaling_factor


def get_inputs(shape="kernelbench", device="cpu", generator=None):
    M, N = _dims(shape)
    return [torch.randn(M, N, generator=generator).to(device=device, dtype=torch.float16)]


def get_init_inputs(shape="kernelbench"):
    M, N = _dims(shape)
    return [N, SCALE]
