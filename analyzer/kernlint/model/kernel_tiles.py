"""Kernel-side facts built on the loop index (kernel_loops.py): which loads
in a K loop are masked on K and what the mask reads, how the program id is
mapped to output tiles (row-major, grouped, persistent), and which loops
walk the same row of the same pointer.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import libcst as cst
from kernlint.model.base import kernel_fact
from kernlint.model.facts import Kernel
from kernlint.model.kernel_loops import (
    _SWIZZLES,
    DotLoop,
    KernelLoop,
    KernelLoopFacts,
    LoopLoad,
    RowPasses,
    TileOrder,
    _contains,
    _int_elements,
    _is_none,
    _is_plain_index_call,
    _kept_axis,
    _program_id_calls,
    loop_in_loop,
)
from kernlint.model.syntax import keyword, literal_value, positional, walk


@dataclass(frozen=True)
class TileWindow:
    """A tl.dot tile summed in windows of its columns (`KernelTileFacts.tile_window`)."""

    sum: cst.Call  # the `tl.sum` over the windows
    tile: cst.BaseExpression  # the tensor reshaped into windows
    extent: cst.BaseExpression  # the window's size (`POOL`)


@dataclass(frozen=True)
class SummedLoads:
    """A pointer parameter whose loaded values the kernel only adds up before any other use
    (`KernelTileFacts.summed_loads`): `acc += tl.load(p + ...)` over a window, or `tl.sum` of a block."""

    param: str
    accumulator: str
    # The trip counts of the loops between the accumulator's start and its `+=`, when each is a
    # `tl.static_range(n)`/`range(n)` of a literal or constexpr `n` and the addend is the load itself: a
    # fixed window of their product taps. Empty: blocks summed (`tl.sum`) inside such loops, a window whose
    # taps are not known. None: a sum over a block or a runtime loop (a plane, a depth).
    trips: tuple[cst.BaseExpression, ...] | None


class KernelTileFacts(KernelLoopFacts):
    @kernel_fact
    def k_masked_loads(self, kernel: Kernel, dot_loop: DotLoop) -> list[LoopLoad]:
        """Loads feeding the dots that are masked on the loop's dimension on
        every iteration: the `mask=` reads the loop variable, a name the loop
        rebinds, or a size in the loop's bounds; or a block pointer the loop
        advances along a dimension its `boundary_check` covers. Loads under
        an `if` in the loop (an EVEN_K switch, a last-iteration branch) are
        not masked on every iteration and are left out."""
        loop = dot_loop.loop
        moving = set(loop.targets) | set(loop.assigned) | self._size_names(kernel, dot_loop.bound_names)
        found: list[LoopLoad] = []
        for _, load in dot_loop.operand_loads:
            if load.conditional or any(load is seen for seen in found):
                continue
            if load.mask is not None and not _is_none(load.mask):
                if self.depends_on(kernel, load.mask) & moving:
                    found.append(load)
            elif load.boundary_check is not None and self._checks_advanced_dim(kernel, loop, load):
                found.append(load)
        return found

    @kernel_fact
    def assignment_guards(self, kernel: Kernel, names: frozenset[str]) -> tuple[cst.BaseExpression, ...]:
        """The tests of the `if`s around the assignments of these names
        (`if DIVISIBLE_K: mask = None else: mask = offs_k < K`)."""
        guards = self._loop_index(kernel).guards
        return tuple(test for name in sorted(names) for test in guards.get(name, ()))

    @kernel_fact
    def loaded_k_extent(self, kernel: Kernel, dot_loop: DotLoop) -> bool:
        """Whether the K loop's extent is read from memory inside the kernel
        (`M_e = tl.load(offs + e + 1) - tl.load(offs + e)`: a ragged, per-program
        K such as an expert's token segment), so no launch-time EVEN_K can hold."""
        assignments = self._loop_index(kernel).assignments
        for name in self.depends_on_names(kernel, dot_loop.bound_names):
            for value in assignments.get(name, ()):
                if any(isinstance(n, cst.Call) and self.is_tl(n.func, "load") for n in walk(value)):
                    return True
        return False

    @kernel_fact
    def k_mask_runtime_sizes(self, kernel: Kernel, dot_loop: DotLoop, load: LoopLoad) -> set[str]:
        """The non-constexpr kernel parameters read by the `&` terms of a
        load's mask that move with the K loop (`offs_k < K - k * BLOCK_K`),
        not by its M/N terms: those that do not move (`row_mask`) and those
        broadcast along the operand's M/N axis (`(h_in < H)[:, None]` on the
        A tile: a convolution's padding, which changes per step but not
        along K). Empty when K is a constexpr."""
        if load.mask is None:
            return set()
        mask: cst.BaseExpression = load.mask
        positions = {position for position, seen in dot_loop.operand_loads if seen is load}
        transposed = any(
            isinstance(node, cst.Call) and (self.is_tl(node.func, "trans") or self.is_tl(node.func, "permute"))
            for dot in dot_loop.dots
            for node in walk(dot)
        )
        # The axis of the tile that is not K: rows of A, columns of B.
        other_axis = positions.pop() if len(positions) == 1 and not transposed else None
        loop = dot_loop.loop
        moving = set(loop.targets) | set(loop.assigned) | self._size_names(kernel, dot_loop.bound_names)
        assignments = self._loop_index(kernel).assignments
        found: set[str] = set()
        pending = [mask]
        seen: set[str] = set()
        while pending:
            term = pending.pop()
            if isinstance(term, cst.BinaryOperation) and isinstance(term.operator, cst.BitAnd):
                pending += [term.left, term.right]
                continue
            if isinstance(term, cst.Subscript):
                if other_axis is not None and _kept_axis(term) == other_axis:
                    continue
                pending.append(term.value)
                continue
            if isinstance(term, cst.Name) and term.value not in seen and len(assignments.get(term.value, ())) == 1:
                seen.add(term.value)
                pending.append(assignments[term.value][0])
                continue
            names = self.depends_on(kernel, term)
            if names & moving:
                found |= self._size_names(kernel, names)
        return found

    def _size_names(self, kernel: Kernel, names: frozenset[str]) -> set[str]:
        # Runtime (non-constexpr) parameters in the loop bounds: K in
        # `range(0, K, BLOCK_K)` or `range(tl.cdiv(K, BLOCK_K))`.
        constexprs = set(kernel.constexprs)
        found = set()
        for name in self.depends_on_names(kernel, names):
            param = kernel.param(name)
            if param is not None and name not in constexprs:
                found.add(name)
        return found

    def _checks_advanced_dim(self, kernel: Kernel, loop: KernelLoop, load: LoopLoad) -> bool:
        """A block-pointer load whose `boundary_check` covers a dimension
        the loop `tl.advance`s along."""
        checked = _int_elements(load.boundary_check)
        if checked is None:
            return True  # computed: assume it covers K
        base = load.call.args[0].value if load.call.args else None
        if not isinstance(base, cst.Name):
            return bool(checked)
        for call in self.loop_uses(loop, "advance"):
            args = positional(call)
            offsets = keyword(call, "offsets") or (args[1] if len(args) > 1 else None)
            pointer = keyword(call, "base") or (args[0] if args else None)
            if not isinstance(pointer, cst.Name) or pointer.value != base.value:
                continue
            if not isinstance(offsets, (cst.Tuple, cst.List)):
                return bool(checked)
            for dim, element in enumerate(offsets.elements):
                if dim in checked and not (isinstance(element.value, cst.Integer) and element.value.value == "0"):
                    return True
        return False

    # -- tile order --
    @kernel_fact
    def tile_order(self, kernel: Kernel, dot_loop: DotLoop) -> TileOrder:
        """How the program id maps to the output tile whose K loop this is.
        A and B must each follow their own program-id-derived index (rows of
        A, columns of B); otherwise the kernel is "not-2d"."""
        index = self._loop_index(kernel)
        pid_names = self._pid_names(kernel)
        operands: dict[int, set[str]] = {0: set(), 1: set()}
        direct: dict[int, set[str]] = {0: set(), 1: set()}
        for position, load in dot_loop.operand_loads:
            if not load.call.args:
                continue
            address = load.call.args[0].value
            operands[position] |= self.depends_on(kernel, address) & pid_names
            direct[position] |= {self.code(c) for c in _program_id_calls(self, address)}
            for value in self._values_of(kernel, frozenset(self.depends_on(kernel, address))):
                direct[position] |= {self.code(c) for c in _program_id_calls(self, value)}
        a_only = (operands[0] | direct[0]) - (operands[1] | direct[1])
        b_only = (operands[1] | direct[1]) - (operands[0] | direct[0])
        tile_names = frozenset((a_only | b_only) & pid_names)
        feeding = tuple(
            call
            for call in index.program_ids
            if any(
                _contains(value, call) for value in self._values_of(kernel, self.depends_on_names(kernel, tile_names))
            )
            or self.code(call) in (a_only | b_only)
        )
        a_set, b_set = frozenset(a_only), frozenset(b_only)
        if not a_only or not b_only:
            return TileOrder("not-2d", feeding, a_set, b_set)
        if loop_in_loop(index.loops, dot_loop.loop) or self._through_loop_target(kernel, tile_names):
            return TileOrder("persistent", feeding, a_set, b_set)
        chain = self.depends_on_names(kernel, tile_names)
        if any("group" in name.lower() for name in chain) or self._swizzled(kernel, a_set, b_set, pid_names):
            return TileOrder("grouped", feeding, a_set, b_set)
        # Only the index arithmetic counts, not the pointers built from it.
        pointers = {p for loop in index.loops for load in loop.loads for p in load.pointers}
        indices = frozenset(
            name for name in chain & pid_names if not self.depends_on(kernel, cst.Name(name)) & pointers
        )
        for value in self._values_of(kernel, indices):
            for node in walk(value):
                if isinstance(node, cst.Call):
                    if any(self.is_tl(node.func, s) for s in _SWIZZLES):
                        return TileOrder("grouped", feeding, a_set, b_set)
                    if not _is_plain_index_call(self, node):
                        return TileOrder("computed", feeding, a_set, b_set)
        if not feeding:
            return TileOrder("not-2d", feeding, a_set, b_set)
        return TileOrder("row-major", feeding, a_set, b_set)

    def _swizzled(self, kernel: Kernel, a: frozenset[str], b: frozenset[str], pid_names: frozenset[str]) -> bool:
        """The grouped order by its arithmetic, whatever its names: both the row
        and the column tile index come from the program id through a modulo
        and a floor division (`pm = m0 + (pid % width) % gsz`, `pn = (pid %
        width) // gsz`). Row-major order divides for the row and takes the
        modulo for the column; column-major the other way round."""

        def operators(names: frozenset[str]) -> set[type]:
            found: set[type] = set()
            for value in self._values_of(kernel, self.depends_on_names(kernel, names & pid_names)):
                found |= {type(n.operator) for n in walk(value) if isinstance(n, cst.BinaryOperation)}
            return found

        both = {cst.Modulo, cst.FloorDivide}
        return both <= operators(a) and both <= operators(b)

    def _pid_names(self, kernel: Kernel) -> frozenset[str]:
        """Names whose value depends on `tl.program_id`."""
        index = self._loop_index(kernel)
        return frozenset(
            name
            for name in index.assignments
            if any(
                _program_id_calls(self, value)
                for value in self._values_of(kernel, self.depends_on(kernel, cst.Name(name)))
            )
        )

    def _through_loop_target(self, kernel: Kernel, names: frozenset[str]) -> bool:
        targets = {t for loop in self._loop_index(kernel).loops for t in loop.targets}
        return bool(self.depends_on_names(kernel, names) & targets)

    @kernel_fact
    def tile_window(self, kernel: Kernel) -> TileWindow | None:
        """A tl.dot kernel's tile summed in windows of consecutive columns: `tl.sum(tl.reshape(t, (BLOCK_M,
        BLOCK_N // POOL, POOL)), axis=2)` (an average pool over the output features, in the tile); None
        otherwise. Whether `t` is a linear function of the product is the rule's question (KL026); the cost
        model reads the window's size at the launch."""
        if not self.kernel_uses(kernel, "dot") or not self.kernel_uses(kernel, "sum"):
            return None
        for call in kernel.function.calls:
            if not self.is_tl(call.func, "sum"):
                continue
            args = positional(call)
            axis = keyword(call, "axis") or (args[1] if len(args) > 1 else None)
            if not args or axis is None or literal_value(axis) not in (2, -1):
                continue
            reshaped = _reshaped_3d(self, args[0])
            if reshaped is not None:
                return TileWindow(call, *reshaped)
        return None

    # -- row passes --
    @kernel_fact
    def triangle_mask(self, kernel: Kernel) -> cst.Comparison | None:
        """The comparison that masks a tl.dot kernel's result to a triangle before it is stored, in a
        `tl.where` or a store's mask (`offs_n[None, :] >= offs_m[:, None]`: one offset vector as a column
        against another as a row), where the kernel computes every tile (no `return` under an `if`, the
        early exit of a tile that lies wholly in the zero triangle); None otherwise (KL025, and the flops
        its fix saves in the cost model)."""
        if not self.kernel_uses(kernel, "dot") or kernel.function.node is None:
            return None
        found: list[tuple[cst.Call, cst.Comparison]] = []
        for call in kernel.function.calls:
            if self.is_tl(call.func, "where"):
                args = positional(call)
                condition = args[0] if args else None
            elif self.is_tl(call.func, "store"):
                condition = keyword(call, "mask") or (positional(call)[2] if len(positional(call)) > 2 else None)
            else:
                continue
            if isinstance(condition, cst.Name):
                # `keep = offs_m[:, None] >= offs_n[None, :]`, then `tl.where(keep, acc, 0.0)`.
                condition = self.assigned_value(kernel.function, condition.value, before=call, strict=True)
            if condition is not None:
                found.extend(
                    (call, node)
                    for node in walk(condition)
                    if isinstance(node, cst.Comparison) and _row_against_column(node)
                )
        if not found:
            return None  # most kernels: the walks below are not needed
        body = kernel.function.node
        if any(isinstance(n, cst.If) and any(isinstance(m, cst.Return) for m in walk(n)) for n in walk(body)):
            return None
        # The result after the K loop, not a product inside it (a causal attention's scores, masked per tile).
        in_loops = {id(n) for loop in walk(body) if isinstance(loop, cst.For) for n in walk(loop.body)}
        for call, node in found:
            if id(call) in in_loops:
                continue
            # Two offset vectors of the output's tiles, each placed by the program id: the triangle crosses the
            # grid. A mask of one vector against itself (`o_i[:, None] >= o_i[None, :]`) is within the one tile
            # every program computes (a chunk's causal mask): no tile to skip.
            bases = {_base_name(node.left), _base_name(node.comparisons[0].comparator)}
            if len(bases) == 2 and None not in bases and bases <= self._pid_names(kernel):
                return node
        return None

    @kernel_fact
    def parity_masks(self, kernel: Kernel) -> tuple[tuple[cst.Comparison, cst.BaseExpression], ...]:
        """The stride-parity tests of a tl.dot kernel's taps that mask what it computes rather than skip a tap
        (`vd = (td >= 0) & (td % STRIDE == 0) & ...`, one per output dimension): a remainder compared with 0,
        in a loop around a `tl.dot`, not in an `if` test; each with its modulus (the stride). A transposed
        convolution written as a gather over every tap so runs the products of the taps these masks zero
        (KL025, and the flops its fix saves in the cost model). One per remainder's left operand."""
        body = kernel.function.node
        if body is None or not self.kernel_uses(kernel, "dot"):
            return ()
        remainders = [
            n for n in walk(body) if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Modulo)
        ]
        if not remainders:
            return ()  # most kernels: the walks below are not needed
        tested = {id(n) for node in walk(body) if isinstance(node, (cst.If, cst.While)) for n in walk(node.test)}
        around_dots = {
            id(n)
            for loop in walk(body)
            if isinstance(loop, cst.For)
            and any(isinstance(c, cst.Call) and self.is_tl(c.func, "dot") for c in walk(loop.body))
            for n in walk(loop.body)
        }
        found: list[tuple[cst.Comparison, cst.BaseExpression]] = []
        seen: set[str] = set()
        for node in walk(body):
            if not isinstance(node, cst.Comparison) or id(node) not in around_dots or id(node) in tested:
                continue
            if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, cst.Equal):
                continue
            sides = (node.left, node.comparisons[0].comparator)
            remainder = next(
                (
                    side
                    for side, other in (sides, sides[::-1])
                    if literal_value(other) == 0
                    and isinstance(side, cst.BinaryOperation)
                    and isinstance(side.operator, cst.Modulo)
                ),
                None,
            )
            if remainder is None:
                continue
            dividend = self.code(remainder.left)
            if dividend not in seen:
                seen.add(dividend)
                found.append((node, remainder.right))
        return tuple(found)

    def row_passes(self, kernel: Kernel) -> tuple[RowPasses, ...]:
        """For each statement block of the body and each pointer parameter,
        the sequential loops of that block (not nested in one another) that
        load tiles from it (addresses built with `tl.arange` or block
        pointers, not one element at a time); only groups of two or more
        loops, in source order."""
        index = self._loop_index(kernel)
        groups: dict[tuple[int, str], list[KernelLoop]] = defaultdict(list)
        for loop in index.loops:
            pointers: list[str] = []
            for load in self._loads_of(loop, index):
                for pointer in load.pointers if load.tile else ():
                    if pointer not in pointers:
                        pointers.append(pointer)
            for pointer in pointers:
                groups[(loop.suite, pointer)].append(loop)
        return tuple(RowPasses(pointer, tuple(loops)) for (_, pointer), loops in groups.items() if len(loops) >= 2)

    @kernel_fact
    def summed_loads(self, kernel: Kernel) -> tuple[SummedLoads, ...]:
        """The pointer parameters whose every load is first added up with loads of the same parameter
        (`acc += tl.load(y + off)` in a window's loops, `acc += tl.sum(tl.load(...), axis=0)`), the load
        masked (`other=0`), cast or held in a name on the way: the kernel reduces the tensor by a linear sum
        before any nonlinearity. A linear function of a convolution's output that way (an average pool of it)
        commutes with the convolution (KL026)."""
        if kernel.function.node is None or not self.kernel_uses(kernel, "load"):
            return ()
        body = kernel.function.node.body
        loops: dict[int, tuple[cst.For, ...]] = {}  # id of a statement -> the for loops around it

        def visit(block: cst.BaseSuite, around: tuple[cst.For, ...]) -> None:
            for statement in getattr(block, "body", ()):
                loops[id(statement)] = around
                if isinstance(statement, cst.SimpleStatementLine):
                    for small in statement.body:
                        loops[id(small)] = around
                elif isinstance(statement, cst.BaseCompoundStatement):
                    inner = (*around, statement) if isinstance(statement, cst.For) else around
                    visit(statement.body, inner)
                    orelse = getattr(statement, "orelse", None)
                    if orelse is not None:
                        visit(orelse.body if isinstance(orelse, (cst.Else, cst.If)) else orelse, around)

        visit(body, ())
        smalls = [n for n in walk(body) if isinstance(n, (cst.Assign, cst.AugAssign)) and id(n) in loops]
        # pointer parameter -> (accumulator, trips) of its loads, None once one of them is not summed first
        found: dict[str, tuple[str, tuple[cst.BaseExpression, ...] | None] | None] = {}
        for call in kernel.function.calls:
            if not self.is_tl(call.func, "load") or not call.args:
                continue
            params = self._base_pointers(kernel, call.args[0].value)
            if len(params) != 1 or (params[0] in found and found[params[0]] is None):
                continue
            summed = self._summed_load(kernel, call, smalls, loops)
            if summed is None or (params[0] in found and found[params[0]] != summed):
                found[params[0]] = None
            else:
                found[params[0]] = summed
        return tuple(SummedLoads(param, summed[0], summed[1]) for param, summed in found.items() if summed is not None)

    def _base_pointers(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> list[str]:
        """The parameters an address adds offsets to (`plane + r * W + c` with `plane = y_ptr + pid * H * W`:
        y_ptr), through assignments; not the sizes and strides its offsets multiply."""
        if depth > 12:
            return []
        if isinstance(node, cst.Name):
            param = kernel.param(node.value)
            if param is not None:
                return [] if param.constexpr else [param.name]
            value = self.assigned_value(kernel.function, node.value, before=node)
            return [] if value is None or value is node else self._base_pointers(kernel, value, depth + 1)
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
            found = self._base_pointers(kernel, node.left, depth + 1)
            return found + [p for p in self._base_pointers(kernel, node.right, depth + 1) if p not in found]
        return []

    def _summed_load(
        self,
        kernel: Kernel,
        load: cst.Call,
        smalls: list[cst.Assign | cst.AugAssign],
        loops: dict[int, tuple[cst.For, ...]],
    ) -> tuple[str, tuple[cst.BaseExpression, ...] | None] | None:
        """(accumulator, trips) for one load that is summed first, or None."""

        def holds(expr: cst.BaseExpression, target: cst.CSTNode) -> bool:
            # `expr` is `target` masked, cast or scaled by a number on the way.
            while True:
                if expr is target:
                    return True
                if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "to":
                    expr = expr.func.value
                elif isinstance(expr, cst.Call) and self.is_tl(expr.func, "where"):
                    args = positional(expr)
                    if len(args) != 3 or literal_value(args[2]) != 0:
                        return False
                    expr = args[1]
                else:
                    return False

        # The load held in a name first (`v = tl.load(...)`): what reads the name is what reads the load.
        holder = next(
            (s for s in smalls if isinstance(s, cst.Assign) and len(s.targets) == 1 and holds(s.value, load)), None
        )
        readers: list[cst.CSTNode] = [load]
        if holder is not None:
            target = holder.targets[0].target
            if not isinstance(target, cst.Name):
                return None
            readers = [
                n
                for n in walk(kernel.function.node.body)  # type: ignore[union-attr]
                if isinstance(n, cst.Name) and n.value == target.value and n is not target
            ]
        if not readers:
            return None
        result: tuple[str, tuple[cst.BaseExpression, ...] | None] | None = None
        for reader in readers:
            statement = next((s for s in smalls if any(n is reader for n in walk(s))), None)
            if statement is None or statement is holder:
                return None
            addend = statement.value
            if isinstance(statement, cst.Assign):
                # `avg = tl.sum(v, axis=1) / POOL`: a sum scaled by a number is still the sum, for what follows.
                while (
                    isinstance(addend, cst.BinaryOperation)
                    and isinstance(addend.operator, (cst.Multiply, cst.Divide))
                    and self._scalar(kernel, addend.right)
                ):
                    addend = addend.left
            block_sum = False
            axis_extent: cst.BaseExpression | None = None
            if isinstance(addend, cst.Call) and self.is_tl(addend.func, "sum"):
                args = positional(addend)
                axis = keyword(addend, "axis") or (args[1] if len(args) > 1 else None)
                axis_extent = self._summed_extent(kernel, load, literal_value(axis) if axis is not None else None)
                addend, block_sum = (args[0] if args else addend), True
            if isinstance(statement, cst.AugAssign):
                if not isinstance(statement.operator, cst.AddAssign) or not isinstance(statement.target, cst.Name):
                    return None
                accumulator = statement.target.value
            elif block_sum and len(statement.targets) == 1 and isinstance(statement.targets[0].target, cst.Name):
                accumulator = statement.targets[0].target.value  # `s = tl.sum(v, axis=0)`
            else:
                return None
            if not holds(addend, reader if holder is not None else load):
                return None
            looped, trips = self._window_trips(statement, kernel, accumulator, smalls, loops)
            if block_sum and axis_extent is not None and (not looped or trips):
                trips = (*(trips or ()), axis_extent)  # the block's summed axis is a window of that size
            elif block_sum and looped:
                trips = ()  # blocks summed in a window's loops: a window, its taps not known
            elif block_sum:
                trips = None
            elif not looped:
                return None  # added once (`v += tl.load(bias + co)`): a shift, not a sum of the tensor
            if result is not None and result != (accumulator, trips):
                return None
            result = (accumulator, trips)
        return result

    def _scalar(self, kernel: Kernel, node: cst.BaseExpression) -> bool:
        """A number: a literal, a kernel parameter (a scalar or a constexpr), or arithmetic of those."""
        if isinstance(node, (cst.Integer, cst.Float)):
            return True
        if isinstance(node, cst.Name):
            return kernel.param(node.value) is not None
        if isinstance(node, cst.BinaryOperation):
            return self._scalar(kernel, node.left) and self._scalar(kernel, node.right)
        return False

    def _summed_extent(self, kernel: Kernel, load: cst.Call, axis: object) -> cst.BaseExpression | None:
        """The size of the axis a `tl.sum(tl.load(p + ...), axis=a)` adds up, where the address spreads that
        axis by one `tl.arange(0, E)` (`offs_k[None, :]` for axis 1) of a literal or constexpr E; None
        otherwise."""
        if not isinstance(axis, int) or not load.args:
            return None
        found: list[cst.BaseExpression] = []

        def visit(node: cst.BaseExpression, at: int, depth: int) -> None:
            # `node` contributes to axis `at` of the address: through sums and products of its terms, a name's
            # value, and a subscript that spreads a vector along some axes (`col[None, :, :]`: axis 2 of the
            # result is axis 1 of col).
            if depth > 6:
                return
            if isinstance(node, cst.BinaryOperation):
                visit(node.left, at, depth + 1)
                visit(node.right, at, depth + 1)
            elif isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
                slots = [e.slice for e in node.slice]
                if at >= len(slots) or not isinstance(slots[at], cst.Slice):
                    return  # broadcast along that axis
                value = self.assigned_value(kernel.function, node.value.value, before=node)
                if isinstance(value, cst.Call) and self.is_tl(value.func, "arange"):
                    args = positional(value)
                    spread = [i for i, e in enumerate(slots) if isinstance(e, cst.Slice)]
                    if spread == [at] and len(args) == 2 and literal_value(args[0]) == 0:
                        found.append(args[1])
                elif isinstance(value, cst.BaseExpression) and not isinstance(value, cst.Call):
                    inner = sum(1 for e in slots[:at] if isinstance(e, cst.Slice))
                    visit(value, inner, depth + 1)
            elif isinstance(node, cst.Name) and kernel.param(node.value) is None:
                value = self.assigned_value(kernel.function, node.value, before=node)
                if isinstance(value, cst.BaseExpression) and not isinstance(value, cst.Call):
                    visit(value, at, depth + 1)

        visit(load.args[0].value, axis, 0)
        codes = {self.code(e) for e in found}
        if len(codes) != 1:
            return None
        extent = found[0]
        param = kernel.param(extent.value) if isinstance(extent, cst.Name) else None
        return extent if isinstance(extent, cst.Integer) or (param is not None and param.constexpr) else None

    def _window_trips(
        self,
        statement: cst.Assign | cst.AugAssign,
        kernel: Kernel,
        accumulator: str,
        smalls: list[cst.Assign | cst.AugAssign],
        loops: dict[int, tuple[cst.For, ...]],
    ) -> tuple[bool, tuple[cst.BaseExpression, ...] | None]:
        """Whether loops around `acc += load` do not also hold acc's start (`acc = tl.zeros(...)`), so the
        statement adds up many loads; and their trip counts when each is a `tl.static_range(n)`/`range(n)`
        of a literal or a constexpr (a fixed window), None otherwise."""
        start = next(
            (
                s
                for s in reversed(smalls)
                if isinstance(s, cst.Assign)
                and any(isinstance(t.target, cst.Name) and t.target.value == accumulator for t in s.targets)
                and self.line_of(s) < self.line_of(statement)
            ),
            None,
        )
        if start is None:
            return False, None
        outer = {id(loop) for loop in loops.get(id(start), ())}
        inner = [loop for loop in loops.get(id(statement), ()) if id(loop) not in outer]
        trips: list[cst.BaseExpression] = []
        for loop in inner:
            iterable = loop.iter
            args = positional(iterable) if isinstance(iterable, cst.Call) else []
            name = self.qualname(iterable.func) if isinstance(iterable, cst.Call) else None
            static = name == "range" or (isinstance(iterable, cst.Call) and self.is_tl(iterable.func, "static_range"))
            count = args[0] if static and len(args) == 1 else None
            param = kernel.param(count.value) if isinstance(count, cst.Name) else None
            if count is None or not (isinstance(count, cst.Integer) or (param is not None and param.constexpr)):
                return bool(inner), None
            trips.append(count)
        return bool(inner), tuple(trips) if trips else None


def _broadcast_axis(node: cst.BaseExpression) -> int | None:
    """0 for `v[:, None]` (a column), 1 for `v[None, :]` (a row), None for anything else."""
    if not isinstance(node, cst.Subscript) or len(node.slice) != 2:
        return None
    kinds = []
    for element in node.slice:
        index = element.slice
        if isinstance(index, cst.Slice) and index.lower is None and index.upper is None:
            kinds.append(":")
        elif isinstance(index, cst.Index) and isinstance(index.value, cst.Name) and index.value.value == "None":
            kinds.append("None")
        else:
            return None
    return {(":", "None"): 0, ("None", ":"): 1}.get((kinds[0], kinds[1]))


def _row_against_column(node: cst.Comparison) -> bool:
    """`a[:, None] >= b[None, :]` (or the other way round, with < <= > >=): an output tile's row offsets
    against its column offsets, a triangle's edge."""
    if len(node.comparisons) != 1:
        return False
    target = node.comparisons[0]
    if not isinstance(target.operator, (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)):
        return False
    sides = {_broadcast_axis(node.left), _broadcast_axis(target.comparator)}
    return sides == {0, 1}


def _base_name(node: cst.BaseExpression) -> str | None:
    """`offs_m` of `offs_m[:, None]`."""
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name):
        return node.value.value
    return None


def _reshaped_3d(model, node: cst.BaseExpression) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
    """(the tensor, its last extent) of a 3-D `tl.reshape(t, (a, b, c))`, `tl.view(t, [a, b, c])` or
    `t.reshape(a, b, c)`."""
    if not isinstance(node, cst.Call):
        return None
    args = positional(node)
    if (model.is_tl(node.func, "reshape") or model.is_tl(node.func, "view")) and args:
        shape = keyword(node, "shape") or (args[1] if len(args) > 1 else None)
        elements = shape.elements if isinstance(shape, (cst.Tuple, cst.List)) else ()
        tile, extents = args[0], tuple(e.value for e in elements)
    elif isinstance(node.func, cst.Attribute) and node.func.attr.value in ("reshape", "view"):
        tile = node.func.value
        if len(args) == 1 and isinstance(args[0], (cst.Tuple, cst.List)):
            extents = tuple(e.value for e in args[0].elements)
        else:
            extents = tuple(args)
    else:
        return None
    return (tile, extents[2]) if len(extents) == 3 else None
