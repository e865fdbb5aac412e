"""Layout facts (KL002): which expressions are transposing views, which
copies only undo a view the caller made (a round trip), what a copy feeds,
and whether a tensor is a weight or an activation (followed through names,
copies, `ctx.saved_tensors` and the helpers of this file that pass it on).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

import libcst as cst
from kernlint.model.dtypes import METHOD_CASTS
from kernlint.model.facts import FunctionInfo, Launch, ParameterSource
from kernlint.model.host import HostFacts
from kernlint.model.syntax import (
    VIEW_ATTRIBUTES,
    VIEW_METHODS,
    call_name,
    children,
    positional,
    strip_identity,
    walk,
)

# torch.transpose(w, ...) and friends: functions that return a reordered view.
TORCH_VIEWS = frozenset({f"torch.{name}" for name in VIEW_METHODS})
# Reshapes keep a transposed tensor's relayout (and copy it when it cannot be viewed).
RESHAPES = frozenset({"reshape", "view", "flatten", "unflatten"})
# Calls that return the same values in a new tensor (or the same tensor): a
# weight stays a weight through them.
COPIES = frozenset({"clone", "contiguous", "detach", "to", "flip", "requires_grad_", *METHOD_CASTS, *RESHAPES})
TORCH_COPIES = frozenset({"torch.flip", "torch.clone"})
TORCH_MATMULS = frozenset(
    {"torch.matmul", "torch.mm", "torch.bmm", "torch.nn.functional.linear", "torch.addmm", "torch.einsum"}
)
# Parameter and saved-tensor names that read like a weight: weight, w, w1,
# conv_weight, weight_t, wq. A guess, and findings resting on it say so.
WEIGHT_NAME = re.compile(r"^(?:.*_)?(?:weight|w\d*|wq|wk|wv|wo)(?:_.*)?$", re.IGNORECASE)


@dataclass(frozen=True)
class View:
    """A transposing view: `node` (`w.t()`) of `base` (`w`); `dims` maps new
    dim -> old dim when the dims are literals."""

    node: cst.BaseExpression
    base: cst.BaseExpression
    dims: dict[int, int] | None


KIND_WORDS = {"parameter": "nn.Parameter", "buffer": "buffer", "tensor": "tensor"}


@dataclass(frozen=True)
class ReturnedRelayout:
    """A helper returns a transposed copy (`copy`, as written, at `where`,
    path:line) of its parameter number `index`; `by_stride`: it orders the
    dims by stride (`sorted(dims, key=lambda d: stride[d])`)."""

    copy: str
    index: int
    where: str
    by_stride: bool


@dataclass(frozen=True)
class HelperRelayout:
    """`call` passes `argument` to a helper of another module (`helper`)
    whose `copy` (at `where`, path:line) returns it transposed and copied."""

    call: cst.Call
    argument: cst.BaseExpression
    helper: str
    copy: str
    where: str


@dataclass(frozen=True)
class TensorRole:
    """What a tensor is to the function that copies it. `kind`: "parameter"
    (a module parameter or buffer, certain), "weight" (read as one from its
    name: a guess), "saved" (an activation from `ctx.saved_tensors`), or
    "activation". `evidence` says why, in words a user can check."""

    kind: str
    evidence: str
    origin: ParameterSource | None = None

    def describe(self, tensor: str, function: FunctionInfo) -> str:
        """What the tensor spelled `tensor` in `function` is, for a message."""
        origin = self.origin
        if self.kind == "weight":
            return f"{self.evidence}, so it may be a constant weight (a guess from its name)"
        if origin is None:
            return f"`{tensor}` is an activation (not a module parameter)"
        kind = KIND_WORDS.get(origin.tensor.kind, "tensor")
        text = f"`{tensor}` is the {kind} `{origin.cls.name}.{origin.tensor.name}`"
        if origin.scope is not function:
            text += f", passed from {origin.scope.qualname}"
        return text

    @property
    def is_weight(self) -> bool:
        return self.kind in ("parameter", "weight")


class LayoutFacts(HostFacts):
    # -- views ---------------------------------------------------------------
    def transposing_view(
        self, function: FunctionInfo, node: cst.BaseExpression, before: cst.CSTNode, depth: int = 0
    ) -> View | None:
        """The transposing view an expression is, directly, through a reshape
        of one (`x.permute(...).reshape(...)`), or through a name assigned
        earlier in the function. Identity transposes (`transpose(1, 1)`,
        `permute(0, 1, 2)`) are not views."""
        if depth > 6:
            return None
        node = strip_identity(node)
        if isinstance(node, cst.Attribute) and node.attr.value in VIEW_ATTRIBUTES:
            return View(node, node.value, {0: 1, 1: 0} if node.attr.value in ("T", "H") else None)
        if isinstance(node, cst.Call):
            method = call_name(node)
            name = self.qualname(node.func)
            view: View | None = None
            if method in VIEW_METHODS and name not in TORCH_VIEWS:
                view = View(node, node.func.value, view_dims(method, positional(node)))  # type: ignore[attr-defined]
            elif name in TORCH_VIEWS and positional(node):
                args = positional(node)
                view = View(node, args[0], view_dims(name.split(".")[-1], args[1:]))
            elif method in RESHAPES:
                inner = self.transposing_view(function, node.func.value, before, depth + 1)  # type: ignore[attr-defined]
                return View(node, inner.base, None) if inner is not None else None
            if view is not None and view.dims is not None and all(k == v for k, v in view.dims.items()):
                return None
            return view
        if isinstance(node, cst.Name):
            value = self.assigned_value(function, node.value, before, strict=True)
            if value is not None:
                return self.transposing_view(function, value, before, depth + 1)
        return None

    def returned_relayout(self, function: FunctionInfo) -> ReturnedRelayout | None:
        """A helper that returns a transposed copy of one of its parameters
        (`return x.permute(order).contiguous()`, directly or through a
        name); worked out once per helper, whatever the number of calls."""
        key = id(function)
        if key not in self._returned_relayouts:
            self._returned_relayouts[key] = self._find_returned_relayout(function)
        return self._returned_relayouts[key]

    @cached_property
    def _returned_relayouts(self) -> dict[int, ReturnedRelayout | None]:
        return {}

    def _find_returned_relayout(self, function: FunctionInfo) -> ReturnedRelayout | None:
        node = function.node
        if node is None:
            return None
        for ret in (n for n in walk(node.body) if isinstance(n, cst.Return) and n.value is not None):
            value = strip_identity(ret.value)  # type: ignore[arg-type]
            if isinstance(value, cst.Name):
                value = self.assigned_value(function, value.value, ret, strict=True) or value
            if not (isinstance(value, cst.Call) and call_name(value) == "contiguous"):
                continue
            view = self.transposing_view(function, value.func.value, value)  # type: ignore[attr-defined]
            base = strip_identity(view.base) if view is not None else None
            if view is not None and isinstance(base, cst.Name) and base.value in function.params:
                if not self.is_round_trip(function, value, view):
                    return ReturnedRelayout(
                        self.code(value),
                        function.params.index(base.value),
                        f"{self.path}:{self.line_of(value)}",
                        ".stride(" in self.code(node),
                    )
        return None

    def helper_relayout(self, function: FunctionInfo, call: cst.Call) -> HelperRelayout | None:
        """A call, in `function`, of a helper from another module of the
        project that returns a transposed copy of the argument it is given."""
        found = self.imported_function(call, ".contiguous(")
        returned = found[1].returned_relayout(found[0]) if found is not None else None
        args = positional(call)
        if found is None or returned is None or not 0 <= returned.index < len(args):
            return None
        tensor = args[returned.index]
        # A helper that orders the dims by stride, given every dim of the
        # tensor, permutes it into its own memory order: a view of dense
        # storage, no copy.
        if returned.by_stride and any(
            self._every_dim(function, arg, tensor, call) for arg in args if arg is not tensor
        ):
            return None
        return HelperRelayout(call, tensor, found[0].qualname, returned.copy, returned.where)

    def _every_dim(
        self, function: FunctionInfo, node: cst.BaseExpression, tensor: cst.BaseExpression, before: cst.CSTNode
    ) -> bool:
        """`list(range(t.ndim))` / `range(t.dim())` (or a name bound to it
        before `before`) for the tensor `tensor`."""
        if isinstance(node, cst.Name):
            node = self.assigned_value(function, node.value, before, strict=True) or node
        while isinstance(node, cst.Call) and self.qualname(node.func) in ("list", "tuple") and len(node.args) == 1:
            node = node.args[0].value
        if not (isinstance(node, cst.Call) and self.qualname(node.func) == "range" and len(node.args) == 1):
            return False
        rank = node.args[0].value
        if isinstance(rank, cst.Call) and call_name(rank) in ("dim", "ndimension") and not rank.args:
            rank = rank.func
        return (
            isinstance(rank, cst.Attribute)
            and rank.attr.value in ("ndim", "dim", "ndimension")
            and self.code(rank.value) == self.code(tensor)
        )

    def copy_target(self, function: FunctionInfo, call: cst.Call) -> str | None:
        """The name a call's result is assigned to (`b = w.t().contiguous()` -> b), or the
        buffer an in-place copy fills (`b.copy_(w.t())` -> b)."""
        if (
            call_name(call) == "copy_"
            and isinstance(call.func, cst.Attribute)
            and isinstance(call.func.value, cst.Name)
        ):
            return call.func.value.value
        return next((target for target, value, _ in function.assignments if value is call), None)

    def is_round_trip(self, function: FunctionInfo, call: cst.Call, view: View) -> bool:
        """Whether the copy only undoes a view the caller made: its result is
        viewed back with the inverse dims later in the function
        (`q = q.transpose(1, 2).contiguous()` ... `return q.transpose(1, 2)`),
        the sign of a function that takes transposed views of contiguous
        storage (HF attention passes `(b, h, s, d)` views of `(b, s, h, d)`),
        so the copy is a no-op on the inputs it is written for."""
        target = self.copy_target(function, call)
        if target is None or view.dims is None:
            return False
        inverse = {old: new for new, old in view.dims.items()}
        order = self.source_order(function, call)
        assert order is not None
        for other in function.calls:
            if other is call or other not in order or not order.before(call, other):
                continue
            later = self._direct_view(other)
            if later is None or later.dims is None:
                continue
            base = strip_identity(later.base)
            if isinstance(base, cst.Name) and base.value == target and later.dims == inverse:
                return True
        return False

    def _direct_view(self, node: cst.Call) -> View | None:
        method = call_name(node)
        if method in VIEW_METHODS and self.qualname(node.func) not in TORCH_VIEWS:
            return View(node, node.func.value, view_dims(method, positional(node)))  # type: ignore[attr-defined]
        name = self.qualname(node.func)
        if name in TORCH_VIEWS and positional(node):
            args = positional(node)
            return View(node, args[0], view_dims(name.split(".")[-1], args[1:]))
        return None

    def copy_strides(self, launch: Launch, target: str | None) -> dict[str, int]:
        """Kernel parameter -> dim for each `copy.stride(dim)` a launch passes,
        when `target` names the copy."""
        found: dict[str, int] = {}
        for param, value in launch.arguments.items():
            dim = stride_of(value, target)
            if dim is not None:
                found[param] = dim
        return found

    def feeding_launch(self, function: FunctionInfo, call: cst.Call) -> tuple[Launch, str] | None:
        """The launch in the same function that takes the copy as a pointer,
        and that pointer's parameter name."""
        target = self.copy_target(function, call)
        for launch in self.launches:
            if launch.caller is not function:
                continue
            for param, value in launch.arguments.items():
                if value is call or (target is not None and isinstance(value, cst.Name) and value.value == target):
                    return launch, param
        return None

    def takes_copy_strides(self, function: FunctionInfo, call: cst.Call, view: View) -> bool:
        """Whether the kernel the copy feeds takes the copy's strides for
        every transposed dim: then passing the original tensor with its
        strides swapped is a certain zero-copy fix."""
        fed = self.feeding_launch(function, call)
        if fed is None or view.dims is None:
            return False
        strides = self.copy_strides(fed[0], self.copy_target(function, call))
        moved = {new for new, old in view.dims.items() if new != old}
        return bool(strides) and moved <= set(strides.values())

    def feeds_torch_matmul(self, function: FunctionInfo, call: cst.Call) -> bool:
        """Whether a value is an operand of a torch matmul (`torch.matmul`,
        `mm`, `bmm`, `F.linear`, `@`), directly or through its name."""
        target = self.copy_target(function, call)

        def matches(node: cst.BaseExpression) -> bool:
            return node is call or (target is not None and isinstance(node, cst.Name) and node.value == target)

        for other in function.calls:
            if self.qualname(other.func) in TORCH_MATMULS and any(matches(arg.value) for arg in other.args):
                return True
        return any(matches(op.left) or matches(op.right) for op in function.matmul_ops)

    # -- weights and activations ----------------------------------------------
    def tensor_role(self, function: FunctionInfo, node: cst.BaseExpression) -> TensorRole:
        """Whether `node` is a module parameter (certain), a weight (a guess:
        its name, or a weight saved by an autograd Function), or an
        activation; followed through views, copies (`clone`, `flip`,
        `contiguous`, reshapes), earlier assignments, `ctx.saved_tensors` and
        the callers in this file that pass it (helpers)."""
        origin = self.parameter_source(node, function)
        if origin is not None:
            return TensorRole("parameter", "module tensor", origin)
        name = self._root_name(function, node)
        if name is not None:
            found = self._weight_name(function, name, 0, frozenset())
            if found is not None:
                return TensorRole("weight", found)
            if self._is_saved(function, name, 0, frozenset()):
                return TensorRole("saved", f"`{name}` is an activation saved for backward")
        attribute = self._root_attribute(node)
        if attribute is not None and WEIGHT_NAME.match(attribute.attr.value):
            # `lin.weight` of a module a helper is handed (`_linear(x, self.fc1)`): read as a weight from its name.
            return TensorRole("weight", f"`{self.code(attribute)}` is a module's attribute named like a weight")
        return TensorRole("activation", "")

    def _root_attribute(self, node: cst.BaseExpression) -> cst.Attribute | None:
        """The attribute a value is read from (`lin.weight` under `.t().contiguous()`), or None."""
        node = self._under_views(node)
        return node if isinstance(node, cst.Attribute) else None

    def _is_saved(self, function: FunctionInfo, name: str, depth: int, seen: frozenset[int]) -> bool:
        """Whether `name` comes from `ctx.saved_tensors`, in `function` or in
        every caller in this file that passes it."""
        if name in self._saved_names(function):
            return True
        if name not in function.params or depth > 4 or id(function) in seen:
            return False
        bound = list(self.bindings(function, name))
        return bool(bound) and all(
            (root := self._root_name(caller, argument)) is not None
            and self._is_saved(caller, root, depth + 1, seen | {id(function)})
            for argument, caller in bound
        )

    def _under_views(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """The value a view or copy chain starts from (`w.t().contiguous()` -> `w`, `torch.flip(w, ...)` ->
        `w`)."""
        for _ in range(12):
            node = strip_identity(node)
            if isinstance(node, cst.Attribute) and node.attr.value in VIEW_ATTRIBUTES:
                node = node.value
            elif isinstance(node, cst.Call) and self.qualname(node.func) in TORCH_VIEWS | TORCH_COPIES:
                if not positional(node):
                    break
                node = positional(node)[0]
            elif isinstance(node, cst.Call) and (call_name(node) in VIEW_METHODS | COPIES):
                node = node.func.value  # type: ignore[attr-defined]
            else:
                break
        return node

    def _root_name(self, function: FunctionInfo, node: cst.BaseExpression, depth: int = 0) -> str | None:
        """The name a value comes from, under views and copies, followed
        through earlier assignments to a parameter or a saved tensor."""
        node = self._under_views(node)
        if not isinstance(node, cst.Name) or depth > 8:
            return None
        value = self.assigned_value(function, node.value, before=node, strict=True)
        if value is not None and value is not node:
            return self._root_name(function, value, depth + 1)
        return node.value

    def _weight_name(self, function: FunctionInfo, name: str, depth: int, seen: frozenset[int]) -> str | None:
        """Why `name` in `function` reads as a weight, or None."""
        if name in self._saved_names(function):
            if WEIGHT_NAME.match(name):
                return f"`{name}` is a saved tensor of `{function.qualname}` named like a weight"
            return None
        if name not in function.params:
            return None
        if WEIGHT_NAME.match(name):
            return f"`{name}` is a parameter of `{function.qualname}` named like a weight"
        if depth > 4 or id(function) in seen:
            return None
        for argument, caller in self.bindings(function, name):
            root = self._root_name(caller, argument)
            if root is not None:
                found = self._weight_name(caller, root, depth + 1, seen | {id(function)})
                if found is not None:
                    return found
        return None

    def _saved_names(self, function: FunctionInfo) -> frozenset[str]:
        """Names unpacked from `ctx.saved_tensors` in a function."""
        cached = self._saved_index.get(id(function))
        if cached is None:
            names: set[str] = set()
            if function.node is not None:
                for node in walk(function.node.body):
                    if isinstance(node, cst.Assign) and _is_saved_tensors(node.value):
                        for target in node.targets:
                            names.update(n.value for n in walk(target.target) if isinstance(n, cst.Name))
            cached = self._saved_index[id(function)] = frozenset(names)
        return cached

    @cached_property
    def _saved_index(self) -> dict[int, frozenset[str]]:
        return {}

    # -- where a function runs ---------------------------------------------
    def backward_only(self, function: FunctionInfo, _seen: frozenset[int] = frozenset()) -> bool:
        """An autograd Function's `backward`, or a helper every caller of
        which in this file is backward-only."""
        cls = self.class_of(function)
        if function.name == "backward" and cls is not None and cls.is_autograd_function:
            return True
        if function.is_module_level or id(function) in _seen:
            return False
        callers = [caller for _, caller in self.callers(function)]
        return bool(callers) and all(self.backward_only(c, _seen | {id(function)}) for c in callers)

    @cached_property
    def autograd_callers(self) -> frozenset[FunctionInfo]:
        """Functions that call `Fn.apply(...)` of an autograd Function of
        this file: they run on every forward."""
        functions = {cls.name for cls in self.classes.values() if cls.is_autograd_function}
        found = set()
        for function in self.functions:
            for call in function.calls:
                func = call.func
                if (
                    isinstance(func, cst.Attribute)
                    and func.attr.value == "apply"
                    and isinstance(func.value, cst.Name)
                    and func.value.value in functions
                ):
                    found.add(function)
                    break
        return frozenset(found)


def view_dims(method: str, args: list[cst.BaseExpression]) -> dict[int, int] | None:
    """new dim -> old dim of a transposing view, when its dims are literals."""
    values = [int_literal(a) for a in args]
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


def int_literal(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = int_literal(node.expression)
        return -inner if inner is not None else None
    return None


def calls_in(node: cst.CSTNode) -> Iterator[cst.Call]:
    stack = [node]
    while stack:
        child = stack.pop()
        if isinstance(child, cst.Call):
            yield child
        stack.extend(children(child))


def stride_of(value: cst.BaseExpression, target: str | None) -> int | None:
    """`b.stride(0)` -> 0 when `b` is the copy's name."""
    if (
        target is not None
        and isinstance(value, cst.Call)
        and call_name(value) == "stride"
        and isinstance(value.func, cst.Attribute)
        and isinstance(value.func.value, cst.Name)
        and value.func.value.value == target
        and len(value.args) == 1
    ):
        return int_literal(value.args[0].value)
    return None


def _is_saved_tensors(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value in ("saved_tensors", "saved_variables")
