"""KL028 fixed: the same forward, captured once in a CUDA graph and replayed.

On the first call on a GPU (per input shape) the forward runs three times on
a side stream to warm up cuDNN and the allocator, then once under
`torch.cuda.graph`; each call after that copies its input into the graph's
static input, replays every kernel with one launch and returns a clone of
the static output (the next replay overwrites it). The kernels are the same:
only the host's work per call changes. Off the GPU, or inside a capture
that someone else is making (a CUDA-graph benchmark of this module), the
forward runs op by op.
"""

# kernlint: ignore-file[KL004]
# The blocks' conv -> BatchNorm -> ReLU tails are KL004's to fuse (kept as in
# before.py): this pair measures the graph capture alone.

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
        self._graphs = {}  # (shape, dtype, device) -> (graph, static input, static output)

    def _forward(self, x):
        x = self.blocks(self.stem(x))
        return self.head(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))

    def _capture(self, x):
        static_x = x.clone()
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                self._forward(static_x)
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_y = self._forward(static_x)
        return graph, static_x, static_y

    def forward(self, x):
        if not x.is_cuda or torch.cuda.is_current_stream_capturing():
            return self._forward(x)
        key = (tuple(x.shape), x.dtype, x.device, self.training)
        if key not in self._graphs:
            self._graphs[key] = self._capture(x)
        graph, static_x, static_y = self._graphs[key]
        static_x.copy_(x)
        graph.replay()
        return static_y.clone()


# The pair's "kernelbench" shape.
batch_size = 2
channels = 32
height = 112
blocks = 8


def get_inputs():
    return [torch.randn(batch_size, 3, height, height, dtype=torch.float16)]


def get_init_inputs():
    return [channels, blocks]
