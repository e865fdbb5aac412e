"""Which tensors a Triton kernel only adds up before any other use of their values: an average pool, a mean
or a row sum written in the kernel that reads a convolution's or a GEMM's output (KL026, and the window the
cost model folds into the product).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from kernlint.model.base import kernel_fact
from kernlint.model.facts import Kernel
from kernlint.model.offsets import OffsetFacts
from kernlint.model.syntax import keyword, literal_value, positional, walk


@dataclass(frozen=True)
class SummedLoads:
    """A pointer parameter whose loaded values the kernel only adds up before any other use
    (`SummedLoadFacts.summed_loads`): `acc += tl.load(p + ...)` over a window, or `tl.sum` of a block."""

    param: str
    accumulator: str
    # The trip counts of the loops between the accumulator's start and its `+=`, when each is a
    # `tl.static_range(n)`/`range(n)` of a literal or constexpr `n` and the addend is the load itself: a
    # fixed window of their product taps. Empty: blocks summed (`tl.sum`) inside such loops, a window whose
    # taps are not known. None: a sum over a block or a runtime loop (a plane, a depth).
    trips: tuple[cst.BaseExpression, ...] | None


class SummedLoadFacts(OffsetFacts):
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
        # The pointer parameters each load adds its offsets to (not the sizes and strides it multiplies).
        bases = {id(a.call): a.pointers for a in self.addresses(kernel) if not a.block_pointer}
        for call in kernel.function.calls:
            if not self.is_tl(call.func, "load") or not call.args:
                continue
            params = bases.get(id(call), ())
            if len(params) != 1 or (params[0] in found and found[params[0]] is None):
                continue
            summed = self._summed_load(kernel, call, smalls, loops)
            if summed is None or (params[0] in found and found[params[0]] != summed):
                found[params[0]] = None
            else:
                found[params[0]] = summed
        return tuple(SummedLoads(param, summed[0], summed[1]) for param, summed in found.items() if summed is not None)

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
