"""PyTorch reference: out = softmax(mean(dropout(x @ W^T + b), dim=1,
keepdim=True), dim=1) (KernelBench level 2, problem 66, as first released:
66_Matmul_Dropout_Mean_Softmax). x is fp16 [M, I], W fp16 [O, I], b fp16
[O]; the output is fp16 [M, 1]. The softmax runs over a dimension of size 1,
so every element is 1: out = ones(M, 1).
"""

import torch
import torch.nn as nn

SHAPES = {
    "kernelbench": {"M": 1024, "I": 8192, "O": 8192},
    "m128": {"M": 128, "I": 4096, "O": 4096},
}

INTERPRET_SHAPES = {
    "even": {"M": 4, "I": 16, "O": 32},
    "ragged": {"M": 3, "I": 12, "O": 20},
}

INT8_GEMM = False
SHAPE_NOTE = "a GEMM whose result a softmax over a dimension of size 1 replaces by ones: the reference column is the torch formula"
DROPOUT_P = 0.2


class Model(nn.Module):
    def __init__(self, in_features=8192, out_features=8192, dropout_p=DROPOUT_P):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features).half()
        self.dropout = nn.Dropout(dropout_p)

    def forward(self, x):
        x = self.matmul(x)
        x = self.dropout(x)
        x = torch.mean(x, dim=1, keepdim=True)
        x = torch.softmax(x, dim=1)
        return x


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["M"], shape["I"], shape["O"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def dram_bytes(shape):
    M, _, _ = _dims(shape)
    return 2 * M  # the [M, 1] fp16 output written: nothing else is needed


def truth(model, x):
    # The formula in float64: the softmax of one number is exactly 1.
    y = x.double() @ model.matmul.weight.double().T + model.matmul.bias.double()
    return torch.softmax(y.mean(dim=1, keepdim=True), dim=1)


def get_inputs(shape="kernelbench", device="cpu", generator=None):
    M, I, _ = _dims(shape)
    return [torch.rand(M, I, generator=generator).half().to(device)]


def get_init_inputs(shape="kernelbench"):
    _, I, O = _dims(shape)
    return [I, O, DROPOUT_P]
