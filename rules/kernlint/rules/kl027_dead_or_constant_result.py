from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel
from kernlint.model.shapes import DeadWork, EntryPoint
from kernlint.registry import Invalid, Report, Rule, Valid


class DeadOrConstantResult(Rule):
    """
    ## What it does
    Reads a KernelBench-style model's `forward` at the file's own shapes
    (`get_inputs()`, `get_init_inputs()`) and finds work whose result does
    not depend on the data: an op whose result is one number whatever its
    input holds, such as a softmax over a dimension of size 1 (all ones; a
    log-softmax's zeros) or `x - x.mean(dim=1, keepdim=True)` where
    dimension 1 already has size 1 (zeros, so a GELU or ReLU after it is
    zeros too), and an expensive op (a GEMM, a convolution, attention, a
    recurrence, a reduction) whose result reaches nothing that `forward`
    returns.

    A Triton kernel's output is such a constant when the data it loads
    cancels before every store (`y = v - mean` where `mean` is `v`, then a
    GELU of it: zeros; a row's `tl.sum`, `tl.max` or `tl.min` over a tile
    axis the launch makes one element wide, `BLOCK_C = 1`, is `v`) or is clamped to one number (`tl.minimum(v, lo)`,
    then a clamp to [lo, hi]: `lo` everywhere, and dropout keeps zeros
    zero), read from the kernel's straight-line statements with the numbers
    the launch passes and the `if` branches they decide.

    It stays silent where a size is not known from the file (no
    `get_inputs()`, a size computed at run time), on a softmax or a mean
    over a dimension larger than 1, when `forward` writes a tensor in place,
    launches a Triton kernel that writes anything but buffers it allocated,
    keeps state on `self` or branches on a value
    the shape table cannot decide (def-use is then not the whole story),
    on a cheap unused op, on KernelBench's reference `Model` beside a
    `ModelNew`, on tests, benchmarks and reference implementations, and
    under `if __name__ == "__main__":`. Dropout before the reduction
    changes values, not the size, so the softmax after it is still ones. A
    kernel that stores zeros it did not compute from loaded data (a buffer's
    fill) is not reported.

    ## Why is this bad?
    The GEMM before a softmax over a dimension of size 1 is milliseconds of
    work (KernelBench's 1024 x 8192 x 8192) to produce a tensor the softmax
    replaces by ones; the output is a fill of a few kilobytes, microseconds.
    An unused GEMM costs its whole time for nothing.

    ## Example
    ```python
    def forward(self, x):
        x = self.gemm(x)
        x = torch.max(x, dim=1, keepdim=True).values  # [B, 1]
        x = x - x.mean(dim=1, keepdim=True)           # the mean of one number is itself: zeros
        return torch.nn.functional.gelu(x)            # gelu(0) = 0
    ```

    ## Use instead
    ```python
    def forward(self, x):
        # The result is zeros of shape [B, 1] for any input: no GEMM, no max.
        return x.new_zeros(x.shape[0], 1)
    ```
    and delete an unused GEMM (or return it, if it was meant to be).

    ## Fix safety
    No automatic fix: the fill differs from the computation where the
    input holds NaN or infinity (the GEMM would carry them into the
    output), and a problem that was meant to compute something else needs
    its author's decision, not a fill.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl027_dead_or_constant_result/` (`kernlint rule KL027` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL027"
    name = "dead-or-constant-result"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.WARNING
    summary = "Work whose result is a constant at the file's shapes (softmax over a size-1 dim), or is never used."
    bottleneck = (
        "Wasted work: the GEMM and the ops after it compute a result that is the same number for every input "
        "(or that nothing returned reads)."
    )
    method = (
        "Remove the work the result does not need: write the constant output with one fill, and delete the "
        "GEMM, reductions and elementwise ops that only fed it (or an unused op)."
    )
    priority = 8
    fix_effect = "remove_dead_work"

    VALID = [
        # A Triton kernel writing through a view of the buffer forward returns (`flat` aliases `out`).
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    out = torch.empty_like(x)
                    flat = out.view(-1)
                    scale[(x.numel() // 1024,)](x, flat, x.numel(), BLOCK=1024)
                    return out
            def get_inputs():
                return [torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # KernelBench level 2 problem 66 today: the softmax is over 16384 features.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, in_features, out_features, dropout_p):
                    super().__init__()
                    self.matmul = nn.Linear(in_features, out_features)
                    self.dropout = nn.Dropout(dropout_p)
                def forward(self, x):
                    x = self.matmul(x)
                    x = self.dropout(x)
                    return torch.softmax(x, dim=1)
            def get_inputs():
                return [torch.rand(128, 16384)]
            def get_init_inputs():
                return [16384, 16384, 0.2]
            """
        ),
        # Centering over a dimension of 4096 is real work.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gemm = nn.Linear(1024, 4096)
                def forward(self, x):
                    x = self.gemm(x)
                    x = x - x.mean(dim=1, keepdim=True)
                    return torch.nn.functional.gelu(x)
            def get_inputs():
                return [torch.rand(512, 1024)]
            def get_init_inputs():
                return []
            """
        ),
        # No get_inputs(): the size of dimension 1 is not known, so nothing is said.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Head(nn.Module):
                def __init__(self, d):
                    super().__init__()
                    self.fc = nn.Linear(d, d)
                def forward(self, x):
                    x = self.fc(x).mean(dim=1, keepdim=True)
                    return torch.softmax(x, dim=1)
            """
        ),
        # The product is written into a buffer in place: def-use is not the whole story.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(256, 256)
                def forward(self, x, out):
                    y = self.fc(x)
                    out.copy_(y)
                    return x
            def get_inputs():
                return [torch.rand(64, 256), torch.empty(64, 256)]
            def get_init_inputs():
                return []
            """
        ),
        # KernelBench's reference Model beside the solution: only ModelNew is the entry point.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 64)
                def forward(self, x):
                    return torch.softmax(self.fc(x).mean(dim=1, keepdim=True), dim=1)
            class ModelNew(nn.Module):
                def forward(self, x):
                    return x.new_ones(x.shape[0], 1)
            def get_inputs():
                return [torch.rand(32, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # An unused elementwise op is cheap: not reported.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 64)
                def forward(self, x):
                    y = self.fc(x)
                    unused = torch.relu(y)
                    return y
            def get_inputs():
                return [torch.rand(32, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # A sum over a dimension of size 1 returns its input, which is not a constant.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 64)
                def forward(self, x):
                    x = self.fc(x).amax(dim=1, keepdim=True)
                    return torch.sigmoid(x.sum(dim=1, keepdim=True))
            def get_inputs():
                return [torch.rand(32, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # A kernel that fills a buffer with zeros means to: no loaded value cancels on the way.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def zero(y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    zero[(triton.cdiv(x.numel(), 1024),)](y, x.numel(), BLOCK=1024)
                    return x + y
            def get_inputs():
                return [torch.rand(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # Neighbouring elements differ: two loads at different offsets are not one value.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def diff(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                here = tl.load(x_ptr + offs, mask=offs < n)
                ahead = tl.load(x_ptr + offs + 1, mask=offs + 1 < n)
                tl.store(y_ptr + offs, here - ahead, mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    diff[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.rand(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
    ]
    INVALID = [
        # A Triton kernel writing a 64 MB buffer that forward never returns nor reads.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    unused = torch.empty_like(x)
                    scale[(x.numel() // 1024,)](x, unused, x.numel(), BLOCK=1024)
                    return x.sum(dim=1)
            def get_inputs():
                return [torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """,
            line=12,
            column=9,
        ),
        # KernelBench level 2 problem 80: zeros of shape [1024, 1].
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, in_features, out_features, max_dim):
                    super(Model, self).__init__()
                    self.gemm = nn.Linear(in_features, out_features)
                    self.max_dim = max_dim
                def forward(self, x):
                    x = self.gemm(x)
                    x = torch.max(x, dim=self.max_dim, keepdim=True).values
                    x = x - x.mean(dim=1, keepdim=True)
                    x = torch.nn.functional.gelu(x)
                    return x
            batch_size = 1024
            in_features = 8192
            out_features = 8192
            max_dim = 1
            def get_inputs():
                return [torch.rand(batch_size, in_features)]
            def get_init_inputs():
                return [in_features, out_features, max_dim]
            """,
            line=12,
            column=13,
        ),
        # KernelBench level 2 problem 66 as first released (Matmul_Dropout_Mean_Softmax): ones.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, in_features, out_features, dropout_p):
                    super(Model, self).__init__()
                    self.matmul = nn.Linear(in_features, out_features)
                    self.dropout = nn.Dropout(dropout_p)
                def forward(self, x):
                    x = self.matmul(x)
                    x = self.dropout(x)
                    x = torch.mean(x, dim=1, keepdim=True)
                    x = torch.softmax(x, dim=1)
                    return x
            def get_inputs():
                return [torch.randn(128, 100)]
            def get_init_inputs():
                return [100, 50, 0.2]
            """,
            line=13,
            column=13,
        ),
        # A LogSoftmax module over the kept dimension of an amax: zeros.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 16, 3)
                    self.log_softmax = nn.LogSoftmax(dim=1)
                def forward(self, x):
                    x = torch.amax(self.conv(x), dim=1, keepdim=True)
                    return self.log_softmax(x)
            def get_inputs():
                return [torch.rand(8, 3, 64, 64)]
            def get_init_inputs():
                return []
            """,
            line=11,
            column=16,
        ),
        # KernelBench level 3 problem 36 (LSTMHn): the Linear's result is never read.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(128, 256, 2, batch_first=True)
                    self.fc = nn.Linear(256, 10)
                def forward(self, x, h0, c0):
                    out, state = self.lstm(x, (h0, c0))
                    out = self.fc(out[:, -1, :])
                    return state[0]
            def get_inputs():
                return [torch.rand(10, 512, 128), torch.rand(2, 10, 256), torch.rand(2, 10, 256)]
            def get_init_inputs():
                return []
            """,
            line=11,
            column=15,
        ),
        # A constant read by a live op: the softmax is the number 1, the GEMM before it goes.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.score = nn.Linear(512, 512)
                def forward(self, x):
                    s = self.score(x).sum(dim=-1, keepdim=True)
                    return x * torch.softmax(s, dim=-1)
            def get_inputs():
                return [torch.rand(256, 512)]
            def get_init_inputs():
                return []
            """,
            line=10,
            column=20,
        ),
        # In a helper that forward calls: reported at forward's call.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 64)
                def head(self, x):
                    return torch.softmax(x.mean(dim=1, keepdim=True), dim=1)
                def forward(self, x):
                    return self.head(self.fc(x))
            def get_inputs():
                return [torch.rand(32, 64)]
            def get_init_inputs():
                return []
            """,
            line=11,
            column=16,
        ),
        # KernelBench level 2 problem 80 with its tail in Triton: the mean of one number is itself, so the
        # kernel stores gelu(0) = 0 and the GEMM and max before it feed nothing.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def center_gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                v = tl.load(x_ptr + offs, mask=offs < n)
                mean = v / 1.0
                y = v - mean
                tl.store(y_ptr + offs, 0.5 * y * (1.0 + tl.erf(y * 0.7071067811865476)), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gemm = torch.nn.Linear(4096, 4096)
                def forward(self, x):
                    rowmax = self.gemm(x).amax(dim=1, keepdim=True)
                    out = torch.empty_like(rowmax)
                    center_gelu[(triton.cdiv(rowmax.numel(), 1024),)](rowmax, out, rowmax.numel(), BLOCK=1024)
                    return out
            def get_inputs():
                return [torch.rand(1024, 4096)]
            def get_init_inputs():
                return []
            """,
            line=19,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        found = model.dead_work
        if not found:
            return
        entry = model.entry_point
        assert entry is not None
        forward = model.function(f"{entry.model_class}.forward")
        if forward is None or forward not in model.hot_functions or model.is_reference_code(forward):
            return
        for dead in found:
            if model.in_main_guard(dead.node):
                continue
            yield self._report(model, entry, dead)

    def _report(self, model: FileModel, entry: EntryPoint, dead: DeadWork) -> Report:
        code = _spelled(model, dead.node)
        where = f"`{code}` in `{entry.model_class}.forward`"
        others = _removed_work(model, entry, dead, before=True)
        if dead.kind == "unused":
            what = _kind(entry.ops[dead.op].kind)
            after = _removed_work(model, entry, dead, before=False)
            message = (
                f"{where} computes {what} whose result never reaches what `forward` returns"
                + (f" (neither does {after}, computed from it)" if after else "")
                + ": the work is done for nothing at every call"
            )
            gone = _joined(
                [f"`{code}`", *_removed_labels(model, entry, dead, before=True)]
                + _removed_labels(model, entry, dead, before=False)
            )
            plan = (
                f"Delete {gone}: nothing returned reads them; if the result was meant to be part of the output, "
                "return it instead."
            )
            return Report(node=dead.node, message=message, plan=plan)
        value = dead.value if dead.value is not None else 0.0
        message = f"{where} is {_filled(value)} whatever its input holds: {dead.why}"
        if others:
            message += f"; the work before it ({others}) only feeds what it throws away"
        if dead.output is not None:
            shape, output_value = dead.output
            sizes = ", ".join(map(str, shape))
            message += f", and `forward` returns {_filled(output_value)} of shape [{sizes}]"
            plan = (
                f"The output is {_filled(output_value)} of shape [{sizes}] for any input at these shapes: write it "
                f"with one fill (`torch.full(shape, {output_value:g})` with the input's batch size, dtype and device) "
                f"in place of {_joined([*_removed_labels(model, entry, dead, before=True), f'`{code}`'])} and what "
                "follows it: none of that work is needed."
            )
        else:
            plan = f"Use the number {value:g} where `{code}` is read, and delete `{code}`" + (
                f" and what only feeds it: {others}." if others else "."
            )
        return Report(node=dead.node, message=message, plan=plan)


def _spelled(model: FileModel, node: cst.CSTNode) -> str:
    """A node's code on one line; a Triton launch by its kernel and grid (`scale[grid](...)`)."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript):
        return " ".join(model.code(node.func).split()) + "(...)"
    return " ".join(model.code(node).split())


def _filled(value: float) -> str:
    if value == 0:
        return "all zeros"
    if value == 1:
        return "all ones"
    return f"the number {value:g} everywhere"


def _kind(kind: str) -> str:
    return {"gemm": "a GEMM", "attention": "attention", "rnn": "a recurrence", "reduction": "a reduction"}.get(
        kind, "work"
    )


def _removed_work(model: FileModel, entry: EntryPoint, dead: DeadWork, before: bool) -> str:
    return _joined(_removed_labels(model, entry, dead, before))


def _joined(labels: list[str]) -> str:
    if not labels:
        return ""
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def _removed_labels(model: FileModel, entry: EntryPoint, dead: DeadWork, before: bool) -> list[str]:
    """The other calls the fix removes before the op (or after it), in
    forward's order, GEMMs named."""
    named: dict[int, str] = {}
    for i in dead.removed:
        node = entry.nodes[i]
        if i == dead.op or node is None or node is dead.node or id(node) in named or (i < dead.op) != before:
            continue
        label = f"`{_spelled(model, node)}`"
        kind = entry.ops[i].kind
        if kind in ("gemm", "attention", "rnn"):
            label = f"{_kind(kind).replace('a ', 'the ', 1)} {label}"
        named.setdefault(id(node), label)
    return list(dict.fromkeys(named.values()))
