"""PyTorch reference: an fp16 linear layer without bias.

    out = x @ weight.T        x fp16 [M, K], weight fp16 [N, K], out fp16 [M, N]

`torch.matmul` in fp16 (cuBLAS, fp32 accumulation) is the reference;
`kernlint verify` checks everything against `truth`, the same product in
float64.
"""

import torch
import torch.nn as nn

# Problem sizes (M = rows of x, K = in_features, N = out_features); the
# shape names are the library's common ones. K is a multiple of every
# BLOCK_K, as in almost every production GEMM, so the EVEN_K path applies:
# `seed` a square 4096^3 GEMM, `decode` a skinny LLM decode step, `large`
# 8192^3.
SHAPES = {
    "seed": {"M": 4096, "K": 4096, "N": 4096},
    "decode": {"M": 16, "K": 8192, "N": 8192},
    "large": {"M": 8192, "K": 8192, "N": 8192},
}

# Tiny sizes for `kernlint verify --interpret`: `even` divides the
# interpreter's 32 x 32 x 32 tile; `ragged` exercises the M, N and K masks.
INTERPRET_SHAPES = {
    "even": {"M": 64, "K": 64, "N": 96},
    "ragged": {"M": 40, "K": 72, "N": 56},
}


class Model(nn.Module):
    """out = x @ weight.T in fp16."""

    def __init__(self, in_features=8192, out_features=8192):
        super().__init__()
        self.weight = nn.Parameter(
            torch.randn(out_features, in_features, dtype=torch.float16) * in_features**-0.5,
            requires_grad=False,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, self.weight.t())


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["K"], shape["N"]


def get_inputs(shape="seed", device="cpu", generator=None):
    """Fresh random inputs [x [M, K] fp16] for one call."""
    M, K, _ = _dims(shape)
    x = torch.randn(M, K, dtype=torch.float32, generator=generator).to(torch.float16)
    return [x.to(device)]


def get_init_inputs(shape="seed"):
    """Constructor arguments [in_features, out_features]."""
    _, K, N = _dims(shape)
    return [K, N]


def truth(model, x):
    """The product in float64."""
    return x.double() @ model.weight.double().t()


def dram_bytes(dims):
    """Bytes each call must move at least: x and weight read, out written, fp16."""
    M, K, N = dims["M"], dims["K"], dims["N"]
    return 2 * (M * K + N * K + M * N)
