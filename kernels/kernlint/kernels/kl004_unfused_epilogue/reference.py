"""PyTorch reference: INT8 matmul with row-wise dequantization and bias.

The seed problem's `Model`, unchanged in what it computes:

    out = (x_int8 @ weight_int8.T) * scale_x[:, None] * scale_w[None, :] / 127**2 + bias

x is int8 [M, K] with a per-row fp32 scale [M]; the module holds an int8
weight [N, K] with a per-output-channel fp32 scale [N] and an fp16 bias [N];
the output is fp16 [M, N].  The reference upcasts both operands to fp32 and
multiplies them with `torch.matmul`: slow on purpose, it is the ground truth
the library's kernels are checked against (`kernlint verify` also checks
everything, this reference included, against a float64 evaluation).
"""

import torch
import torch.nn as nn

# Problem sizes the library is measured on (M = rows of x, K = in_features,
# N = out_features).  `seed` is the seed problem's own size; `decode` is a
# skinny, weight-bound LLM decode step; `large` is a square, compute-bound GEMM.
SHAPES = {
    "seed": {"M": 128, "K": 2048, "N": 2048},
    "decode": {"M": 16, "K": 4096, "N": 4096},
    "large": {"M": 4096, "K": 4096, "N": 4096},
}

# Tiny sizes for `kernlint verify --interpret` (the Triton interpreter on the
# CPU).  `even` divides every tile; `ragged` exercises the masks on M, N and K.
INTERPRET_SHAPES = {
    "even": {"M": 16, "K": 256, "N": 64},
    "ragged": {"M": 20, "K": 96, "N": 72},
}


class Model(nn.Module):
    """INT8 matmul with row-wise dequantization (the seed's reference)."""

    def __init__(self, in_features=2048, out_features=2048):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight_int8 = nn.Parameter(
            torch.randint(-128, 127, (out_features, in_features), dtype=torch.int8),
            requires_grad=False,
        )
        self.scale_w = nn.Parameter(
            torch.randn(out_features, dtype=torch.float32).abs() * 0.01,
            requires_grad=False,
        )
        self.bias = nn.Parameter(
            torch.randn(out_features, dtype=torch.float16) * 0.01,
            requires_grad=False,
        )

    def forward(self, x: torch.Tensor, scale_x: torch.Tensor) -> torch.Tensor:
        result = torch.matmul(x.float(), self.weight_int8.t().float())
        divfactor = 1.0 / (127.0 * 127.0)
        output = self.scale_w[None, :] * (scale_x[:, None] * (result * divfactor))
        output = output + self.bias[None, :]
        return output.to(torch.float16)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["K"], shape["N"]


def get_inputs(shape="seed", device="cpu", generator=None):
    """Fresh random inputs [x_int8 [M, K], scale_x [M]] for one call."""
    M, K, _ = _dims(shape)
    x = torch.randint(-128, 127, (M, K), dtype=torch.int8, generator=generator)
    scale_x = torch.randn(M, dtype=torch.float32, generator=generator).abs() * 0.01
    return [x.to(device), scale_x.to(device)]


def get_init_inputs(shape="seed"):
    """Constructor arguments [in_features, out_features]."""
    _, K, N = _dims(shape)
    return [K, N]
