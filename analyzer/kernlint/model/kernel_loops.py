"""Kernel loop facts: the loops of a `@triton.jit` body and what happens in
them. Which loop is the K loop of a `tl.dot` and which loads feed it (with
what masks), how the program id is mapped to output tiles (row-major,
grouped, or by a persistent loop), and which sequential loops walk the same
row of the same pointer.

Each kernel body is walked once (`_loop_index`); every query reads that
index, so the cost stays linear in the file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import libcst as cst
from kernlint.model.base import ModelBase, kernel_fact
from kernlint.model.facts import FunctionInfo, Kernel
from kernlint.model.kernel import KernelFacts, tile_shape
from kernlint.model.syntax import keyword, names_in, positional, visit, walk

# Calls whose value spans a block of elements: a load from an address built
# with them reads a tile.
_TILE_CALLS = ("arange", "make_block_ptr", "make_tensor_descriptor")
# Calls that pass a value through unchanged as far as its dependencies go.
_LOAD_WRAPPERS = frozenset({"to", "cast"})
# `tl.*` calls that order tiles on purpose (the tutorial's grouped order).
_SWIZZLES = frozenset({"swizzle2d"})


@dataclass(frozen=True, eq=False, repr=False)
class LoopLoad:
    """A `tl.load` inside a loop: the name it is bound to (None when used
    inline), the pointer parameters its address is built from, its `mask=`
    and block-pointer `boundary_check=`, and whether an `if` inside the loop
    guards it (then it does not run, or not masked, on every iteration)."""

    call: cst.Call
    target: str | None
    pointers: tuple[str, ...]
    mask: cst.BaseExpression | None
    boundary_check: cst.BaseExpression | None
    conditional: bool
    tile: bool  # the address spans a block (tl.arange or a block pointer), not one element


@dataclass(frozen=True, eq=False, repr=False)
class KernelLoop:
    """A `for` loop of a kernel body (`range`, `tl.range`, `tl.static_range`).
    `suite` identifies the statement block holding it: loops with the same
    suite run one after the other. `calls` holds every call in the body,
    nested loops included; `assigned` the names (re)bound there."""

    node: cst.For
    index: int
    parent: int | None
    suite: int
    targets: tuple[str, ...]
    calls: tuple[cst.Call, ...]
    loads: tuple[LoopLoad, ...]
    assigned: frozenset[str]
    guarded_by: tuple[cst.BaseExpression, ...]  # tests of the `if`s around the loop


@dataclass(frozen=True, eq=False, repr=False)
class DotLoop:
    """The K loop of a `tl.dot`: the innermost loop around the dot, the dots
    in it, and the loads whose values reach the dots' operands (with the
    operand position: 0 for A, 1 for B)."""

    loop: KernelLoop
    dots: tuple[cst.Call, ...]
    operand_loads: tuple[tuple[int, LoopLoad], ...]
    bound_names: frozenset[str]  # names in the loop's range(...) bounds
    # Both operands stream from memory in the loop (a GEMM's K loop); False
    # when one is loaded before the loop or computed by another dot
    # (attention's KV loop, a GEMV with a resident vector).
    streams_both: bool


@dataclass(frozen=True, eq=False, repr=False)
class TileOrder:
    """How the program id picks the output tile of a GEMM-like kernel.
    `kind` is "row-major" (tile indices straight from `tl.program_id`, or
    `pid // n`, `pid % n`), "grouped" (a GROUP-style swizzle or
    `tl.swizzle2d`), "persistent" (a loop walks the tiles), "computed" (a
    helper call decides) or "not-2d" (the operands do not each follow their
    own tile index: attention, GEMV, batched reductions). `program_ids` are
    the `tl.program_id` calls that feed the tile indices."""

    kind: str
    program_ids: tuple[cst.Call, ...]
    a_indices: frozenset[str]
    b_indices: frozenset[str]


@dataclass(frozen=True, eq=False, repr=False)
class RowPasses:
    """Sequential loops of one block that each load from the same pointer
    parameter: `loops` in source order."""

    pointer: str
    loops: tuple[KernelLoop, ...]


@dataclass(eq=False)
class _KernelIndex:
    loops: list[KernelLoop]
    assignments: dict[str, list[cst.BaseExpression]]
    program_ids: list[cst.Call]
    dot_calls: list[tuple[cst.Call, int | None]]  # (dot, innermost loop)
    guards: dict[str, list[cst.BaseExpression]]  # name -> tests of the `if`s around its assignments


class _BodyWalker:
    """One pass over a kernel body: loops with their nesting and block,
    assignments (tuple targets and loop targets included), loads with their
    target names, `if` guards."""

    def __init__(self, model: ModelBase, kernel: Kernel) -> None:
        self.model = model
        self.kernel = kernel
        self.loop_stack: list[int] = []
        self.suite_stack: list[int] = []
        self.if_stack: list[tuple[cst.BaseExpression, int]] = []  # (test, loop depth when entered)
        self.raw_loops: list[dict] = []
        self.assignments: dict[str, list[cst.BaseExpression]] = defaultdict(list)
        self.program_ids: list[cst.Call] = []
        self.dot_calls: list[tuple[cst.Call, int | None]] = []
        self.load_targets: dict[int, str] = {}
        self.guards: dict[str, list[cst.BaseExpression]] = defaultdict(list)
        self.depth = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.depth += 1
        return self.depth == 1  # nested defs are other scopes

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.depth -= 1

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.suite_stack.append(id(node))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self.suite_stack.pop()

    def visit_If(self, node: cst.If) -> None:
        self.if_stack.append((node.test, len(self.loop_stack)))

    def leave_If(self, original_node: cst.If) -> None:
        self.if_stack.pop()

    def visit_For(self, node: cst.For) -> None:
        index = len(self.raw_loops)
        targets = tuple(n.value for n in names_in(node.target))
        for name in targets:
            self.assignments[name].append(node.iter)
        self.raw_loops.append(
            {
                "node": node,
                "parent": self.loop_stack[-1] if self.loop_stack else None,
                "suite": self.suite_stack[-1] if self.suite_stack else 0,
                "targets": targets,
                "calls": [],
                "loads": [],
                "assigned": set(),
                "guarded_by": tuple(t for t, _ in self.if_stack),
            }
        )
        self.loop_stack.append(index)

    def leave_For(self, original_node: cst.For) -> None:
        self.loop_stack.pop()

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(value, (cst.Tuple, cst.List))
            and len(target.elements) == len(value.elements)
        ):
            for name, item in zip(target.elements, value.elements):
                self._bind(name.value, item.value)
            return
        if isinstance(target, cst.Name):
            self.assignments[target.value].append(value)
            self._note_assigned(target.value)
            load = _load_inside(self.model, value)
            if load is not None:
                self.load_targets[id(load)] = target.value
        elif isinstance(target, (cst.Tuple, cst.List)):
            # `pid_m, pid_n = helper(pid)`: each name depends on the whole value.
            for element in target.elements:
                if isinstance(element.value, cst.Name):
                    self.assignments[element.value.value].append(value)
                    self._note_assigned(element.value.value)

    def _note_assigned(self, name: str) -> None:
        self.guards[name].extend(test for test, _ in self.if_stack)
        for index in self.loop_stack:
            self.raw_loops[index]["assigned"].add(name)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind(target.target, node.value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind(node.target, node.value)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            self.assignments[node.target.value].append(node.value)
            self._note_assigned(node.target.value)

    def visit_Call(self, node: cst.Call) -> None:
        innermost = self.loop_stack[-1] if self.loop_stack else None
        for index in self.loop_stack:
            self.raw_loops[index]["calls"].append(node)
        if self.model.is_tl(node.func, "program_id"):
            self.program_ids.append(node)
        elif self.model.is_tl(node.func, "dot"):
            self.dot_calls.append((node, innermost))
        elif self.model.is_tl(node.func, "load") and innermost is not None:
            conditional = any(depth >= len(self.loop_stack) for _, depth in self.if_stack)
            self.raw_loops[innermost]["loads"].append((node, conditional))

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self.if_stack.append((node.test, len(self.loop_stack)))

    def leave_IfExp(self, original_node: cst.IfExp) -> None:
        self.if_stack.pop()


def _load_inside(model: ModelBase, value: cst.BaseExpression) -> cst.Call | None:
    """`tl.load(p)`, `tl.load(p).to(tl.float32)`: the load a value is."""
    for _ in range(4):
        if not isinstance(value, cst.Call):
            return None
        if model.is_tl(value.func, "load"):
            return value
        if isinstance(value.func, cst.Attribute) and value.func.attr.value in _LOAD_WRAPPERS:
            value = value.func.value
        elif model.is_tl(value.func, "cast") and value.args:
            value = value.args[0].value
        else:
            return None
    return None


class KernelLoopFacts(KernelFacts):
    """Loops, K loops, masks, tile order and row passes of kernel bodies."""

    @cached_property
    def _loop_indexes(self) -> dict[int, _KernelIndex]:
        return {}

    def grid_axes(self, kernel: Kernel) -> int:
        """How many grid axes the kernel reads (`tl.program_id(2)` -> 3); 0
        when it reads none or an axis that is not a literal."""
        axes = 0
        for call in self._loop_index(kernel).program_ids:
            args = [a.value for a in call.args if a.keyword is None or a.keyword.value == "axis"]
            if not args or not isinstance(args[0], cst.Integer):
                return 0
            axes = max(axes, int(args[0].value) + 1)
        return axes

    @kernel_fact
    def _loop_index(self, kernel: Kernel) -> _KernelIndex:
        index = self._loop_indexes.get(id(kernel))
        if index is not None:
            return index
        walker = _BodyWalker(self, kernel)
        visit(kernel.node, walker)
        loops: list[KernelLoop] = []
        for number, raw in enumerate(walker.raw_loops):
            loads = tuple(
                LoopLoad(
                    call,
                    walker.load_targets.get(id(call)),
                    tuple(self.pointer_params(kernel, call.args[0].value)) if call.args else (),
                    _argument(call, "mask", 1),
                    _argument(call, "boundary_check", 3),
                    conditional,
                    self._is_tile_address(kernel, walker.assignments, call),
                )
                for call, conditional in raw["loads"]
            )
            loops.append(
                KernelLoop(
                    raw["node"],
                    number,
                    raw["parent"],
                    raw["suite"],
                    raw["targets"],
                    tuple(raw["calls"]),
                    loads,
                    frozenset(raw["assigned"]),
                    raw["guarded_by"],
                )
            )
        index = _KernelIndex(loops, dict(walker.assignments), walker.program_ids, walker.dot_calls, dict(walker.guards))
        self._loop_indexes[id(kernel)] = index
        return index

    def _is_tile_address(
        self, kernel: Kernel, assignments: dict[str, list[cst.BaseExpression]], load: cst.Call
    ) -> bool:
        if not load.args:
            return False
        pending: list[cst.CSTNode] = [load.args[0].value]
        seen: set[str] = set()
        while pending:
            node = pending.pop()
            for child in walk(node):
                if isinstance(child, cst.Call) and any(self.is_tl(child.func, n) for n in _TILE_CALLS):
                    return True
            for name in names_in(node):  # type: ignore[arg-type]
                if name.value not in seen:
                    seen.add(name.value)
                    pending.extend(assignments.get(name.value, ()))
        return False

    # -- loops --
    @kernel_fact
    def kernel_loops(self, kernel: Kernel) -> tuple[KernelLoop, ...]:
        """Every `for` loop of the kernel body, in source order."""
        return tuple(self._loop_index(kernel).loops)

    def loop_uses(self, loop: KernelLoop, *names: str) -> list[cst.Call]:
        """Calls to `triton.language.<name>` in the loop (nested loops included)."""
        return [c for c in loop.calls if any(self.is_tl(c.func, n) for n in names)]

    def tile_extents(
        self, kernel: Kernel, node: cst.BaseExpression, number: Callable[[cst.BaseExpression], float | None]
    ) -> tuple[int, ...] | None:
        """The extents of a tile expression of the kernel at a launch (`wv[:, None] * xv[None, :]`: [C_PAD,
        BLOCK_S]), `number` folding a size to its value there, following the names it reads through their
        assignments anywhere in the body where every one of them gives the same extents (a loop's index is
        one number); None where any extent is not known."""
        assignments = self._loop_index(kernel).assignments
        loop_targets = {name for loop in self.kernel_loops(kernel) for name in loop.targets}

        resolving: set[str] = set()

        def resolve(name: str) -> cst.BaseExpression | tuple | None:
            if name in loop_targets:
                return ()
            values = assignments.get(name)
            if not values:
                return ()  # a parameter or a module constant: one value for the whole tile
            if name in resolving:
                return None
            resolving.add(name)
            try:
                shapes = {tile_shape(self, value, number, resolve) for value in values}
            finally:
                resolving.discard(name)
            return shapes.pop() if len(shapes) == 1 else None

        extents = tile_shape(self, node, number, resolve)
        if extents is None or any(e is None for e in extents):
            return None
        return tuple(e for e in extents if e is not None)

    def depends_on(
        self, kernel: Kernel, node: cst.BaseExpression, through_dots: bool = True, through_loads: bool = True
    ) -> frozenset[str]:
        """Every name an expression reads, through the kernel's assignments
        (all of them: a loop may carry a later one back). Without
        `through_dots`, values computed by a `tl.dot` are not followed;
        without `through_loads`, the addresses and masks of loaded values
        are not (a gathered tile depends on its data, not on its indices)."""
        found: set[str] = set()
        pending = [n.value for n in names_in(node)]
        assignments = self._loop_index(kernel).assignments
        while pending:
            name = pending.pop()
            if name in found:
                continue
            found.add(name)
            for value in assignments.get(name, ()):
                if not through_dots and any(isinstance(n, cst.Call) and self.is_tl(n.func, "dot") for n in walk(value)):
                    continue
                if not through_loads and _load_inside(self, value) is not None:
                    continue
                pending.extend(n.value for n in names_in(value))
        return frozenset(found)

    def kernel_values(self, kernel: Kernel, names: frozenset[str]) -> list[cst.BaseExpression]:
        """The values the kernel assigns to `names`, by name."""
        return self._values_of(kernel, names)

    def _values_of(self, kernel: Kernel, names: frozenset[str]) -> list[cst.BaseExpression]:
        assignments = self._loop_index(kernel).assignments
        return [value for name in sorted(names) for value in assignments.get(name, ())]

    # -- K loops --
    @kernel_fact
    def dot_loops(self, kernel: Kernel) -> tuple[DotLoop, ...]:
        """The K loop of each `tl.dot` of the kernel body (the innermost
        loop around it), with the loads that feed each operand."""
        if not any(self.is_tl(call.func, "dot") for call in kernel.function.calls):
            # The function index holds every call of the body that the loop
            # index would (nested defs are other scopes in both): no walk of
            # the body for a kernel without tl.dot, most kernels of a library.
            return ()
        index = self._loop_index(kernel)
        by_loop: dict[int, list[cst.Call]] = defaultdict(list)
        for dot, loop in index.dot_calls:
            if loop is not None:
                by_loop[loop].append(dot)
        found = []
        for number, dots in sorted(by_loop.items()):
            dot_loop_node = index.loops[number]
            operand_loads: list[tuple[int, LoopLoad]] = []
            for position in (0, 1):
                for dot in dots:
                    args = positional(dot)
                    operand = (
                        args[position] if position < len(args) else keyword(dot, "input" if position == 0 else "other")
                    )
                    if operand is None:
                        continue
                    reached = self.depends_on(kernel, operand, through_dots=False, through_loads=False)
                    for load in self._loads_of(dot_loop_node, index):
                        if (load.target is not None and load.target in reached) or _contains(operand, load.call):
                            if all(existing is not load or at != position for at, existing in operand_loads):
                                operand_loads.append((position, load))
            bound = frozenset(n.value for n in names_in(dot_loop_node.node.iter))
            positions = {position for position, _ in operand_loads}
            chained = self._chained_dots(kernel, dots)
            found.append(
                DotLoop(dot_loop_node, tuple(dots), tuple(operand_loads), bound, positions == {0, 1} and not chained)
            )
        return tuple(found)

    def _chained_dots(self, kernel: Kernel, dots: list[cst.Call]) -> bool:
        """Whether an operand of one dot is computed from another dot of the
        same loop (attention: softmax(Q K^T) V), not streamed along K."""
        assignments = self._loop_index(kernel).assignments
        for dot in dots:
            for operand in positional(dot)[:2]:
                for name in self.depends_on(kernel, operand, through_loads=False):
                    for value in assignments.get(name, ()):
                        if any(_contains(value, other) for other in dots):
                            return True
        return False

    @staticmethod
    def _loads_of(loop: KernelLoop, index: _KernelIndex) -> list[LoopLoad]:
        # The loop's own loads and those of loops nested in it.
        nested = [loop]
        for other in index.loops:
            if other.parent is not None and any(other.parent == n.index for n in nested):
                nested.append(other)
        return [load for n in nested for load in n.loads]

    @kernel_fact
    def depends_on_names(self, kernel: Kernel, names: frozenset[str]) -> frozenset[str]:
        found: set[str] = set()
        for name in names:
            if not name.isidentifier():
                # An index written as code (`tl.program_id(0)`): no name to follow,
                # and libcst rightly refuses to make a Name of it.
                found.add(name)
                continue
            found |= self.depends_on(kernel, cst.Name(name))
        return frozenset(found)

    def in_one_block(self, function: FunctionInfo, calls: list[cst.Call]) -> bool:
        """Whether the calls sit in the same statement block of `function`
        (they run one after the other), not in different branches."""
        blocks = self._call_blocks.get(id(function))
        if blocks is None:
            blocks = {}
            if function.node is not None:
                finder = _CallBlocks()
                visit(function.node.body, finder)
                blocks = finder.blocks
            self._call_blocks[id(function)] = blocks
        return len({blocks.get(id(call)) for call in calls}) == 1

    @cached_property
    def _call_blocks(self) -> dict[int, dict[int, int]]:
        return {}

    @kernel_fact
    def loaded_params(self, kernel: Kernel) -> frozenset[str]:
        """The pointer parameters the kernel body loads from (anywhere)."""
        found: set[str] = set()
        for call in kernel.function.calls:
            if self.is_tl(call.func, "load") and call.args:
                found.update(self.pointer_params(kernel, call.args[0].value))
        return frozenset(found)


class _CallBlocks:
    """The innermost statement block of each call of a function body."""

    def __init__(self) -> None:
        self.stack: list[int] = [0]
        self.blocks: dict[int, int] = {}

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.stack.append(id(node))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock) -> None:
        self.stack.pop()

    def visit_Call(self, node: cst.Call) -> None:
        self.blocks[id(node)] = self.stack[-1]


def loop_in_loop(loops: list[KernelLoop], loop: KernelLoop) -> bool:
    return loop.parent is not None


def _argument(call: cst.Call, name: str, position: int) -> cst.BaseExpression | None:
    value = keyword(call, name)
    if value is not None:
        return value
    args = positional(call)
    return args[position] if position < len(args) else None


def _kept_axis(term: cst.Subscript) -> int | None:
    """The axis `x[:, None]` (0) or `x[None, :]` (1) keeps of a 2-D broadcast."""
    elements = term.slice
    if len(elements) != 2:
        return None
    kinds = [isinstance(e.slice, cst.Slice) for e in elements]
    nones = [isinstance(e.slice, cst.Index) and _is_none(e.slice.value) for e in elements]
    if kinds == [True, False] and nones[1]:
        return 0
    if kinds == [False, True] and nones[0]:
        return 1
    return None


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _int_elements(node: cst.BaseExpression | None) -> set[int] | None:
    if isinstance(node, cst.Integer):
        return {int(node.value)}
    if isinstance(node, (cst.Tuple, cst.List)):
        found = set()
        for element in node.elements:
            if not isinstance(element.value, cst.Integer):
                return None
            found.add(int(element.value.value))
        return found
    return None


def _contains(outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
    return any(node is inner for node in walk(outer))


def _program_id_calls(model: ModelBase, node: cst.CSTNode) -> list[cst.Call]:
    return [n for n in walk(node) if type(n) is cst.Call and model.is_tl(n.func, "program_id")]


def _is_plain_index_call(model: ModelBase, call: cst.Call) -> bool:
    """Calls that compute a tile index without reordering tiles."""
    if isinstance(call.func, cst.Name) and call.func.value in ("min", "max", "int"):
        return True
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "to":
        return True
    qualname = model.qualname(call.func) or ""
    return qualname in _INDEX_CALLS


# Calls that keep a tile index a plain function of the program id (`pid //
# n`, `pid % n` and hints). Anything else on the way (tl.sqrt, tl.where, a
# helper) is a custom order the rule cannot judge.
_INDEX_CALLS = frozenset(
    {
        "triton.cdiv",
        "triton.language.cdiv",
        "triton.language.program_id",
        "triton.language.num_programs",
        "triton.language.arange",
        "triton.language.multiple_of",
        "triton.language.max_contiguous",
        "triton.language.minimum",
        "triton.language.maximum",
        "triton.language.cast",
    }
)
