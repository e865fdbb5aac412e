from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo
from kernlint.model.syntax import call_name, children, positional
from kernlint.registry import Invalid, Report, Rule, Valid

# Tensor methods that copy a value to the host and wait for the GPU.
SYNC_METHODS = frozenset({"item", "tolist", "cpu", "numpy"})
SYNC_FUNCTIONS = frozenset({"torch.cuda.synchronize", "torch.cuda.current_stream.synchronize"})
# Python conversions that read a tensor's value on the host.
CONVERSIONS = frozenset({"bool", "int", "float"})


class HostSyncInHotPath(Rule):
    """
    ## What it does
    Finds code in a hot path (an `nn.Module.forward`, an autograd Function's
    `forward`/`backward`, a function that launches a Triton kernel, and what
    they call in the same file) that makes the CPU wait for the GPU:
    `.item()`, `.tolist()`, `.cpu()`, `.numpy()`, `torch.cuda.synchronize()`,
    `print(tensor)`, `bool(t)`/`int(t)`/`float(t)` of a tensor, and Python
    control flow on a tensor's value (`if t.any():`, `if t.sum() > 0:`,
    `while (err > tol).any():`, `assert (x >= 0).all()`).

    It stays silent where the host needs the value: a count that sizes an
    output (nonzero, unique, masked_select allocate by it), bounds a slice
    or forms a launch grid, directly or through the names it is assigned
    to; on a scalar argument the function tests for being a tensor
    (`if isinstance(v, torch.Tensor): v = v.item()`: it may be a Python
    number, and a tensor there is a wrapped CPU scalar); inside `if not
    t.is_cuda:`. It stays silent on Python numbers (`x.shape[0]`, `x.numel()`,
    `len(...)`, `x.dim()`, `x.is_conj()`, names bound to them), on
    metadata tests (`t.dtype != dtype`), on tensors built on the CPU from
    Python values (`torch.tensor([...])` with no device), on `is None` tests, under
    `if __name__ == "__main__":`, and in tests and benchmarks (files in
    `tests/`/`benchmarks/`, `test_*.py`, functions named `test*`,
    `bench*`, `profile*`). A sync whose value feeds another sync is reported
    once (`x.cpu().numpy()`).

    ## Why is this bad?
    Kernel launches are asynchronous: the CPU queues work and runs ahead.
    Reading a value back stops the CPU until every queued kernel has
    finished, and the GPU then idles while the CPU queues the next ones, so
    launch latency is no longer hidden. A sync in a loop or a per-token path
    costs tens of microseconds each time, and it also breaks CUDA-graph
    capture and `torch.compile` graphs.

    ## Example
    ```python
    def forward(self, x):
        if (x < 0).any():
            x = x.clamp(min=0)
        n = int(self.mask.sum().item())
        return x / n
    ```

    ## Use instead
    ```python
    def forward(self, x):
        x = x.clamp(min=0)            # a no-op where nothing is negative
        return x / self.mask.sum()    # the count stays on the device
    ```
    Keep decisions on the device (masks, `torch.where`, a kernel's own
    predicate), move validation out of the hot path, or compute a host
    value once at load time.

    ## Fix safety
    No automatic fix: replacing a branch by masking changes which work runs,
    and a host count may size an allocation.
    """

    code = "KL006"
    name = "host-sync-in-hot-path"
    category = Category.LAUNCH_REDUCTION
    severity = Severity.WARNING
    summary = "A hot path reads a tensor's value on the host (.item(), .tolist(), branching on a tensor)."
    bottleneck = (
        "Host-device synchronization: the CPU waits for every queued kernel to finish before it can read the "
        "value, so launch latency is exposed and the GPU idles between the sync and the next launches."
    )
    method = (
        "Keep the decision on the device (masking, torch.where, a predicate inside the kernel) or compute the "
        "host value once outside the hot path, so the CPU never waits for the GPU per call."
    )
    priority = 25
    fix_effect = "remove_sync"

    VALID = [
        # A seed drawn on the CPU (no device): reading it waits for nothing on the GPU.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    seed = torch.randint(0, 2**31 - 1, (1,)).item()
                    return x * (seed % 7)
            """
        ),
        # Python numbers: shapes, element counts, lengths.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    n = x.shape[0]
                    if n > 1024 and x.numel() % 16 == 0:
                        x = x.view(-1, 16)
                    if len(x) == 0 or x.dim() != 2:
                        return x
                    return x * 2
            """
        ),
        # Under the main guard.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return x + 1
            if __name__ == "__main__":
                y = M()(torch.ones(4))
                print(y.sum().item())
                torch.cuda.synchronize()
            """
        ),
        # A benchmark function and a test function.
        Valid(
            """
            import torch
            import triton
            from triton import language as tl
            @triton.jit
            def k(x_ptr):
                pass
            def launch(x):
                k[(1,)](x)
                return x
            def benchmark_launch(x):
                launch(x)
                torch.cuda.synchronize()
            def test_launch():
                assert launch(torch.ones(4)).sum().item() == 4
            """
        ),
        # `is None` tests and flags with defaults are not tensor values.
        Valid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def forward(self, x, mask=None, use_cache=False):
                    if mask is not None:
                        x = x.masked_fill(mask, 0)
                    if use_cache:
                        self.cache = x
                    return x
            """
        ),
        # Not a hot path: a one-time check in __init__.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def __init__(self, w):
                    super().__init__()
                    assert (w >= 0).all()
                    self.n = int(w.sum().item())
                def forward(self, x):
                    return x * self.n
            """
        ),
        # Metadata and CPU tensors built from Python values need no GPU.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, y):
                    dtype = torch.result_type(x, y)
                    if x.dtype != dtype or x.is_conj():
                        x = x.to(dtype)
                    n = int(torch.prod(torch.tensor(x.shape)))
                    return x.view(n) * torch.tensor(x.shape).sum().item()
            """
        ),
        # Device-side decisions: no host read.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    x = torch.where(x < 0, torch.zeros_like(x), x)
                    return x.clamp(max=6.0)
            """
        ),
        # A count the host needs: it sizes the output (nonzero/unique style),
        # directly, through names and arithmetic, or as a slice bound.
        Valid(
            """
            import torch
            import triton
            @triton.jit
            def scan(x_ptr, flags_ptr, out_ptr):
                pass
            def select_positive(x):
                flags = torch.cumsum(x > 0, 0)
                total = int(flags[-1].item())
                width = total + 1
                out = torch.empty((width,), device=x.device)
                scan[(1,)](x, flags, out)
                buf = torch.empty_like(x)
                n = flags.max().item()
                return out, buf[:n], torch.empty(flags[-1].item(), device=x.device)
            """
        ),
        # A count that sets a list's entry, then a shape, or a launch grid.
        Valid(
            """
            import torch
            import triton
            @triton.jit
            def gather(x_ptr, out_ptr):
                pass
            def expand_rows(x, repeats, dim):
                ends = repeats.cumsum(0)
                shape = list(x.shape)
                shape[dim] = ends[-1].item()
                out = x.new_empty(shape)
                tiles = int(ends[-1].item()) // 64
                gather[(tiles,)](x, out)
                return out
            """
        ),
        # A scalar argument that may come as a Python number or a (CPU) tensor,
        # and a tensor tested to be on the CPU first.
        Valid(
            """
            import torch
            import triton
            @triton.jit
            def fill(out_ptr, value):
                pass
            def fill_like(x, value, alpha=1.0):
                if isinstance(value, torch.Tensor):
                    value = value.item()
                if torch.is_tensor(alpha):
                    alpha = float(alpha.to(torch.float32).item())
                out = torch.empty_like(x)
                fill[(1,)](out, value * alpha)
                return out
            def fill_from(x, value: torch.Tensor):
                if not value.is_cuda:
                    return fill_like(x, value.item())
                return x
            """
        ),
        # Asserts of Python bools about torch's mode read no tensor.
        Valid(
            """
            import torch
            class Head(torch.nn.Module):
                def forward(self, x):
                    assert torch.is_inference_mode_enabled()
                    assert not torch.is_grad_enabled()
                    return x.softmax(-1)
            """
        ),
        # Checks that run only under a debug flag are not the served path.
        Valid(
            """
            import torch
            DEBUG = False
            class Head(torch.nn.Module):
                def forward(self, x):
                    if DEBUG:
                        assert torch.isfinite(x).all()
                    if self.debug and x.is_cuda:
                        print(x.abs().max().item())
                    if __debug__:
                        assert (x >= 0).all()
                    return x.softmax(-1)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    if (x < 0).any():
                        x = x.clamp(min=0)
                    return x
            """,
            line=5,
            column=12,
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    n = int(self.mask.sum().item())
                    return x / n
            """,
            line=5,
            column=17,
        ),
        # In a function that launches a kernel: .tolist() to drive Python.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, off):
                pass
            def launch(x, offsets):
                for off in offsets.tolist():
                    k[(1,)](x, off)
            """,
            line=8,
            column=16,
        ),
        # A comparison on a reduction, in an autograd Function's backward.
        Invalid(
            """
            import torch
            class Fn(torch.autograd.Function):
                @staticmethod
                def backward(ctx, grad: torch.Tensor):
                    if grad.abs().sum() > 0:
                        return grad * 2
                    return grad
            """,
            line=6,
            column=12,
        ),
        # torch.cuda.synchronize() and print(tensor) in a forward.
        Invalid(
            """
            import torch as th
            class M(th.nn.Module):
                def forward(self, x):
                    y = th.relu(x)
                    th.cuda.synchronize()
                    return y
            """,
            line=6,
            column=9,
        ),
        Invalid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def forward(self, x):
                    print(x.max())
                    return x
            """,
            line=5,
            column=9,
        ),
        # .cpu().numpy() is one sync, reported once, in a helper called from forward.
        Invalid(
            """
            import torch
            def lengths(mask):
                return mask.sum(-1).cpu().numpy()
            class M(torch.nn.Module):
                def forward(self, x, mask):
                    return x, lengths(mask)
            """,
            line=4,
            column=12,
        ),
        # A count read only to validate, or to scale: no size depends on it.
        Invalid(
            """
            import torch
            import triton
            @triton.jit
            def scale(x_ptr, n):
                pass
            def mean_loss(x, labels):
                n = int((labels != -100).sum().item())
                if n > x.numel():
                    raise ValueError("too many labels")
                scale[(1,)](x, 1.0 / n)
                return x
            """,
            line=8,
            column=13,
        ),
        # A tensor attribute tested for being a tensor is still a device value.
        Invalid(
            """
            import torch
            class Fn(torch.autograd.Function):
                @staticmethod
                def backward(ctx, grad):
                    inv = 1 / ctx.total.item() if isinstance(ctx.total, torch.Tensor) else 1.0
                    return grad * inv
            """,
            line=6,
            column=19,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        hot = model.hot_functions
        for function in model.functions:
            if (
                function not in hot
                or model.kernel_of(function) is not None
                or model.is_preparation(function)
                or model.is_test_or_benchmark(function)
            ):
                continue
            found: list[tuple[cst.CSTNode, str]] = []
            for call in function.calls:
                what = self._sync_call(model, function, call)
                if what is not None:
                    found.append((call, what))
            for test in model.branch_tests(function):
                if not _has_call(test, found) and model.is_tensor(test, function):
                    found.append((test, "Python control flow on a tensor value"))
            for node, what in found:
                if not model.under_debug_flag(node, function):
                    yield self._report(model, function, node, what)

    def _sync_call(self, model: FileModel, function: FunctionInfo, call: cst.Call) -> str | None:
        method = call_name(call)
        name = model.qualname(call.func) or ""
        if method in SYNC_METHODS and not name.startswith(("numpy.", "np.", "torch.")) and call.func is not None:
            receiver = call.func.value  # type: ignore[attr-defined]
            if model.is_number(receiver, function) or model.on_host(receiver, function):
                return None
            if model.maybe_number(receiver, function) or model.host_guarded(receiver, function):
                return None  # a scalar argument unwrapped, or a tensor tested to be on the CPU
            if model.sizes_on_host(call, function):
                return None  # a data-dependent size: the host needs the value
            if isinstance(receiver, cst.Call) and call_name(receiver) in SYNC_METHODS:
                return None  # the inner sync is reported
            return f"`.{method}()`"
        if name in SYNC_FUNCTIONS or (method == "synchronize" and name.startswith("torch.cuda")):
            return f"`{model.code(call.func)}()`"
        if name == "print" and any(model.is_tensor(arg, function) for arg in positional(call)):
            return "`print` of a tensor"
        if name in CONVERSIONS:
            args = positional(call)
            if (
                args
                and model.is_tensor(args[0], function)
                and not _has_sync(model, args[0])
                and not model.on_host(args[0], function)
                and not model.maybe_number(args[0], function)
                and not model.sizes_on_host(call, function)
            ):
                return f"`{name}()` of a tensor"
        return None

    def _report(self, model: FileModel, function: FunctionInfo, node: cst.CSTNode, what: str) -> Report:
        text = " ".join(model.code(node).split())
        text = text if len(text) <= 50 else text[:47] + "..."
        message = (
            f"{what} in `{function.qualname}` (`{text}`) makes the CPU wait for the GPU on every call: the "
            "queued kernels drain and launch latency is no longer hidden"
        )
        if "control flow" in what:
            plan = (
                f"Do not branch on `{text}` on the host: apply both outcomes with a mask or `torch.where`, "
                "move the check into the kernel, or validate once outside the hot path."
            )
        else:
            plan = (
                f"Keep the value of `{text}` on the device and pass the tensor on (to the kernel, or to "
                "`torch.where`/masking), or compute it once outside the hot path; drop debugging syncs "
                "(`print`, `torch.cuda.synchronize()`)."
            )
        return Report(node=node, message=message, plan=plan)


def _has_call(test: cst.CSTNode, found: list[tuple[cst.CSTNode, str]]) -> bool:
    """Whether a test already contains a reported sync (report it once)."""
    ids = {id(node) for node, _ in found}
    stack = [test]
    while stack:
        node = stack.pop()
        if id(node) in ids:
            return True
        stack.extend(children(node))
    return False


def _has_sync(model: FileModel, node: cst.CSTNode) -> bool:
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Call) and call_name(current) in SYNC_METHODS:
            return True
        stack.extend(children(current))
    return False
