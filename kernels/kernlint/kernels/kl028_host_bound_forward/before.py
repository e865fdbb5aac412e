"""KL028 before: a residual CNN at batch 2, issued op by op.

About 60 kernels per call (convs, BatchNorms, ReLUs, adds, the pool and the
head), each a few microseconds of GPU work on [2, 32, 56, 56] activations,
and each several microseconds of host time in Python and the dispatcher:
the GPU waits for the host between kernels.
"""

import torch
import torch.nn as nn
import torch.nn.functional as F


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


class ModelNew(nn.Module):
    def __init__(self, channels=32, blocks=8):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, channels, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(channels), nn.ReLU()
        )
        self.blocks = nn.Sequential(*[Block(channels) for _ in range(blocks)])
        self.head = nn.Linear(channels, 10)
        self.half()

    def forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


# The pair's "kernelbench" shape.
batch_size = 2
channels = 32
height = 112
blocks = 8


def get_inputs():
    return [torch.randn(batch_size, 3, height, height, dtype=torch.float16)]


def get_init_inputs():
    return [channels, blocks]
