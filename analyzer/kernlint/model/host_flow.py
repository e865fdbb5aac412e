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
from kernlint.model.kernel import KernelFacts
from kernlint.model.syntax import call_name, literal_value, positional, statements
from kernlint.model.torch_api import (
    FREE_ATTRIBUTES,
    NOT_TENSOR_FUNCTIONS,
    NOT_TENSOR_PREFIXES,
    NUMBER_ATTRIBUTES,
    NUMBER_FUNCTIONS,
    NUMBER_METHODS,
    TENSOR_ONLY_METHODS,
    TORCH_DTYPE,
    UNBINDING,
)

# A loop over at most this many constant items is "a handful" (3 streams, 4
# heads of a config), not a data dimension.
HANDFUL = 16

# Names that say a number counts steps of a data dimension.
DATA_DIM_NAME = re.compile(
    r"^_?(?:t|T|seq|seqlen|seq_?len(?:gth)?|.*_seq_?len|max_?len|length|.*_length|len_.*|n_?steps|num_?steps|"
    r"steps|time_?steps|n_?time|timesteps|horizon|n_?tokens|num_?tokens|max_new_tokens|n_?ctx|context_?len)$"
)


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
        root = function.node if function.node is not None else self.module
        # Depth first with children pushed in reverse: nodes pop in source
        # order, so loops and tests are listed in order without positions.
        stack: list[cst.CSTNode] = [root.body] if isinstance(root, cst.FunctionDef) else list(reversed(root.children))
        for node in stack:
            parents[id(node)] = root
        while stack:
            node = stack.pop()
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue  # their own scopes
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
            children = node.children
            for child in children:
                parents[id(child)] = node
            stack.extend(reversed(children))
        ordered = loop_nodes
        index = _Index(parents, (), tuple(ordered), frozenset(shape_names), loop_targets, tuple(tests))
        # Classifying asks value questions that read this index: serve them
        # the index without its loops while the loops are classified.
        self._flow_cache[id(function)] = index
        loops = tuple(self._classify(node, function, index) for node in ordered)  # type: ignore[arg-type]
        return _Index(parents, loops, tuple(ordered), frozenset(shape_names), loop_targets, tuple(tests))

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
                return True
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
            if name in ("torch.tensor", "torch.as_tensor", "torch.from_numpy"):
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


def _short(text: str, limit: int = 24) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def _last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _annotation(function: FunctionInfo, param: str) -> str | None:
    if function.node is None:
        return None
    params = function.node.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value == param and p.annotation is not None:
            annotation = p.annotation.annotation
            return (
                annotation.attr.value
                if isinstance(annotation, cst.Attribute)
                else (annotation.value if isinstance(annotation, cst.Name) else None)
            )
    return None


def _default(function: FunctionInfo, param: str) -> cst.BaseExpression | None:
    if function.node is None:
        return None
    params = function.node.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value == param:
            return (
                p.default
                if p.default is not None
                else (None if p in params.params or p in params.posonly_params else cst.Name("None"))
            )
    return cst.Name("None")


def _assigned_name(statement: cst.CSTNode | None, value: cst.CSTNode) -> str | None:
    """The single name `value` is assigned to, when `statement` is that
    assignment (`y = value`)."""
    if isinstance(statement, cst.Assign) and statement.value is value and len(statement.targets) == 1:
        target = statement.targets[0].target
        if isinstance(target, cst.Name):
            return target.value
    if isinstance(statement, cst.AnnAssign) and statement.value is value and isinstance(statement.target, cst.Name):
        return statement.target.value
    return None


def _rebound(statement: cst.CSTNode) -> list[str]:
    names = []
    for node in _walk_no_scopes(statement):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                names.extend(_target_names(target.target))
    return names


def _derived(statement: cst.CSTNode, tracked: set[str]) -> bool:
    for node in _walk_no_scopes(statement):
        if isinstance(node, cst.Assign):
            return any(isinstance(n, cst.Name) and n.value in tracked for n in _walk_no_scopes(node.value))
    return False


def _walk_no_scopes(root):
    stack = (
        list(root)
        if isinstance(root, (list, tuple))
        else list(statements(root))
        if isinstance(root, cst.BaseSuite)
        else [root]
    )
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        yield node
        stack.extend(reversed(node.children))


def _returns(function: cst.FunctionDef):
    for node in _walk_no_scopes(function.body):
        if isinstance(node, cst.Return):
            yield node


__all__ = ["HostFlowFacts", "Loop"]
