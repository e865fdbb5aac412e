"""KL027 before: the GEMM, dropout and mean are computed, and the softmax
over the kept dimension of size 1 turns their [M, 1] result into ones.

A softmax normalizes over its dimension: over one element it is
exp(v) / exp(v) = 1, whatever v is, so nothing before it reaches the output.
"""

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features=8192, out_features=8192, dropout_p=0.2):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features).half()
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, x):
        x = self.matmul(x)
        x = self.dropout(x)
        x = torch.mean(x, dim=1, keepdim=True)
        x = torch.softmax(x, dim=1)
        return x


batch_size = 1024
in_features = 8192
out_features = 8192
dropout_p = 0.2


def get_inputs():
    return [torch.rand(batch_size, in_features, dtype=torch.float16)]


def get_init_inputs():
    return [in_features, out_features, dropout_p]
