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
