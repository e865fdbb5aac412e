"""KL027 fixed: the output written directly.

softmax over a dimension of size 1 is 1 for every input (in training mode
too: dropout changes the values before the mean, not the size), so the
result is ones of shape [M, 1] in the input's dtype and device: one fill,
no GEMM. The Linear stays as a module so that the weights load as before.
"""

import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features=8192, out_features=8192, dropout_p=0.2):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features).half()
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, x):
        return x.new_ones(x.shape[0], 1)
