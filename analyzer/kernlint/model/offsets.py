"""Kernel-side facts about addresses: how each pointer offset of a
`@triton.jit` body is built (from `tl.program_id`, `tl.arange`, runtime
stride or size arguments, and whether a factor is promoted to 64 bits), the
integer values a constexpr expression takes, and which `tl.arange` ranges
or block shapes give a loaded tile its dimensions.

Everything is indexed once per kernel: a pass over the body records each
name's assignments (augmented ones included), then each name's provenance is
computed once and memoized.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import product as cartesian

import libcst as cst
from kernlint.model.base import kernel_fact
from kernlint.model.facts import TL, Kernel
from kernlint.model.kernel import KernelFacts
from kernlint.model.syntax import children, keyword, positional, walk

# Provenance of an integer value inside a kernel.
PID = "program_id"  # derived from tl.program_id (an int32 tile index)
ARANGE = "arange"  # derived from tl.arange (an offsets vector)
RUNTIME = "runtime"  # derived from a runtime (non-constexpr) argument: a stride or a size
PROMOTED = "int64"  # some part is converted to, or typed as, a 64-bit integer
LOADED = "loaded"  # read from memory with tl.load (a gathered index)

WIDE_INTEGERS = frozenset({"int64", "uint64"})
# Calls whose first argument (or `pointer=`/`base=`) is an address.
ADDRESS_CALLS = (
    "load",
    "store",
    "atomic_add",
    "atomic_max",
    "atomic_min",
    "atomic_and",
    "atomic_or",
    "atomic_xor",
    "atomic_xchg",
    "atomic_cas",
)
# Calls whose `base` is a pointer and whose offsets Triton computes in 64 bits.
BLOCK_POINTER_CALLS = ("make_block_ptr", "make_tensor_descriptor")
# The same, as the qualnames a call head resolves to (one lookup per call).
_ADDRESS_QUALNAMES = frozenset(f"{TL}.{name}" for name in ADDRESS_CALLS)
_BLOCK_POINTER_QUALNAMES = frozenset(f"{TL}.{name}" for name in BLOCK_POINTER_CALLS)
# Calls that return (one of) their pointer arguments.
POINTER_PRESERVING = (
    "where",
    "multiple_of",
    "max_contiguous",
    "max_constancy",
    "advance",
    "broadcast_to",
    "reshape",
    "view",
)
# How many values an expression may take before it counts as unknown.
MAX_VALUES = 64
# How deep a tile's dimensions are looked for under its address: a 3-D convolution's pixel offsets reach their
# `tl.arange` through a dozen names and operations (`sp` behind `tl.where`, `iw` from `wn // stride`, `ow` from
# `offs_m % OW`), twice as deep as a GEMM's.
TILE_RANGE_DEPTH = 24


@dataclass(frozen=True, eq=False)
class OffsetProduct:
    """`index * runtime` inside a pointer offset: `index` derives from
    `tl.program_id` (an offsets vector built from it included), `runtime`
    from stride or size arguments (`arguments`). `promoted` when either
    factor is a 64-bit integer, so the product cannot wrap."""

    node: cst.BinaryOperation
    index: cst.BaseExpression
    runtime: cst.BaseExpression
    arguments: tuple[str, ...]
    promoted: bool


@dataclass(frozen=True, eq=False)
class Address:
    """One address a kernel reads or writes: the `tl.load`/`tl.store`/atomic
    call (or the `base` of a block pointer), the pointer parameters it is
    built from, and the program-id products in its offset."""

    call: cst.Call
    pointers: tuple[str, ...]
    products: tuple[OffsetProduct, ...]
    block_pointer: bool


@dataclass(frozen=True, eq=False)
class TileRange:
    """One dimension of a loaded tile: the `tl.arange` call or block-shape
    entry that sizes it (`size`), and the tile axis when the expression says
    (`offs_k[None, :]` is axis 1), else None."""

    size: cst.BaseExpression
    axis: int | None


# Node classes are tested by exact type (`type(node) is cst.Call`), not
# isinstance: libcst's node classes have no subclasses, and isinstance on
# them goes through ABCMeta in Python, which made walking kernels a tenth
# of flag-gems' lint time when every node was tested five times (issue 14).


class _KernelIndex:
    """Assignments of one kernel, and memoized provenance per name."""

    def __init__(self, model: OffsetFacts, kernel: Kernel) -> None:
        self.model = model
        self.kernel = kernel
        self.values: dict[str, list[cst.BaseExpression]] = {}
        self.address_calls: list[tuple[cst.Call, cst.BaseExpression, bool]] = []
        self.flags_memo: dict[str, frozenset[str]] = {}
        self.reach_memo: dict[str, tuple[frozenset[int], frozenset[str]]] = {}
        self.multiplies: dict[int, cst.BinaryOperation] = {}
        # id(load address) -> its tile ranges: KL009 and KL015 both ask for
        # every tl.dot operand's.
        self.ranges_memo: dict[int, tuple[TileRange, ...]] = {}
        params = kernel.node.params
        self.wide_params = {
            p.name.value
            for p in (*params.posonly_params, *params.params, *params.kwonly_params)
            if p.annotation is not None
            and model.qualname(p.annotation.annotation) in {f"{TL}.{w}" for w in WIDE_INTEGERS}
        }
        self.runtime_params = {p.name for p in kernel.params if not p.constexpr}
        # The collecting walk listed the kernel's calls and binding
        # statements in source order: no second walk of the body (issue 24).
        # Calls of its decorators and parameter defaults are listed too;
        # none is a load, a store or a block pointer.
        for call in kernel.function.calls:
            self._address(call)
        for node in kernel.function.bindings:
            if type(node) is cst.Assign:
                for target in node.targets:
                    self._bind(target.target, node.value)
            elif type(node) is cst.AnnAssign:
                if node.value is not None:
                    self._bind(node.target, node.value)
            elif type(node) is cst.AugAssign:
                if type(node.target) is cst.Name:
                    self.values.setdefault(node.target.value, []).append(node.value)
            elif type(node) is cst.For:
                self._bind(node.target, node.iter)

    def _bind(self, target: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.values.setdefault(target.value, []).append(value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            items = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
            for i, element in enumerate(target.elements):
                item = items[i].value if items is not None and i < len(items) else value
                self._bind(element.value, item)

    def _address(self, call: cst.Call) -> None:
        qualname = self.model.qualname(call.func)
        if qualname in _ADDRESS_QUALNAMES:
            pointer = keyword(call, "pointer") or (
                call.args[0].value if call.args and call.args[0].keyword is None else None
            )
            if pointer is not None:
                self.address_calls.append((call, pointer, False))
        elif qualname in _BLOCK_POINTER_QUALNAMES:
            base = keyword(call, "base") or (call.args[0].value if call.args and call.args[0].keyword is None else None)
            if base is not None:
                self.address_calls.append((call, base, True))

    # -- provenance --
    def name_flags(self, name: str) -> frozenset[str]:
        if name in self.flags_memo:
            return self.flags_memo[name]
        self.flags_memo[name] = frozenset()  # a loop (`p += ...`) adds nothing new
        flags: set[str] = set()
        if name in self.wide_params:
            flags.add(PROMOTED)
        elif name in self.runtime_params and name not in self.values:
            flags.add(RUNTIME)
        for value in self.values.get(name, ()):
            flags |= self.flags(value)
        if name in self.runtime_params and name in self.values:
            flags.add(RUNTIME)
        result = frozenset(flags)
        self.flags_memo[name] = result
        return result

    def flags(self, node: cst.BaseExpression) -> frozenset[str]:
        model = self.model
        flags: set[str] = set()
        stack: list[cst.CSTNode] = [node]
        while stack:
            child = stack.pop()
            if type(child) is cst.Call:
                if model.is_tl(child.func, "program_id"):
                    flags.add(PID)
                    continue
                if model.is_tl(child.func, "load"):
                    flags.add(LOADED)
                    continue
                if model.is_tl(child.func, "arange"):
                    flags.add(ARANGE)
                    continue
                stack.append(child.func)
                stack.extend(a.value for a in child.args)
            elif type(child) is cst.Attribute:
                if model.qualname(child) in {f"{TL}.{w}" for w in WIDE_INTEGERS}:
                    flags.add(PROMOTED)
                    continue
                stack.append(child.value)
            elif isinstance(child, cst.SimpleString):
                if child.evaluated_value in WIDE_INTEGERS:
                    flags.add(PROMOTED)
            elif type(child) is cst.Name:
                flags |= self.name_flags(child.value)
            elif isinstance(child, (cst.Lambda, cst.Comparison)):
                continue  # a comparison is a mask, not an offset
            else:
                stack.extend(children(child))
        return frozenset(flags)

    # -- addresses --
    def reach(self, node: cst.BaseExpression) -> tuple[frozenset[int], frozenset[str]]:
        """(ids of the products, pointer parameters) an address expression
        is built from, through the names it reads."""
        products: set[int] = set()
        pointers: set[str] = set()
        stack: list[tuple[cst.CSTNode, bool]] = [(node, False)]
        while stack:
            child, in_factor = stack.pop()
            if type(child) is cst.Call and (
                self.model.is_tl(child.func, "load") or self.model.is_tl(child.func, "program_id")
            ):
                continue  # a gathered value's own address is another Address
            if type(child) is cst.Name:
                if child.value in self.values:
                    found_products, found_pointers = self.name_reach(child.value)
                    products |= found_products
                    if not in_factor:
                        pointers |= found_pointers
                if not in_factor and child.value in self.runtime_params:
                    pointers.add(child.value)
                continue
            if type(child) is cst.BinaryOperation:
                if type(child.operator) is cst.Multiply:
                    products.add(id(child))
                    self.multiplies[id(child)] = child
                factor = in_factor or not isinstance(child.operator, (cst.Add, cst.Subtract))
                stack.append((child.left, factor))
                stack.append((child.right, factor))
                continue
            if isinstance(child, (cst.Lambda, cst.Comparison)):
                continue
            if type(child) is cst.Attribute:
                stack.append((child.value, in_factor))
                continue
            if type(child) is cst.Call:
                # `ptr.to(...)`, `tl.multiple_of(ptr, 16)`, `tl.where(c, p, q)` keep a
                # pointer a pointer; any other call's arguments (`range(0, n)`,
                # `tl.cdiv(n, B)`, `min(a, b)`) are integers.
                keeps = (
                    isinstance(child.func, cst.Attribute)
                    and not self.model.qualname(child.func)
                    or any(self.model.is_tl(child.func, name) for name in POINTER_PRESERVING)
                )
                if isinstance(child.func, cst.Attribute):
                    stack.append((child.func.value, in_factor))
                stack.extend(
                    (a.value, in_factor or not keeps)
                    for a in child.args
                    if a.keyword is None or a.keyword.value != "mask"
                )
                continue
            if isinstance(child, cst.Subscript):
                stack.append((child.value, in_factor))
                continue
            stack.extend((c, in_factor) for c in children(child))
        return frozenset(products), frozenset(pointers)

    def name_reach(self, name: str) -> tuple[frozenset[int], frozenset[str]]:
        if name in self.reach_memo:
            return self.reach_memo[name]
        self.reach_memo[name] = (frozenset(), frozenset())
        products: set[int] = set()
        pointers: set[str] = set()
        for value in self.values.get(name, ()):
            found_products, found_pointers = self.reach(value)
            products |= found_products
            pointers |= found_pointers
        result = (frozenset(products), frozenset(pointers))
        self.reach_memo[name] = result
        return result

    def product(self, node: cst.BinaryOperation) -> OffsetProduct | None:
        left, right = node.left, node.right
        left_flags, right_flags = self.flags(left), self.flags(right)
        for index, runtime, index_flags, runtime_flags in (
            (left, right, left_flags, right_flags),
            (right, left, right_flags, left_flags),
        ):
            if PID in index_flags and RUNTIME in runtime_flags and PID not in runtime_flags:
                if self._is_product_of_pid_and_runtime(index) or self._is_product_of_pid_and_runtime(runtime):
                    return None  # the inner product is the one that wraps
                arguments = tuple(sorted(self._runtime_arguments(runtime)))
                promoted = PROMOTED in left_flags or PROMOTED in right_flags
                return OffsetProduct(node, index, runtime, arguments, promoted)
        return None

    def _is_product_of_pid_and_runtime(self, node: cst.BaseExpression) -> bool:
        if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply)):
            return False
        a, b = self.flags(node.left), self.flags(node.right)
        return (PID in a and RUNTIME in b) or (PID in b and RUNTIME in a)

    def _runtime_arguments(self, node: cst.BaseExpression, depth: int = 0) -> set[str]:
        found: set[str] = set()
        for child in walk(node):
            if isinstance(child, cst.Name):
                if child.value in self.runtime_params:
                    found.add(child.value)
                elif depth < 6:
                    for value in self.values.get(child.value, ()):
                        found |= self._runtime_arguments(value, depth + 1)
        return found

    def _in_source_order(self, keys: frozenset[int]) -> list[int]:
        if len(keys) < 2:
            return list(keys)
        function = self.kernel.function
        order = self.model.source_order(function, self.multiplies[next(iter(keys))])
        assert order is not None
        return sorted(keys, key=lambda k: order.key(self.multiplies[k]))

    @cached_property
    def addresses(self) -> tuple[Address, ...]:
        found: list[Address] = []
        products: dict[int, OffsetProduct | None] = {}
        for call, pointer, block in self.address_calls:
            reached, pointers = self.reach(pointer)
            mine: list[OffsetProduct] = []
            for key in self._in_source_order(reached):
                if key not in products:
                    products[key] = self.product(self.multiplies[key])
                if products[key] is not None:
                    mine.append(products[key])  # type: ignore[arg-type]
            # `row = pid * rows_per_program + i; p + row * stride`: the inner
            # product computes a row number, which the outer one scales.
            inner: set[int] = set()
            for found_product in mine:
                inner |= self.reach(found_product.index)[0]
            mine = [p for p in mine if id(p.node) not in inner]
            arguments = {a for p in mine for a in p.arguments}
            ordered = tuple(p for p in self.kernel.params if p.name in pointers and p.name not in arguments)
            found.append(Address(call, tuple(p.name for p in ordered), tuple(mine), block))
        return tuple(found)


# A tl.dot operand's axes by (operand, axis): A is M x K, B is K x N.
_DOT_ROLES = {(0, 0): "M", (0, 1): "K", (1, 0): "K", (1, 1): "N"}


def _scales_itself(value: cst.BaseExpression, name: str) -> bool:
    """`value` multiplies or divides the name by something (`q * sm_scale`): a binding `q = q * ...` keeps the
    tile's shape."""
    return (
        type(value) is cst.BinaryOperation
        and type(value.operator) in (cst.Multiply, cst.Divide)
        and any(type(side) is cst.Name and side.value == name for side in (value.left, value.right))
    )


class OffsetFacts(KernelFacts):
    """How a kernel's pointer offsets are built, and the values of its
    constexpr expressions."""

    @cached_property
    def _offset_index(self) -> dict[int, _KernelIndex]:
        return {}

    @kernel_fact
    def _kernel_index(self, kernel: Kernel) -> _KernelIndex:
        index = self._offset_index.get(id(kernel))
        if index is None:
            index = self._offset_index[id(kernel)] = _KernelIndex(self, kernel)
        return index

    @kernel_fact
    def addresses(self, kernel: Kernel) -> tuple[Address, ...]:
        """Every address the kernel's body loads, stores or builds a block
        pointer from, in source order, with its program-id products."""
        return self._kernel_index(kernel).addresses

    @kernel_fact
    def one_element_per_program(self, kernel: Kernel, address: Address) -> bool:
        """The address is one element per program-id tuple: its offset has no
        offsets vector (`tl.arange`) and no gathered index, only program-id
        values times strides (`dloss_ptr + b * stride_b + l * stride_l`)."""
        if address.block_pointer:
            return False
        pointer = keyword(address.call, "pointer") or next(iter(positional(address.call)), None)
        return pointer is not None and not {ARANGE, LOADED} & self.offset_provenance(kernel, pointer)

    @kernel_fact
    def scalar_addresses(self, kernel: Kernel) -> bool:
        """Every load and store of the kernel is one element: no offsets vector (`tl.arange`) in any
        address, no block pointer, and no `@triton.jit` helper whose addresses are not seen here
        (KL019's kernels; with a loop, a program that walks its data one scalar at a time)."""
        addresses = self.addresses(kernel)
        if not addresses or not any(self.is_tl(a.call.func, "load") for a in addresses):
            return False
        for call in kernel.function.calls:
            callee = self.qualname(call.func) or ""
            if callee in self.kernels or callee.rsplit(".", 1)[-1] in self.kernels:
                return False
        for address in addresses:
            if address.block_pointer:
                return False
            pointer = positional(address.call)[0] if positional(address.call) else None
            if pointer is None or ARANGE in self.offset_provenance(kernel, pointer):
                return False
        return True

    @kernel_fact
    def offset_provenance(self, kernel: Kernel, node: cst.BaseExpression) -> frozenset[str]:
        """Where an integer expression of the kernel comes from: PID, ARANGE,
        RUNTIME, LOADED, PROMOTED (see the module's constants)."""
        return self._kernel_index(kernel).flags(node)

    @kernel_fact
    def int_values(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> frozenset[int] | None:
        """Every value an integer expression of the kernel can take, when all
        are known: literals, constexprs whose every value is known
        (`constexpr_values`), names assigned once from those, and `+ - * //
        << >>` of them. None when any part is unknown."""
        if depth > 8:
            return None
        if isinstance(node, cst.Integer):
            value = int(node.value, 0)
            return frozenset({value})
        if isinstance(node, cst.Name):
            param = kernel.param(node.value)
            if param is not None:
                if not param.constexpr:
                    return None
                known = self.constexpr_values(kernel, node.value)
                if not known.known or not all(isinstance(v, int) and not isinstance(v, bool) for v in known.values):
                    return None
                return frozenset(v for v in known.values if isinstance(v, int))
            values = self._kernel_index(kernel).values.get(node.value)
            if values is not None:
                return self.int_values(kernel, values[0], depth + 1) if len(values) == 1 else None
            constant = self.constant_value(node, self.top)
            return frozenset({constant}) if isinstance(constant, int) and not isinstance(constant, bool) else None
        if isinstance(node, cst.BinaryOperation):
            left = self.int_values(kernel, node.left, depth + 1)
            right = self.int_values(kernel, node.right, depth + 1) if left is not None else None
            if left is None or right is None or len(left) * len(right) > MAX_VALUES:
                return None
            results: set[int] = set()
            for a, b in cartesian(left, right):
                combined = _apply(node.operator, a, b)
                if combined is None:
                    return None
                results.add(combined)
            return frozenset(results)
        return None

    @kernel_fact
    def dot_tile(self, kernel: Kernel) -> tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression] | None:
        """The expressions that size the (M, N, K) tile of the kernel's
        `tl.dot` products: A's rows and columns, B's columns, read from the
        operands' loads (`tile_ranges`). None unless every `tl.dot` shows all
        three and they agree."""
        found: tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression] | None = None
        for call in kernel.function.calls:
            if not self.is_tl(call.func, "dot"):
                continue
            operands = positional(call)[:2]
            if len(operands) != 2:
                return None
            sizes: dict[str, cst.BaseExpression] = {}
            for position, operand in enumerate(operands):
                for dimension in self.tile_ranges(kernel, operand) or ():
                    role = _DOT_ROLES.get((position, dimension.axis)) if dimension.axis is not None else None
                    if role is not None:
                        sizes.setdefault(role, dimension.size)
            if len(sizes) != 3:
                return None
            tile = (sizes["M"], sizes["N"], sizes["K"])
            if found is not None and [self.code(e) for e in found] != [self.code(e) for e in tile]:
                return None
            found = tile
        return found

    @kernel_fact
    def dot_tiles(
        self, kernel: Kernel
    ) -> tuple[tuple[cst.BaseExpression, cst.BaseExpression, cst.BaseExpression], ...] | None:
        """Each `tl.dot`'s own (M, N, K) tile sizes, for kernels whose products differ (attention: Q K^T is
        BLOCK_M x BLOCK_N over the head dim, P V is BLOCK_M x HEAD_DIM over BLOCK_N), read from the operands'
        loads as `dot_tile` reads them. A product whose A is computed (P, from the scores) shows no M: it takes
        the rows every other product shows, where they agree (a program's block of query rows). None unless
        every product's three are known."""
        found: list[dict[str, cst.BaseExpression]] = []
        for call in kernel.function.calls:
            if not self.is_tl(call.func, "dot"):
                continue
            operands = positional(call)[:2]
            if len(operands) != 2:
                return None
            sizes: dict[str, cst.BaseExpression] = {}
            for position, operand in enumerate(operands):
                for dimension in self.tile_ranges(kernel, operand) or ():
                    role = _DOT_ROLES.get((position, dimension.axis)) if dimension.axis is not None else None
                    if role is not None:
                        sizes.setdefault(role, dimension.size)
            found.append(sizes)
        rows = {self.code(sizes["M"]): sizes["M"] for sizes in found if "M" in sizes}
        if len(rows) == 1:
            (only,) = rows.values()
            for sizes in found:
                sizes.setdefault("M", only)
        if not found or any(len(sizes) != 3 for sizes in found):
            return None
        return tuple((sizes["M"], sizes["N"], sizes["K"]) for sizes in found)

    @kernel_fact
    def tile_ranges(self, kernel: Kernel, node: cst.BaseExpression) -> tuple[TileRange, ...] | None:
        """The dimensions of a tile value: followed through names and
        conversions to its `tl.load`, then through the address to the
        `tl.arange` calls (with the axis a `[:, None]`/`[None, :]` gives
        them) or to the block pointer's `block_shape`. None when the tile
        is not visibly a loaded one."""
        return self._tile_ranges(kernel, node, 0)

    def _tile_ranges(self, kernel: Kernel, node: cst.BaseExpression, depth: int) -> tuple[TileRange, ...] | None:
        index = self._kernel_index(kernel)
        flipped = False  # through a transpose (`tl.trans(a)`, `a.T`): the loaded tile's axes swap

        def swap(ranges: tuple[TileRange, ...] | None) -> tuple[TileRange, ...] | None:
            if ranges is None or not flipped:
                return ranges
            return tuple(TileRange(r.size, None if r.axis is None else 1 - r.axis) for r in ranges)

        while depth < 12:
            depth += 1
            # Exact types (see the note above _KernelIndex).
            if type(node) is cst.Name:
                values = index.values.get(node.value)
                if not values or len(values) > 4:
                    return None
                if len(values) > 1:
                    # `if EVEN_K: a = tl.load(p) else: a = tl.load(p, mask=...)`: every branch must be a load.
                    found: list[TileRange] = []
                    for value in values:
                        if _scales_itself(value, node.value):
                            continue  # `q = q * sm_scale`: the same tile, scaled
                        ranges = self._tile_ranges(kernel, value, depth)
                        if ranges is None:
                            return None
                        found.extend(r for r in ranges if r not in found)
                    return swap(tuple(found))
                node = values[0]
            elif type(node) is cst.Attribute and node.attr.value == "T":
                flipped, node = not flipped, node.value
            elif type(node) is not cst.Call:
                return None
            elif self.is_tl(node.func, "load") and node.args:
                return swap(self._address_ranges(kernel, node.args[0].value))
            elif self.is_tl(node.func, "trans") and len(node.args) == 1:
                flipped, node = not flipped, node.args[0].value
            elif type(node.func) is cst.Attribute and node.func.attr.value in ("to", "cast"):
                node = node.func.value
            elif self.is_tl(node.func, "cast") and node.args:
                node = node.args[0].value
            else:
                return None
        return None

    @kernel_fact
    def dot_b_strides(self, kernel: Kernel) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None] | None:
        """The multipliers of the K axis (rows) and the N axis (columns) in the address of every `tl.dot`'s B
        operand (`b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn`: the two strides; None
        for an axis added without one, a unit stride), when all the dots agree; None where an address does
        not show both axes (a block pointer, a computed operand)."""
        return self._dot_operand_strides(kernel, 1)

    def dot_a_strides(self, kernel: Kernel) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None] | None:
        """The same for every `tl.dot`'s A operand: the multipliers of its M axis (rows) and its K axis
        (columns), `a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak`."""
        return self._dot_operand_strides(kernel, 0)

    def _dot_operand_strides(
        self, kernel: Kernel, which: int
    ) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None] | None:
        """`dot_a_strides` (`which` 0) and `dot_b_strides` (1): the operand's two axis multipliers, in the
        product's order (M, K for A; K, N for B)."""
        found: tuple[cst.BaseExpression | None, cst.BaseExpression | None] | None = None
        for call in kernel.function.calls:
            if not self.is_tl(call.func, "dot"):
                continue
            operand, flipped = self._dot_operand(call, which)
            # Every load the operand may come from (`if EVEN_K:` a plain load, else a masked one) must agree.
            loads = self._loaded_calls(kernel, operand) if operand is not None else ()
            if not loads:
                return None
            for load in loads:
                strides = _axis_strides(load.args[0].value, self._kernel_index(kernel).values)
                if strides is None or set(strides) != {0, 1}:
                    return None
                pair = (strides[1], strides[0]) if flipped else (strides[0], strides[1])
                if found is not None and [self.code(e) if e else "" for e in found] != [
                    self.code(e) if e else "" for e in pair
                ]:
                    return None
                found = pair
        return found

    @kernel_fact
    def strided_lane_loads(
        self, kernel: Kernel
    ) -> tuple[tuple[Address, tuple[cst.BaseExpression, ...], tuple[cst.Call, ...]], ...]:
        """The loads whose vector lanes all step by a stride: every term of the address that carries a
        `tl.arange` is multiplied by something (`base + offs * stride_d1`), none adds the lanes as they are.
        With the multipliers (their values are the launch's), and the `range(...)` of each loop whose
        variable the address adds as it is (`w0 + kw` over `for kw in range(KS)`: a pool's window, whose
        taps walk the elements between the lanes). Adjacent lanes read elements a stride apart: a 32-byte
        sector for each where a coalesced load shares one among eight fp32 lanes."""
        return self._strided_lane_accesses(kernel, "load")

    @kernel_fact
    def strided_lane_stores(
        self, kernel: Kernel
    ) -> tuple[tuple[Address, tuple[cst.BaseExpression, ...], tuple[cst.Call, ...]], ...]:
        """`strided_lane_loads` for `tl.store`: stores whose lanes each write a 32-byte sector of their own."""
        return self._strided_lane_accesses(kernel, "store")

    def _strided_lane_accesses(
        self, kernel: Kernel, access: str
    ) -> tuple[tuple[Address, tuple[cst.BaseExpression, ...], tuple[cst.Call, ...]], ...]:
        index = self._kernel_index(kernel)
        found = []
        for address in self.addresses(kernel):
            if address.block_pointer or not self.is_tl(address.call.func, access) or not address.call.args:
                continue
            terms = self._lane_terms(kernel, index, address.call.args[0].value)
            if terms and terms[0]:
                found.append((address, *terms))
        return tuple(found)

    def _lane_terms(
        self, kernel: Kernel, index: _KernelIndex, address: cst.BaseExpression
    ) -> tuple[tuple[cst.BaseExpression, ...], tuple[cst.Call, ...]] | None:
        """The multipliers of an address's lane terms and the unit-step loops it adds as they are, or None
        when a lane term has no multiplier (coalesced) or the address is not a plain sum of terms."""
        multipliers: list[cst.BaseExpression] = []
        windows: list[cst.Call] = []
        stack: list[tuple[cst.BaseExpression, int]] = [(address, 0)]
        while stack:
            node, depth = stack.pop()
            if depth > 12:
                return None
            if ARANGE not in self.offset_provenance(kernel, node):
                # A scalar offset: the base, a program's row, or a loop's step through a window.
                if (window := self._unit_step_loop(index, node)) is not None:
                    windows.append(window)
                continue
            if type(node) is cst.Name:
                bound = index.values.get(node.value)
                if not bound or len(bound) > 1:
                    return None  # a loop-carried pointer (`ptrs += ...`): not read here
                stack.append((bound[0], depth + 1))
                continue
            if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract):
                stack.extend(((node.left, depth + 1), (node.right, depth + 1)))
                continue
            if type(node) is cst.BinaryOperation and type(node.operator) is cst.Multiply:
                left, right = (ARANGE in self.offset_provenance(kernel, side) for side in (node.left, node.right))
                if left != right:
                    multipliers.append(node.right if left else node.left)
                    continue
            return None  # the lanes added as they are (`offs`, `offs[None, :]`), or a form not read here
        return tuple(multipliers), tuple(windows)

    def _unit_step_loop(self, index: _KernelIndex, node: cst.BaseExpression) -> cst.Call | None:
        """The `range(...)` (or `tl.range`, `tl.static_range`) that `node`, a loop variable, steps through one
        by one; None for anything else."""
        if type(node) is not cst.Name:
            return None
        bound = index.values.get(node.value)
        if not bound or len(bound) != 1 or type(call := bound[0]) is not cst.Call:
            return None
        if not (
            (type(call.func) is cst.Name and call.func.value == "range")
            or self.is_tl(call.func, "range")
            or self.is_tl(call.func, "static_range")
        ):
            return None
        args = positional(call)
        if not 1 <= len(args) <= 3 or len(args) != len(call.args):
            return None
        if len(args) == 3 and not (type(args[2]) is cst.Integer and args[2].evaluated_value == 1):
            return None
        return call

    @kernel_fact
    def dot_operand_pointers(self, kernel: Kernel, which: int) -> tuple[str, ...]:
        """The pointer parameters every `tl.dot`'s A (`which` 0) or B (1) operand is loaded from (a tile
        loaded straight from `b_ptr + ...`, through names, conversions and a transpose), in the kernel's
        parameter order; () where an operand is not such a load (a computed tile, a block pointer)."""
        loads = {id(address.call): address.pointers for address in self.addresses(kernel)}
        found: set[str] = set()
        for call in kernel.function.calls:
            if not self.is_tl(call.func, "dot"):
                continue
            operand, _ = self._dot_operand(call, which)
            calls = self._loaded_calls(kernel, operand) if operand is not None else ()
            if not calls or any(id(load) not in loads for load in calls):
                return ()
            for load in calls:
                found.update(loads[id(load)])
        return tuple(p.name for p in kernel.params if p.name in found)

    @kernel_fact
    def dot_a_gather_strides(self, kernel: Kernel) -> tuple[cst.BaseExpression | None, ...] | None:
        """Where every `tl.dot`'s A operand is loaded as an implicit-GEMM convolution gathers it, the
        multipliers of the terms that step its K axis (columns) over a plain range (None: a unit stride);
        None where A is not such a gather.

        Such a gather adds several terms along M (rows), at least one of them split out of the row offsets
        with `%` or `//` (a tile's rows are output pixels: `ow = offs_m % OW`, `nb = offs_m // (OH * OW)`),
        and its K terms are either split the same way (`ci = offs_k // (KH * KW)`, `kw = offs_k % KW`) or a
        plain range times a stride (`offs_k[None, :] * (H * W)`, a channel of an NCHW input). No unit stride
        along K is then visible to Triton: the tile is read M-major, whatever `dot_a_strides` (which gives
        up where an axis shows up twice) says. The launch's values decide whether a plain K term's multiplier
        is 1 (K-major after all: channels-last)."""
        values = self._kernel_index(kernel).values
        found: list[cst.BaseExpression | None] = []
        dots = 0
        for call in kernel.function.calls:
            if not self.is_tl(call.func, "dot"):
                continue
            dots += 1
            operand, flipped = self._dot_operand(call, 0)
            loads = self._loaded_calls(kernel, operand) if operand is not None else ()
            if not loads:
                return None
            for load in loads:
                terms = _axis_terms(load.args[0].value, values)
                if terms is None:
                    return None
                rows, columns = (
                    (terms.get(1, []), terms.get(0, [])) if flipped else (terms.get(0, []), terms.get(1, []))
                )
                if not rows or not columns or not any(_split(vector, values) for vector, _ in rows):
                    return None
                found.extend(factor for vector, factor in columns if not _split(vector, values))
        return tuple(found) if dots else None

    def _dot_operand(self, call: cst.Call, which: int) -> tuple[cst.BaseExpression | None, bool]:
        """A `tl.dot`'s A (`which` 0) or B (1) operand as loaded, and whether the dot reads it transposed
        (`tl.trans(k)` or `k.T`: the loaded tile's axes swapped); None where the call has not two operands."""
        operands = positional(call)[:2]
        operand = operands[which] if len(operands) == 2 else None
        if isinstance(operand, cst.Call) and self.is_tl(operand.func, "trans") and len(positional(operand)) == 1:
            return positional(operand)[0], True
        if isinstance(operand, cst.Attribute) and operand.attr.value == "T":
            return operand.value, True
        return operand, False

    def _loaded_calls(self, kernel: Kernel, node: cst.BaseExpression, depth: int = 0) -> tuple[cst.Call, ...]:
        """Every `tl.load` a tile value may come from: through names bound in several places (`if EVEN_K: b =
        tl.load(p)` / `else: b = tl.load(p, mask=...)`) and conversions; () where one binding is not a load."""
        if depth > 12:
            return ()
        if type(node) is cst.Name:
            values = self._kernel_index(kernel).values.get(node.value)
            if not values:
                return ()
            found: list[cst.Call] = []
            for value in values:
                calls = self._loaded_calls(kernel, value, depth + 1)
                if not calls:
                    return ()
                found.extend(calls)
            return tuple(found)
        if type(node) is not cst.Call:
            return ()
        if self.is_tl(node.func, "load") and node.args:
            return (node,)
        if type(node.func) is cst.Attribute and node.func.attr.value in ("to", "cast"):
            return self._loaded_calls(kernel, node.func.value, depth + 1)
        return ()

    def _address_ranges(self, kernel: Kernel, address: cst.BaseExpression) -> tuple[TileRange, ...]:
        index = self._kernel_index(kernel)
        known = index.ranges_memo.get(id(address))
        if known is None:
            known = index.ranges_memo[id(address)] = self._walk_address_ranges(kernel, index, address)
        return known

    def _walk_address_ranges(
        self, kernel: Kernel, index: _KernelIndex, address: cst.BaseExpression
    ) -> tuple[TileRange, ...]:
        found: list[TileRange] = []
        # The shallowest depth each node was reached at (with its axis): a node first met along a long path,
        # whose ranges lay past the depth bound, is walked again when a shorter path reaches it.
        seen: dict[tuple[int, int | None], int] = {}
        stack: list[tuple[cst.CSTNode, int | None, int]] = [(address, None, 0)]
        while stack:
            child, axis, depth = stack.pop()
            key = (id(child), axis)
            if depth > TILE_RANGE_DEPTH or seen.get(key, depth + 1) <= depth:
                continue
            seen[key] = depth
            # Exact types (see the note above _KernelIndex).
            if type(child) is cst.Call:
                if self.is_tl(child.func, "arange"):
                    args = positional(child)
                    if len(args) >= 2:
                        found.append(TileRange(_difference(args[0], args[1]), axis))
                    elif args:
                        found.append(TileRange(args[0], axis))
                    continue
                if self.is_tl(child.func, "make_block_ptr"):
                    shape = keyword(child, "block_shape")
                    args = positional(child)
                    if shape is None and len(args) > 4:
                        shape = args[4]
                    if isinstance(shape, (cst.Tuple, cst.List)):
                        found.extend(TileRange(e.value, i) for i, e in enumerate(shape.elements))
                    continue
                if self.is_tl(child.func, "load") or self.is_tl(child.func, "program_id"):
                    continue
                stack.extend(
                    (a.value, axis, depth + 1) for a in child.args if a.keyword is None or a.keyword.value != "mask"
                )
                stack.append((child.func, axis, depth + 1))
                continue
            if type(child) is cst.Subscript:
                stack.append((child.value, _broadcast_axis(child) if axis is None else axis, depth + 1))
                continue
            if type(child) is cst.Name:
                for value in index.values.get(child.value, ()):
                    stack.append((value, axis, depth + 1))
                continue
            if type(child) is cst.Lambda or type(child) is cst.Comparison:
                continue
            stack.extend((c, axis, depth + 1) for c in children(child))
        return tuple(found)


def _axis_strides(
    address: cst.BaseExpression, values: dict[str, list[cst.BaseExpression]]
) -> dict[int, cst.BaseExpression | None] | None:
    """The terms of an address that a broadcast vector (`x[:, None]`, `x[None, :]`) adds, by axis: each
    one's multiplier (None: none, a unit stride). Names are followed to their first value (a pointer that a
    loop advances keeps its layout); None where an axis shows up twice."""
    terms = _axis_terms(address, values, follow_scaled_names=False)
    if terms is None:
        return None
    strides: dict[int, cst.BaseExpression | None] = {}
    for axis, found in terms.items():
        if len(found) == 1:
            strides[axis] = found[0][1]
            continue
        # A flat index split into a row and a column (`oh = p // OW`, `ow = p % OW`, added as `ih * W + iw`):
        # the lanes run along the column, a unit stride, breaking at each row's end (a convolution's pixels).
        unit = [vector for vector, factor in found if factor is None]
        if len(unit) != 1 or not _mentions_modulo(unit[0], values):
            return None
        strides[axis] = None
    return strides


def _holds_broadcast(node: cst.BaseExpression, depth: int = 0) -> bool:
    """`node` holds a broadcast vector (`x[:, None]`) inside its sums and products."""
    if depth > 8:
        return False
    if type(node) is cst.Subscript:
        return _broadcast_axis(node) is not None
    if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract, cst.Multiply):
        return _holds_broadcast(node.left, depth + 1) or _holds_broadcast(node.right, depth + 1)
    return False


def _mentions_modulo(node: cst.BaseExpression, values: dict[str, list[cst.BaseExpression]], depth: int = 0) -> bool:
    """`node` is computed from a `%` (through names bound once): a column of a flat index."""
    if depth > 8:
        return False
    if type(node) is cst.Name:
        bound = values.get(node.value)
        return bound is not None and len(bound) == 1 and _mentions_modulo(bound[0], values, depth + 1)
    if type(node) is cst.BinaryOperation:
        if type(node.operator) is cst.Modulo:
            return True
        return _mentions_modulo(node.left, values, depth + 1) or _mentions_modulo(node.right, values, depth + 1)
    if type(node) is cst.Subscript:
        return _mentions_modulo(node.value, values, depth + 1)
    return False


def _axis_terms(
    address: cst.BaseExpression, values: dict[str, list[cst.BaseExpression]], follow_scaled_names: bool = True
) -> dict[int, list[tuple[cst.BaseExpression, cst.BaseExpression | None]]] | None:
    """By axis, each broadcast vector an address adds and its multiplier (None: a unit stride); None where
    the address is deeper than 12. A sum times a factor scales each of its terms (`(row * C_in +
    ci[:, None]) * C_out`). With `follow_scaled_names`, a name is followed under a factor too (`ih * W` with
    `ih = ih0[:, None] + kh[None, :]`) and a factor carries through nested sums; without, only a name added
    as it is, and a scaled sum's terms are read as products of their own (`_axis_strides`'s reading)."""
    terms: dict[int, list[tuple[cst.BaseExpression, cst.BaseExpression | None]]] = {}
    stack: list[tuple[cst.BaseExpression, cst.BaseExpression | None, int]] = [(address, None, 0)]
    while stack:
        node, factor, depth = stack.pop()
        if depth > 12:
            return None
        if type(node) is cst.Name:
            bound = values.get(node.value)
            if bound and (factor is None or follow_scaled_names):
                stack.append((bound[0], factor, depth + 1))
            continue
        if type(node) is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract):
            stack.extend(((node.left, factor, depth + 1), (node.right, factor, depth + 1)))
            continue
        if type(node) is cst.BinaryOperation and type(node.operator) is cst.Multiply:
            scaled = _scaled_vector(node)
            axis = _broadcast_axis(scaled[0]) if scaled is not None else None
            if scaled is not None and axis is not None:
                terms.setdefault(axis, []).append((scaled[0].value, _times(scaled[1], factor)))
                continue
            for inner, outer in ((node.left, node.right), (node.right, node.left)):
                named = _uncast(inner)
                if follow_scaled_names and type(named) is cst.Name and values.get(named.value):
                    inner = values[named.value][0]
                if type(inner) is cst.BinaryOperation and type(inner.operator) in (cst.Add, cst.Subtract):
                    if follow_scaled_names:
                        stack.append((inner, _times(outer, factor), depth + 1))
                    else:  # each term times the factor, read as a product of its own
                        stack.extend(
                            (cst.BinaryOperation(term, cst.Multiply(), outer), factor, depth + 1)
                            for term in (inner.left, inner.right)
                        )
                    break
                if (
                    not follow_scaled_names
                    and type(inner) is cst.BinaryOperation
                    and type(inner.operator) is cst.Multiply
                    and _holds_broadcast(inner)
                ):
                    # A sum scaled twice (`((n * C + c[:, None]) * H + h[None, :]) * W`): its factors multiplied.
                    combined = cst.BinaryOperation(inner.right, cst.Multiply(), outer)
                    stack.append((cst.BinaryOperation(inner.left, cst.Multiply(), combined), factor, depth + 1))
                    break
            continue
        if type(node) is cst.Call and _uncast(node) is not node:
            stack.append((_uncast(node), factor, depth + 1))
            continue
        if type(node) is cst.Subscript:
            axis = _broadcast_axis(node)
            if axis is not None:
                terms.setdefault(axis, []).append((node.value, factor))
    return terms


def _times(left: cst.BaseExpression | None, right: cst.BaseExpression | None) -> cst.BaseExpression | None:
    if left is None or right is None:
        return left if right is None else right
    return cst.BinaryOperation(left, cst.Multiply(), right)


def _split(vector: cst.BaseExpression, values: dict[str, list[cst.BaseExpression]], depth: int = 0) -> bool:
    """Whether an offsets vector is split out of another with `%` or `//` (a pixel's row or column, a tap
    of a kernel window), through the names it is computed from."""
    if depth > 12:
        return False
    node = _uncast(vector)
    if type(node) is cst.Name:
        return any(_split(v, values, depth + 1) for v in values.get(node.value, ())[:1])
    if type(node) is cst.BinaryOperation:
        if type(node.operator) in (cst.Modulo, cst.FloorDivide):
            return True
        return _split(node.left, values, depth + 1) or _split(node.right, values, depth + 1)
    if type(node) is cst.Subscript:
        return _split(node.value, values, depth + 1)
    return False


def _scaled_vector(node: cst.BaseExpression, depth: int = 0) -> tuple[cst.Subscript, cst.BaseExpression | None] | None:
    """`rn[:, None] * 3 * C` -> (`rn[:, None]`, `3 * C`): a broadcast vector (under casts) times factors, and
    their product (None: no factor)."""
    node = _uncast(node)
    if type(node) is cst.Subscript:
        return (node, None) if _broadcast_axis(node) is not None else None
    if depth > 8 or type(node) is not cst.BinaryOperation or type(node.operator) is not cst.Multiply:
        return None
    for vector, factor in ((node.left, node.right), (node.right, node.left)):
        found = _scaled_vector(vector, depth + 1)
        if found is not None:
            inner = found[1]
            return found[0], factor if inner is None else cst.BinaryOperation(inner, cst.Multiply(), factor)
    return None


def _uncast(node: cst.BaseExpression) -> cst.BaseExpression:
    """`x[None, :].to(tl.int64)` -> `x[None, :]`: a cast (int64 offsets against overflow) keeps the layout."""
    while type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value == "to":
        node = node.func.value
    return node


def _difference(start: cst.BaseExpression, end: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(start, cst.Integer) and int(start.value, 0) == 0:
        return end
    return cst.BinaryOperation(left=end, operator=cst.Subtract(), right=start)


def _broadcast_axis(subscript: cst.Subscript) -> int | None:
    """`x[:, None]` -> 0, `x[None, :]` -> 1: the axis the vector lies on."""
    slices = [e.slice for e in subscript.slice]
    if len(slices) != 2:
        return None
    full = [isinstance(s, cst.Slice) for s in slices]
    none = [isinstance(s, cst.Index) and isinstance(s.value, cst.Name) and s.value.value == "None" for s in slices]
    if full == [True, False] and none[1]:
        return 0
    if full == [False, True] and none[0]:
        return 1
    return None


def _apply(operator: cst.BaseBinaryOp, a: int, b: int) -> int | None:
    if isinstance(operator, cst.Add):
        return a + b
    if isinstance(operator, cst.Subtract):
        return a - b
    if isinstance(operator, cst.Multiply):
        return a * b
    if isinstance(operator, cst.FloorDivide):
        return a // b if b else None
    if isinstance(operator, cst.LeftShift):
        return a << b if 0 <= b < 64 else None
    if isinstance(operator, cst.RightShift):
        return a >> b if 0 <= b < 64 else None
    return None
