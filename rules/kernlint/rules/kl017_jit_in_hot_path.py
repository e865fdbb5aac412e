from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo, Kernel
from kernlint.model.syntax import walk
from kernlint.registry import Invalid, Report, Rule, Valid

JIT_FACTORIES = ("triton.jit", "triton.autotune", "triton.heuristics")


class JitInHotPath(Rule):
    """
    ## What it does
    Finds a `@triton.jit` kernel defined inside a function that runs on every
    call (a hot path: `forward` of an `nn.Module`, `forward`/`backward` of an
    autograd Function, a function that launches a kernel, and what those
    call), and `triton.jit(...)`, `triton.autotune(...)(...)` or
    `triton.heuristics(...)(...)` applied in such a function to a lambda, a
    closure or any other function.

    It stays silent when the enclosing function runs once: a factory called
    from module level or `__init__`, a function memoized with
    `functools.cache`/`lru_cache`, or a kernel built under a cache test
    (`if self._kernel is None:`).

    ## Why is this bad?
    Triton keeps its compiled binaries on the kernel object. A `def` under
    `@triton.jit` in `forward` builds a new kernel object on every call, so
    its cache is always empty: each call re-hashes the source, compiles the
    kernel again (or at best reloads it from the disk cache) and builds its
    launcher, milliseconds of host work for a launch that should take a few
    microseconds. Under `@triton.autotune` every call also re-runs the
    benchmark of every config.

    ## Example
    ```python
    class ModelNew(nn.Module):
        def forward(self, x):
            @triton.jit
            def scale(x_ptr, n, BLOCK: tl.constexpr): ...
            scale[grid](x, x.numel(), BLOCK=1024)
    ```

    ## Use instead
    ```python
    @triton.jit
    def scale(x_ptr, n, BLOCK: tl.constexpr): ...

    class ModelNew(nn.Module):
        def forward(self, x):
            scale[grid](x, x.numel(), BLOCK=1024)
    ```

    ## Fix safety
    No automatic fix: what the kernel reads from the enclosing function
    (closure variables) must become arguments, constexprs where they size
    tiles.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl017_jit_in_hot_path/` (`kernlint rule KL017` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL017"
    name = "jit-in-hot-path"
    category = Category.LAUNCH_REDUCTION
    severity = Severity.WARNING
    summary = "A @triton.jit kernel is created inside a hot path: a new kernel object, and a compile, on every call."
    bottleneck = (
        "Per-call compilation: the kernel object is new on every call, so Triton's in-memory cache never hits "
        "and each call re-hashes, recompiles (or reloads from disk) and rebuilds the launcher."
    )
    method = "Define the kernel once at module level and pass what it read from the enclosing function as arguments."
    priority = 30
    fix_effect = "compile_once"

    VALID = [
        # A kernel at module level, launched from forward.
        Valid(
            """
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, BLOCK: tl.constexpr):
                tl.store(x_ptr + tl.arange(0, BLOCK), 0)
            class ModelNew(nn.Module):
                def forward(self, x):
                    k[(1,)](x, BLOCK=64)
                    return x
            """
        ),
        # A factory called once at module level.
        Valid(
            """
            import triton
            import triton.language as tl
            def make(value):
                @triton.jit
                def k(x_ptr, BLOCK: tl.constexpr):
                    tl.store(x_ptr + tl.arange(0, BLOCK), value)
                return k
            FILL_ZERO = make(0)
            def launch(x):
                FILL_ZERO[(1,)](x, BLOCK=64)
            """
        ),
        # A memoized factory called from the hot path.
        Valid(
            """
            import functools
            import triton
            import triton.language as tl
            @functools.lru_cache(maxsize=None)
            def make(value):
                @triton.jit
                def k(x_ptr, BLOCK: tl.constexpr):
                    tl.store(x_ptr + tl.arange(0, BLOCK), value)
                return k
            def launch(x):
                make(0)[(1,)](x, BLOCK=64)
            """
        ),
        # Built once under a cache test in forward.
        Valid(
            """
            import torch.nn as nn
            import triton
            class ModelNew(nn.Module):
                def forward(self, x):
                    if self._kernel is None:
                        self._kernel = triton.jit(self.body)
                    self._kernel[(1,)](x)
                    return x
            """
        ),
        # A kernel built in __init__, once per module.
        Valid(
            """
            import torch.nn as nn
            import triton
            class ModelNew(nn.Module):
                def __init__(self, body):
                    super().__init__()
                    self.kernel = triton.jit(body)
                def forward(self, x):
                    self.kernel[(1,)](x)
                    return x
            """
        ),
        # A plain nested helper (no jit) in forward.
        Valid(
            """
            import torch.nn as nn
            class ModelNew(nn.Module):
                def forward(self, x):
                    def act(t):
                        return t.relu()
                    return act(x)
            """
        ),
    ]
    INVALID = [
        # A kernel defined in forward.
        Invalid(
            """
            import torch.nn as nn
            import triton
            import triton.language as tl
            class ModelNew(nn.Module):
                def forward(self, x):
                    @triton.jit
                    def k(x_ptr, BLOCK: tl.constexpr):
                        tl.store(x_ptr + tl.arange(0, BLOCK), 0)
                    k[(1,)](x, BLOCK=64)
                    return x
            """,
            line=7,
            column=9,
        ),
        # Under autotune, in a wrapper that launches it.
        Invalid(
            """
            import triton
            import triton.language as tl
            def relu(x):
                @triton.autotune(configs=[triton.Config({"BLOCK": 128})], key=["n"])
                @triton.jit
                def k(x_ptr, n, BLOCK: tl.constexpr):
                    offs = tl.arange(0, BLOCK)
                    tl.store(x_ptr + offs, tl.maximum(tl.load(x_ptr + offs), 0), mask=offs < n)
                k[(1,)](x, x.numel())
                return x
            """,
            line=5,
            column=5,
        ),
        # A factory without memoization, called from forward.
        Invalid(
            """
            import torch.nn as nn
            import triton
            import triton.language as tl
            def make(value):
                @triton.jit
                def k(x_ptr, BLOCK: tl.constexpr):
                    tl.store(x_ptr + tl.arange(0, BLOCK), value)
                return k
            class ModelNew(nn.Module):
                def forward(self, x):
                    make(0)[(1,)](x, BLOCK=64)
                    return x
            """,
            line=6,
            column=5,
        ),
        # triton.jit applied to a lambda in forward.
        Invalid(
            """
            import torch.nn as nn
            import triton
            class ModelNew(nn.Module):
                def forward(self, x):
                    k = triton.jit(lambda x_ptr: None)
                    k[(1,)](x)
                    return x
            """,
            line=6,
            column=13,
        ),
        # autotune applied by call to a closure, with an alias of triton.
        Invalid(
            """
            import torch
            import triton as tr
            from triton import language as tl
            class Op(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, body):
                    k = tr.autotune(configs=[tr.Config({"B": 64})], key=["n"])(tr.jit(body))
                    k[(1,)](x, x.numel())
                    return x
            """,
            line=8,
            column=13,
        ),
        # `from triton import jit`, in a method forward calls.
        Invalid(
            """
            import torch.nn as nn
            from triton import jit
            import triton.language as tl
            class ModelNew(nn.Module):
                def _launch(self, x):
                    @jit
                    def k(x_ptr, BLOCK: tl.constexpr):
                        tl.store(x_ptr + tl.arange(0, BLOCK), 1)
                    k[(1,)](x, BLOCK=32)
                def forward(self, x):
                    self._launch(x)
                    return x
            """,
            line=7,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for kernel in model.kernel_list:
            outer = _enclosing(model, kernel.function)
            if outer is None or not model.is_hot(outer) or model.behind_cache(kernel.node, outer):
                continue
            yield _nested_report(model, kernel, outer)
        for function in model.functions:
            if model.kernel_of(function) is not None:
                continue
            for call in function.calls:
                if not _builds_kernel(model, call) or model.behind_cache(call, function):
                    continue
                if any(call is inner.func for inner in function.calls if isinstance(inner.func, cst.Call)):
                    continue  # the inner `jit(f)` of `autotune(...)(jit(f))`: one kernel, reported once
                if model.is_hot(function) or _launched_in(function, call):
                    yield _call_report(model, call, function)


def _enclosing(model: FileModel, function: FunctionInfo) -> FunctionInfo | None:
    if "." not in function.qualname:
        return None
    outer = model.function(function.qualname.rsplit(".", 1)[0])
    if outer is None or model.kernel_of(outer) is not None:
        return None
    return outer


def _launched_in(function: FunctionInfo, built: cst.Call) -> bool:
    """The kernel `built` makes is launched in the same function:
    `k = triton.jit(f)` then `k[grid](...)`, or `triton.jit(f)[grid](...)`."""
    names = {name for name, value, _ in function.assignments if value is built}
    for call in function.calls:
        if isinstance(call.func, cst.Subscript):
            head = call.func.value
            if head is built or (isinstance(head, cst.Name) and head.value in names):
                return True
    return False


def _builds_kernel(model: FileModel, call: cst.Call) -> bool:
    """`triton.jit(f)`, or `triton.autotune(...)(f)` / `triton.heuristics(...)(f)`."""
    if model.is_call_to(call, "triton.jit") and call.args and not any(a.keyword for a in call.args[:1]):
        return True
    return isinstance(call.func, cst.Call) and any(model.is_call_to(call.func, q) for q in JIT_FACTORIES)


def _where(function: FunctionInfo) -> str:
    return f"`{function.qualname}`"


def _closure_names(model: FileModel, kernel: Kernel, outer: FunctionInfo) -> list[str]:
    outer_names = set(outer.params) | {name for name, _, _ in outer.assignments}
    own = {p.name for p in kernel.params} | {name for name, _, _ in kernel.function.assignments}
    found: list[str] = []
    for node in walk(kernel.node.body):
        if isinstance(node, cst.Name) and node.value in outer_names and node.value not in own:
            if node.value not in found:
                found.append(node.value)
    return sorted(found)


def _nested_report(model: FileModel, kernel: Kernel, outer: FunctionInfo) -> Report:
    message = (
        f"`@triton.jit` kernel `{kernel.name}` is defined inside {_where(outer)}, which runs on every call: "
        f"each call makes a new kernel object with an empty compile cache, so Triton compiles `{kernel.name}` "
        f"again (or reloads it from disk) every time"
    )
    closure = _closure_names(model, kernel, outer)
    passing = (
        f", and pass {', '.join(f'`{n}`' for n in closure)} (read from {_where(outer)}) as "
        f"arguments, `tl.constexpr` where they size tiles"
        if closure
        else ""
    )
    plan = (
        f"Move `{kernel.name}` with its decorators to module level, above `{outer.qualname.split('.')[0]}`"
        f"{passing}; "
        f"the launch in {_where(outer)} then reuses the compiled kernel after its first call."
    )
    return Report(node=kernel.node.decorators[0] if kernel.node.decorators else kernel.node, message=message, plan=plan)


def _call_report(model: FileModel, call: cst.Call, function: FunctionInfo) -> Report:
    made = model.code(call)
    if len(made) > 60:
        made = made[:57] + "..."
    message = (
        f"`{made}` builds a Triton kernel inside {_where(function)}, which runs on every call: "
        f"a new kernel object each time, so its compile (and autotune) cache never hits"
    )
    plan = (
        f"Build the kernel once: write its body as a module-level `@triton.jit` function (not a lambda or "
        f"closure) and launch that from {_where(function)}, or build it in `__init__` and keep it on `self`."
    )
    return Report(node=call, message=message, plan=plan)
