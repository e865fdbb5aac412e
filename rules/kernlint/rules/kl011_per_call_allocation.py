from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo
from kernlint.model.host_values import FixedTensor
from kernlint.registry import Invalid, Report, Rule, Valid


class PerCallAllocation(Rule):
    """
    ## What it does
    Finds a hot path (an `nn.Module.forward`, an autograd Function's
    `forward`/`backward`, a function that launches a Triton kernel, and what
    they call in the same file) that builds, on every call, a tensor whose
    value does not depend on the inputs: `torch.arange`, `zeros`, `ones`,
    `full`, `eye`, `linspace`, `tensor` or `as_tensor` whose arguments are
    literals, module constants or attributes the module set once from its
    constructor arguments, also when moved afterwards
    (`torch.arange(64).to(x.device)`, `torch.tensor([...]).cuda()`).

    It stays silent when an argument depends on the inputs
    (`torch.arange(x.shape[1])`, a function parameter), in `__init__` and
    one-time preparation methods, behind a cache (`if self._pos is None:`,
    `functools.cache`), outside hot paths, under the main guard, in tests,
    benchmarks and reference code, and when the tensor must be fresh on each
    call: it is written in place (`acc += ...`, `t[i] = ...`, `t.zero_()`,
    `out=t`), passed to a kernel that stores to it (a lock or counter
    buffer), or returned. `torch.empty` is never reported: there is no value
    to keep.

    ## Why is this bad?
    A tensor built on the host (`torch.tensor([...])`, a CPU `arange` moved
    with `.to(device)`) is a pageable host-to-device copy on every call: the
    CPU waits for it, and it cannot be captured in a CUDA graph. Built on the
    device it is still an allocation and a fill kernel per call. Neither
    changes the result, so the work is pure launch and latency overhead.

    ## Example
    ```python
    class Rope(nn.Module):
        def forward(self, x):
            inv_freq = 1.0 / (10000 ** (torch.arange(0, 64, 2).float() / 64)).to(x.device)
            ...
    ```

    ## Use instead
    ```python
    class Rope(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("inv_freq", 1.0 / (10000 ** (torch.arange(0, 64, 2).float() / 64)), persistent=False)

        def forward(self, x):
            inv_freq = self.inv_freq  # moves with module.to(device)
            ...
    ```

    ## Fix safety
    No automatic fix: a registered buffer follows `module.to(...)` in device
    and dtype (a `dtype=` pinned at build time may be changed by
    `module.half()`), and code that mutates the tensor later would then
    mutate the shared buffer.
    """

    code = "KL011"
    name = "per-call-allocation"
    category = Category.MEMORY_LAYOUT
    severity = Severity.INFO
    summary = "A hot path builds a constant tensor (arange/zeros/tensor...) on every call."
    bottleneck = (
        "Per-call host work: a constant tensor is allocated and filled (or copied from host memory, "
        "synchronously) on every call, adding launches and a host-to-device copy that CUDA graphs cannot capture."
    )
    method = "Build the tensor once in __init__ and register_buffer it (persistent=False), or cache it per device."
    priority = 60
    fix_effect = "remove_alloc"

    VALID = [
        # Depends on the inputs' shape.
        Valid(
            """
            import torch
            class Pos(torch.nn.Module):
                def forward(self, x):
                    pos = torch.arange(x.shape[1], device=x.device)
                    idx = torch.zeros(x.size(0), dtype=torch.long, device=x.device)
                    return x + pos + idx
            """
        ),
        # Built once in __init__ and registered; a preparation method.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Pos(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.register_buffer("pos", torch.arange(n), persistent=False)
                def load_table(self):
                    self.table = torch.tensor([1.0, 2.0, 3.0]).cuda()
                def forward(self, x):
                    return x + self.pos
            """
        ),
        # Behind a cache, or memoized.
        Valid(
            """
            import functools
            import torch
            @functools.lru_cache(maxsize=None)
            def freqs(device):
                return torch.arange(0, 64, 2, device=device).float()
            class Rope(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self._eye = None
                def forward(self, x):
                    if self._eye is None:
                        self._eye = torch.eye(8).to(x.device)
                    return x @ self._eye + freqs(x.device)
            """
        ),
        # Must be fresh each call: written in place, or a lock buffer a kernel stores to.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, lock_ptr, n):
                tl.atomic_add(lock_ptr, 1)
            def launch(x):
                lock = torch.zeros(1, dtype=torch.int32, device=x.device)
                acc = torch.zeros(4, device=x.device)
                acc += x[:4]
                k[(1,)](x, lock, x.numel())
                return acc
            """
        ),
        # Not a hot path, under the main guard, and returned (a fresh output).
        Valid(
            """
            import torch
            def make_table():
                return torch.tensor([1, 2, 3])
            class M(torch.nn.Module):
                def forward(self, x):
                    return torch.zeros(4, 4, device=x.device)
            if __name__ == "__main__":
                print(torch.arange(10).cuda())
            """
        ),
        # torch.empty has no value to keep; a function parameter is an input.
        Valid(
            """
            import torch
            from torch import arange
            class M(torch.nn.Module):
                def forward(self, x, n):
                    buf = torch.empty(16, device=x.device)
                    steps = arange(n, device=x.device)
                    return x * steps + buf.numel()
            """
        ),
        # Tests and benchmarks.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return x
            def test_forward():
                x = torch.tensor([1.0, 2.0])
                assert M()(x).sum() == 3.0
            """
        ),
    ]
    INVALID = [
        # The classic: a CPU arange moved to the device each call.
        Invalid(
            """
            import torch
            class Rope(torch.nn.Module):
                def forward(self, x):
                    inv_freq = 1.0 / (10000 ** (torch.arange(0, 64, 2).float() / 64)).to(x.device)
                    return x * inv_freq
            """,
            line=5,
            column=37,
        ),
        # torch.tensor of a literal list, placed with device=.
        Invalid(
            """
            import torch
            class Gray(torch.nn.Module):
                def forward(self, img):
                    w = torch.tensor([0.299, 0.587, 0.114], device=img.device)
                    return (img * w[:, None, None]).sum(0)
            """,
            line=5,
            column=13,
        ),
        # A launcher passes a constant table to a kernel that only loads it.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, t_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs) * tl.load(t_ptr + offs % 4), mask=offs < n)
            def launch(x, y):
                table = torch.full((4,), float("-inf"), device=x.device)
                k[(1,)](x, table, y, x.numel(), BLOCK=1024)
            """,
            line=10,
            column=13,
        ),
        # `.cuda()` of a module constant set from a constructor argument.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Scaled(nn.Module):
                def __init__(self, scales):
                    super().__init__()
                    self.scales = scales
                def forward(self, x):
                    return x * torch.tensor(self.scales).cuda()
            """,
            line=9,
            column=20,
        ),
        # `from torch import arange`, a module constant, in a helper that forward calls.
        Invalid(
            """
            import torch
            from torch import arange
            HEAD_DIM = 128
            class Attn(torch.nn.Module):
                def _freqs(self):
                    return 1.0 / 10000 ** (arange(0, HEAD_DIM, 2, device="cuda") / HEAD_DIM)
                def forward(self, x):
                    return x * self._freqs()
            """,
            line=7,
            column=32,
        ),
        # An autograd Function's backward builds an identity each call.
        Invalid(
            """
            import torch
            class Proj(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    return x
                @staticmethod
                def backward(ctx, g):
                    eye = torch.eye(8, device=g.device, dtype=g.dtype)
                    return g @ eye
            """,
            line=9,
            column=15,
        ),
        # torch.as_tensor of a module-level list, then .to(device).
        Invalid(
            """
            import torch
            MEAN = [0.485, 0.456, 0.406]
            class Norm(torch.nn.Module):
                def forward(self, x):
                    mean = torch.as_tensor(MEAN, dtype=x.dtype).to(x.device)
                    return x - mean[:, None, None]
            """,
            line=6,
            column=16,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        hot = model.hot_functions
        for function in model.functions:
            if (
                function not in hot
                or model.is_preparation(function)
                or model.is_reference_code(function)
                or model.is_cold(function)
            ):
                continue
            for tensor in model.fixed_tensors(function):
                if model.behind_cache(tensor.build, function) or model.in_main_guard(tensor.build):
                    continue
                yield self._report(model, function, tensor)

    def _report(self, model: FileModel, function: FunctionInfo, tensor: FixedTensor) -> Report:
        expression = _shown(model, tensor.node)
        built = _shown(model, tensor.build)
        copied = tensor.node is not tensor.build or model.qualname(tensor.build.func) in (
            "torch.tensor",
            "torch.as_tensor",
        )
        cost = "a host-to-device copy" if copied else "an allocation and a fill kernel"
        message = f"`{expression}` in `{function.qualname}` builds the same tensor on every call ({cost} each time)"
        buffer = tensor.name or _buffer_name(model, tensor.build)
        cls = model.class_of(function)
        if cls is not None and cls.is_nn_module:
            plan = (
                f'In `{cls.name}.__init__`, add `self.register_buffer("{buffer}", {built}, persistent=False)` '
                f"and use `self.{buffer}` in `{function.name}` instead of `{expression}`: the buffer follows "
                f"`module.to(device)`, so no `.to()`/`device=` is needed at the use."
            )
        else:
            plan = (
                f"Build `{built}` once per device and reuse it: a module-level "
                f"`@functools.cache def {buffer}(device): return {built}.to(device)`, "
                f"or a buffer registered on the nn.Module that calls `{function.name}`."
            )
        return Report(node=tensor.node, message=message, plan=plan)


def _shown(model: FileModel, node: cst.CSTNode, limit: int = 60) -> str:
    text = " ".join(model.code(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _buffer_name(model: FileModel, build: cst.Call) -> str:
    return f"_{(model.qualname(build.func) or 'table').rsplit('.', 1)[-1]}_table"
