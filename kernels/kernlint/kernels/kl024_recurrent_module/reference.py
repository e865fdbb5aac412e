"""PyTorch reference: a multi-layer GRU over a sequence (KernelBench level 3,
problem 39), `nn.GRU`, which runs on cuDNN: the library baseline a user
would pick. fp16 parameters, inputs and output; the output is the last
layer's hidden state at every step, [T, B, H].

Shapes hold T (steps), B (batch), I (input size), H (hidden size), L (layers).
"""

import torch
import torch.nn as nn

SHAPES = {
    "kernelbench": {"T": 512, "B": 10, "I": 128, "H": 256, "L": 6},
    "layers3": {"T": 256, "B": 32, "I": 256, "H": 256, "L": 3},
}

INTERPRET_SHAPES = {
    "gru_even": {"T": 4, "B": 2, "I": 16, "H": 32, "L": 2},
    "gru_ragged": {"T": 5, "B": 3, "I": 12, "H": 20, "L": 3},
}

INT8_GEMM = False
SHAPE_NOTE = "multi-layer GRU: the reference column is nn.GRU (cuDNN), the library baseline"


class Model(nn.Module):
    def __init__(self, input_size=128, hidden_size=256, num_layers=6):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers=num_layers, bias=True, batch_first=False).half()

    def forward(self, x: torch.Tensor, h0: torch.Tensor) -> torch.Tensor:
        output, _ = self.gru(x, h0)
        return output


def _dims(shape):
    if isinstance(shape, str):
        shape = {**INTERPRET_SHAPES, **SHAPES}[shape]
    return shape["T"], shape["B"], shape["I"], shape["H"], shape["L"]


def dims_str(shape):
    return "x".join(str(n) for n in _dims(shape))


def get_inputs(shape="kernelbench", device="cpu", generator=None):
    """[x [T, B, I], h0 [L, B, H]], fp16."""
    T, B, I, H, L = _dims(shape)
    x = torch.randn(T, B, I, generator=generator).half()
    h0 = torch.randn(L, B, H, generator=generator).half()
    return [x.to(device), h0.to(device)]


def get_init_inputs(shape="kernelbench"):
    _, _, I, H, L = _dims(shape)
    return [I, H, L]


def truth(model, x, h0):
    """The GRU recurrence in float64, layer by layer, step by step."""
    gru = model.gru
    layer_input = x.double()
    for layer in range(gru.num_layers):
        w_ih = getattr(gru, f"weight_ih_l{layer}").double()
        w_hh = getattr(gru, f"weight_hh_l{layer}").double()
        b_ih = getattr(gru, f"bias_ih_l{layer}").double()
        b_hh = getattr(gru, f"bias_hh_l{layer}").double()
        H = w_hh.shape[1]
        h = h0[layer].double()
        gi_all = layer_input @ w_ih.t() + b_ih
        out = []
        for t in range(x.shape[0]):
            gi, gh = gi_all[t], h @ w_hh.t() + b_hh
            r = torch.sigmoid(gi[:, :H] + gh[:, :H])
            z = torch.sigmoid(gi[:, H : 2 * H] + gh[:, H : 2 * H])
            n = torch.tanh(gi[:, 2 * H :] + r * gh[:, 2 * H :])
            h = (1 - z) * n + z * h
            out.append(h)
        layer_input = torch.stack(out)
    return layer_input


def dram_bytes(dims):
    """Bytes one call must move at least: x, the output, the weights (fp16)."""
    T, B, I, H, L = _dims(dims)
    weights = 3 * H * (I + H) + (L - 1) * 3 * H * 2 * H + L * 6 * H
    return 2 * (T * B * I + T * B * H + weights + L * B * H)
