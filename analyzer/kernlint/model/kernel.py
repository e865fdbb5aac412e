"""Kernel-side facts: what a `@triton.jit` body loads and from which pointer
parameters, which `triton.language` calls it makes (through the jit
functions it calls), and which constexprs size its tiles.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import libcst as cst
from kernlint.model.base import ModelBase, kernel_fact
from kernlint.model.facts import TL, ConstexprValues, FunctionInfo, Kernel, StoredConstant
from kernlint.model.syntax import COMPARISONS, keyword, literal_value, names_in, positional, walk

# triton.language calls whose shape argument sizes a tile: name -> (keyword,
# position) of the shape, None for tl.arange whose every argument counts.
TILE_SHAPERS: dict[str, tuple[str, int] | None] = {
    "arange": None,
    "zeros": ("shape", 0),
    "full": ("shape", 0),
    "make_block_ptr": ("block_shape", 4),
    "make_tensor_descriptor": ("block_shape", 3),
}


class KernelFacts(ModelBase):
    def dot_tf32_off(self, kernel: Kernel, call: cst.Call) -> tuple[cst.Arg, str] | None:
        """The argument of a `tl.dot` call that runs fp32 operands without TF32
        (`input_precision="ieee"`, `allow_tf32=False`, or a constexpr flag
        that every launch and config sets so), with its text; None if none."""
        for arg, value, spelled in self._dot_precision_args(kernel, call):
            if arg.keyword is not None and arg.keyword.value == "input_precision" and value == "ieee":
                return arg, f'input_precision="ieee"{spelled}'
            if arg.keyword is not None and arg.keyword.value == "allow_tf32" and value is False:
                return arg, f"allow_tf32=False{spelled}"
        return None

    def dot_tf32x3(self, kernel: Kernel, call: cst.Call) -> bool:
        """Whether a `tl.dot` call asks for `input_precision="tf32x3"` (written, or a constexpr that every
        launch and config sets so): fp32 operands each split into a high and a low TF32 part, and three
        TF32 products summed, so the tensor cores do three times the product's work."""
        return any(
            arg.keyword is not None and arg.keyword.value == "input_precision" and value == "tf32x3"
            for arg, value, _ in self._dot_precision_args(kernel, call)
        )

    def _dot_precision_args(self, kernel: Kernel, call: cst.Call) -> list[tuple[cst.Arg, object, str]]:
        """The precision arguments of a `tl.dot` call (`input_precision`, `allow_tf32`) with their values: a
        literal, or a constexpr's one value at every launch and config (then also how that reads); those
        whose value is not known are left out."""
        found = []
        for arg in call.args:
            if arg.keyword is None or arg.keyword.value not in ("input_precision", "allow_tf32"):
                continue
            value: object = literal_value(arg.value)
            spelled = ""
            if isinstance(arg.value, cst.Name) and arg.value.value in kernel.constexprs:
                values = self.constexpr_values(kernel, arg.value.value)
                if not values.complete or len(values.values) != 1:
                    continue
                value = next(iter(values.values))
                spelled = f" ({arg.value.value}={value!r} at every launch)"
            found.append((arg, value, spelled))
        return found

    def constexpr_values(self, kernel: Kernel, name: str) -> ConstexprValues:
        """The values constexpr `name` of `kernel` takes: from each autotune
        config that sets it, from each launch's argument (a literal or a
        constant, see `constant_value`), else from the parameter's default.
        A heuristic that sets it, a config built elsewhere, a computed
        argument or a `*args` launch make the answer incomplete."""
        values: set[object] = set()
        complete = True
        if name in kernel.heuristics or "*" in kernel.heuristics:
            complete = False
        by_config = False
        if kernel.autotune is not None:
            if kernel.autotune.configs is None:
                complete, by_config = False, True
            for config in kernel.autotune.configs or ():
                if name in config:
                    by_config = True
                    if config[name] is None:
                        complete = False
                    else:
                        values.add(config[name])
        param = kernel.param(name)
        default = literal_value(param.default) if param is not None and param.default is not None else None
        launches = self.launches_of(kernel)
        for launch in launches:
            argument = launch.arguments.get(name)
            if argument is not None:
                value = self.constant_value(argument, launch.caller)
                if value is None:
                    complete = False
                else:
                    values.add(value)
            elif by_config or name in kernel.heuristics:
                continue
            elif launch.has_star_args or default is None:
                complete = False
            else:
                values.add(default)
        if not launches and not by_config:
            # Launched from another file (or not at all): only a default is known.
            complete = False
            if default is not None:
                values.add(default)
        return ConstexprValues(frozenset(values), complete)

    def constexpr_floor(self, kernel: Kernel, name: str) -> int | None:
        """The least value integer constexpr `name` of `kernel` can take,
        where every launch passes it (no autotune config or heuristic sets
        it) and each argument is a known integer or a `max(...)` with one
        (`BLOCK_K = max(16, triton.next_power_of_2(K))`: at least 16 at any
        K). None when any launch's value has no known floor."""
        if kernel.autotune is not None or name in kernel.heuristics or "*" in kernel.heuristics:
            return None
        launches = self.launches_of(kernel)
        floors: list[int] = []
        for launch in launches:
            argument = launch.arguments.get(name)
            floor = None if argument is None else self._int_floor(argument, launch.caller, 0)
            if floor is None:
                return None
            floors.append(floor)
        return min(floors) if floors else None

    def _int_floor(self, node: cst.BaseExpression, scope: FunctionInfo, depth: int) -> int | None:
        if depth > 4:
            return None
        value = self.constant_value(node, scope)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(node, cst.Name):
            local = [v for v, _ in self._assignments_to(scope, node.value)]
            return self._int_floor(local[0], scope, depth + 1) if len(local) == 1 else None
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "max":
            known = [f for f in (self._int_floor(a.value, scope, depth + 1) for a in node.args) if f is not None]
            return max(known) if known and all(a.keyword is None and not a.star for a in node.args) else None
        return None

    @kernel_fact
    def pointer_params(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> list[str]:
        """The kernel's pointer parameters an address expression is built
        from (`a_ptr + offs * stride`, through assignments and block
        pointers)."""
        if depth > 12:
            return []
        names: list[str] = []
        for name_node in names_in(node):
            param = kernel.param(name_node.value)
            if param is not None:
                if not param.constexpr and param.name not in names and _is_pointer_like(param.name):
                    names.append(param.name)
                continue
            value = self.assigned_value(kernel.function, name_node.value, before=node)
            if value is not None and value is not node:
                for found in self.pointer_params(kernel, value, depth + 1):
                    if found not in names:
                        names.append(found)
        return names

    @kernel_fact
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

    @kernel_fact
    def kernel_uses(self, kernel: Kernel, *names: str) -> list[cst.Call]:
        """Calls to `triton.language.<name>` in the kernel and in the jit
        functions of this file it calls."""
        found: list[cst.Call] = []
        seen: set[int] = set()
        wanted = {f"{TL}.{name}" for name in names}
        pending = [kernel.function]
        while pending:
            function = pending.pop()
            if id(function) in seen:
                continue
            seen.add(id(function))
            found.extend(c for c in function.calls if self.qualname(c.func) in wanted)
            pending.extend(f for f in self.called_functions(function) if self.kernel_of(f) is not None)
        return found

    @kernel_fact
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
                    for name_node in names_in(shape):
                        if name_node.value in constexprs:
                            used.add(name_node.value)
                            continue
                        value = self.assigned_value(kernel.function, name_node.value, before=call)
                        if value is not None:
                            used.update(n.value for n in names_in(value) if n.value in constexprs)
        used.update(name for name in constexprs if "GROUP" in name.upper())
        return tuple(name for name in kernel.constexprs if name in used)

    @kernel_fact
    def stored_constant(self, kernel: Kernel, scalars: dict[str, float] | None = None) -> StoredConstant | None:
        """The one number the kernel stores wherever it stores, when the data
        it loads cancels before the store (`y = v - v`, then GELU of it; a
        value clamped to one number, `max(min(v, 0), 0)`): read from the
        kernel's straight-line statements only, with the numbers a launch
        hands its scalar parameters (`scalars`), which also decide an `if` on
        them. None when a store sits in a loop, in a branch they do not
        decide or in a function the kernel calls, on an atomic, when the
        stores differ, or when no loaded value cancels (a kernel that fills a
        buffer with zeros means to)."""
        body = kernel.node.body
        if not isinstance(body, cst.IndentedBlock):
            return None
        stores = self.kernel_uses(kernel, "store")
        if not stores or self.kernel_uses(kernel, *_ATOMICS):
            return None
        folder = _ConstantFolder(self, scalars or {})
        found = folder.run(body.body)
        if found is None:
            return None
        if len(found) != len(stores):
            return None  # a store in a jit function the kernel calls
        numbers = {f.value for f in found}
        cancelled = next((f.cancelled for f in found if f.cancelled is not None), None)
        number = found[0].value
        if len(numbers) != 1 or number is None or cancelled is None:
            return None
        subtracts = isinstance(cancelled, cst.AugAssign) and isinstance(cancelled.operator, cst.SubtractAssign)
        subtracts |= isinstance(cancelled, cst.BinaryOperation) and isinstance(cancelled.operator, cst.Subtract)
        how = "a value minus itself" if subtracts else "a product with zero"
        if isinstance(cancelled, cst.Call):
            how = "a value clamped to one number"
        return StoredConstant(number, cancelled, how)


_ATOMICS = ("atomic_add", "atomic_max", "atomic_min", "atomic_xchg", "atomic_cas", "atomic_and", "atomic_or")

# triton.language math on one number, for folding a constant through an activation (`gelu(0)` is 0).
_UNARY: dict[str, Callable[[float], float]] = {
    "exp": math.exp,
    "exp2": lambda x: 2.0**x,
    "log": math.log,
    "log2": math.log2,
    "sqrt": math.sqrt,
    "rsqrt": lambda x: 1.0 / math.sqrt(x),
    "erf": math.erf,
    "tanh": math.tanh,
    "sigmoid": lambda x: 1.0 / (1.0 + math.exp(-x)),
    "abs": abs,
    "fabs": abs,
    "cos": math.cos,
    "sin": math.sin,
}
_BINARY: dict[type, Callable[[float, float], float]] = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.Divide: lambda a, b: a / b,
}


class _Folded:
    """A kernel value as the folder sees it: a number (`value`), else a key
    that is equal for expressions equal by construction (the same load, the
    same names combined the same way). `cancelled`: where loaded data
    cancelled on the way to the number."""

    __slots__ = ("cancelled", "key", "lower", "upper", "value")

    def __init__(
        self,
        value: float | None,
        key: object = None,
        cancelled: cst.CSTNode | None = None,
        lower: float | None = None,
        upper: float | None = None,
    ) -> None:
        self.value = value
        self.key = key
        self.cancelled = cancelled
        # Bounds a tl.minimum / tl.maximum put on a value that is not a number (None: none known).
        self.lower = value if value is not None else lower
        self.upper = value if value is not None else upper


class _ConstantFolder:
    """Folds a kernel's straight-line values to numbers where loaded data
    cancels: names bound at the top level of the body are followed in order;
    a name bound inside a loop or a branch is an unknown of its own."""

    def __init__(self, model: ModelBase, scalars: dict[str, float]) -> None:
        self.model = model
        self.scalars = scalars  # the numbers a launch hands the kernel's scalar parameters
        self.names: dict[str, _Folded] = {}
        # The expression a straight-line name was bound to, for the extents of its tile (`_shape`).
        self.bound: dict[str, cst.BaseExpression] = {}

    def run(self, statements: Sequence[cst.BaseStatement]) -> list[_Folded] | None:
        """Fold `statements` in order: the values of the stores among them, or None where a store sits where
        the folder does not follow (a loop, a branch it cannot decide)."""
        found: list[_Folded] = []
        for statement in statements:
            if isinstance(statement, cst.If) and not isinstance(statement.orelse, cst.If):
                taken = self._branch(statement)
                if taken is None:
                    return None
                found.extend(taken)
                continue
            if not isinstance(statement, cst.SimpleStatementLine):
                if any(isinstance(n, cst.Call) and self.model.is_tl(n.func, "store") for n in walk(statement)):
                    return None
                self.forget(statement)
                continue
            for small in statement.body:
                if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                    call = small.value
                    if self.model.is_tl(call.func, "store"):
                        args = positional(call)
                        value = keyword(call, "value") or (args[1] if len(args) > 1 else None)
                        if value is None:
                            return None
                        found.append(self.fold(value))
                else:
                    self.bind(small)
        return found

    def _branch(self, statement: cst.If) -> list[_Folded] | None:
        """An `if` on the launch's numbers (`if p_drop > 0.0:`) runs the branch they choose; one the folder
        cannot decide runs both, and a name keeps its number only where both leave it the same."""
        test = self.fold(statement.test)
        bodies: list[Sequence[cst.BaseStatement]] = [
            _statements(statement.body),
            _statements(statement.orelse.body) if isinstance(statement.orelse, cst.Else) else (),
        ]
        if test.value is not None:
            return self.run(bodies[0] if test.value else bodies[1])
        before = dict(self.names)
        self.bound = {}  # tiles bound on either side are not known after the `if` (rarely needed: forget all)
        results: list[dict[str, _Folded]] = []
        for body in bodies:
            self.names = dict(before)
            stored = self.run(body)
            if stored is None or stored:  # a store in a branch the folder cannot decide
                return None
            results.append(self.names)
        merged: dict[str, _Folded] = {}
        for name in set(results[0]) | set(results[1]):
            one, other = results[0].get(name), results[1].get(name)
            if one is other or (
                one is not None and other is not None and one.value is not None and one.value == other.value
            ):
                merged[name] = one  # type: ignore[assignment]
            else:
                merged[name] = _Folded(None, ("branch", id(statement), name))
        self.names = merged
        return []

    def bind(self, small: cst.BaseSmallStatement) -> None:
        if isinstance(small, cst.Assign):
            value = self.fold(small.value)
            for target in small.targets:
                self._bind(target.target, value, small, small.value)
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            self._bind(small.target, self.fold(small.value), small, small.value)
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            folded = self._binary(small.operator, self.fold(small.target), self.fold(small.value), small)
            self._bind(small.target, folded, small)

    def _bind(
        self,
        target: cst.BaseExpression,
        value: _Folded,
        node: cst.CSTNode,
        expression: cst.BaseExpression | None = None,
    ) -> None:
        for name in names_in(target):
            self.bound.pop(name.value, None)
        if isinstance(target, cst.Name):
            self.names[target.value] = value
            if expression is not None:
                self.bound[target.value] = expression
        else:
            for name in names_in(target):
                self.names[name.value] = _Folded(None, ("bound", id(node), name.value))

    def forget(self, statement: cst.CSTNode) -> None:
        """Names bound inside a compound statement hold what the loop or branch left: unknown."""
        for node in walk(statement):
            targets: list[cst.BaseExpression] = []
            if isinstance(node, cst.Assign):
                targets = [t.target for t in node.targets]
            elif isinstance(node, (cst.AnnAssign, cst.AugAssign)):
                targets = [node.target]
            elif isinstance(node, cst.For):
                targets = [node.target]
            for target in targets:
                for name in names_in(target):
                    self.names[name.value] = _Folded(None, ("bound", id(node), name.value))
                    self.bound.pop(name.value, None)

    def fold(self, node: cst.BaseExpression) -> _Folded:
        if isinstance(node, cst.Name):
            known = self.names.get(node.value)
            if known is not None:
                return known
            constant = self.scalars.get(node.value, self.model.constants.get(node.value))
            if isinstance(constant, (int, float)) and not isinstance(constant, bool):
                return _Folded(float(constant))
            return _Folded(None, ("name", node.value))
        literal = literal_value(node)
        if isinstance(literal, (int, float)) and not isinstance(literal, bool):
            return _Folded(float(literal))
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            inner = self.fold(node.expression)
            if inner.value is not None:
                return _Folded(-inner.value, cancelled=inner.cancelled)
            return _Folded(None, ("neg", inner.key))
        if isinstance(node, cst.BinaryOperation):
            return self._binary(node.operator, self.fold(node.left), self.fold(node.right), node)
        if isinstance(node, cst.Subscript):
            return self.fold(node.value)  # `x[:, None]`: the same values, broadcast
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            left, right = self.fold(node.left), self.fold(node.comparisons[0].comparator)
            test = COMPARISONS.get(type(node.comparisons[0].operator))
            if test is not None and left.value is not None and right.value is not None:
                return _Folded(1.0 if test(left.value, right.value) else 0.0)
            return _Folded(None, ("node", id(node)))
        if isinstance(node, cst.Call):
            return self._call(node)
        return _Folded(None, ("node", id(node)))

    def _binary(self, operator: cst.BaseBinaryOp | cst.BaseAugOp, left: _Folded, right: _Folded, node) -> _Folded:
        kind = _AUGMENTED.get(type(operator), type(operator))
        cancelled = left.cancelled or right.cancelled
        if left.value is not None and right.value is not None:
            compute = _BINARY.get(kind)
            try:
                value = compute(left.value, right.value) if compute else None
            except (ZeroDivisionError, OverflowError):
                value = None
            return (
                _Folded(value, ("node", id(node)), cancelled)
                if value is not None
                else _Folded(None, ("node", id(node)))
            )
        if kind is cst.Subtract and left.value is None and left.key == right.key:
            return _Folded(0.0, cancelled=node)  # a value minus itself
        if kind is cst.Multiply and 0.0 in (left.value, right.value):
            return _Folded(0.0, cancelled=cancelled or node)
        if kind is cst.Divide and left.value == 0.0:
            return _Folded(0.0, cancelled=left.cancelled)  # zero over a (finite, nonzero) number: dropout's rescale
        if kind in (cst.Multiply, cst.Divide) and right.value == 1.0:
            return left
        if kind is cst.Multiply and left.value == 1.0:
            return right
        if kind in (cst.Add, cst.Subtract) and right.value == 0.0:
            return left
        if kind is cst.Add and left.value == 0.0:
            return right
        return _Folded(None, (kind.__name__, left.key, right.key))

    def _call(self, call: cst.Call) -> _Folded:
        func = call.func
        args = [self.fold(arg.value) for arg in call.args if arg.keyword is None]
        if isinstance(func, cst.Attribute) and func.attr.value == "to" and not self._is_tl_module(func.value):
            return self.fold(func.value)  # a cast keeps the number
        qualname = self.model.qualname(func) or ""
        if not qualname.startswith(TL):
            return _Folded(None, ("node", id(call)))
        name = qualname.rsplit(".", 1)[-1]
        if name in ("zeros", "full"):
            fill = 0.0 if name == "zeros" else (args[1].value if len(args) > 1 else None)
            return _Folded(fill, ("node", id(call)))
        if name in _UNARY and len(args) == 1 and args[0].value is not None:
            try:
                return _Folded(_UNARY[name](args[0].value), cancelled=args[0].cancelled)
            except (ValueError, OverflowError, ZeroDivisionError):
                return _Folded(None, ("node", id(call)))
        if name in ("maximum", "minimum") and len(args) == 2:
            a, b = args
            cancelled = a.cancelled or b.cancelled
            if a.value is not None and b.value is not None:
                pick = max if name == "maximum" else min
                return _Folded(pick(a.value, b.value), cancelled=cancelled)
            if a.value is None and b.value is None and a.key == b.key:
                return a
            # max(x, c) is at least c and at most the larger of the bounds above; min(x, c) the other way.
            if name == "maximum":
                lower = max((v for v in (a.lower, b.lower) if v is not None), default=None)
                upper = max(a.upper, b.upper) if a.upper is not None and b.upper is not None else None
            else:
                upper = min((v for v in (a.upper, b.upper) if v is not None), default=None)
                lower = min(a.lower, b.lower) if a.lower is not None and b.lower is not None else None
            if lower is not None and lower == upper:
                return _Folded(lower, cancelled=cancelled or call)  # clamped to one number
            return _Folded(None, ("node", id(call)), lower=lower, upper=upper)
        if name == "where" and len(args) == 3 and args[1].value is not None and args[1].value == args[2].value:
            return _Folded(args[1].value, cancelled=args[1].cancelled or args[2].cancelled)
        if name in _REDUCTIONS and call.args and call.args[0].keyword is None:
            # A sum, max or min over an axis of one element (a [BLOCK_M, 1] tile: BLOCK_C = 1 at this launch)
            # is its input's values: `x - tl.sum(x, axis=1)[:, None] / C` at C = 1 is a value minus itself.
            reduced = call.args[0].value
            axis = keyword(call, "axis") or (positional(call)[1] if len(positional(call)) > 1 else None)
            shape = self._shape(reduced)
            at = self.fold(axis).value if axis is not None else None
            if shape is not None and (
                (axis is None and all(extent == 1 for extent in shape))
                or (at is not None and -len(shape) <= at < len(shape) and shape[int(at)] == 1)
            ):
                return self.fold(reduced)
        return _Folded(None, ("node", id(call)))

    def _shape(self, node: cst.BaseExpression) -> tuple[int | None, ...] | None:
        """The extents of a straight-line tile expression (`tile_shape`): a name bound where the folder does not
        follow it (a loop, a branch) is unknown; any other unbound name is a parameter or a module constant."""

        def resolve(name: str) -> cst.BaseExpression | tuple | None:
            if name in self.bound:
                return self.bound[name]
            return None if name in self.names else ()

        return tile_shape(self.model, node, lambda n: self.fold(n).value, resolve)

    def _is_tl_module(self, node: cst.BaseExpression) -> bool:
        return (self.model.qualname(node) or "").startswith(TL)


Resolved = cst.BaseExpression | tuple | None


def tile_shape(
    model: ModelBase,
    node: cst.BaseExpression,
    number: Callable[[cst.BaseExpression], float | None],
    resolve: Callable[[str], Resolved],
    depth: int = 0,
) -> tuple[int | None, ...] | None:
    """The extents of a kernel's tile expression, None for one not known: `tl.arange(0, B)` is [B], `a[:, None]`
    adds an axis of one, operators broadcast, a load has its pointer's shape, `tl.zeros((M, N), ...)` is [M, N],
    a reduction drops its axis; a scalar is []. `number` folds an expression to its value at the launch;
    `resolve` gives a name's expression, its extents (a tuple), or None where they are not known."""
    if depth > 24:
        return None
    if isinstance(node, cst.Name):
        found = resolve(node.value)
        if found is None or isinstance(found, tuple):
            return found
        return tile_shape(model, found, number, resolve, depth + 1)
    if literal_value(node) is not None:
        return ()
    if isinstance(node, (cst.BinaryOperation, cst.Comparison, cst.BooleanOperation)):
        if isinstance(node, cst.Comparison):
            parts = [node.left, *(c.comparator for c in node.comparisons)]
        else:
            parts = [node.left, node.right]
        return _broadcast([tile_shape(model, part, number, resolve, depth + 1) for part in parts])
    if isinstance(node, cst.UnaryOperation):
        return tile_shape(model, node.expression, number, resolve, depth + 1)
    if isinstance(node, cst.Subscript):
        inner = tile_shape(model, node.value, number, resolve, depth + 1)
        if inner is None:
            return None
        out: list[int | None] = []
        axes = iter(inner)
        for element in node.slice:
            index = element.slice
            if isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and index.value.value == "None":
                out.append(1)
            elif isinstance(index, cst.Slice) and index.lower is None and index.upper is None:
                out.append(next(axes, None))
            else:
                return None
        out.extend(axes)
        return tuple(out)
    if isinstance(node, cst.Call):
        qualname = model.qualname(node.func) or ""
        name = qualname.rsplit(".", 1)[-1] if qualname.startswith(TL) else ""
        args = positional(node)
        if name == "arange" and len(args) == 2:
            start, end = number(args[0]), number(args[1])
            return (int(end - start),) if start is not None and end is not None else (None,)
        if name in ("zeros", "full") and args and isinstance(args[0], (cst.Tuple, cst.List)):
            extents = [number(element.value) for element in args[0].elements]
            return tuple(int(e) if e is not None else None for e in extents)
        if name == "load" and args:
            return tile_shape(model, args[0], number, resolve, depth + 1)
        if name in ("program_id", "num_programs", "cdiv"):
            return ()
        if name in _UNARY or name in ("maximum", "minimum", "where"):
            return _broadcast([tile_shape(model, arg, number, resolve, depth + 1) for arg in args]) if args else None
        if name in _REDUCTIONS and args:
            inner = tile_shape(model, args[0], number, resolve, depth + 1)
            axis = keyword(node, "axis") or (args[1] if len(args) > 1 else None)
            at = number(axis) if axis is not None else None
            if inner is None or axis is None or at is None or not -len(inner) <= at < len(inner):
                return None if axis is not None else ()
            return tuple(extent for i, extent in enumerate(inner) if i != int(at) % len(inner))
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "to":
            return tile_shape(model, node.func.value, number, resolve, depth + 1)
    return None


def _broadcast(shapes: list[tuple[int | None, ...] | None]) -> tuple[int | None, ...] | None:
    """numpy's broadcast of tile extents; an unknown extent stays unknown unless the other side's is more than one."""
    known = [shape for shape in shapes if shape is not None]
    if len(known) != len(shapes):
        return None
    rank = max((len(shape) for shape in known), default=0)
    padded = [(1,) * (rank - len(shape)) + shape for shape in known]
    out: list[int | None] = []
    for axis in range(rank):
        extents = {shape[axis] for shape in padded} - {1}
        sized = {extent for extent in extents if extent is not None}
        if not extents:
            out.append(1)
        elif len(extents) == 1 or len(sized) == 1:
            out.append(sized.pop() if sized else None)
        else:
            out.append(None)
    return tuple(out)


_REDUCTIONS = ("sum", "max", "min")


def _statements(suite: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    """A block's statements; a one-line suite (`if FLAG: v = 0`) as the line it is."""
    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    assert isinstance(suite, cst.SimpleStatementSuite)
    return (cst.SimpleStatementLine(body=suite.body),)


_AUGMENTED: dict[type, type] = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
}


def _is_pointer_like(name: str) -> bool:
    # Every non-constexpr parameter may be a pointer; integer sizes and
    # strides only ever appear in offsets, and excluding names that read
    # like sizes keeps "a_ptr + offs * stride_am" from naming stride_am.
    lowered = name.lower()
    return not (
        lowered.startswith("stride")
        or lowered in ("m", "n", "k")
        or lowered.startswith("num_")
        or lowered.endswith("_stride")
        or lowered in ("n_elements", "numel", "size")
    )
