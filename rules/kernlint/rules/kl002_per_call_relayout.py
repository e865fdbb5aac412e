from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo, ParameterSource
from kernlint.model.dtypes import METHOD_CASTS
from kernlint.model.layout import TensorRole, View, calls_in
from kernlint.model.syntax import call_name, keyword, positional, strip_identity, view_base, walk
from kernlint.registry import Invalid, Report, Rule, Valid


class PerCallRelayout(Rule):
    """
    ## What it does
    Finds a hot path (an `nn.Module.forward`, an autograd Function's
    `forward`/`backward`, a function that launches a Triton kernel, and what
    they call in the same file) that transposes or permutes a tensor and
    materializes it (`w.t().contiguous()`, `w.T.contiguous()`,
    `x.transpose(1, 2).contiguous()`, `.contiguous()` on a name bound to a
    transposed view, `buf.copy_(w.t())` into a buffer), that copies a slice
    of a module parameter along a later dimension (`w[:, :k].contiguous()`:
    a strided view), or that clones or re-casts a module parameter
    (`self.w.clone()`, `self.w.to(torch.float16)`, `self.w.float()`).

    ## Why is this bad?
    Each of these is a full read and write of the tensor, as a separate
    kernel, on every call. For a weight the result never changes, so the copy
    is pure overhead (for a 2048x2048 int8 weight, 4 MiB read and 4 MiB
    written per call, plus a launch). For an activation, the consumer can
    usually read the transposed view through its strides instead.
    A weight matrix `[N, K]` copied to `[K, N]` for a `tl.dot` kernel's B
    operand costs more than the copy: the kernel then reads B with N
    contiguous, which fp32 (TF32) tensor cores run at a fraction of the rate
    of B read K-major, the weight's own layout (the calibration's tile
    probes of the two layouts). The estimate for a KernelBench-style file
    prices both: the copy gone and the product at the K-major rate.

    A helper of another module that returns a transposed copy of its
    argument (`return x.permute(order).contiguous()`) is reported at the
    call in the hot path, with the helper's file and line; not under `if
    not x.is_contiguous():` (a copy is due anyway), nor when a helper that
    orders the dims by stride is given every dim (memory order: no copy).

    Severity is `warning` when the fix is certain: the tensor is a module
    parameter or buffer (also when it reaches a wrapper as an argument), or
    the copy feeds a kernel that takes its strides (a zero-copy fix). It is
    `info` otherwise, with confidence "medium": an activation whose consumer
    needs the layout, or a tensor read as a weight only from its name
    (`weight`, `w1`, a `weight` in `ctx.saved_tensors`; the message says it
    is a guess), also for its clone. It stays silent in `__init__`, in
    one-time preparation methods (called only from `__init__`, or named
    `prepare*`/`load*`/`quantize*`/`pack*`/`_init*`/`setup*`/`from_*`),
    behind a cache (`if self._wt is None:`, `if key != self._key:`,
    `functools.cache`, or in a helper that forward's path only calls so), on
    `.contiguous()` with no transpose in sight, on identity transposes, on a
    round trip (the copy is transposed back before it is returned: a no-op
    for the transposed views of contiguous storage the function is written
    for), on a cast to the dtype the parameter has, on an fp32 upcast into a
    torch matmul (KL016's), and on activations saved for backward (also in
    the helpers a `backward` calls), which a gradient GEMM often needs in
    the other layout. Relayouts through a reshape count, and a function that
    calls an autograd Function's `.apply` is a hot path.

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
    fix_effect = "remove_copy"

    VALID = [
        # An in-place copy of a tensor in its own layout, and a layer's weight transposed once in __init__.
        Valid(
            """
            import torch
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 32)
                    self.register_buffer("w_kn", torch.empty(64, 32))
                    self.w_kn.copy_(self.fc.weight.t())
                def forward(self, x):
                    out = torch.empty_like(x)
                    out.copy_(x)
                    return out @ self.w_kn
            """
        ),
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
        # A helper builds the layout; forward's path calls it only when the weight's version key changed.
        Valid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self, w):
                    super().__init__()
                    self.w = nn.Parameter(w)
                    self.wt = self._layout()
                    self._key = self._version_key()
                def _version_key(self):
                    return (self.w.data_ptr(), self.w._version)
                def _layout(self):
                    return self.w.t().contiguous()
                def _current(self):
                    key = self._version_key()
                    if key != self._key:
                        self.wt = self._layout()
                        self._key = key
                    return self.wt
                def forward(self, x):
                    return x @ self._current()
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
        # A round trip: the copy undoes the caller's transposed view and the
        # result is transposed back; identity transposes; a saved activation
        # relayouted in the helper a backward calls.
        Valid(
            """
            import torch
            def rotate(q):
                q = q.transpose(1, 2)
                q = q.contiguous()
                k_t = q.swapaxes(2, 2).contiguous()
                rot_kernel[(1,)](q, k_t)
                return q.transpose(1, 2)
            def _grad_weight(grad, x):
                return grad.t() @ x.t().contiguous()
            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return rotate(x)
                @staticmethod
                def backward(ctx, grad):
                    (saved,) = ctx.saved_tensors
                    return _grad_weight(grad, saved)
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
        # A slice of rows is contiguous already (no copy); a slice of an activation is the consumer's business.
        Valid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(96, 64)
                def forward(self, x):
                    w = self.fc.weight[:32].contiguous()
                    x = x[:, :48].contiguous()
                    return x @ w
            """
        ),
    ]
    INVALID = [
        # A layer's weight split by columns (an RNN cell's input and hidden halves), each half copied per call.
        Invalid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.i2h = nn.Linear(96, 64)
                def forward(self, x, h):
                    w = self.i2h.weight
                    w_x = w[:, :32].contiguous()
                    w_h = w[:, 32:]
                    return x @ w_x.t() + h @ w_h.t()
            """,
            line=9,
            column=15,
        ),
        # A layer's weight copied transposed into a buffer allocated per call, for a kernel's [K, N] operand.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 32)
                def forward(self, x):
                    w_kn = torch.empty(64, 32, device=x.device)
                    w_kn.copy_(self.fc.weight.t())
                    return x @ w_kn
            """,
            line=10,
            column=9,
        ),
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
            line=9,
            column=9,
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
            line=8,
            column=20,
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
            line=9,
            column=10,
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
            line=9,
            column=20,
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
            line=8,
            column=13,
        ),
        Invalid(
            """
            import torch
            class Attn(torch.nn.Module):
                def forward(self, q):
                    return torch.transpose(q, 1, 2).contiguous()
            """,
            line=5,
            column=16,
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
            line=6,
            column=20,
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
            line=10,
            column=9,
        ),
        # A weight saved for backward, cloned and relayouted in every backward
        # (a guess from its name: info); a relayout through a reshape counts.
        Invalid(
            """
            import torch
            class Conv(torch.autograd.Function):
                @staticmethod
                def backward(ctx, grad):
                    weight, x = ctx.saved_tensors
                    w = torch.flip(weight.clone(), dims=[2, 3])
                    w = w.transpose(0, 1).reshape(4, -1).contiguous()
                    return grad @ w
            """,
            line=7,
            column=24,
        ),
        # A copy fed to a kernel that takes its strides: pure waste (warning),
        # in a function that calls an autograd Function's apply.
        Invalid(
            """
            import torch
            import triton
            @triton.jit
            def mm(a_ptr, b_ptr, s0, s1):
                pass
            class Mm(torch.autograd.Function):
                @staticmethod
                def forward(ctx, a, b):
                    return a
            def matmul(a, b):
                b = b.t().contiguous()
                mm[(1,)](a, b, b.stride(0), b.stride(1))
                return a
            def linear(x, weight):
                return Mm.apply(x, weight.t().contiguous())
            """,
            line=12,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        hot = model.hot_functions | model.autograd_callers
        for function in model.functions:
            if function not in hot or model.is_preparation(function):
                continue
            in_backward = model.backward_only(function)
            covered: set[int] = set()
            for call in function.calls:
                if id(call) in covered:
                    continue
                report = (
                    self._relayout(model, function, call, covered)
                    or self._column_slice(model, function, call)
                    or self._in_helper(model, function, call)
                )
                if report is None:
                    report = self._recast(model, function, call, in_backward, covered)
                if report is not None and not model.behind_cache(call, function):
                    if not model.only_behind_cache(function):
                        yield report

    # -- transposed copies -------------------------------------------------
    def _relayout(self, model: FileModel, function: FunctionInfo, call: cst.Call, covered: set[int]) -> Report | None:
        method = call_name(call)
        if method == "contiguous":
            receiver = strip_identity(call.func.value)  # type: ignore[attr-defined]
        elif method == "copy_" and len(positional(call)) == 1 and not _into_argument(model, function, call):
            # `buf.copy_(w.t())`: the same transposed copy, into a buffer of the function's.
            receiver = strip_identity(positional(call)[0])
        else:
            return None
        view = model.transposing_view(function, receiver, call)
        if view is None or model.is_round_trip(function, call, view):
            return None
        covered.update(id(n) for n in calls_in(call))
        base = strip_identity(view.base)
        role = model.tensor_role(function, base)
        if role.kind == "saved":
            return None  # a saved activation, needed in the other layout for a gradient GEMM
        if (
            role.kind == "activation"
            and not _unfolds(model, function, base)
            and _lays_out_fp32_dot_operand(model, function, call)
        ):
            return None  # an input copied so a TF32 tl.dot reads it K-major: read in place, it would be KL031's
        strided = model.takes_copy_strides(function, call, view)
        expression = model.code(call)
        tensor = model.code(base)
        what = role.describe(tensor, function)
        if strided and role.kind != "parameter":
            what += "; the kernel it feeds takes its strides, so the copy is pure waste"
        message = f"`{expression}` in `{function.qualname}` copies a transposed `{tensor}` on every call; {what}"
        certain = role.kind == "parameter" or strided
        return Report(
            node=call,
            message=message,
            plan=self._relayout_plan(model, function, call, view, base, role.origin),
            severity=Severity.WARNING if certain else Severity.INFO,
            confidence=None if role.kind == "parameter" else "high" if strided else "medium",
        )

    def _column_slice(self, model: FileModel, function: FunctionInfo, call: cst.Call) -> Report | None:
        """`self.w[:, :k].contiguous()`: a slice of a module parameter along a dimension after the first is a
        strided view, so `.contiguous()` copies it, on every call, though the kernel can read it in place."""
        if call_name(call) != "contiguous":
            return None
        receiver = strip_identity(call.func.value)  # type: ignore[attr-defined]
        if not isinstance(receiver, cst.Subscript) or not _slices_a_later_dimension(receiver):
            return None
        role = model.tensor_role(function, receiver.value)
        if role.kind != "parameter" or role.origin is None:
            return None
        tensor = model.code(receiver.value)
        target = model.copy_target(function, call)
        copy = f"`{target} = {model.code(call)}`" if target else f"`{model.code(call)}`"
        origin = role.origin
        return Report(
            node=call,
            message=(
                f"`{model.code(call)}` in `{function.qualname}` copies a slice of `{tensor}` along a dimension "
                f"after the first (a strided view) on every call; {role.describe(tensor, function)}"
            ),
            plan=(
                f"Pass `{tensor}` itself with its strides (`{tensor}.stride(0)`, `{tensor}.stride(1)`) and the "
                f"slice's start as an offset the kernel adds to the pointer, and delete {copy}. If the kernel "
                f"needs the slice contiguous, build it once in `{origin.cls.name}.__init__` with "
                "`register_buffer` instead."
            ),
            severity=Severity.WARNING,
        )

    def _in_helper(self, model: FileModel, function: FunctionInfo, call: cst.Call) -> Report | None:
        """The copy is made by a helper of another module this call reaches."""
        found = model.helper_relayout(function, call)
        if found is None or model.only_if_strided(call, function, found.argument):
            return None  # under `if not x.is_contiguous():` the copy is needed anyway
        role = model.tensor_role(function, found.argument)
        if role.kind == "saved":
            return None
        tensor, helper = model.code(found.argument), found.helper
        return Report(
            node=call,
            message=f"`{model.code(call)}` in `{function.qualname}` copies a transposed `{tensor}` on every call: "
            f"`{helper}` returns `{found.copy}` ({found.where}); {role.describe(tensor, function)}",
            plan=f"Drop the copy: pass `{tensor}` itself and its strides, in `{helper}`'s order, to the consumer "
            f"instead of `{helper}`'s result (a Triton kernel indexes the permuted view through its strides; "
            f"torch ops accept strided views).",
            severity=Severity.WARNING if role.kind == "parameter" else Severity.INFO,
            confidence=None if role.kind == "parameter" else "medium",
        )

    def _relayout_plan(
        self,
        model: FileModel,
        function: FunctionInfo,
        call: cst.Call,
        view: View,
        base: cst.BaseExpression,
        origin: ParameterSource | None,
    ) -> str:
        tensor = model.code(base)
        target = model.copy_target(function, call)
        if call_name(call) == "copy_":
            copy = f"`{model.code(call)}` (and the allocation of `{target}`)"
        else:
            copy = f"`{target} = {model.code(call)}`" if target else f"`{model.code(call)}`"
        launch_plan = _launch_plan(model, function, call, target, view, tensor)
        if launch_plan is not None:
            return f"{launch_plan}, and delete {copy}." + (
                f" If the kernel needs the copy's layout for coalescing, build it once in "
                f"`{origin.cls.name}.__init__` with `register_buffer` instead."
                if origin is not None
                else ""
            )
        if origin is not None:
            attribute = f"{origin.tensor.name.replace('.', '_')}_t"
            return (
                f"Compute the layout once: in `{origin.cls.name}.__init__` (and after loading weights), "
                f'`self.register_buffer("{attribute}", self.{origin.tensor.name}{_view_suffix(model, view)}'
                f".contiguous(), persistent=False)`, and use `self.{attribute}` instead of {copy}."
            )
        return (
            f"Drop the copy {copy}: pass the view and its strides to the consumer "
            f"(a Triton kernel takes `{tensor}`'s strides in the swapped order; torch matmuls accept "
            f"strided views directly)."
        )

    # -- clones and re-casts of parameters -----------------------------------
    def _recast(
        self, model: FileModel, function: FunctionInfo, call: cst.Call, in_backward: bool, covered: set[int]
    ) -> Report | None:
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
            return self._weight_clone(model, function, call, base, in_backward, covered) if method == "clone" else None
        if target is not None:
            fact = model.dtype_of(origin.tensor.value, origin.tensor.scope)
            if fact is not None and fact.dtype == target:
                return None
            if target in ("float32", "float64") and model.feeds_torch_matmul(function, call):
                return None  # an upcast into a torch matmul is KL016's finding
        covered.update(id(n) for n in calls_in(call))
        tensor = model.code(base)
        message = (
            f"`{model.code(call)}` in `{function.qualname}` {what} `{tensor}` on every call; "
            f"{TensorRole('parameter', '', origin).describe(tensor, function)}"
        )
        source = origin.tensor.name  # `fc.weight` for a layer's parameter
        name = source.replace(".", "_")
        if method == "clone":
            plan = (
                f"Drop the clone if nothing writes to it in place; otherwise clone once in "
                f"`{origin.cls.name}.__init__` and keep the copy as a buffer."
            )
        else:
            plan = (
                f"Store `{source}` in {target} once: in `{origin.cls.name}.__init__` (and after loading weights) "
                f'`self.register_buffer("{name}_{target}", self.{source}.to(torch.{target}), persistent=False)`, '
                f"and read `self.{name}_{target}` in `{function.qualname}`."
            )
        return Report(node=call, message=message, plan=plan, severity=Severity.WARNING)

    def _weight_clone(
        self,
        model: FileModel,
        function: FunctionInfo,
        call: cst.Call,
        base: cst.BaseExpression,
        in_backward: bool,
        covered: set[int],
    ) -> Report | None:
        """`weight.clone()` of a tensor read as a weight (a guess: info)."""
        role = model.tensor_role(function, base)
        if role.kind != "weight":
            return None
        covered.update(id(n) for n in calls_in(call))
        tensor = model.code(base)
        where = "backward" if in_backward else "call"
        return Report(
            node=call,
            message=f"`{model.code(call)}` in `{function.qualname}` clones `{tensor}` on every {where}; "
            f"{role.describe(tensor, function)}",
            plan=f"Drop the clone of `{tensor}` if nothing writes to it in place (out-of-place ops such as "
            f"`torch.flip` already return a new tensor); a constant weight needs no per-call copy.",
            severity=Severity.INFO,
            confidence="medium",
        )


def _slices_a_later_dimension(node: cst.Subscript) -> bool:
    """`w[:, :k]`, `w[:, k:]`, `w[..., a:b]`: every dimension before the sliced one whole, so the result keeps
    the rows' stride and is not contiguous (`w[:k]`, `w[:k, :]` stay contiguous)."""
    elements = [element.slice for element in node.slice]
    for position, index in enumerate(elements):
        if position == 0:
            if not (_whole(index) or (isinstance(index, cst.Index) and isinstance(index.value, cst.Ellipsis))):
                return False
            continue
        if isinstance(index, cst.Slice) and not _whole(index):
            return True
        if not _whole(index):
            return False
    return False


def _whole(index: cst.BaseSlice) -> bool:
    return isinstance(index, cst.Slice) and index.lower is None and index.upper is None and index.step is None


def _into_argument(model: FileModel, function: FunctionInfo, call: cst.Call) -> bool:
    """`x.copy_(...)` into a tensor the caller passed (an in-place op writing its result back into
    its input, `origin = x` ... `origin.copy_(out.permute(order))`): the copy is the function's output."""
    target = model.copy_target(function, call)
    for _ in range(4):
        if target is None or target in function.params:
            return target is not None
        value = next((v for t, v, _ in function.assignments if t == target), None)
        target = value.value if isinstance(value, cst.Name) else None
    return False


def _view_suffix(model: FileModel, view: View) -> str:
    """`.t()` / `.transpose(1, 2)` / `.T`: the view as written."""
    full = model.code(view.node)
    return full[len(model.code(view.base)) :]


def _launch_plan(
    model: FileModel, function: FunctionInfo, call: cst.Call, target: str | None, view: View, tensor: str
) -> str | None:
    """When the copy feeds a launch in the same function: pass the original
    tensor and its strides in swapped order instead."""
    fed = model.feeding_launch(function, call)
    if fed is not None:
        launch, pointer = fed
        kernel = launch.kernel.name
        strides: list[tuple[str, str]] = []
        for param, dim in model.copy_strides(launch, target).items():
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


def _lays_out_fp32_dot_operand(model: FileModel, function: FunctionInfo, call: cst.Call) -> bool:
    """The copy is handed to a Triton kernel that loads a `tl.dot` operand from it with the copy's last,
    contiguous dimension as the operand's K axis (`bt.stride(1)` as B's K stride, or no multiplier), on tiles
    not known to be narrower than fp32: the copy lays the operand out K-major for TF32's MMAs, and reading the
    view through its strides instead would put the product on TF32's slow path (KL031)."""
    fed = model.feeding_launch(function, call)
    if fed is None:
        return False
    launch, param = fed
    kernel = launch.kernel
    dims = model.copy_strides(launch, model.copy_target(function, call))
    for which in (0, 1):
        strides = model.dot_a_strides(kernel) if which == 0 else model.dot_b_strides(kernel)
        if param not in model.dot_operand_pointers(kernel, which) or strides is None:
            continue
        k_axis = strides[1] if which == 0 else strides[0]
        contiguous = k_axis is None or (
            isinstance(k_axis, cst.Name) and bool(dims) and dims.get(k_axis.value) in (max(dims.values()), -1)
        )
        if not contiguous:
            continue
        for dot in kernel.function.calls:
            if model.is_tl(dot.func, "dot"):
                facts = [model.kernel_value_dtype(kernel, operand) for operand in positional(dot)[:2]]
                if facts and all(fact is not None and fact.dtype != "float32" for fact in facts):
                    return False
        return True
    return False


def _unfolds(model: FileModel, function: FunctionInfo, node: cst.BaseExpression, depth: int = 0) -> bool:
    """The value is built with `.unfold` (an im2col's patches, followed through earlier assignments): its copy
    writes every input element many times over, not a relayout of the same bytes."""
    if depth > 8:
        return False
    for inner in walk(node):
        if isinstance(inner, cst.Call) and call_name(inner) == "unfold":
            return True
        if isinstance(inner, cst.Name):
            value = model.assigned_value(function, inner.value, before=inner, strict=True)
            if value is not None and value is not inner and _unfolds(model, function, value, depth + 1):
                return True
    return False
