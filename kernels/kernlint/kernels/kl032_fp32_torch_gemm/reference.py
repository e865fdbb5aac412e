"""PyTorch reference: relu(x @ W^T + b) as `nn.Linear` and `torch.relu` on fp32 operands (x [M, K], W [N, K],
b [N]), the result as fp16 [M, N] (the library's pairs all compare fp16 outputs).

torch runs an fp32 matmul without TF32 unless asked (`torch.backends.cuda.matmul.allow_tf32`), so the reference
keeps fp32 numerics; `truth` evaluates the layer in float64.
"""

import torch
import torch.nn as nn

SHAPES = {
    "square": {"M": 4096, "K": 4096, "N": 4096},
    "rows16": {"M": 16, "K": 4096, "N": 4096},
}
INTERPRET_SHAPES = {
    "even": {"M": 64, "K": 64, "N": 64},
    "ragged": {"M": 40, "K": 72, "N": 56},
}


class Model(nn.Module):
    def __init__(self, in_features=4096, out_features=4096):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.fc(x)).to(torch.float16)


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["K"], shape["N"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    M, K, N = _dims(shape)
    return 4 * (M * K + N * K + N) + 2 * M * N


def truth(model, x):
    return torch.relu(x.double() @ model.fc.weight.double().T + model.fc.bias.double())


def get_inputs(shape="square", device="cpu", generator=None):
    M, K, _ = _dims(shape)
    return [torch.randn(M, K, generator=generator).to(device=device)]


def get_init_inputs(shape="square"):
    _, K, N = _dims(shape)
    return [K, N]
