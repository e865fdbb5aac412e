"""PyTorch reference: LayerNorm over all but the first dim (KernelBench level 1
problem 40: x [16, 64, 256, 256], normalized_shape (64, 256, 256), an
elementwise affine weight and bias), in fp16 like the library's other pairs
(statistics in fp32; the fp32 weight and bias are the module's).

`truth` evaluates it in float64. The rows are 4 M elements each and there
are only 16 of them: a kernel that gives each row one program leaves most
of the GPU idle.
"""

import torch
import torch.nn as nn

EPS = 1e-5
SHAPES = {
    "kernelbench": {"B": 16, "F": 64, "D1": 256, "D2": 256},
    "wide": {"B": 8, "F": 32, "D1": 512, "D2": 512},
}
INTERPRET_SHAPES = {
    "even": {"B": 2, "F": 4, "D1": 16, "D2": 32},
    "ragged": {"B": 3, "F": 2, "D1": 100, "D2": 91},  # two chunks of the after's split, the last one partial
}


class Model(nn.Module):
    def __init__(self, normalized_shape):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape, eps=EPS)
        with torch.no_grad():
            # Non-trivial affine parameters, so a kernel that ignores them fails.
            g = torch.Generator().manual_seed(0)
            self.ln.weight.copy_(1.0 + 0.1 * torch.randn(normalized_shape, generator=g))
            self.ln.bias.copy_(0.1 * torch.randn(normalized_shape, generator=g))

    def forward(self, x):
        return self.ln(x.float()).to(torch.float16)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["B"], shape["F"], shape["D1"], shape["D2"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    B, F, D1, D2 = _dims(shape)
    n = F * D1 * D2
    return 2 * (2 * B * n) + 4 * (2 * n)  # x read, y written (fp16); weight and bias read (fp32)


def truth(model, x):
    x = x.double()
    dims = tuple(range(1, x.dim()))
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, unbiased=False, keepdim=True)
    return (x - mean) / torch.sqrt(var + EPS) * model.ln.weight.double() + model.ln.bias.double()


def get_inputs(shape="kernelbench", device="cpu", generator=None):
    B, F, D1, D2 = _dims(shape)
    return [torch.rand(B, F, D1, D2, generator=generator).to(device=device, dtype=torch.float16)]


def get_init_inputs(shape="kernelbench"):
    B, F, D1, D2 = _dims(shape)
    return [(F, D1, D2)]
