"""PyTorch reference: one GRU layer over a sequence (KernelBench level 3 GRU
shape), `nn.GRU`, which runs on cuDNN: the library baseline a user would
pick. fp16 parameters, inputs and output.

    r = sigmoid(x W_ir^T + b_ir + h W_hr^T + b_hr)
    z = sigmoid(x W_iz^T + b_iz + h W_hz^T + b_hz)
    n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn))
    h' = (1 - z) * n + z * h,   output[t] = h' (all steps, [T, B, H])

Shapes hold T (steps), B (batch), I (input size), H (hidden size); M, K, N
are the sizes of the input-projection GEMM of all steps ([T*B, I] x [I, 3H]),
which is how the record names a shape.
"""

import torch
import torch.nn as nn

SHAPES = {
    "kernelbench": {"T": 512, "B": 10, "I": 128, "H": 256, "M": 5120, "K": 128, "N": 768},
}

INTERPRET_SHAPES = {
    "gru_even": {"T": 6, "B": 2, "I": 16, "H": 32, "M": 12, "K": 16, "N": 96},
    "gru_ragged": {"T": 5, "B": 3, "I": 12, "H": 20, "M": 15, "K": 12, "N": 60},
}

# Not an int8 GEMM: verify skips its torch._int_mm baseline for these shapes.
INT8_GEMM = False
SHAPE_NOTE = "GRU layer: the reference column is nn.GRU (cuDNN), the library baseline"


class Model(nn.Module):
    def __init__(self, input_size=128, hidden_size=256):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False).half()

    def forward(self, x: torch.Tensor, h0: torch.Tensor) -> torch.Tensor:
        output, _ = self.gru(x, h0)
        return output


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["T"], shape["B"], shape["I"], shape["H"]


def get_inputs(shape="kernelbench", device="cpu", generator=None):
    """[x [T, B, I], h0 [1, B, H]], fp16."""
    T, B, I, H = _dims(shape)
    x = torch.randn(T, B, I, generator=generator).half()
    h0 = torch.randn(1, B, H, generator=generator).half()
    return [x.to(device), h0.to(device)]


def get_init_inputs(shape="kernelbench"):
    _, _, I, H = _dims(shape)
    return [I, H]


def truth(model, x, h0):
    """The GRU recurrence in float64, step by step."""
    gru = model.gru
    w_ih, w_hh = gru.weight_ih_l0.double(), gru.weight_hh_l0.double()
    b_ih, b_hh = gru.bias_ih_l0.double(), gru.bias_hh_l0.double()
    H = w_hh.shape[1]
    h = h0[0].double()
    gi_all = x.double() @ w_ih.t() + b_ih
    out = []
    for t in range(x.shape[0]):
        gi, gh = gi_all[t], h @ w_hh.t() + b_hh
        r = torch.sigmoid(gi[:, :H] + gh[:, :H])
        z = torch.sigmoid(gi[:, H : 2 * H] + gh[:, H : 2 * H])
        n = torch.tanh(gi[:, 2 * H :] + r * gh[:, 2 * H :])
        h = (1 - z) * n + z * h
        out.append(h)
    return torch.stack(out)


def dram_bytes(dims):
    """Bytes one call must move at least: x, the output, the weights (fp16)."""
    T, B, I, H = _dims(dims)
    return 2 * (T * B * I + T * B * H + 3 * H * (I + H) + 6 * H + B * H)
