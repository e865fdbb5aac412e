"""The facts rules ask about, built once per file from the libcst tree.

One traversal collects functions, classes, imports, Triton kernels and their
launch sites; the query methods (`dtype_of`, `bindings`, `pointer_params`, ...)
follow values through assignments, wrapper calls and `get_inputs()` so that a
rule can ask "which tensor reaches this pointer parameter, and what is its
dtype?" instead of walking syntax itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from kernlint.findings import Span
from kernlint.names import ImportTable, collect_imports, dotted

TRITON_JIT = "triton.jit"
TRITON_AUTOTUNE = "triton.autotune"
TRITON_HEURISTICS = "triton.heuristics"
TL = "triton.language"

# torch dtype spellings -> the canonical name kernlint reports.
TORCH_DTYPES = {
    "int8": "int8", "uint8": "uint8", "int16": "int16", "short": "int16",
    "int32": "int32", "int": "int32", "int64": "int64", "long": "int64",
    "float16": "float16", "half": "float16", "bfloat16": "bfloat16",
    "float32": "float32", "float": "float32", "float64": "float64", "double": "float64",
    "float8_e4m3fn": "float8_e4m3fn", "float8_e5m2": "float8_e5m2",
    "float8_e4m3fnuz": "float8_e4m3fnuz", "float8_e5m2fnuz": "float8_e5m2fnuz",
    "bool": "bool",
}
TRITON_DTYPES = {
    "int8": "int8", "uint8": "uint8", "int16": "int16", "int32": "int32", "int64": "int64",
    "float16": "float16", "bfloat16": "bfloat16", "float32": "float32", "float64": "float64",
    "float8e4nv": "float8_e4m3fn", "float8e5": "float8_e5m2", "float8e4b15": "float8e4b15",
    "float8e4b8": "float8_e4m3fnuz", "float8e5b16": "float8_e5m2fnuz",
}
# Dtypes narrower than fp32 that tensor cores multiply natively.
NARROW_DTYPES = frozenset(
    {"int8", "uint8", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
     "float8_e4m3fnuz", "float8_e5m2fnuz", "float8e4b15"}
)
METHOD_CASTS = {
    "float": "float32", "half": "float16", "bfloat16": "bfloat16", "double": "float64",
    "int": "int32", "long": "int64", "char": "int8", "byte": "uint8", "short": "int16",
}
# Tensor methods whose result has the receiver's dtype.
DTYPE_PRESERVING = frozenset(
    {"t", "contiguous", "transpose", "permute", "view", "reshape", "clone", "detach",
     "cuda", "cpu", "abs", "neg", "flatten", "squeeze", "unsqueeze", "expand", "narrow",
     "requires_grad_", "mul", "add", "sub", "div", "clamp", "round", "sign", "T", "mT", "data"}
)
# torch factories whose default dtype is float32 when none is given.
FLOAT_FACTORIES = frozenset({"randn", "rand", "empty", "zeros", "ones", "full", "tensor", "linspace"})
# Tensor methods that keep values and dtype (only the layout or metadata).
LAYOUT_PRESERVING = frozenset(
    {"t", "contiguous", "transpose", "permute", "view", "reshape", "clone", "detach",
     "flatten", "squeeze", "unsqueeze", "expand", "narrow", "swapaxes", "swapdims", "movedim"}
)
LAYOUT_VIEWS = frozenset({"t", "transpose", "permute", "mT", "T", "swapaxes", "swapdims", "movedim"})
# Methods that run once rather than per call, by name (KL002).
PREPARATION_PREFIXES = ("prepare", "load", "quantize", "pack", "init", "setup", "from_", "process_weights")
MEMOIZERS = frozenset({"functools.cache", "functools.lru_cache", "functools.cached_property"})
# triton.language calls whose shape argument sizes a tile: name -> (keyword,
# position) of the shape, None for tl.arange whose every argument counts.
TILE_SHAPERS: dict[str, tuple[str, int] | None] = {
    "arange": None, "zeros": ("shape", 0), "full": ("shape", 0),
    "make_block_ptr": ("block_shape", 4), "make_tensor_descriptor": ("block_shape", 3),
}


@dataclass(frozen=True)
class DtypeFact:
    """What is known of a tensor's dtype and why: `evidence` says where the
    fact comes from in words a user can check ("assert at line 131")."""

    dtype: str
    evidence: str
    source: str  # "assert", "creation", "cast", "get_inputs", "annotation"

    @property
    def is_host_evidence(self) -> bool:
        return self.source in ("assert", "creation", "get_inputs")


@dataclass(frozen=True, eq=False)
class Conversion:
    """An explicit dtype conversion: `dtype` is the target (None when it is
    not a literal dtype), `call` the conversion, `value` what is converted."""

    dtype: str | None
    call: cst.Call
    value: cst.BaseExpression


@dataclass(eq=False, repr=False)
class FunctionInfo:
    name: str
    qualname: str
    node: cst.FunctionDef | None  # None for the module's top level
    class_name: str | None = None
    params: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ()
    assignments: list[tuple[str, cst.BaseExpression, cst.CSTNode]] = field(default_factory=list)
    asserts: list[cst.Assert] = field(default_factory=list)
    calls: list[cst.Call] = field(default_factory=list)
    under_main_guard: list[cst.Call] = field(default_factory=list)
    matmul_ops: list[cst.BinaryOperation] = field(default_factory=list)  # `a @ b`

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"<FunctionInfo {self.qualname}>"

    @property
    def is_module_level(self) -> bool:
        return self.node is None


@dataclass(frozen=True, eq=False, repr=False)
class KernelParam:
    name: str
    constexpr: bool
    default: cst.BaseExpression | None


@dataclass(frozen=True, eq=False, repr=False)
class Autotune:
    node: cst.Decorator | cst.Call
    configs: tuple[dict[str, object], ...] | None  # None when built elsewhere
    key: tuple[str, ...]


@dataclass(frozen=True, eq=False, repr=False)
class Kernel:
    function: FunctionInfo
    params: tuple[KernelParam, ...]
    autotune: Autotune | None
    heuristics: tuple[str, ...]
    # True for @triton.heuristics or a config table keyed on problem sizes.
    has_heuristics: bool

    @property
    def name(self) -> str:
        return self.function.name

    @property
    def node(self) -> cst.FunctionDef:
        assert self.function.node is not None
        return self.function.node

    def param(self, name: str) -> KernelParam | None:
        return next((p for p in self.params if p.name == name), None)

    @property
    def constexprs(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params if p.constexpr)


@dataclass(frozen=True, eq=False, repr=False)
class Launch:
    """`kernel[grid](args...)`: each argument bound to the kernel parameter it
    reaches; keywords that are not parameters (num_warps, ...) are options."""

    node: cst.Call
    kernel: Kernel
    grid: cst.BaseExpression
    caller: FunctionInfo
    arguments: dict[str, cst.BaseExpression]
    options: dict[str, cst.BaseExpression]
    has_star_args: bool


@dataclass(frozen=True, eq=False, repr=False)
class ModuleTensor:
    """A tensor an nn.Module holds: `self.X = nn.Parameter(...)`,
    `register_buffer("X", ...)` or a tensor built in `__init__`."""

    name: str
    kind: str  # "parameter", "buffer", "tensor"
    value: cst.BaseExpression
    scope: FunctionInfo


@dataclass(eq=False, repr=False)
class ClassInfo:
    name: str
    node: cst.ClassDef
    bases: tuple[str, ...]
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    tensors: dict[str, ModuleTensor] = field(default_factory=dict)
    is_nn_module: bool = False
    is_autograd_function: bool = False


@dataclass(frozen=True, eq=False, repr=False)
class ParameterSource:
    """A module tensor an expression stands for."""

    tensor: ModuleTensor
    cls: ClassInfo
    scope: FunctionInfo  # the method that reads it as `self.X`


# Views that are the same tensor in another layout.
VIEW_METHODS = frozenset({"t", "transpose", "permute", "swapaxes", "swapdims", "movedim"})
VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH"})


def strip_identity(node: cst.BaseExpression) -> cst.BaseExpression:
    """Drop wrappers that keep the tensor's identity (`.data`, `.detach()`,
    `.requires_grad_()`)."""
    while True:
        if isinstance(node, cst.Attribute) and node.attr.value == "data":
            node = node.value
        elif isinstance(node, cst.Call) and call_name(node) in ("detach", "requires_grad_"):
            node = node.func.value  # type: ignore[union-attr]
        else:
            return node


def view_base(node: cst.BaseExpression) -> cst.BaseExpression:
    """`self.w.t()` -> `self.w`: the tensor under views and identity calls."""
    for _ in range(8):
        node = strip_identity(node)
        if isinstance(node, cst.Attribute) and node.attr.value in VIEW_ATTRIBUTES:
            node = node.value
        elif isinstance(node, cst.Call) and call_name(node) in VIEW_METHODS:
            node = node.func.value  # type: ignore[union-attr]
        else:
            break
    return node


def _literal_value(node: cst.BaseExpression) -> object | None:
    if isinstance(node, cst.Integer):
        try:
            return int(node.value, 0)
        except ValueError:
            return None
    if isinstance(node, cst.Float):
        return float(node.value)
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = _literal_value(node.expression)
        return -inner if isinstance(inner, (int, float)) else None
    return None


def is_literal(node: cst.BaseExpression) -> bool:
    return _literal_value(node) is not None or (
        isinstance(node, cst.Name) and node.value in ("True", "False", "None")
    )


def call_name(call: cst.Call) -> str | None:
    """The attribute name of a method call (`x.t()` -> "t")."""
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


class FileModel:
    """Everything kernlint knows about one file. Built by `build_model`."""

    def __init__(self, path: str, source: str, module: cst.Module) -> None:
        self.path = path
        self.source = source
        self._wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        self.module = self._wrapper.module
        self.imports: ImportTable = collect_imports(self.module)
        self.top = FunctionInfo("<module>", "<module>", None)
        self.functions: list[FunctionInfo] = []
        self.classes: dict[str, ClassInfo] = {}
        self.constants: dict[str, object] = {}
        self.kernels: dict[str, Kernel] = {}  # every name a kernel is bound to
        self.launches: list[Launch] = []
        self._scope_of_node: dict[int, FunctionInfo] = {}
        self._main_guard_ids: set[int] = set()  # indexed calls / `@` ops under `if __name__ == ...`
        _Collector(self).collect()

    # ---- positions -------------------------------------------------------
    @cached_property
    def _positions(self):
        # Positions cost a full code-generation pass; most files in a
        # repository have no kernels and never need one.
        return self._wrapper.resolve(PositionProvider)

    def span(self, node: cst.CSTNode) -> Span:
        code_range: CodeRange = self._positions[node]
        return Span(
            code_range.start.line,
            code_range.start.column + 1,
            code_range.end.line,
            code_range.end.column + 1,
        )

    def line_of(self, node: cst.CSTNode) -> int:
        return self._positions[node].start.line

    def offsets(self, node: cst.CSTNode) -> tuple[int, int]:
        """Character offsets of a node in `source`, for fixes."""
        span = self.span(node)
        starts = self._line_starts
        return (
            starts[span.line - 1] + span.column - 1,
            starts[span.end_line - 1] + span.end_column - 1,
        )

    @cached_property
    def _line_starts(self) -> list[int]:
        starts = [0]
        text = self.source
        index = 0
        while True:
            nl = _next_newline(text, index)
            if nl < 0:
                break
            index = nl + (2 if text.startswith("\r\n", nl) else 1)
            starts.append(index)
        return starts

    def code(self, node: cst.CSTNode) -> str:
        return self.module.code_for_node(node)

    # ---- names -------------------------------------------------------------
    def qualname(self, node: cst.BaseExpression) -> str | None:
        return self.imports.resolve(node)

    def is_call_to(self, node: cst.CSTNode, *qualnames: str) -> bool:
        return isinstance(node, cst.Call) and self.qualname(node.func) in qualnames

    def is_tl(self, node: cst.BaseExpression, name: str) -> bool:
        return self.qualname(node) == f"{TL}.{name}"

    # ---- structure ---------------------------------------------------------
    def scope_of(self, node: cst.CSTNode) -> FunctionInfo:
        """The innermost function containing a node (calls, assigns, asserts
        and launches are indexed; other nodes answer the module level)."""
        return self._scope_of_node.get(id(node), self.top)

    def in_main_guard(self, node: cst.CSTNode) -> bool:
        """Whether an indexed call or `@` operation sits under the module's
        `if __name__ == "__main__":`."""
        return id(node) in self._main_guard_ids

    def function(self, name: str) -> FunctionInfo | None:
        return next((f for f in self.functions if f.qualname == name), None)

    def kernel_of(self, function: FunctionInfo) -> Kernel | None:
        return next((k for k in set(self.kernels.values()) if k.function is function), None)

    @property
    def kernel_list(self) -> list[Kernel]:
        seen: dict[int, Kernel] = {}
        for kernel in self.kernels.values():
            seen.setdefault(id(kernel), kernel)
        return sorted(seen.values(), key=lambda k: self.line_of(k.node))

    @cached_property
    def calls(self) -> list[cst.Call]:
        """Every call in the file, in source order of their scopes (the
        module's top level first, then each function's)."""
        return [call for scope in (self.top, *self.functions) for call in scope.calls]

    def launches_of(self, kernel: Kernel) -> list[Launch]:
        return [launch for launch in self.launches if launch.kernel is kernel]

    def class_of(self, function: FunctionInfo) -> ClassInfo | None:
        return self.classes.get(function.class_name) if function.class_name else None

    def enclosing_kernel_or_function(self, node: cst.CSTNode) -> str | None:
        """Name of the innermost function whose text contains the node (any
        node, not only the indexed ones), or None at module level."""
        scope = self.scope_of(node)
        if not scope.is_module_level:
            return scope.name
        span = self.span(node)
        best: FunctionInfo | None = None
        for function in self.functions:
            assert function.node is not None
            outer = self.span(function.node)
            if (outer.line, outer.column) <= (span.line, span.column) and (span.end_line, span.end_column) <= (outer.end_line, outer.end_column):
                if best is None or self.span(best.node).line <= outer.line:  # type: ignore[arg-type]
                    best = function
        return best.name if best is not None else None

    def called_functions(self, function: FunctionInfo) -> Iterator[FunctionInfo]:
        """Functions of this file that `function` calls by name or as
        `self.method(...)`."""
        owner = self.class_of(function)
        for call in function.calls:
            target = self.resolve_callee(call, owner)
            if target is not None:
                yield target

    def resolve_callee(self, call: cst.Call, owner: ClassInfo | None) -> FunctionInfo | None:
        func = call.func
        if isinstance(func, cst.Name):
            return self.function(func.value)
        if (
            owner is not None
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            return owner.methods.get(func.attr.value)
        return None

    def callers(self, function: FunctionInfo) -> Iterator[tuple[cst.Call, FunctionInfo]]:
        for caller in [self.top, *self.functions]:
            owner = self.class_of(caller)
            for call in caller.calls:
                if self.resolve_callee(call, owner) is function:
                    yield call, caller

    @cached_property
    def hot_functions(self) -> frozenset[FunctionInfo]:
        """forward of nn.Modules, forward/backward of autograd Functions,
        functions that launch a kernel, and what those call in this file."""
        roots: list[FunctionInfo] = [launch.caller for launch in self.launches if not launch.caller.is_module_level]
        for cls in self.classes.values():
            if cls.is_nn_module and "forward" in cls.methods:
                roots.append(cls.methods["forward"])
            if cls.is_autograd_function:
                roots.extend(cls.methods[m] for m in ("forward", "backward") if m in cls.methods)
        hot: set[FunctionInfo] = set()
        while roots:
            function = roots.pop()
            if function in hot or self.kernel_of(function) is not None:
                continue
            hot.add(function)
            roots.extend(self.called_functions(function))
        return frozenset(hot)

    def is_hot(self, function: FunctionInfo) -> bool:
        return function in self.hot_functions

    # ---- values ------------------------------------------------------------
    def assigned_value(
        self, scope: FunctionInfo, name: str, before: cst.CSTNode | None = None, strict: bool = False
    ) -> cst.BaseExpression | None:
        """The value most recently assigned to `name` in `scope` before
        `before`; if nothing precedes it, the last assignment anywhere (a
        loop may carry it back), or None when `strict`."""
        candidates = [(value, node) for target, value, node in scope.assignments if target == name]
        if not candidates:
            return None
        if before is not None and before in self._positions:
            line = self.line_of(before)
            earlier = [c for c in candidates if self.line_of(c[1]) < line]
            if earlier:
                return earlier[-1][0]
            if strict:
                return None
        return candidates[-1][0]

    def bindings(self, scope: FunctionInfo, param: str) -> Iterator[tuple[cst.BaseExpression, FunctionInfo]]:
        """The argument expressions that reach parameter `param` of `scope`
        at its call sites in this file."""
        if param not in scope.params or scope.node is None:
            return
        params = list(scope.params)
        index = params.index(param)
        if scope.class_name is not None and params and params[0] in ("self", "cls"):
            index -= 1
        for call, caller in self.callers(scope):
            value = keyword(call, param)
            if value is None:
                args = positional(call)
                if 0 <= index < len(args) and not any(a.star for a in call.args[: index + 1]):
                    value = args[index]
            if value is not None:
                yield value, caller

    def get_inputs_element(self, scope: FunctionInfo, param: str) -> cst.BaseExpression | None:
        """For `forward(self, x, ...)` of an nn.Module, the element of
        `get_inputs()`'s returned list that becomes `x` (KernelBench form)."""
        if scope.name != "forward" or scope.class_name is None:
            return None
        get_inputs = self.function("get_inputs")
        if get_inputs is None or get_inputs.node is None:
            return None
        params = [p for p in scope.params if p != "self"]
        if param not in params:
            return None
        index = params.index(param)
        for node in _walk(get_inputs.node.body):
            if isinstance(node, cst.Return) and isinstance(node.value, (cst.List, cst.Tuple)):
                elements = node.value.elements
                if index < len(elements) and not isinstance(elements[index], cst.StarredElement):
                    element = elements[index].value
                    if isinstance(element, cst.Name):
                        return self.assigned_value(get_inputs, element.value) or element
                    return element
        return None

    def module_tensor(self, node: cst.BaseExpression, scope: FunctionInfo) -> ModuleTensor | None:
        """`self.X` inside a method, when X is a tensor the module holds."""
        if (
            isinstance(node, cst.Attribute)
            and isinstance(node.value, cst.Name)
            and node.value.value == "self"
        ):
            cls = self.class_of(scope)
            if cls is not None:
                return cls.tensors.get(node.attr.value)
        return None

    def parameter_source(
        self, node: cst.BaseExpression, scope: FunctionInfo, depth: int = 0
    ) -> ParameterSource | None:
        """The module tensor an expression stands for, and the function that
        reads it as `self.X`, followed through views (`.t()`, `.T`),
        assignments made before it and wrapper arguments (`wrapper(x,
        self.weight)`)."""
        if depth > 8:
            return None
        node = view_base(node)
        tensor = self.module_tensor(node, scope)
        if tensor is not None:
            cls = self.class_of(scope)
            assert cls is not None
            return ParameterSource(tensor, cls, scope)
        if isinstance(node, cst.Name):
            value = self.assigned_value(scope, node.value, before=node, strict=True)
            if value is not None:
                return self.parameter_source(value, scope, depth + 1)
            for argument, caller in self.bindings(scope, node.value):
                found = self.parameter_source(argument, caller, depth + 1)
                if found is not None:
                    return found
        return None

    def dtype_of(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int = 0) -> DtypeFact | None:
        """What is known of the dtype of a host (torch) expression."""
        if depth > 12:
            return None
        if isinstance(node, cst.Name):
            fact = self._asserted_dtype(scope, node.value)
            if fact is not None:
                return fact
            value = self.assigned_value(scope, node.value, before=node)
            if value is not None:
                return self.dtype_of(value, scope, depth + 1)
            facts = [self.dtype_of(arg, caller, depth + 1) for arg, caller in self.bindings(scope, node.value)]
            known = [f for f in facts if f is not None]
            if known and all(f.dtype == known[0].dtype for f in known):
                return known[0]
            element = self.get_inputs_element(scope, node.value)
            if element is not None:
                get_inputs = self.function("get_inputs")
                assert get_inputs is not None
                fact = self.dtype_of(element, get_inputs, depth + 1)
                if fact is not None:
                    return DtypeFact(fact.dtype, f"get_inputs() at line {self.line_of(element)}", "get_inputs")
            return None
        tensor = self.module_tensor(node, scope)
        if tensor is not None:
            return self.dtype_of(tensor.value, tensor.scope, depth + 1)
        if isinstance(node, cst.Attribute) and node.attr.value in DTYPE_PRESERVING:
            return self.dtype_of(node.value, scope, depth + 1)
        if isinstance(node, cst.Subscript):
            return self.dtype_of(node.value, scope, depth + 1)
        if isinstance(node, cst.UnaryOperation):
            return self.dtype_of(node.expression, scope, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            for side, other in ((node.left, node.right), (node.right, node.left)):
                if is_literal(other):
                    return self.dtype_of(side, scope, depth + 1)
            return None
        if isinstance(node, cst.Call):
            return self._call_dtype(node, scope, depth)
        return None

    def torch_dtype(self, node: cst.BaseExpression | None) -> str | None:
        """`torch.int8` (any alias) -> "int8"."""
        if node is None:
            return None
        name = self.qualname(node)
        if name and name.startswith("torch."):
            return TORCH_DTYPES.get(name[len("torch."):])
        return None

    def triton_dtype(self, node: cst.BaseExpression | None) -> str | None:
        """`tl.float32` (any alias) -> "float32"."""
        if node is None:
            return None
        name = self.qualname(node)
        if name and name.startswith(TL + "."):
            return TRITON_DTYPES.get(name[len(TL) + 1:])
        if isinstance(node, cst.SimpleString):
            # tl.cast(x, "fp32") is not valid; be strict.
            return None
        return None

    def _asserted_dtype(self, scope: FunctionInfo, name: str) -> DtypeFact | None:
        for statement in scope.asserts:
            test = statement.test
            if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
                continue
            target = test.comparisons[0]
            if not isinstance(target.operator, (cst.Equal, cst.Is)):
                continue
            for left, right in ((test.left, target.comparator), (target.comparator, test.left)):
                if (
                    isinstance(left, cst.Attribute)
                    and left.attr.value == "dtype"
                    and isinstance(left.value, cst.Name)
                    and left.value.value == name
                ):
                    dtype = self.torch_dtype(right)
                    if dtype is not None:
                        return DtypeFact(dtype, f"assert at line {self.line_of(statement)}", "assert")
        return None

    def _call_dtype(self, call: cst.Call, scope: FunctionInfo, depth: int) -> DtypeFact | None:
        name = self.qualname(call.func)
        line = self.line_of(call)
        explicit = self.torch_dtype(keyword(call, "dtype"))
        if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            args = positional(call) or [keyword(call, "data")]
            return self.dtype_of(args[0], scope, depth + 1) if args[0] is not None else None
        if name and name.startswith("torch.") and not isinstance(call.func, cst.Attribute) or (
            name and name.count(".") == 1 and name.startswith("torch.")
        ):
            factory = name.split(".")[-1]
            if explicit is not None:
                return DtypeFact(explicit, f"created with dtype=torch.{explicit} at line {line}", "creation")
            if factory.endswith("_like") and positional(call):
                return self.dtype_of(positional(call)[0], scope, depth + 1)
            if factory == "randint":
                return DtypeFact("int64", f"torch.randint default at line {line}", "creation")
            if factory in FLOAT_FACTORIES and factory != "tensor":
                return DtypeFact("float32", f"torch.{factory} default at line {line}", "creation")
            return None
        method = call_name(call)
        if method is None:
            return None
        receiver = call.func.value  # type: ignore[union-attr]
        if method in METHOD_CASTS and not call.args:
            return DtypeFact(METHOD_CASTS[method], f".{method}() at line {line}", "cast")
        if method in ("to", "type"):
            target = explicit
            for arg in positional(call):
                target = target or self.torch_dtype(arg)
            if target is not None:
                return DtypeFact(target, f".{method}(torch.{target}) at line {line}", "cast")
            return self.dtype_of(receiver, scope, depth + 1)
        if method in DTYPE_PRESERVING:
            return self.dtype_of(receiver, scope, depth + 1)
        return None

    def torch_cast(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int = 0) -> Conversion | None:
        """If a host expression is an explicit dtype conversion (`x.float()`,
        `x.to(torch.float32)`, `x.to(dtype=...)`, `x.type(torch.float32)`),
        seen through a local name or under layout views (`x.float().t()`):
        the target dtype, the conversion call and the converted tensor."""
        if depth > 12:
            return None
        if isinstance(node, cst.Name):
            value = self.assigned_value(scope, node.value, before=node)
            return None if value is None or value is node else self.torch_cast(value, scope, depth + 1)
        if isinstance(node, cst.Attribute) and node.attr.value in ("T", "mT", "H", "mH"):
            return self.torch_cast(node.value, scope, depth + 1)
        if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
            return None
        receiver = node.func.value
        head = dotted(receiver)
        if head is not None and head.split(".")[0] in self.imports.aliases and (self.qualname(receiver) or "").startswith("torch"):
            return None  # `torch.t(x)`, `torch.float(...)`: a module function, not a tensor method
        method = node.func.attr.value
        if method in METHOD_CASTS and not node.args:
            return Conversion(METHOD_CASTS[method], node, receiver)
        if method in ("to", "type"):
            target = self.torch_dtype(keyword(node, "dtype"))
            for arg in positional(node):
                target = target or self.torch_dtype(arg)
            return Conversion(target, node, receiver) if target is not None else None
        if method in LAYOUT_PRESERVING:
            return self.torch_cast(receiver, scope, depth + 1)
        return None

    # ---- kernel-side values -------------------------------------------------
    def kernel_cast(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> Conversion | None:
        """If a kernel value is an explicit conversion (`tl.cast(x, tl.float32)`,
        `x.to(tl.float32)`, seen through names): the target dtype (None when
        not a literal dtype), the conversion call and the converted value.
        Bitcasts (`bitcast=True`) reinterpret bits and are not conversions."""
        if depth > 12:
            return None
        if isinstance(node, cst.Name):
            value = self.assigned_value(kernel.function, node.value, before=node)
            return None if value is None or value is node else self.kernel_cast(kernel, value, depth + 1)
        if not isinstance(node, cst.Call):
            return None
        bitcast = keyword(node, "bitcast")
        if bitcast is not None and not (isinstance(bitcast, cst.Name) and bitcast.value == "False"):
            return None
        args = positional(node)
        if self.is_tl(node.func, "cast"):
            value = args[0] if args else keyword(node, "input")
            target = args[1] if len(args) > 1 else keyword(node, "dtype")
        elif isinstance(node.func, cst.Attribute) and node.func.attr.value == "to":
            value = node.func.value
            target = args[0] if args else keyword(node, "dtype")
        else:
            return None
        if value is None or target is None:
            return None
        return Conversion(self.triton_dtype(target), node, value)

    def kernel_value_dtype(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> DtypeFact | None:
        """What is known of the dtype of a kernel-side value: an explicit
        conversion's target, a `tl.zeros/full(..., dtype=)`, or for a
        `tl.load` the host dtype every launch agrees on for its pointer."""
        if depth > 12:
            return None
        if isinstance(node, cst.Name):
            value = self.assigned_value(kernel.function, node.value, before=node)
            return None if value is None or value is node else self.kernel_value_dtype(kernel, value, depth + 1)
        if not isinstance(node, cst.Call):
            return None
        conversion = self.kernel_cast(kernel, node, depth + 1)
        if conversion is not None:
            if conversion.dtype is None:
                return None
            return DtypeFact(conversion.dtype, f"converted at line {self.line_of(node)}", "cast")
        if self.is_tl(node.func, "zeros") or self.is_tl(node.func, "full"):
            dtype = self.triton_dtype(keyword(node, "dtype") or (positional(node)[-1] if len(positional(node)) > 1 else None))
            return DtypeFact(dtype, f"created at line {self.line_of(node)}", "creation") if dtype else None
        pointers = self.loaded_pointers(kernel, node, depth + 1)
        return self.pointer_dtype(kernel, pointers[0]) if pointers else None

    def pointer_dtype(self, kernel: Kernel, param: str) -> DtypeFact | None:
        """The host dtype of the tensor bound to pointer parameter `param`
        when every launch that says anything agrees; None when unknown or
        launches disagree (see `pointer_dtypes` for each launch)."""
        known = [fact for fact, _ in self.pointer_dtypes(kernel, param) if fact is not None]
        if known and all(fact.dtype == known[0].dtype for fact in known):
            return known[0]
        return None

    def pointer_params(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> list[str]:
        """The kernel's pointer parameters an address expression is built
        from (`a_ptr + offs * stride`, through assignments and block
        pointers)."""
        if depth > 12:
            return []
        names: list[str] = []
        for name_node in _names_in(node):
            param = kernel.param(name_node.value)
            if param is not None:
                if not param.constexpr and param.name not in names and _is_pointer_like(kernel, param.name, self):
                    names.append(param.name)
                continue
            value = self.assigned_value(kernel.function, name_node.value, before=node)
            if value is not None and value is not node:
                for found in self.pointer_params(kernel, value, depth + 1):
                    if found not in names:
                        names.append(found)
        return names

    def loaded_pointers(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> list[str] | None:
        """If a kernel value comes from `tl.load(...)`, the pointer parameters
        it was loaded from; None if it was not (visibly) loaded."""
        if depth > 12:
            return None
        if isinstance(node, cst.Name):
            value = self.assigned_value(kernel.function, node.value, before=node)
            return None if value is None else self.loaded_pointers(kernel, value, depth + 1)
        if isinstance(node, cst.Call):
            if self.is_tl(node.func, "load") and node.args:
                return self.pointer_params(kernel, node.args[0].value)
            return None
        return None

    def pointer_dtypes(self, kernel: Kernel, param: str) -> list[tuple[DtypeFact | None, Launch]]:
        """For each launch of the kernel, what is known of the dtype of the
        tensor bound to pointer parameter `param`."""
        results = []
        for launch in self.launches_of(kernel):
            argument = launch.arguments.get(param)
            fact = self.dtype_of(argument, launch.caller) if argument is not None else None
            results.append((fact, launch))
        return results

    def host_argument(self, kernel: Kernel, param: str) -> list[tuple[cst.BaseExpression, Launch]]:
        return [
            (launch.arguments[param], launch)
            for launch in self.launches_of(kernel)
            if param in launch.arguments
        ]

    # ---- one-time work, caches and launch configs (KL002, KL003) -------------
    def is_preparation(self, function: FunctionInfo, _seen: frozenset[int] = frozenset()) -> bool:
        """A method that runs once, not per call: `__init__`, one named like
        preparation (`prepare*`, `load*`, `quantize*`, `pack*`, `_init*`,
        `setup*`, `from_*`), or one whose every caller in this file is one."""
        if function.is_module_level or function.name in ("forward", "backward", "__call__"):
            return False
        if function.name == "__init__" or function.name.lstrip("_").startswith(PREPARATION_PREFIXES):
            return True
        if id(function) in _seen:
            return False
        callers = [caller for _, caller in self.callers(function)]
        return bool(callers) and all(
            self.is_preparation(caller, _seen | {id(function)}) for caller in callers
        )

    def behind_cache(self, node: cst.CSTNode, scope: FunctionInfo) -> bool:
        """Whether `node` (inside `scope`) only runs on a cache miss: under
        `if self._wt is None:` / `if key not in self._cache:` /
        `if not hasattr(self, ...)`, after `if self._wt is not None: return`,
        or in a function memoized with `functools.cache`/`lru_cache`."""
        if scope.node is None:
            return False
        if any(name in MEMOIZERS for name in scope.decorators):
            return True
        guarded = self._cache_guarded.get(id(scope))
        if guarded is None:
            guarded = self._cache_guarded[id(scope)] = self._collect_cache_guarded(scope.node)
        return id(node) in guarded

    @cached_property
    def _cache_guarded(self) -> dict[int, frozenset[int]]:
        return {}

    def _collect_cache_guarded(self, function: cst.FunctionDef) -> frozenset[int]:
        guarded: set[int] = set()

        def mark(node: cst.CSTNode) -> None:
            guarded.update(id(n) for n in _walk(node))

        def block(statements: list[cst.CSTNode]) -> None:
            hit_returned = False
            for statement in statements:
                if hit_returned:
                    mark(statement)
                    continue
                if isinstance(statement, cst.If):
                    kind = self._cache_test(statement.test)
                    if kind == "miss":
                        mark(statement.body)
                    else:
                        block(_statements(statement.body))
                    if kind == "hit" and _ends_in_return(statement.body):
                        hit_returned = True
                    if statement.orelse is not None:
                        orelse = statement.orelse
                        if kind == "hit":
                            mark(orelse)
                        elif isinstance(orelse, cst.If):
                            block([orelse])
                        else:
                            block(_statements(orelse.body))
                elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                    continue
                elif isinstance(statement, (cst.For, cst.While, cst.With, cst.Try)):
                    block(_statements(statement.body))

        block(_statements(function.body))
        return frozenset(guarded)

    def _cache_test(self, test: cst.BaseExpression) -> str | None:
        """"miss" for a test that is true when a cached value is absent,
        "hit" for one true when it is present, None otherwise."""
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            inner = self._cache_test(test.expression)
            return {"hit": "miss", "miss": "hit"}.get(inner or "")
        if isinstance(test, cst.BooleanOperation):
            # `miss or stale` refills the cache; `ready and hit` only runs on a hit.
            kinds = {self._cache_test(test.left), self._cache_test(test.right)}
            if "miss" in kinds:
                return "miss"
            return "hit" if isinstance(test.operator, cst.And) and "hit" in kinds else None
        if isinstance(test, cst.Call) and self.qualname(test.func) == "hasattr":
            return "hit"
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            comparison = test.comparisons[0]
            operator, right = comparison.operator, comparison.comparator
            if isinstance(operator, (cst.Is, cst.IsNot)) and isinstance(right, cst.Name) and right.value == "None":
                if self._is_cache_state(test.left):
                    return "miss" if isinstance(operator, cst.Is) else "hit"
            if isinstance(operator, (cst.In, cst.NotIn)) and self._is_cache_state(right):
                return "miss" if isinstance(operator, cst.NotIn) else "hit"
        return None

    def _is_cache_state(self, node: cst.BaseExpression) -> bool:
        """`self.x`, `self.x[k]`, `self.x.get(k)`, `getattr(self, ...)`, or a
        module-level name: state that outlives one call."""
        while True:
            if isinstance(node, cst.Subscript):
                node = node.value
            elif isinstance(node, cst.Call):
                if self.qualname(node.func) == "getattr":
                    return True
                if not isinstance(node.func, cst.Attribute):
                    return False
                node = node.func.value
            else:
                break
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            return node.value.value == "self"
        if isinstance(node, cst.Name):
            return any(target == node.value for target, _, _ in self.top.assignments)
        return False

    def constant_value(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int = 0) -> object | None:
        """The value of an expression that is fixed in the source: a literal,
        a module constant assigned once, or a local name assigned exactly once
        from one of those. None for anything computed (a call, a lookup, a
        branch, a parameter)."""
        if depth > 8:
            return None
        value = _literal_value(node)
        if value is not None:
            return value
        if not isinstance(node, cst.Name):
            return None
        local = [v for target, v, _ in scope.assignments if target == node.value]
        if not scope.is_module_level and (local or node.value in scope.params):
            if len(local) != 1 or node.value in scope.params:
                return None
            return self.constant_value(local[0], scope, depth + 1)
        module = [v for target, v, _ in self.top.assignments if target == node.value]
        if len(module) == 1:
            return self.constant_value(module[0], self.top, depth + 1)
        return None

    def kernel_uses(self, kernel: Kernel, *names: str) -> list[cst.Call]:
        """Calls to `triton.language.<name>` in the kernel and in the jit
        functions of this file it calls."""
        found: list[cst.Call] = []
        seen: set[int] = set()
        pending = [kernel.function]
        while pending:
            function = pending.pop()
            if id(function) in seen:
                continue
            seen.add(id(function))
            found.extend(c for c in function.calls if any(self.is_tl(c.func, n) for n in names))
            pending.extend(f for f in self.called_functions(function) if self.kernel_of(f) is not None)
        return found

    def tile_constexprs(self, kernel: Kernel) -> tuple[str, ...]:
        """The constexpr parameters that size the kernel's tiles: those in the
        shape of `tl.arange`, `tl.zeros`/`tl.full`, a block pointer's or a
        tensor descriptor's `block_shape` (directly or through a local name),
        plus `GROUP*` constexprs that order the tiles. In signature order."""
        constexprs = set(kernel.constexprs)
        used: set[str] = set()
        for call in kernel.function.calls:
            for name, shape_at in TILE_SHAPERS.items():
                if not self.is_tl(call.func, name):
                    continue
                if shape_at is None:
                    shapes = positional(call)
                else:
                    keyword_name, index = shape_at
                    shape = keyword(call, keyword_name)
                    args = positional(call)
                    if shape is None and index < len(args):
                        shape = args[index]
                    shapes = [shape] if shape is not None else []
                for shape in shapes:
                    for name_node in _names_in(shape):
                        if name_node.value in constexprs:
                            used.add(name_node.value)
                            continue
                        value = self.assigned_value(kernel.function, name_node.value, before=call)
                        if value is not None:
                            used.update(n.value for n in _names_in(value) if n.value in constexprs)
        used.update(name for name in constexprs if "GROUP" in name.upper())
        return tuple(name for name in kernel.constexprs if name in used)


def _is_pointer_like(kernel: Kernel, name: str, model: FileModel) -> bool:
    # Every non-constexpr parameter may be a pointer; integer sizes and
    # strides only ever appear in offsets, and excluding names that read
    # like sizes keeps "a_ptr + offs * stride_am" from naming stride_am.
    lowered = name.lower()
    return not (lowered.startswith("stride") or lowered in ("m", "n", "k") or lowered.startswith("num_") or lowered.endswith("_stride") or lowered in ("n_elements", "numel", "size"))


def _statements(body: cst.BaseSuite) -> list[cst.CSTNode]:
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    return [body]


def _ends_in_return(body: cst.BaseSuite) -> bool:
    statements = _statements(body)
    last = statements[-1] if statements else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    elif isinstance(last, cst.SimpleStatementSuite):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Return, cst.Raise))


def _next_newline(text: str, start: int) -> int:
    n = text.find("\n", start)
    r = text.find("\r", start)
    if r < 0:
        return n
    if n < 0:
        return r
    return min(n, r) if r + 1 != n else r


def _walk(nodes) -> Iterator[cst.CSTNode]:
    """Every node below `nodes` (a node or a sequence), iteratively, so deep
    nesting cannot exhaust the stack."""
    stack = list(nodes.body) if isinstance(nodes, cst.IndentedBlock) else list(nodes if isinstance(nodes, (list, tuple)) else [nodes])
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def _names_in(node: cst.BaseExpression) -> Iterator[cst.Name]:
    """Names that are read in an expression: `x.shape` yields x, not shape;
    `f(k=v)` yields f and v, not k."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        child = stack.pop()
        if isinstance(child, cst.Name):
            yield child
        elif isinstance(child, cst.Attribute):
            stack.append(child.value)
        elif isinstance(child, cst.Arg):
            stack.append(child.value)
        else:
            stack.extend(reversed(child.children))


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    return _walk(node)


class _Collector(cst.CSTVisitor):
    """The one traversal that fills a FileModel."""

    def __init__(self, model: FileModel) -> None:
        self.model = model
        self.scopes: list[FunctionInfo] = [model.top]
        self.classes: list[ClassInfo] = []
        # Innermost first: is the nearest enclosing definition a class body?
        self.in_class_body: list[bool] = [False]
        self.main_guard_depth = 0
        self.pending_launches: list[tuple[cst.Call, FunctionInfo]] = []
        self.call_form_kernels: list[tuple[str, cst.Call, FunctionInfo]] = []
        self.rebinds: list[tuple[str, str]] = []

    def collect(self) -> None:
        self.model.module.visit(self)
        self._find_kernels()
        for alias, target in self.rebinds:
            if target in self.model.kernels and alias not in self.model.kernels:
                self.model.kernels[alias] = self.model.kernels[target]
        for call, scope in self.pending_launches:
            launch = self._launch(call, scope)
            if launch is not None:
                self.model.launches.append(launch)

    @property
    def scope(self) -> FunctionInfo:
        return self.scopes[-1]

    # -- classes and functions --
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        bases = tuple(self.model.qualname(b.value) or "" for b in node.bases)
        info = ClassInfo(node.name.value, node, bases)
        local_bases = [self.model.classes.get(b) for b in bases]
        info.is_nn_module = any(
            b in ("torch.nn.Module", "nn.Module") or b.endswith("nn.Module") for b in bases
        ) or any(c is not None and c.is_nn_module for c in local_bases)
        info.is_autograd_function = any(
            b in ("torch.autograd.Function", "torch.autograd.function.Function") for b in bases
        )
        self.model.classes.setdefault(info.name, info)
        self.classes.append(info)
        self.in_class_body.append(True)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.classes.pop()
        self.in_class_body.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        cls = self.classes[-1] if self.in_class_body[-1] else None
        outer = self.scope
        qual = node.name.value
        if cls is not None:
            qual = f"{cls.name}.{qual}"
        elif not outer.is_module_level:
            qual = f"{outer.qualname}.{qual}"
        params = tuple(
            p.name.value
            for p in (*node.params.posonly_params, *node.params.params, *node.params.kwonly_params)
        )
        info = FunctionInfo(
            node.name.value,
            qual,
            node,
            class_name=cls.name if cls is not None else None,
            params=params,
            decorators=tuple(self._decorator_name(d) for d in node.decorators),
        )
        self.model.functions.append(info)
        if cls is not None:
            cls.methods.setdefault(info.name, info)
        self.scopes.append(info)
        self.in_class_body.append(False)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.scopes.pop()
        self.in_class_body.pop()

    def _decorator_name(self, decorator: cst.Decorator) -> str:
        target = decorator.decorator
        if isinstance(target, cst.Call):
            target = target.func
        return self.model.qualname(target) or ""

    # -- statements --
    def visit_If(self, node: cst.If) -> None:
        if self.scope.is_module_level and _is_main_guard(node.test):
            self.main_guard_depth += 1

    def leave_If(self, original_node: cst.If) -> None:
        if self.scope.is_module_level and _is_main_guard(original_node.test):
            self.main_guard_depth -= 1

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._assign(target.target, node.value, node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._assign(node.target, node.value, node)

    def _assign(self, target: cst.BaseExpression, value: cst.BaseExpression, node: cst.CSTNode) -> None:
        scope = self.scope
        self.model._scope_of_node[id(node)] = scope
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
            and not any(isinstance(e, cst.StarredElement) for e in (*target.elements, *value.elements))
        ):
            # `BLOCK_M, BLOCK_N = 64, 32` binds each name to its own value.
            for name, item in zip(target.elements, value.elements):
                self._assign(name.value, item.value, node)
            return
        if isinstance(target, cst.Name):
            scope.assignments.append((target.value, value, node))
            if scope.is_module_level:
                literal = _literal_value(value)
                if literal is not None:
                    self.model.constants[target.value] = literal
                if isinstance(value, cst.Name):
                    self.rebinds.append((target.value, value.value))
                if isinstance(value, cst.Call):
                    self.call_form_kernels.append((target.value, value, scope))
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and self.classes
            and scope.name == "__init__"
        ):
            self._module_tensor(target.attr.value, value, scope)

    def _module_tensor(self, name: str, value: cst.BaseExpression, scope: FunctionInfo, kind: str | None = None) -> None:
        cls = self.model.classes.get(scope.class_name or "")
        if cls is None:
            return
        if kind is None:
            if self.model.is_call_to(value, "torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                kind = "parameter"
            elif any(
                isinstance(n, cst.Call) and (self.model.qualname(n.func) or "").startswith("torch.")
                for n in _walk(value)
            ):
                kind = "tensor"
            else:
                return
        cls.tensors[name] = ModuleTensor(name, kind, value, scope)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.MatrixMultiply):
            self.scope.matmul_ops.append(node)
            self.model._scope_of_node[id(node)] = self.scope
            if self.main_guard_depth:
                self.model._main_guard_ids.add(id(node))

    def visit_Assert(self, node: cst.Assert) -> None:
        self.scope.asserts.append(node)
        self.model._scope_of_node[id(node)] = self.scope

    def visit_Call(self, node: cst.Call) -> None:
        scope = self.scope
        self.model._scope_of_node[id(node)] = scope
        scope.calls.append(node)
        if self.main_guard_depth:
            scope.under_main_guard.append(node)
            self.model._main_guard_ids.add(id(node))
        if isinstance(node.func, cst.Subscript):
            self.pending_launches.append((node, scope))
        if (
            isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "register_buffer"
            and scope.name == "__init__"
        ):
            args = positional(node)
            if len(args) >= 2 and isinstance(args[0], cst.SimpleString):
                name = args[0].evaluated_value
                if isinstance(name, str):
                    self._module_tensor(name, args[1], scope, kind="buffer")

    # -- kernels --
    def _find_kernels(self) -> None:
        model = self.model
        for function in model.functions:
            assert function.node is not None
            decorators = function.node.decorators
            names = [self._decorator_name(d) for d in decorators]
            if TRITON_JIT not in names:
                continue
            model.kernels[function.name] = self._kernel(function, decorators)
        for alias, call, _ in self.call_form_kernels:
            # `kernel = triton.jit(fn)` and `kernel = triton.jit(**opts)(fn)`.
            target = call
            if isinstance(target.func, cst.Call) and model.is_call_to(target.func, TRITON_JIT):
                pass
            elif not model.is_call_to(target, TRITON_JIT):
                continue
            args = positional(target)
            if args and isinstance(args[0], cst.Name):
                function = model.function(args[0].value)
                if function is not None and function.node is not None:
                    # One Kernel per function, however many names jit it.
                    existing = next((k for k in model.kernels.values() if k.function is function), None)
                    model.kernels[alias] = existing or self._kernel(function, function.node.decorators)

    def _kernel(self, function: FunctionInfo, decorators) -> Kernel:
        model = self.model
        assert function.node is not None
        params = []
        for p in (*function.node.params.params, *function.node.params.kwonly_params):
            annotation = p.annotation.annotation if p.annotation is not None else None
            constexpr = annotation is not None and (
                model.qualname(annotation) == f"{TL}.constexpr"
                or (isinstance(annotation, cst.SimpleString) and "constexpr" in annotation.value)
            )
            params.append(KernelParam(p.name.value, constexpr, p.default))
        autotune = None
        heuristics: list[str] = []
        for decorator in decorators:
            target = decorator.decorator
            if not isinstance(target, cst.Call):
                continue
            name = model.qualname(target.func)
            if name == TRITON_AUTOTUNE:
                autotune = Autotune(decorator, self._configs(keyword(target, "configs") or (positional(target) or [None])[0]), self._strings(keyword(target, "key")))
            elif name == TRITON_HEURISTICS:
                values = keyword(target, "values") or (positional(target) or [None])[0]
                if isinstance(values, cst.Dict):
                    heuristics.extend(
                        str(e.key.evaluated_value) for e in values.elements
                        if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
                    )
                else:
                    heuristics.append("*")
        return Kernel(function, tuple(params), autotune, tuple(heuristics), bool(heuristics))

    def _configs(self, node: cst.BaseExpression | None) -> tuple[dict[str, object], ...] | None:
        if not isinstance(node, (cst.List, cst.Tuple)):
            return None
        configs = []
        for element in node.elements:
            call = element.value
            if not self.model.is_call_to(call, "triton.Config"):
                return None
            assert isinstance(call, cst.Call)
            values: dict[str, object] = {}
            args = positional(call)
            if args and isinstance(args[0], cst.Dict):
                for entry in args[0].elements:
                    if isinstance(entry, cst.DictElement) and isinstance(entry.key, cst.SimpleString):
                        values[str(entry.key.evaluated_value)] = _literal_value(entry.value)
            for arg in call.args:
                if arg.keyword is not None:
                    values[arg.keyword.value] = _literal_value(arg.value)
            configs.append(values)
        return tuple(configs)

    @staticmethod
    def _strings(node: cst.BaseExpression | None) -> tuple[str, ...]:
        if not isinstance(node, (cst.List, cst.Tuple)):
            return ()
        return tuple(
            str(e.value.evaluated_value) for e in node.elements if isinstance(e.value, cst.SimpleString)
        )

    def _launch(self, call: cst.Call, scope: FunctionInfo) -> Launch | None:
        subscript = call.func
        assert isinstance(subscript, cst.Subscript)
        target = dotted(subscript.value)
        if target is None:
            return None
        # `kernel[...]`, or `self.kernel[...]` / `module.kernel[...]` for a
        # kernel bound under that attribute name.
        kernel = self.model.kernels.get(target) or self.model.kernels.get(target.split(".")[-1])
        if kernel is None or len(subscript.slice) != 1:
            return None
        element = subscript.slice[0].slice
        if not isinstance(element, cst.Index):
            return None
        names = [p.name for p in kernel.params]
        arguments: dict[str, cst.BaseExpression] = {}
        options: dict[str, cst.BaseExpression] = {}
        has_star = False
        index = 0
        for arg in call.args:
            if arg.star:
                has_star = True
                continue
            if arg.keyword is None:
                if index < len(names) and not has_star:
                    arguments[names[index]] = arg.value
                index += 1
            elif arg.keyword.value in names:
                arguments[arg.keyword.value] = arg.value
            else:
                options[arg.keyword.value] = arg.value
        return Launch(call, kernel, element.value, scope, arguments, options, has_star)


def _is_main_guard(test: cst.BaseExpression) -> bool:
    return (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and test.left.value == "__name__"
    )


def build_model(path: str, source: str, module: cst.Module) -> FileModel:
    return FileModel(path, source, module)
