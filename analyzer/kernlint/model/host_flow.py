"""Host-side flow facts: which Python loops walk a data dimension (time
steps, tokens, rows) rather than a handful of constant items, which values
are tensors and which are Python numbers, and where the result of a GEMM
(a torch matmul, `@`, or a Triton launch) goes next before it is returned or
stored (the elementwise ops that follow it, their def-use chain).

Each function's body is indexed once (parents, loops, statement blocks,
names bound from shapes); queries read the index.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import libcst as cst
from kernlint.model.facts import FunctionInfo
from kernlint.model.host import HostFacts
from kernlint.model.host_syntax import (
    _annotation,
    _assignment_targets,
    _default,
    _last_name,
    _target_names,
    _tests_cpu,
)
from kernlint.model.kernel import KernelFacts
from kernlint.model.syntax import call_name, children, keyword, literal_value, names_in, positional
from kernlint.model.torch_api import (
    ALLOCATION_FUNCTIONS,
    ALLOCATION_METHODS,
    ALLOCATION_WITH_VALUE,
    CAST_METHODS,
    FREE_ATTRIBUTES,
    NOT_TENSOR_FUNCTIONS,
    NOT_TENSOR_PREFIXES,
    NUMBER_ATTRIBUTES,
    NUMBER_FUNCTIONS,
    NUMBER_METHODS,
    TENSOR_ONLY_METHODS,
    TORCH_DTYPE,
    TYPE_TESTS,
    UNBINDING,
)

# Creators of a new tensor from sizes alone: on the CPU unless given a device.
HOST_CREATORS = frozenset(
    f"torch.{n}" for n in ("randint", "rand", "randn", "randperm", "zeros", "ones", "empty", "full", "arange")
)

# A loop over at most this many constant items is "a handful" (3 streams, 4
# heads of a config), not a data dimension.
HANDFUL = 16

# Names that say a number counts steps of a data dimension.
DATA_DIM_NAME = re.compile(
    r"^_?(?:t|T|seq|seqlen|seq_?len(?:gth)?|.*_seq_?len|max_?len|length|.*_length|len_.*|n_?steps|num_?steps|"
    r"steps|time_?steps|n_?time|timesteps|horizon|n_?tokens|num_?tokens|max_new_tokens|n_?ctx|context_?len)$"
)


# A flag that says "only while debugging": DEBUG, self.debug, debug_mode,
# KERNLINT_DEBUG, __debug__ (issue 27: checks under one are not a hot path).
DEBUG_FLAG = re.compile(r"^_*(?:debug|[a-z0-9_]*_debug|debug_[a-z0-9_]*)_*$", re.IGNORECASE)


def _debug_flag(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.BooleanOperation):
        if isinstance(test.operator, cst.And):
            return _debug_flag(test.left) or _debug_flag(test.right)
        return _debug_flag(test.left) and _debug_flag(test.right)
    name = _last_name(test)
    return name is not None and DEBUG_FLAG.match(name) is not None


@dataclass(frozen=True)
class Loop:
    """A Python loop (`for`, or a comprehension's `for`) and what it walks:
    `kind` is "data" (a data dimension), "constant" (a handful of fixed
    items) or "unknown"; `bound` is the source of what it iterates."""

    node: cst.For | cst.CompFor
    kind: str
    bound: str
    why: str

    @property
    def over_data(self) -> bool:
        return self.kind == "data"


@dataclass(frozen=True)
class _Index:
    parents: dict[int, cst.CSTNode]
    loops: tuple[Loop, ...]
    loop_nodes: tuple[cst.CSTNode, ...]  # the same loops, as nodes, for ancestry checks
    shape_names: frozenset[str]  # names bound from `x.shape` / `x.size()` unpacking
    loop_targets: dict[str, cst.CSTNode]  # loop variable -> its loop
    tests: tuple[cst.BaseExpression, ...]  # conditions of if/while/assert/ternaries, in source order
    # Host sizes: expressions that size an allocation, bound a slice or form a
    # launch grid; the names read there; assignments as (targets, names read).
    size_nodes: frozenset[int] = frozenset()
    size_names: frozenset[str] = frozenset()
    assignments: tuple[tuple[tuple[str, ...], frozenset[str]], ...] = ()
    type_tested: frozenset[str] = frozenset()  # names passed to isinstance / torch.is_tensor


# The node classes _build_flow reads, tested by exact type before any
# isinstance: libcst's node classes have no subclasses, and a failing
# isinstance on them runs ABCMeta's check in Python, several per node of
# every function (issue 14).
_FLOW_KINDS = frozenset(
    {
        cst.FunctionDef,
        cst.ClassDef,
        cst.Lambda,
        cst.For,
        cst.CompFor,
        cst.If,
        cst.While,
        cst.Assert,
        cst.IfExp,
        cst.Assign,
        cst.AugAssign,
        cst.AnnAssign,
        cst.Call,
        cst.Slice,
    }
)


class HostFlowFacts(HostFacts, KernelFacts):
    # -- the per-function index ----------------------------------------------
    def _flow(self, function: FunctionInfo) -> _Index:
        index = self._flow_cache.get(id(function))
        if index is None:
            index = self._flow_cache[id(function)] = self._build_flow(function)
        return index

    @cached_property
    def _flow_cache(self) -> dict[int, _Index]:
        return {}

    def _build_flow(self, function: FunctionInfo) -> _Index:
        parents: dict[int, cst.CSTNode] = {}
        shape_names: set[str] = set()
        loop_nodes: list[cst.CSTNode] = []
        loop_targets: dict[str, cst.CSTNode] = {}
        tests: list[cst.BaseExpression] = []
        sizes: list[cst.BaseExpression] = []
        assignments: list[tuple[cst.CSTNode, tuple[str, ...], frozenset[str]]] = []
        type_tested: set[str] = set()
        root = function.node if function.node is not None else self.module
        # Depth first with children pushed in reverse: nodes pop in source
        # order, so loops, tests and assignments are listed in order without
        # resolving positions (a code-generation pass over the whole file).
        stack: list[cst.CSTNode] = [root.body] if isinstance(root, cst.FunctionDef) else list(reversed(children(root)))
        for node in stack:
            parents[id(node)] = root
        while stack:
            node = stack.pop()
            if type(node) in _FLOW_KINDS:  # see _FLOW_KINDS
                if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                    continue  # their own scopes
                self._note_flow(node, loop_nodes, loop_targets, tests, shape_names)
                self._record_sizes(node, sizes, assignments, type_tested)
            below = children(node)
            for child in below:
                parents[id(child)] = node
            stack.extend(reversed(below))
        ordered = loop_nodes
        size_names = frozenset(n.value for size in sizes for n in names_in(size))
        sized = (
            frozenset(id(size) for size in sizes),
            size_names,
            tuple((targets, read) for _, targets, read in assignments),
            frozenset(type_tested),
        )
        index = _Index(parents, (), tuple(ordered), frozenset(shape_names), loop_targets, tuple(tests), *sized)
        # Classifying asks value questions that read this index: serve them
        # the index without its loops while the loops are classified.
        self._flow_cache[id(function)] = index
        loops = tuple(self._classify(node, function, index) for node in ordered)  # type: ignore[arg-type]
        return _Index(parents, loops, tuple(ordered), frozenset(shape_names), loop_targets, tuple(tests), *sized)

    def _note_flow(
        self,
        node: cst.CSTNode,
        loop_nodes: list[cst.CSTNode],
        loop_targets: dict[str, cst.CSTNode],
        tests: list[cst.BaseExpression],
        shape_names: set[str],
    ) -> None:
        if isinstance(node, (cst.For, cst.CompFor)):
            loop_nodes.append(node)
            for name in _target_names(node.target):
                loop_targets.setdefault(name, node)
        if isinstance(node, (cst.If, cst.While, cst.Assert, cst.IfExp)):
            tests.append(node.test)
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            target = node.targets[0].target
            if isinstance(target, (cst.Tuple, cst.List)) and self._is_shape(node.value):
                shape_names.update(_target_names(target))

    def _record_sizes(
        self,
        node: cst.CSTNode,
        sizes: list[cst.BaseExpression],
        assignments: list[tuple[cst.CSTNode, tuple[str, ...], frozenset[str]]],
        type_tested: set[str],
    ) -> None:
        """Note where a host value sizes something (an allocation's size, a
        slice bound, a launch grid), what each assignment derives from what,
        and which names the function tests for being a tensor."""
        if isinstance(node, cst.Call):
            name = self.qualname(node.func) or ""
            method = call_name(node) if isinstance(node.func, cst.Attribute) else None
            args = positional(node)
            if name in ALLOCATION_FUNCTIONS or (method in ALLOCATION_METHODS and not name.startswith("torch.")):
                sizes.extend(args)
            elif (name in ALLOCATION_WITH_VALUE or method in ALLOCATION_WITH_VALUE) and args:
                sizes.append(args[0])
            size = keyword(node, "size")
            if size is not None and (name in ALLOCATION_FUNCTIONS | ALLOCATION_WITH_VALUE or method):
                sizes.append(size)
            if isinstance(node.func, cst.Subscript):
                # `kernel[grid](...)`: the grid is needed on the host to launch.
                sizes.extend(e.slice.value for e in node.func.slice if isinstance(e.slice, cst.Index))
            if name in TYPE_TESTS and args and isinstance(args[0], cst.Name):
                type_tested.add(args[0].value)
        elif isinstance(node, cst.Slice):
            sizes.extend(bound for bound in (node.lower, node.upper) if bound is not None)
        elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and node.value is not None:
            names = tuple(_assignment_targets(node))
            if names:
                assignments.append((node, names, frozenset(n.value for n in names_in(node.value))))

    def sizes_on_host(self, node: cst.CSTNode, function: FunctionInfo) -> bool:
        """Whether the host value `node` reads (a `.item()`, `.tolist()`)
        sizes something that must be known on the host: an allocation whose
        size depends on the data (nonzero, unique, masked_select), a slice
        bound, a launch grid; directly or through the names it is assigned
        to. Such a read cannot be avoided by keeping the value on the device."""
        index = self._flow(function)
        current: cst.CSTNode | None = node
        statement: cst.CSTNode | None = None
        while current is not None and not isinstance(current, cst.BaseStatement):
            if id(current) in index.size_nodes:
                return True
            if isinstance(current, (cst.Assign, cst.AnnAssign, cst.AugAssign)):
                statement = current
            current = index.parents.get(id(current))
        if statement is None:
            return False
        tracked = set(_assignment_targets(statement))
        changed = True
        while changed:
            changed = False
            for targets, read in index.assignments:
                if read & tracked and not tracked.issuperset(targets):
                    tracked.update(targets)
                    changed = True
        return bool(tracked & index.size_names)

    def maybe_number(self, node: cst.BaseExpression, function: FunctionInfo) -> bool:
        """A name the function tests for being a tensor (`isinstance(v,
        torch.Tensor)`, `torch.is_tensor(v)`): an argument that arrives as a
        Python number or as a (usually CPU, 0-d) scalar tensor; also after
        a cast of it (`v.to(dtype)`, `v.float()`)."""
        while (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value in CAST_METHODS | {"to"}
        ):
            node = node.func.value
        return isinstance(node, cst.Name) and node.value in self._flow(function).type_tested

    def host_guarded(self, node: cst.CSTNode, function: FunctionInfo) -> bool:
        """Inside the body of `if not t.is_cuda:` / `if t.device.type ==
        "cpu":` / `if t.is_cpu:`, testing the tensor `node` reads."""
        index = self._flow(function)
        base = node
        while isinstance(base, (cst.Call, cst.Attribute, cst.Subscript)):
            base = base.func if isinstance(base, cst.Call) else base.value
        if not isinstance(base, cst.Name):
            return False
        current: cst.CSTNode | None = node
        while current is not None:
            parent = index.parents.get(id(current))
            if isinstance(parent, cst.If) and current is parent.body and _tests_cpu(parent.test, base.value):
                return True
            current = parent
        return False

    def only_if_strided(self, node: cst.CSTNode, function: FunctionInfo, tensor: cst.BaseExpression) -> bool:
        """Inside the body of `if not t.is_contiguous():` for the tensor
        `tensor`: a copy made there replaces one the code needs anyway."""
        current: cst.CSTNode | None = node
        while current is not None:
            parent = self.parent(current, function)
            if isinstance(parent, cst.If) and current is parent.body:
                test = parent.test
                if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
                    inner = test.expression
                    if isinstance(inner, cst.Call) and call_name(inner) == "is_contiguous":
                        if self.code(inner.func.value) == self.code(tensor):  # type: ignore[attr-defined]
                            return True
            current = parent
        return False

    def branch_tests(self, function: FunctionInfo) -> tuple[cst.BaseExpression, ...]:
        """The conditions Python evaluates to steer control flow in the
        function: `if`, `while`, `assert` and ternary tests."""
        return self._flow(function).tests

    def parent(self, node: cst.CSTNode, function: FunctionInfo) -> cst.CSTNode | None:
        return self._flow(function).parents.get(id(node))

    def inside(self, node: cst.CSTNode, ancestor: cst.CSTNode, function: FunctionInfo) -> bool:
        parents = self._flow(function).parents
        current: cst.CSTNode | None = node
        while current is not None:
            if current is ancestor:
                return True
            current = parents.get(id(current))
        return False

    # -- loops ---------------------------------------------------------------
    def loops(self, function: FunctionInfo) -> tuple[Loop, ...]:
        """Every loop of the function's own body (not nested functions), in
        source order, with what it walks."""
        return self._flow(function).loops

    def enclosing_loops(self, node: cst.CSTNode, function: FunctionInfo) -> list[Loop]:
        """The loops around `node`, outermost first. The iterable of a
        `for` is not inside its loop; its body (and target) is."""
        index = self._flow(function)
        by_id = {id(loop.node): loop for loop in index.loops}
        found: list[Loop] = []
        current: cst.CSTNode | None = index.parents.get(id(node))
        previous: cst.CSTNode | None = node
        while current is not None:
            loop = by_id.get(id(current))
            if loop is not None and previous is not getattr(current, "iter", None):
                found.append(loop)
            current, previous = index.parents.get(id(current)), current
        return list(reversed(found))

    def _classify(self, node: cst.For | cst.CompFor, function: FunctionInfo, index: _Index) -> Loop:
        iterable = node.iter
        bound = " ".join(self.code(iterable).split())
        if isinstance(iterable, cst.Call) and self.qualname(iterable.func) in ("enumerate", "reversed"):
            args = positional(iterable)
            if args:
                iterable = args[0]
        if isinstance(iterable, cst.Call) and self.qualname(iterable.func) == "zip":
            kinds = [self._iterable_kind(arg, function, index) for arg in positional(iterable)]
            for kind in ("data", "constant"):
                hit = next((k for k in kinds if k[0] == kind), None)
                if hit is not None:
                    return Loop(node, hit[0], bound, hit[1])
            return Loop(node, "unknown", bound, "")
        kind, why = self._iterable_kind(iterable, function, index)
        return Loop(node, kind, bound, why)

    def _iterable_kind(self, iterable: cst.BaseExpression, function: FunctionInfo, index: _Index) -> tuple[str, str]:
        if isinstance(iterable, (cst.Tuple, cst.List, cst.Set)):
            return "constant", f"{len(iterable.elements)} listed items"
        if isinstance(iterable, cst.Call) and self.qualname(iterable.func) == "range":
            args = positional(iterable)
            if not args:
                return "unknown", ""
            stop = args[0] if len(args) == 1 else args[1]
            if len(args) == 3 and literal_value(args[2]) != 1:
                # `range(0, n, chunk)` walks chunks: few, each a large amount of work.
                return "unknown", ""
            return self._count_kind(stop, function, index)
        named = _last_name(iterable.func if isinstance(iterable, cst.Call) else iterable)
        if named is not None and "chunk" in named.lower():
            # `x.chunk(n)`, `torch.chunk`, `input_chunks`: a few large pieces.
            return "unknown", ""
        if isinstance(iterable, cst.Call):
            method = call_name(iterable)
            name = self.qualname(iterable.func) or ""
            if method in UNBINDING or name in ("torch.unbind", "torch.split"):
                if method == "split" or name == "torch.split":
                    args = positional(iterable)
                    # x.split(1) walks one slice per row; x.split(n_heads_list) does not.
                    if not args or literal_value(args[0]) != 1:
                        return "unknown", ""
                return "data", "one slice of a tensor per step"
        if self.is_tensor(iterable, function):
            return "data", "one slice of a tensor per step"
        return "unknown", ""

    def _count_kind(
        self, stop: cst.BaseExpression, function: FunctionInfo, index: _Index, depth: int = 0
    ) -> tuple[str, str]:
        """Whether a loop count is a data dimension ("data"), a small fixed
        number ("constant") or neither known ("unknown")."""
        if depth > 6:
            return "unknown", ""
        # A shape first: `T, B, _ = x.shape` shadows a module constant `T`.
        if self._from_shape(stop, function, index):
            return "data", "a tensor dimension"
        value = self.constant_value(stop, function)
        if isinstance(value, int) and not isinstance(value, bool):
            return ("constant", f"{value} fixed steps") if value <= HANDFUL else ("data", f"{value} steps")
        named = _last_name(stop)
        if named is not None and "chunk" in named.lower():
            return "unknown", ""
        if named is not None and DATA_DIM_NAME.match(named):
            return "data", f"`{named}` steps"
        if isinstance(stop, cst.Name) and stop.value not in function.params:
            assigned = self.assigned_value(function, stop.value, before=stop)
            if assigned is not None and assigned is not stop:
                return self._count_kind(assigned, function, index, depth + 1)
        if isinstance(stop, cst.BinaryOperation) and not isinstance(stop.operator, (cst.FloorDivide, cst.Divide)):
            left = self._count_kind(stop.left, function, index, depth + 1)
            right = self._count_kind(stop.right, function, index, depth + 1)
            if "data" in (left[0], right[0]):
                return left if left[0] == "data" else right
        return "unknown", ""

    def _from_shape(
        self, node: cst.BaseExpression, function: FunctionInfo, index: _Index | None = None, depth: int = 0
    ) -> bool:
        """`x.shape[i]`, `x.size(i)`, `len(x)` of a tensor, or a name bound
        from those (`T, B, _ = x.shape`)."""
        if depth > 6:
            return False
        index = index or self._flow(function)
        if (
            isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Attribute)
            and node.value.attr.value == "shape"
        ):
            return True
        if isinstance(node, cst.Call):
            method = call_name(node)
            if method in ("size", "numel") and not positional(node)[1:]:
                return True
            if self.qualname(node.func) == "len":
                args = positional(node)
                return bool(args) and self.is_tensor(args[0], function)
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, (cst.FloorDivide, cst.Divide)):
                return False  # a count of chunks of a dimension, not the dimension
            return self._from_shape(node.left, function, index, depth + 1) or self._from_shape(
                node.right, function, index, depth + 1
            )
        if isinstance(node, cst.Name):
            if node.value in index.shape_names:
                return True
            if node.value in function.params:
                return False
            assigned = self.assigned_value(function, node.value, before=node)
            return (
                assigned is not None and assigned is not node and self._from_shape(assigned, function, index, depth + 1)
            )
        return False

    def _is_shape(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, cst.Attribute) and node.attr.value == "shape":
            return True
        if isinstance(node, cst.Subscript):
            return self._is_shape(node.value)
        return isinstance(node, cst.Call) and call_name(node) == "size" and not node.args

    # -- tensors and numbers -------------------------------------------------
    def is_number(self, node: cst.BaseExpression, function: FunctionInfo, depth: int = 0) -> bool:
        """A Python number (or a tuple of them): literals, `x.shape[0]`,
        `x.numel()`, `len(...)`, `.item()`, arithmetic on those, and names
        bound to them."""
        if depth > 8:
            return False
        if literal_value(node) is not None and not isinstance(node, cst.SimpleString):
            return True
        if isinstance(node, cst.Attribute):
            return node.attr.value in NUMBER_ATTRIBUTES
        if isinstance(node, cst.Subscript):
            return (
                isinstance(node.value, cst.Attribute)
                and node.value.attr.value == "shape"
                or (self.is_number(node.value, function, depth + 1))
            )
        if isinstance(node, cst.Call):
            method = call_name(node) or ""
            if (method in NUMBER_METHODS or method.startswith("is_")) and not (
                self.qualname(node.func) or ""
            ).startswith("torch."):
                return True
            return self.qualname(node.func) in NUMBER_FUNCTIONS
        if isinstance(node, cst.BinaryOperation):
            return self.is_number(node.left, function, depth + 1) and self.is_number(node.right, function, depth + 1)
        if isinstance(node, cst.UnaryOperation):
            return self.is_number(node.expression, function, depth + 1)
        if isinstance(node, cst.Comparison):
            return self.is_number(node.left, function, depth + 1) and all(
                self.is_number(c.comparator, function, depth + 1) for c in node.comparisons
            )
        if isinstance(node, cst.Name):
            if node.value in self._flow(function).shape_names or node.value in self.constants:
                return True
            if _annotation(function, node.value) in ("int", "float", "bool"):
                return True
            if node.value in function.params:
                return False
            assigned = self.assigned_value(function, node.value, before=node)
            return assigned is not None and assigned is not node and self.is_number(assigned, function, depth + 1)
        return False

    def is_tensor(self, node: cst.BaseExpression, function: FunctionInfo, depth: int = 0) -> bool:
        """A torch tensor: what torch functions and tensor methods return,
        module tensors (`self.weight`), parameters annotated `torch.Tensor`
        or fed by `get_inputs()`, arithmetic and comparisons involving one,
        and names bound to them."""
        if depth > 8 or self.is_number(node, function):
            return False
        if isinstance(node, cst.Call):
            name = self.qualname(node.func) or ""
            if (
                name.startswith("torch.")
                and not name.startswith(NOT_TENSOR_PREFIXES)
                and name not in NOT_TENSOR_FUNCTIONS
            ):
                return not TORCH_DTYPE.match(name)
            if isinstance(node.func, cst.Attribute) and not name.startswith(
                ("torch.", "triton.", "math.", "numpy.", "np.")
            ):
                if call_name(node) in NUMBER_METHODS:
                    return False
                if call_name(node) in TENSOR_ONLY_METHODS and not self.is_number(node.func.value, function):
                    return True
                return self.is_tensor(node.func.value, function, depth + 1)
            return False
        if isinstance(node, cst.Attribute):
            if self.module_tensor(node, function) is not None:
                return not self.is_module_collection(node, function)
            return node.attr.value in FREE_ATTRIBUTES | {"grad"} and self.is_tensor(node.value, function, depth + 1)
        if isinstance(node, cst.Subscript):
            return self.is_tensor(node.value, function, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            return self.is_tensor(node.left, function, depth + 1) or self.is_tensor(node.right, function, depth + 1)
        if isinstance(node, cst.UnaryOperation):
            return not isinstance(node.operator, cst.Not) and self.is_tensor(node.expression, function, depth + 1)
        if isinstance(node, cst.Comparison):
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
                return False
            sides = [node.left, *(c.comparator for c in node.comparisons)]
            if any(isinstance(side, cst.Attribute) and side.attr.value in NUMBER_ATTRIBUTES for side in sides):
                return False  # `t.dtype != dtype`: metadata, not values
            return self.is_tensor(node.left, function, depth + 1) or any(
                self.is_tensor(c.comparator, function, depth + 1) for c in node.comparisons
            )
        if isinstance(node, cst.Name):
            if node.value in function.params:
                annotation = _annotation(function, node.value)
                if annotation is not None:
                    return annotation.endswith("Tensor")
                if self.get_inputs_element(function, node.value) is not None:
                    return True
                # An nn.Module's forward takes tensors positionally; flags and
                # sizes come with defaults.
                cls = self.class_of(function)
                return (
                    cls is not None
                    and cls.is_nn_module
                    and function.name == "forward"
                    and node.value != "self"
                    and _default(function, node.value) is None
                )
            if node.value in self._flow(function).loop_targets:
                return False
            assigned = self.assigned_value(function, node.value, before=node)
            return assigned is not None and assigned is not node and self.is_tensor(assigned, function, depth + 1)
        return False

    def on_host(self, node: cst.BaseExpression, function: FunctionInfo, depth: int = 0) -> bool:
        """A tensor built on the CPU from Python values (`torch.tensor(...)`
        or `torch.as_tensor(...)` without a device), or computed from one:
        reading it needs no GPU."""
        if depth > 8:
            return False
        if isinstance(node, cst.Call):
            name = self.qualname(node.func) or ""
            if name in ("torch.tensor", "torch.as_tensor", "torch.from_numpy") or name in HOST_CREATORS:
                # Without a device the new tensor is on the CPU (`torch.randint(0, 2**31, (1,)).item()`, a seed).
                return not any(a.keyword is not None and a.keyword.value == "device" for a in node.args)
            if name.startswith("torch.") and positional(node):
                return self.on_host(positional(node)[0], function, depth + 1)
            if isinstance(node.func, cst.Attribute):
                return self.on_host(node.func.value, function, depth + 1)
            return False
        if isinstance(node, (cst.Subscript, cst.Attribute)):
            return self.on_host(node.value, function, depth + 1)
        if isinstance(node, cst.BinaryOperation):
            return self.on_host(node.left, function, depth + 1) and (
                self.is_number(node.right, function) or self.on_host(node.right, function, depth + 1)
            )
        if isinstance(node, cst.Name) and node.value not in function.params:
            assigned = self.assigned_value(function, node.value, before=node)
            return assigned is not None and assigned is not node and self.on_host(assigned, function, depth + 1)
        return False

    # -- where code runs -----------------------------------------------------
    def under_debug_flag(self, node: cst.CSTNode, function: FunctionInfo) -> bool:
        """Inside the body of `if DEBUG:`, `if self.debug:`, `if __debug__:`
        (or a test that requires one with `and`): code that runs only when
        someone is debugging, not on the served path."""
        parents = self._flow(function).parents
        current: cst.CSTNode | None = node
        while current is not None:
            parent = parents.get(id(current))
            if isinstance(parent, cst.If) and current is parent.body and _debug_flag(parent.test):
                return True
            current = parent
        return False

    def is_test_or_benchmark(self, function: FunctionInfo) -> bool:
        """Code that measures or tests rather than serves: test/benchmark
        files and functions named `test_*`/`bench*`/`benchmark*`/`profile*`."""
        parts = re.split(r"[\\/]", self.path.lower())
        if any(p in ("tests", "test", "benchmark", "benchmarks", "bench", "testing") for p in parts[:-1]):
            return True
        stem = parts[-1]
        if (
            stem.startswith(("test_", "bench"))
            or stem.endswith(("_test.py", "_bench.py", "_benchmark.py"))
            or stem == "conftest.py"
        ):
            return True
        name = function.name.lower().lstrip("_")
        return name.startswith(("test", "bench", "profile", "check_", "verify", "debug"))


__all__ = ["HostFlowFacts", "Loop"]
