from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst

from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo, ParameterSource
from kernlint.model.dtypes import METHOD_CASTS
from kernlint.model.syntax import VIEW_ATTRIBUTES, VIEW_METHODS, call_name, keyword, positional, strip_identity, view_base
from kernlint.registry import Invalid, Report, Rule, Valid

# torch.transpose(w, ...) and friends: functions that return a reordered view.
TORCH_VIEWS = frozenset({f"torch.{name}" for name in VIEW_METHODS})
# Receivers a relayout or a re-cast may be reached through without changing
# which tensor it is.
PASS_THROUGH = frozenset({"detach", "data", "to", "clone", "contiguous", "requires_grad_", *METHOD_CASTS})
TORCH_MATMULS = frozenset(
    {"torch.matmul", "torch.mm", "torch.bmm", "torch.nn.functional.linear", "torch.addmm", "torch.einsum"}
)
KIND_WORDS = {"parameter": "nn.Parameter", "buffer": "buffer", "tensor": "tensor"}


@dataclass(frozen=True)
class _View:
    node: cst.BaseExpression  # the transposing expression (`w.t()`)
    base: cst.BaseExpression  # the tensor it is a view of (`w`)
    # new dim -> old dim, when the dims are literals
    dims: dict[int, int] | None


class PerCallRelayout(Rule):
    """
    ## What it does
    Finds a hot path (an `nn.Module.forward`, an autograd Function's
    `forward`/`backward`, a function that launches a Triton kernel, and what
    they call in the same file) that transposes or permutes a tensor and
    materializes it (`w.t().contiguous()`, `w.T.contiguous()`,
    `x.transpose(1, 2).contiguous()`, `.contiguous()` on a name bound to a
    transposed view), or that clones or re-casts a module parameter
    (`self.w.clone()`, `self.w.to(torch.float16)`, `self.w.float()`).

    ## Why is this bad?
    Each of these is a full read and write of the tensor, as a separate
    kernel, on every call. For a weight the result never changes, so the copy
    is pure overhead (for a 2048x2048 int8 weight, 4 MiB read and 4 MiB
    written per call, plus a launch). For an activation, the consumer can
    usually read the transposed view through its strides instead.

    Severity is `warning` when the tensor is a module parameter or buffer
    (also when it reaches a wrapper as an argument, `wrapper(x, self.weight)`)
    and `info` when it is an activation. It stays silent in `__init__`, in
    one-time preparation methods (called only from `__init__`, or named
    `prepare*`/`load*`/`quantize*`/`pack*`/`_init*`/`setup*`/`from_*`), behind
    a cache (`if self._wt is None:`, `functools.cache`), on `.contiguous()` of
    a tensor with no transpose in sight (a no-op when it is contiguous), on a
    cast to the dtype the parameter already has (a no-op), on an upcast to
    fp32 that feeds a torch matmul (KL016 reports that one), and on activations
    in the `backward` of an autograd Function, which often needs a saved
    activation in the other layout for its weight-gradient GEMM.

    ## Example
    ```python
    def matmul(x, weight):
        b = weight.t().contiguous()
        kernel[grid](x, b, c, M, N, K, b.stride(0), b.stride(1))

    class Model(nn.Module):
        def forward(self, x):
            return matmul(x, self.weight)
    ```

    ## Use instead
    ```python
    def matmul(x, weight):
        # b[k, n] is weight[n, k]: index the transposed view through strides.
        kernel[grid](x, weight, c, M, N, K, weight.stride(1), weight.stride(0))
    ```
    or compute the layout once: `self.register_buffer("weight_t",
    self.weight.t().contiguous(), persistent=False)` in `__init__`.

    ## Fix safety
    No automatic fix: passing strides changes the kernel's memory access
    pattern (and may need a different block order for coalescing), and a
    registered copy must be refreshed when the weight is reloaded.
    """

    code = "KL002"
    name = "per-call-relayout"
    category = Category.MEMORY_LAYOUT
    severity = Severity.WARNING
    summary = "A tensor is transposed and copied, or a parameter cloned/re-cast, on every call."
    bottleneck = (
        "Memory traffic outside the kernel: a transposed/contiguous or re-cast copy of a tensor "
        "is written and read back on every call, as an extra kernel launch."
    )
    method = (
        "Pass the original tensor with its strides swapped so the kernel indexes the transposed "
        "view with zero copies, or compute the new layout once at load time (register_buffer)."
    )
    priority = 20

    VALID = [
        # One-time work: __init__, a preparation method, a method called only from __init__.
        Valid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self, w):
                    super().__init__()
                    self.w = nn.Parameter(w)
                    self.register_buffer("wt", self.w.t().contiguous())
                def prepare_weights(self):
                    self.wt = self.w.t().contiguous()
                def _pack(self):
                    return self.w.to(torch.float16)
                def forward(self, x):
                    self.prepare_weights()
                    return x @ self.wt
            """
        ),
        # Behind a cache.
        Valid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self, w):
                    super().__init__()
                    self.w = nn.Parameter(w)
                    self._wt = None
                def forward(self, x):
                    if self._wt is None:
                        self._wt = self.w.t().contiguous()
                    return x @ self._wt
            """
        ),
        # Cache hit returns early; the copy only runs on a miss.
        Valid(
            """
            import torch
            _CACHE = {}
            def weight_t(w):
                if w in _CACHE:
                    return _CACHE[w]
                _CACHE[w] = w.t().contiguous()
                return _CACHE[w]
            class M(torch.nn.Module):
                def forward(self, x):
                    return x @ weight_t(x)
            """
        ),
        # .contiguous() with no transpose in sight is a no-op on contiguous input.
        Valid(
            """
            import triton
            from triton import jit
            @jit
            def k(x_ptr, n):
                pass
            def launch(x):
                x = x.contiguous()
                y = x.view(-1).contiguous()
                k[(1,)](x, y.numel())
            """
        ),
        # Activation transposed in an autograd backward: needed in that layout.
        Valid(
            """
            import torch
            class F(torch.autograd.Function):
                @staticmethod
                def backward(ctx, grad):
                    x, = ctx.saved_tensors
                    xt = x.t().contiguous()
                    return grad @ xt
            """
        ),
        # Not a hot path, and a cast of a parameter to the dtype it already has.
        Valid(
            """
            import torch
            import torch.nn as nn
            def export(w):
                return w.t().contiguous()
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.w = nn.Parameter(torch.zeros(4, 4, dtype=torch.float16))
                def forward(self, x):
                    return x @ self.w.to(torch.float16)
            """
        ),
        # Memoized helper.
        Valid(
            """
            import functools
            import torch.nn as nn
            class M(nn.Module):
                @functools.lru_cache(maxsize=None)
                def wt(self):
                    return self.w.t().contiguous()
                def forward(self, x):
                    return x @ self.wt()
            """
        ),
    ]
    INVALID = [
        # The seed: a parameter reaching a wrapper, transposed and copied per call.
        Invalid(
            """
            import triton
            import triton.language as tl
            import torch.nn as nn
            @triton.jit
            def mm(a_ptr, b_ptr, K, stride_bk, stride_bn, BLOCK: tl.constexpr):
                pass
            def wrapper(x, weight):
                b = weight.t().contiguous()
                mm[(1,)](x, b, 1, b.stride(0), b.stride(1), BLOCK=16)
            class M(nn.Module):
                def __init__(self, w):
                    super().__init__()
                    self.weight = nn.Parameter(w)
                def forward(self, x):
                    return wrapper(x, self.weight)
            """,
            line=9, column=9,
        ),
        Invalid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self, w):
                    super().__init__()
                    self.w = nn.Parameter(w)
                def forward(self, x):
                    return x @ self.w.T.contiguous()
            """,
            line=8, column=20,
        ),
        # A name bound to a transposed view, materialized later.
        Invalid(
            """
            from triton import language as lang
            import triton
            @triton.jit(debug=True)
            def k(x_ptr, BLOCK: lang.constexpr):
                pass
            def launch(x):
                xt = x.permute(0, 2, 1)
                xt = xt.contiguous()
                k[(1,)](xt, BLOCK=16)
            """,
            line=9, column=10,
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.w = nn.Parameter(torch.randn(4, 4))
                def forward(self, x):
                    return x @ self.w.to(torch.float16)
            """,
            line=9, column=20,
        ),
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.register_buffer("table", torch.zeros(4, 4, dtype=torch.int8))
                def forward(self, x):
                    t = self.table.float()
                    return x * t.clone()
            """,
            line=8, column=13,
        ),
        Invalid(
            """
            import torch
            class Attn(torch.nn.Module):
                def forward(self, q):
                    return torch.transpose(q, 1, 2).contiguous()
            """,
            line=5, column=16,
        ),
        # Autograd Function forward on an activation: info.
        Invalid(
            """
            import torch
            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, w):
                    return x @ w.mT.contiguous()
            """,
            line=6, column=20,
        ),
        # A launching function is a hot path; a stacked autotune changes nothing.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=["n"])
            @triton.heuristics({"EVEN": lambda a: a["n"] % 64 == 0})
            @triton.jit
            def k(x_ptr, n, stride_0, stride_1, BLOCK: tl.constexpr, EVEN: tl.constexpr):
                pass
            def launch(x):
                y = x.transpose(0, 1).contiguous()
                k[(1,)](y, y.numel(), y.stride(0), y.stride(1))
            """,
            line=10, column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        hot = model.hot_functions
        for function in model.functions:
            if function not in hot or model.is_preparation(function):
                continue
            cls = model.class_of(function)
            in_backward = function.name == "backward" and cls is not None and cls.is_autograd_function
            covered: set[int] = set()
            for call in function.calls:
                if id(call) in covered:
                    continue
                report = self._relayout(model, function, call, in_backward, covered)
                if report is None:
                    report = self._recast(model, function, call, covered)
                if report is not None and not model.behind_cache(call, function):
                    yield report

    # -- transposed copies -------------------------------------------------
    def _relayout(
        self, model: FileModel, function: FunctionInfo, call: cst.Call, in_backward: bool, covered: set[int]
    ) -> Report | None:
        if call_name(call) != "contiguous":
            return None
        receiver = strip_identity(call.func.value)  # type: ignore[attr-defined]
        view = self._view(model, function, receiver, call)
        if view is None:
            return None
        covered.update(id(n) for n in _calls_in(call))
        base = strip_identity(view.base)
        origin = model.parameter_source(base, function)
        if origin is None and in_backward:
            return None
        expression = model.code(call)
        tensor = model.code(base)
        what = _describe(origin, tensor, function)
        message = (
            f"`{expression}` in `{function.qualname}` copies a transposed `{tensor}` on every call; {what}"
        )
        return Report(
            node=call,
            message=message,
            plan=self._relayout_plan(model, function, call, view, base, origin),
            severity=Severity.WARNING if origin is not None else Severity.INFO,
        )

    def _view(
        self, model: FileModel, function: FunctionInfo, node: cst.BaseExpression, before: cst.CSTNode, depth: int = 0
    ) -> _View | None:
        """The transposing view an expression is, directly or through a name
        assigned earlier in the function."""
        if depth > 6:
            return None
        if isinstance(node, cst.Attribute) and node.attr.value in VIEW_ATTRIBUTES:
            return _View(node, node.value, {0: 1, 1: 0} if node.attr.value in ("T", "H") else None)
        if isinstance(node, cst.Call):
            method = call_name(node)
            if method in VIEW_METHODS and model.qualname(node.func) not in TORCH_VIEWS:
                return _View(node, node.func.value, _dims(method, positional(node)))  # type: ignore[attr-defined]
            name = model.qualname(node.func)
            if name in TORCH_VIEWS and positional(node):
                args = positional(node)
                return _View(node, args[0], _dims(name.split(".")[-1], args[1:]))
            return None
        if isinstance(node, cst.Name):
            value = model.assigned_value(function, node.value, before, strict=True)
            if value is not None:
                return self._view(model, function, strip_identity(value), before, depth + 1)
        return None

    def _relayout_plan(
        self,
        model: FileModel,
        function: FunctionInfo,
        call: cst.Call,
        view: _View,
        base: cst.BaseExpression,
        origin: ParameterSource | None,
    ) -> str:
        tensor = model.code(base)
        target = _target_of(function, call)
        copy = f"`{target} = {model.code(call)}`" if target else f"`{model.code(call)}`"
        launch_plan = _launch_plan(model, function, call, target, view, tensor)
        if launch_plan is not None:
            return f"{launch_plan}, and delete {copy}." + (
                f" If the kernel needs the copy's layout for coalescing, build it once in "
                f"`{origin.cls.name}.__init__` with `register_buffer` instead."
                if origin is not None else ""
            )
        if origin is not None:
            attribute = f"{origin.tensor.name}_t"
            return (
                f"Compute the layout once: in `{origin.cls.name}.__init__` (and after loading weights), "
                f'`self.register_buffer("{attribute}", self.{origin.tensor.name}{_view_suffix(model, view)}'
                f'.contiguous(), persistent=False)`, and use `self.{attribute}` instead of {copy}.'
            )
        return (
            f"Drop the copy {copy}: pass the view and its strides to the consumer "
            f"(a Triton kernel takes `{tensor}`'s strides in the swapped order; torch matmuls accept "
            f"strided views directly)."
        )

    # -- clones and re-casts of parameters -----------------------------------
    def _recast(self, model: FileModel, function: FunctionInfo, call: cst.Call, covered: set[int]) -> Report | None:
        method = call_name(call)
        if method is None:
            return None
        target: str | None = None
        if method == "clone":
            what = "clones"
        elif method in METHOD_CASTS and not call.args:
            target = METHOD_CASTS[method]
            what = f"re-casts to {target}"
        elif method in ("to", "type"):
            target = model.torch_dtype(keyword(call, "dtype"))
            for arg in positional(call):
                target = target or model.torch_dtype(arg)
            if target is None:
                return None
            what = f"re-casts to {target}"
        else:
            return None
        receiver = strip_identity(call.func.value)  # type: ignore[attr-defined]
        base = view_base(receiver)
        origin = model.parameter_source(base, function)
        if origin is None:
            return None
        if target is not None:
            fact = model.dtype_of(origin.tensor.value, origin.tensor.scope)
            if fact is not None and fact.dtype == target:
                return None
            if target in ("float32", "float64") and _feeds_matmul(model, function, call):
                return None  # an upcast into a torch matmul is KL016's finding
        covered.update(id(n) for n in _calls_in(call))
        tensor = model.code(base)
        message = (
            f"`{model.code(call)}` in `{function.qualname}` {what} `{tensor}` on every call; "
            f"{_describe(origin, tensor, function)}"
        )
        name = origin.tensor.name
        if method == "clone":
            plan = (
                f"Drop the clone if nothing writes to it in place; otherwise clone once in "
                f"`{origin.cls.name}.__init__` and keep the copy as a buffer."
            )
        else:
            plan = (
                f"Store `{name}` in {target} once: in `{origin.cls.name}.__init__` (and after loading weights) "
                f'`self.register_buffer("{name}_{target}", self.{name}.to(torch.{target}), persistent=False)`, '
                f"and read `self.{name}_{target}` in `{function.qualname}`."
            )
        return Report(node=call, message=message, plan=plan, severity=Severity.WARNING)


def _feeds_matmul(model: FileModel, function: FunctionInfo, call: cst.Call) -> bool:
    """Whether a value is an operand of a torch matmul (`torch.matmul`,
    `mm`, `bmm`, `F.linear`, `@`), directly or through the name it is
    assigned to."""
    target = _target_of(function, call)

    def matches(node: cst.BaseExpression) -> bool:
        return node is call or (target is not None and isinstance(node, cst.Name) and node.value == target)

    for other in function.calls:
        if model.qualname(other.func) in TORCH_MATMULS and any(matches(arg.value) for arg in other.args):
            return True
    return any(matches(op.left) or matches(op.right) for op in getattr(function, "matmul_ops", ()))


def _dims(method: str, args: list[cst.BaseExpression]) -> dict[int, int] | None:
    """new dim -> old dim of a transposing view, when its dims are literals."""
    values = [_int(a) for a in args]
    if any(v is None for v in values):
        return None
    ints = [v for v in values if v is not None]
    if method == "t":
        return {0: 1, 1: 0}
    if method in ("transpose", "swapaxes", "swapdims") and len(ints) == 2:
        a, b = ints
        return {a: b, b: a}
    if method == "permute" and ints and sorted(ints) == list(range(len(ints))):
        return dict(enumerate(ints))
    return None


def _int(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _int(node.expression)
        return -inner if inner is not None else None
    return None


def _calls_in(node: cst.CSTNode) -> Iterator[cst.Call]:
    stack = [node]
    while stack:
        child = stack.pop()
        if isinstance(child, cst.Call):
            yield child
        stack.extend(child.children)


def _describe(origin: ParameterSource | None, tensor: str, function: FunctionInfo) -> str:
    if origin is None:
        return f"`{tensor}` is an activation (not a module parameter)"
    kind = KIND_WORDS.get(origin.tensor.kind, "tensor")
    text = f"`{tensor}` is the {kind} `{origin.cls.name}.{origin.tensor.name}`"
    if origin.scope is not function:
        text += f", passed from {origin.scope.qualname}"
    return text


def _target_of(function: FunctionInfo, call: cst.Call) -> str | None:
    return next((target for target, value, _ in function.assignments if value is call), None)


def _view_suffix(model: FileModel, view: _View) -> str:
    """`.t()` / `.transpose(1, 2)` / `.T`: the view as written."""
    full = model.code(view.node)
    return full[len(model.code(view.base)):]


def _launch_plan(
    model: FileModel, function: FunctionInfo, call: cst.Call, target: str | None, view: _View, tensor: str
) -> str | None:
    """When the copy feeds a launch in the same function: pass the original
    tensor and its strides in swapped order instead."""
    for launch in model.launches:
        if launch.caller is not function:
            continue
        pointer = next(
            (
                param for param, value in launch.arguments.items()
                if value is call or (target is not None and isinstance(value, cst.Name) and value.value == target)
            ),
            None,
        )
        if pointer is None:
            continue
        kernel = launch.kernel.name
        strides: list[tuple[str, str]] = []
        for param, value in launch.arguments.items():
            dim = _stride_of(value, target)
            if dim is None:
                continue
            old = view.dims.get(dim) if view.dims is not None else None
            if old is None:
                strides = []
                break
            strides.append((param, f"{tensor}.stride({old})"))
        if strides:
            names = ", ".join(p for p, _ in strides)
            values = ", ".join(v for _, v in strides)
            return (
                f"Pass `{tensor}` itself as `{pointer}` of `{kernel}` with its strides swapped "
                f"(`{values}` as `{names}`), so the kernel indexes the transposed view with zero copies"
            )
        return (
            f"Pass `{tensor}` itself as `{pointer}` of `{kernel}` together with its strides in the "
            f"transposed order, and index it through them in the kernel (zero copies)"
        )
    return None


def _stride_of(value: cst.BaseExpression, target: str | None) -> int | None:
    """`b.stride(0)` -> 0 when `b` is the copy's name."""
    if (
        target is not None
        and isinstance(value, cst.Call)
        and call_name(value) == "stride"
        and isinstance(value.func.value, cst.Name)  # type: ignore[attr-defined]
        and value.func.value.value == target  # type: ignore[attr-defined]
        and len(value.args) == 1
    ):
        return _int(value.args[0].value)
    return None
