"""PyTorch reference: softmax over the last dimension of an fp16 matrix.

    out = softmax(x, dim=-1)        x fp16 [M, N], out fp16 [M, N]

The reference computes in fp32 and rounds to fp16; `kernlint verify`
checks everything against `truth`, the same softmax in float64.
"""

import torch
import torch.nn as nn

# Problem sizes (M = rows, N = row length; K is unused and 1). The shape
# names are the library's common ones. Every row is longer than one 4096
# element block, so a multi-pass kernel re-reads each row from DRAM once per
# pass: `seed` 4096 x 32768 (256 MB), `decode` 64 rows of a 131072-entry
# vocabulary (few programs: latency bound), `large` 8192 x 65536 (1 GB).
SHAPES = {
    "seed": {"M": 4096, "K": 1, "N": 32768},
    "decode": {"M": 64, "K": 1, "N": 131072},
    "large": {"M": 8192, "K": 1, "N": 65536},
}

# Tiny sizes for `kernlint verify --interpret`: rows of two blocks (`even`)
# and a ragged last block (`ragged`) at the interpreter's block of 2048.
INTERPRET_SHAPES = {
    "even": {"M": 2, "K": 1, "N": 4096},
    "ragged": {"M": 3, "K": 1, "N": 5000},
}


class Model(nn.Module):
    """Row softmax in fp32, rounded to fp16."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x.float(), dim=-1).to(torch.float16)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["N"]


def get_inputs(shape="seed", device="cpu", generator=None):
    """Fresh random logits [x [M, N] fp16] for one call."""
    M, N = _dims(shape)
    x = (torch.randn(M, N, dtype=torch.float32, generator=generator) * 4).to(torch.float16)
    return [x.to(device)]


def get_init_inputs(shape="seed"):
    """No constructor arguments."""
    return []


def truth(model, x):
    """The softmax in float64."""
    return torch.softmax(x.double(), dim=-1)


def dram_bytes(dims):
    """Bytes each call must move at least: x read once and out written once, fp16."""
    return 2 * 2 * dims["M"] * dims["N"]
