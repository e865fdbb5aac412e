"""The model's data: what one file holds (functions, classes, kernels,
launches, module tensors) and the facts queries return (dtypes,
conversions). Plain dataclasses; the queries live in host.py, kernel.py and
dtypes.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

TRITON_JIT = "triton.jit"

TRITON_AUTOTUNE = "triton.autotune"

TRITON_HEURISTICS = "triton.heuristics"

TL = "triton.language"


@dataclass(frozen=True)
class DtypeFact:
    """What is known of a tensor's dtype and why: `evidence` says where the
    fact comes from in words a user can check ("assert at line 131")."""

    dtype: str
    evidence: str
    source: str  # "assert", "creation", "cast", "get_inputs", "annotation"

    @property
    def preposition(self) -> str:
        """How a message joins the dtype to the evidence: "int8 by assert at
        line 3", "fp16 from get_inputs() at line 9"."""
        return {"assert": "by ", "cast": "by ", "get_inputs": "from "}.get(self.source, "")

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
    loops: list[cst.For] = field(default_factory=list)  # `for` statements, nested defs' not included
    # Assign, AnnAssign, AugAssign and For statements in source order, nested defs' not included.
    bindings: list[cst.CSTNode] = field(default_factory=list)
    returns: list[cst.Return] = field(default_factory=list)  # nested defs' not included

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


@dataclass(frozen=True)
class ConstexprValues:
    """The values a kernel's constexpr takes over its launches and autotune
    configs: `values` holds those fixed in the source; `complete` is False
    when some launch, config or heuristic sets it to something computed
    (then other values are possible). Unknown: empty and not complete."""

    values: frozenset[object]
    complete: bool

    @property
    def known(self) -> bool:
        return self.complete and bool(self.values)


@dataclass(frozen=True, eq=False, repr=False)
class Launch:
    """`kernel[grid](args...)`: each argument bound to the kernel parameter it
    reaches; keywords that are not parameters (num_warps, ...) are options.

    A launch seen from the function that calls the helper making it
    (`FileModel.launches_in`) has `helper_launch`, the launch in the helper;
    its `node` is the call of the helper, and its arguments are the caller's
    expressions where the helper passes a parameter through."""

    node: cst.Call
    kernel: Kernel
    grid: cst.BaseExpression
    caller: FunctionInfo
    arguments: dict[str, cst.BaseExpression]
    options: dict[str, cst.BaseExpression]
    has_star_args: bool
    helper_launch: Launch | None = None


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


@dataclass(frozen=True)
class StoredConstant:
    """A kernel that stores one number wherever it stores, whatever it loaded:
    its data cancels on the way (`v - v`, `x * 0`), so the output is a fill."""

    value: float
    cancelled: cst.CSTNode  # the expression where the loaded data cancels
    how: str  # how it cancels: "a value minus itself", "a product with zero"
