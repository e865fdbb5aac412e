"""PyTorch reference: L1 row normalization, out = x / mean(|x|, dim=1, keepdim=True)
(KernelBench level 1, problem 38). x is fp16 [R, C]; so is the output (torch reduces in fp32 inside its kernels).

Shapes hold R (rows) and C (columns): `kb16` is the older KernelBench size
(16 x 16384, launch-bound), `rows4k` a bandwidth-bound size (128 MiB).
"""

import torch
import torch.nn as nn

SHAPES = {
    "kb16": {"R": 16, "C": 16384},
    "rows4k": {"R": 4096, "C": 16384},
}

# Tiny sizes for the Triton interpreter; `ragged` leaves a partial column block.
INTERPRET_SHAPES = {
    "even": {"R": 4, "C": 64},
    "ragged": {"R": 3, "C": 100},
}

INT8_GEMM = False
SHAPE_NOTE = "L1 row normalization: the reference column is the torch formula"


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / torch.mean(torch.abs(x), dim=1, keepdim=True)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["R"], shape["C"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    R, C = _dims(shape)
    return 2 * 2 * R * C  # x read once and the output written once, fp16


def truth(model, x):
    x = x.double()
    return x / x.abs().mean(dim=1, keepdim=True)


def get_inputs(shape="kb16", device="cpu", generator=None):
    R, C = _dims(shape)
    return [torch.rand(R, C, generator=generator).half().to(device)]


def get_init_inputs(shape="kb16"):
    return []
