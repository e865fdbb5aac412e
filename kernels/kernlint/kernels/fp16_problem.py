"""The fp16 GEMM problem of the KL009 and KL010 pairs: an fp16 linear
layer without bias.

    out = x @ weight.T        x fp16 [M, K], weight fp16 [N, K], out fp16 [M, N]

`torch.matmul` in fp16 (cuBLAS, fp32 accumulation) is the reference;
`kernlint verify` checks everything against `truth`, the same product in
float64. Each pair's `reference.py` names its own shapes and gets its
KernelBench functions from `kernelbench_functions`.
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    """out = x @ weight.T in fp16."""

    def __init__(self, in_features=8192, out_features=8192):
        super().__init__()
        self.weight = nn.Parameter(
            torch.randn(out_features, in_features, dtype=torch.float16) * in_features**-0.5,
            requires_grad=False,
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, self.weight.t())


def kernelbench_functions(shapes, interpret_shapes):
    """`get_inputs` and `get_init_inputs` over a pair's shape tables (a
    shape is a name in them, or an {"M", "K", "N"} dict)."""

    def dims(shape):
        if isinstance(shape, str):
            shape = {**interpret_shapes, **shapes}[shape]
        return shape["M"], shape["K"], shape["N"]

    def get_inputs(shape="seed", device="cpu", generator=None):
        """Fresh random inputs [x [M, K] fp16] for one call."""
        M, K, _ = dims(shape)
        x = torch.randn(M, K, dtype=torch.float32, generator=generator).to(torch.float16)
        return [x.to(device)]

    def get_init_inputs(shape="seed"):
        """Constructor arguments [in_features, out_features]."""
        _, K, N = dims(shape)
        return [K, N]

    return get_inputs, get_init_inputs


def truth(model, x):
    """The product in float64."""
    return x.double() @ model.weight.double().t()


def dram_bytes(dims):
    """Bytes each call must move at least: x and weight read, out written, fp16."""
    M, K, N = dims["M"], dims["K"], dims["N"]
    return 2 * (M * K + N * K + M * N)
