"""PyTorch reference: a 3x3 max pool, stride 1, no padding (nn.MaxPool2d(3, stride=1)) over x, fp16 [B, C, H, W]
(the harness compares fp16 outputs).

Shapes hold B, C, H, W: `large` streams 512 MiB in (bandwidth-bound, where
PyTorch's kernel runs far from it), `small` is a 32 KiB tensor whose call
is a launch.
"""

import torch
import torch.nn as nn

SHAPES = {
    "large": {"B": 16, "C": 64, "H": 512, "W": 512},
    "small": {"B": 1, "C": 16, "H": 32, "W": 32},
}

# Tiny sizes for the Triton interpreter; `ragged` leaves a partial column block.
INTERPRET_SHAPES = {
    "even": {"B": 1, "C": 2, "H": 8, "W": 10},
    "ragged": {"B": 2, "C": 3, "H": 7, "W": 37},
}

INT8_GEMM = False
SHAPE_NOTE = "3x3 max pool, stride 1: the reference column is nn.MaxPool2d"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=3, stride=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["B"], shape["C"], shape["H"], shape["W"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    B, C, H, W = _dims(shape)
    return 2 * B * C * (H * W + (H - 2) * (W - 2))  # x read once, the output written once (fp16)


def truth(model, x):
    return torch.nn.functional.max_pool2d(x.double(), 3, 1)


def get_inputs(shape="large", device="cpu", generator=None):
    B, C, H, W = _dims(shape)
    return [torch.randn(B, C, H, W, generator=generator).half().to(device)]


def get_init_inputs(shape="large"):
    return []
