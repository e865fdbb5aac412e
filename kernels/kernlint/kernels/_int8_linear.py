"""The parameters of the library's int8 linear layer, shared by every model.

The reference `Model` and each `after` `ModelNew` subclass it and add only
their `forward`, so a `state_dict` moves between them unchanged.  (Each
`before` keeps its own copy of these lines: a `before` file is a whole
program, exactly what a user would have written.)
"""

import torch
import torch.nn as nn


class Int8Linear(nn.Module):
    """int8 weight [N, K] with a per-output-channel fp32 scale [N] and an fp16 bias [N]."""

    def __init__(self, in_features=2048, out_features=2048):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight_int8 = nn.Parameter(
            torch.randint(-128, 127, (out_features, in_features), dtype=torch.int8),
            requires_grad=False,
        )
        self.scale_w = nn.Parameter(
            torch.randn(out_features, dtype=torch.float32).abs() * 0.01,
            requires_grad=False,
        )
        self.bias = nn.Parameter(
            torch.randn(out_features, dtype=torch.float16) * 0.01,
            requires_grad=False,
        )
