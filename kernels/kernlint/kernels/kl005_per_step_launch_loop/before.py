"""GRU layer with the time loop in Python: per step, one addmm for the
recurrent projection and one Triton cell kernel (KL005's anti-pattern). The
input projection of all steps is already one GEMM; nothing else is wrong."""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gru_cell_kernel(gi_ptr, gh_ptr, h_ptr, out_ptr, H, BLOCK_H: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK_H)
    mask = offs < H
    gi = gi_ptr + row * 3 * H
    gh = gh_ptr + row * 3 * H
    r = tl.sigmoid(tl.load(gi + offs, mask=mask).to(tl.float32) + tl.load(gh + offs, mask=mask).to(tl.float32))
    z = tl.sigmoid(tl.load(gi + H + offs, mask=mask).to(tl.float32) + tl.load(gh + H + offs, mask=mask).to(tl.float32))
    n_pre = tl.load(gi + 2 * H + offs, mask=mask).to(tl.float32) + r * tl.load(gh + 2 * H + offs, mask=mask).to(
        tl.float32
    )
    n = 2.0 * tl.sigmoid(2.0 * n_pre) - 1.0
    h = tl.load(h_ptr + row * H + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + row * H + offs, ((1.0 - z) * n + z * h).to(tl.float16), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size=128, hidden_size=256):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False).half()

    def forward(self, x: torch.Tensor, h0: torch.Tensor) -> torch.Tensor:
        seq_len, batch, input_size = x.shape
        H = self.gru.hidden_size
        gi_all = torch.addmm(self.gru.bias_ih_l0, x.reshape(seq_len * batch, input_size), self.gru.weight_ih_l0.t())
        gi_all = gi_all.view(seq_len, batch, 3 * H)
        out = torch.empty(seq_len, batch, H, device=x.device, dtype=torch.float16)
        h = h0[0]
        for t in range(seq_len):
            gh = torch.addmm(self.gru.bias_hh_l0, h, self.gru.weight_hh_l0.t())
            gru_cell_kernel[(batch,)](gi_all[t], gh, h, out[t], H, BLOCK_H=triton.next_power_of_2(H))
            h = out[t]
        return out
