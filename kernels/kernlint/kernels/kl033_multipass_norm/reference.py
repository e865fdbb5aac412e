"""PyTorch reference: each row of an fp32 matrix normalized to zero mean and unit variance (an instance norm
over [N, C, H, W] viewed as N * C rows of H * W, a layer norm without affine), rounded to fp16.

    out = (x - mean(x, -1)) / sqrt(var(x, -1, unbiased=False) + eps)     x fp32 [M, N], out fp16 [M, N]

`kernlint verify` checks everything against `truth`, the same normalization in float64.
"""

import torch
import torch.nn as nn

EPS = 1e-5

# Problem sizes (M = rows, N = row length; K is unused and 1). Every row is longer than one 4096-element block,
# so a multi-pass kernel re-reads each row from DRAM once per pass: `planes` 1024 instance-norm planes of
# 512 x 512 (1 GB), `groups` 8192 rows of 16384 (a group norm's groups, 512 MB).
SHAPES = {
    "planes": {"M": 1024, "K": 1, "N": 262144},
    "groups": {"M": 8192, "K": 1, "N": 16384},
}

# Tiny sizes for `kernlint verify --interpret`: rows of two blocks (`even`) and a ragged last block (`ragged`)
# at the interpreter's block of 2048.
INTERPRET_SHAPES = {
    "even": {"M": 2, "K": 1, "N": 4096},
    "ragged": {"M": 3, "K": 1, "N": 5000},
}


class Model(nn.Module):
    """Row normalization in fp32 (torch's layer norm without affine), rounded to fp16."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.layer_norm(x, (x.shape[-1],), eps=EPS).to(torch.float16)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["N"]


def get_inputs(shape="planes", device="cpu", generator=None):
    """Fresh random rows [x [M, N] fp32], not centred (mean 0.5), for one call."""
    M, N = _dims(shape)
    x = torch.randn(M, N, dtype=torch.float32, generator=generator) + 0.5
    return [x.to(device)]


def get_init_inputs(shape="planes"):
    """No constructor arguments."""
    return []


def truth(model, x):
    """The normalization in float64."""
    x = x.double()
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, unbiased=False, keepdim=True)
    return (x - mean) / torch.sqrt(var + EPS)


def dram_bytes(dims):
    """Bytes each call must move at least: x read once (fp32) and out written once (fp16)."""
    return (4 + 2) * dims["M"] * dims["N"]
