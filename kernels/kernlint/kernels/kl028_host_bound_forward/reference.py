"""PyTorch reference: a small residual CNN (written for this pair, in the
shape of KernelBench level 3's ResNets): a stride-2 3x3 conv stem with
BatchNorm and ReLU, BLOCKS residual blocks (3x3 conv, BatchNorm, ReLU, 3x3
conv, BatchNorm, add the block's input, ReLU) at C channels, a global average
pool and a linear head. fp16 weights and input [B, 3, H, H]; train mode (the
BatchNorms use the batch's statistics, as a KernelBench model does).

Shapes hold B (batch), C (channels), H (input height and width) and BLOCKS:
`kernelbench` is batch 2 (host-bound: ~60 kernels of a few microseconds),
`batch128` a batch at which the GPU's work outlasts the issue.
"""

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

SHAPES = {
    "kernelbench": {"B": 2, "C": 32, "H": 112, "BLOCKS": 8},
    "batch128": {"B": 128, "C": 32, "H": 112, "BLOCKS": 8},
}

# Tiny sizes for the CPU run of the tests.
INTERPRET_SHAPES = {
    "even": {"B": 2, "C": 8, "H": 16, "BLOCKS": 2},
    "ragged": {"B": 3, "C": 4, "H": 10, "BLOCKS": 1},
}

INT8_GEMM = False
SHAPE_NOTE = "a residual CNN at a small and a large batch: the reference column is the same torch network"
CLASSES = 10


class Block(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(y)) + x)


class Model(nn.Module):
    def __init__(self, channels=32, blocks=8):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, channels, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(channels), nn.ReLU()
        )
        self.blocks = nn.Sequential(*[Block(channels) for _ in range(blocks)])
        self.head = nn.Linear(channels, CLASSES)
        self.half()

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["B"], shape["C"], shape["H"], shape["BLOCKS"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    B, C, H, BLOCKS = _dims(shape)
    side = (H + 1) // 2
    # Each of the ~7 ops per block reads and writes one fp16 activation [B, C, side, side].
    return 2 * B * 3 * H * H + BLOCKS * 7 * 2 * 2 * B * C * side * side


def truth(model, x):
    # The same network in float64, train-mode BatchNorm included (the copy's running stats are discarded).
    return copy.deepcopy(model).double()(x.double())


def get_inputs(shape="kernelbench", device="cpu", generator=None):
    B, _, H, _ = _dims(shape)
    return [torch.randn(B, 3, H, H, generator=generator).half().to(device)]


def get_init_inputs(shape="kernelbench"):
    _, C, _, BLOCKS = _dims(shape)
    return [C, BLOCKS]
