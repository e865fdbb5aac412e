from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo
from kernlint.registry import Invalid, Report, Rule, Valid

RNN_MODULES = {"torch.nn.GRU": "GRU", "torch.nn.LSTM": "LSTM", "torch.nn.RNN": "RNN"}


class RecurrentModule(Rule):
    """
    ## What it does
    Finds a recurrent module, `nn.GRU`, `nn.LSTM` or `nn.RNN` built in
    `__init__` (`self.gru = nn.GRU(...)`), called in the forward of an
    `nn.Module` or what it calls (`out, h = self.gru(x, h0)`). cuDNN runs
    it as a sequence of small steps per layer and direction.

    It stays silent on the cell modules (`nn.GRUCell`, `nn.LSTMCell`: their
    Python loop is KL005's), on a recurrent module built but never called,
    on tests, benchmarks and reference implementations, and under
    `if __name__ == "__main__":`. Whether the fix pays is the cost model's
    call at the file's shapes: the per-step costs come from the measured
    GRU pair (cuDNN against the persistent kernel), so a short sequence or
    a recurrence that is a sliver of the file's time is "not worth it".

    ## Why is this bad?
    A recurrence has T sequential steps; at a small batch each step is a
    [B, H] x [H, gates*H] product and the gate math, a few microseconds of
    GPU time that cuDNN issues from the host step after step, so in eager
    and KernelBench timing the host's issue rate, not the GPU, sets the
    pace. A persistent kernel with the time loop inside is launched once per
    layer and pays only a grid-wide barrier per step. The cost of one step
    each way is read from the measured KL005 pair (cuDNN's `nn.GRU` against
    the persistent kernel at KernelBench's GRU shape), so the estimate for
    a file follows its own layers, directions and sequence length.

    ## Example
    ```python
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(128, 256, num_layers=6)

    def forward(self, x, h0):
        out, _ = self.gru(x, h0)
        return out
    ```

    ## Use instead
    ```python
    def forward(self, x, h0):
        for layer in range(self.gru.num_layers):
            gi = torch.addmm(b_ih, x.reshape(T * B, -1), w_ih.t())  # every step's input projection at once
            gru_persistent_kernel[(H // 16,)](gi, w_hh, b_hh, h0[layer], out, ...)  # the time loop inside
            x = out
        return x
    ```
    keep the module's parameters, hoist each layer's input projection for
    all steps into one GEMM, and run the recurrence in one persistent
    Triton kernel (W_hh resident in registers, a grid-wide barrier per
    step): kernlint's `kl024_recurrent_module` pair.

    ## Fix safety
    No automatic fix: the persistent kernel needs all its programs resident
    at once (hidden size / 16 programs) and changes the rounding of the
    recurrence; dropout between layers and packed sequences need their own
    handling.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl024_recurrent_module/` (`kernlint rule KL024` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL024"
    name = "recurrent-module"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.WARNING
    summary = "nn.GRU/nn.LSTM/nn.RNN run step by step through cuDNN; a persistent kernel runs the time loop at once."
    bottleneck = (
        "Sequential latency: the recurrence runs T dependent steps per layer, each a few small kernels that cuDNN "
        "issues from the host, so time goes to launches and synchronization, not to the work."
    )
    method = (
        "Replace the recurrent module's cuDNN call with, per layer, one GEMM for the input projection of all "
        "steps and one persistent Triton kernel that runs the whole time loop with the recurrent weights on chip."
    )
    priority = 12
    fix_effect = "persistent_rnn"

    VALID = [
        # A cell module stepped in Python is KL005's per-step loop, not this rule's.
        Valid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = nn.GRUCell(16, 32)
                def forward(self, x, h):
                    return self.cell(x[0], h)
            """
        ),
        # Built but never called in forward.
        Valid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(16, 32)
                    self.fc = nn.Linear(16, 4)
                def forward(self, x):
                    return self.fc(x)
            """
        ),
        # A reference implementation kept to check a kernel against.
        Valid(
            """
            import torch.nn as nn
            class GRUReference(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gru = nn.GRU(16, 32)
                def forward(self, x):
                    return self.gru(x)[0]
            """
        ),
        # Under the main guard.
        Valid(
            """
            import torch
            import torch.nn as nn
            if __name__ == "__main__":
                rnn = nn.RNN(8, 8)
                print(rnn(torch.randn(4, 1, 8)))
            """
        ),
        # Another module that happens to be named like one.
        Valid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gru = nn.Linear(16, 16)
                def forward(self, x):
                    return self.gru(x)
            """
        ),
        # A plain function outside any module's forward.
        Valid(
            """
            import torch.nn as nn
            def build():
                gru = nn.GRU(16, 32)
                return gru
            """
        ),
    ]
    INVALID = [
        # KernelBench level 3 problem 39: a multi-layer GRU.
        Invalid(
            """
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, input_size, hidden_size, num_layers=3):
                    super().__init__()
                    self.gru = nn.GRU(input_size, hidden_size, num_layers, bias=True)
                def forward(self, x, h0):
                    output, h_n = self.gru(x, h0)
                    return output
            """,
            line=8,
            column=23,
        ),
        # An LSTM with batch_first and a classifier on the last step.
        Invalid(
            """
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(128, 256, 6, batch_first=True)
                    self.fc = nn.Linear(256, 10)
                def forward(self, x, h0, c0):
                    out, _ = self.lstm(x, (h0, c0))
                    return self.fc(out[:, -1, :])
            """,
            line=9,
            column=18,
        ),
        # A bidirectional GRU under `from torch import nn`.
        Invalid(
            """
            from torch import nn
            class BiGRU(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.rnn = nn.GRU(64, 64, num_layers=2, bidirectional=True)
                def forward(self, x):
                    return self.rnn(x)[0]
            """,
            line=8,
            column=16,
        ),
        # A vanilla RNN, its result returned as a tuple.
        Invalid(
            """
            import torch
            class Elman(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.core = torch.nn.RNN(32, 64, nonlinearity="tanh")
                def forward(self, x):
                    return self.core(x)
            """,
            line=8,
            column=16,
        ),
        # Called from a helper that forward calls.
        Invalid(
            """
            import torch.nn as nn
            class Encoder(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.enc = nn.LSTM(16, 16)
                def encode(self, x):
                    return self.enc(x)[0]
                def forward(self, x):
                    return self.encode(x)
            """,
            line=8,
            column=16,
        ),
        # A subclass whose base built the module.
        Invalid(
            """
            import torch.nn as nn
            class Base(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gru = nn.GRU(8, 8)
            class Model(Base):
                def forward(self, x):
                    y, _ = self.gru(x)
                    return y
            """,
            line=9,
            column=16,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        hot = model.model_functions
        for function in model.functions:
            if function not in hot or model.is_reference_code(function):
                continue
            for call in function.calls:
                kind = RNN_MODULES.get(model.called_module(call, function) or "")
                if kind is None or model.in_main_guard(call):
                    continue
                yield self._report(model, function, call, kind)

    def _report(self, model: FileModel, function: FunctionInfo, call: cst.Call, kind: str) -> Report:
        module = model.code(call.func)
        message = (
            f"`{module}` (nn.{kind}) in `{function.qualname}` runs its recurrence through cuDNN: the sequence's "
            "steps run one after another per layer and direction, each a few small kernels issued from the host"
        )
        plan = (
            f"Keep `{module}`'s parameters and replace the call with, per layer, one GEMM for the input projection "
            f"of every step (`torch.addmm({module}.bias_ih_l0, x.reshape(T * B, -1), {module}.weight_ih_l0.t())`, "
            f"then l1, l2, ...) and one persistent Triton kernel that runs the time loop with `{module}.weight_hh_l*` "
            "resident in registers and a grid-wide barrier per step (kernlint's kl024_recurrent_module pair; "
            f"{'the cell and gates of an LSTM, ' if kind == 'LSTM' else ''}launched once per layer and direction)."
        )
        return Report(node=call, message=message, plan=plan)
