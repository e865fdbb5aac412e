"""Multiply-add products in kernels without `tl.dot`: a loop that
accumulates the product of two operands loaded from different pointers,
each at an address that follows an output index the other does not (A's
rows and B's columns; a convolution's positions and channels), the shape of
a GEMM or a convolution written on the CUDA cores (KL020), whose launches
the cost model times by their flops (shapes.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
from kernlint.model.facts import Kernel
from kernlint.model.kernel_loops import KernelLoop, LoopLoad
from kernlint.model.kernel_tiles import KernelTileFacts
from kernlint.model.syntax import names_in, walk


@dataclass(frozen=True, eq=False)
class Product:
    """A multiply-add of two loaded operands accumulated in a loop: `statement`
    is the accumulation, `form` how it builds the sum (a broadcast product, a
    dot product per output, scalar multiply-adds)."""

    statement: cst.CSTNode  # the accumulation
    accumulator: str
    loads: tuple[LoopLoad, LoopLoad]
    form: str


def multiply_add_products(model: KernelTileFacts, kernel: Kernel) -> tuple[Product, ...]:
    """The GEMM- or convolution-shaped multiply-adds of a kernel without
    tl.dot (KL020, and the flops the cost model gives its launches)."""
    if model.kernel_uses(kernel, "dot") or not kernel.function.loops:
        # Without a `for` there is no K loop, and the loop index (a walk of
        # every expression) is not needed: most kernels without tl.dot.
        return ()
    return tuple(_products(model, kernel))


def _products(model: KernelTileFacts, kernel: Kernel) -> Iterator[Product]:
    loops = model.kernel_loops(kernel)
    pid_roots: frozenset[str] | None = None  # built for the first candidate only: most kernels have none
    stored: frozenset[str] = frozenset()
    unmoved: frozenset[str] = frozenset()
    for loop in loops:
        if _unrolled_only(model, loop, loops):
            # Every loop around the sum is tl.static_range over a constexpr:
            # a K of a few compile-time steps (mixing a handful of streams),
            # below the 16 a tensor-core tile needs.
            continue
        if any(model.is_tl(call.func, "store") for call in loop.calls):
            # Results stored on every iteration: a scan or a recurrence (a
            # state updated and written per step), not the K loop of a
            # product, whose sum is stored once after it.
            continue
        loads = _loads_in(loop, loops)
        for statement, accumulator, added in _accumulations(loop):
            for product in _multiplications(model, kernel, added):
                for left, right in _product_loads(model, kernel, product, loads, product is added):
                    if left.pointers == right.pointers:
                        continue
                    if pid_roots is None:
                        pid_roots = _program_id_names(model, kernel)
                        stored, unmoved = _index_vectors(model, kernel)
                    # A broadcast product's axes are its accumulator's: an index vector without a program id
                    # along one of them (all the output channels) is an output index even where the kernel
                    # reduces over it before storing (a convolution's channels, then their minimum).
                    outer = _broadcast(product.left) or _broadcast(product.right)
                    if not _distinct_output_indices(
                        model, kernel, left, right, pid_roots, unmoved if outer else stored
                    ):
                        continue
                    form = _form(model, kernel, accumulator, added, product, left, right)
                    yield Product(statement, accumulator, (left, right), form)
                    break


def _unrolled_only(model: KernelTileFacts, loop: KernelLoop, loops: tuple[KernelLoop, ...]) -> bool:
    current: KernelLoop | None = loop
    while current is not None:
        iterator = current.node.iter
        if not (isinstance(iterator, cst.Call) and model.is_tl(iterator.func, "static_range")):
            return False
        current = loops[current.parent] if current.parent is not None else None
    return True


def _loads_in(loop: KernelLoop, loops: tuple[KernelLoop, ...]) -> list[LoopLoad]:
    nested = [loop]
    for other in loops:
        if other.parent is not None and any(other.parent == n.index for n in nested):
            nested.append(other)
    return [load for n in nested for load in n.loads]


def _accumulations(loop: KernelLoop) -> Iterator[tuple[cst.CSTNode, str, cst.BaseExpression]]:
    """`acc += E` and `acc = acc + E` directly in the loop's body (nested loops have their own)."""
    for statement in loop.node.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.AugAssign)
                and isinstance(small.operator, cst.AddAssign)
                and isinstance(small.target, cst.Name)
            ):
                yield small, small.target.value, small.value
            elif (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and isinstance(small.value, cst.BinaryOperation)
                and isinstance(small.value.operator, cst.Add)
            ):
                name = small.targets[0].target.value
                value = small.value
                for own, other in ((value.left, value.right), (value.right, value.left)):
                    if isinstance(own, cst.Name) and own.value == name:
                        yield small, name, other


def _multiplications(model: KernelTileFacts, kernel: Kernel, added: cst.BaseExpression) -> list[cst.BinaryOperation]:
    """The products in what is added (through a name bound in the kernel, one level)."""
    nodes = [added]
    if isinstance(added, cst.Name):
        nodes = model.kernel_values(kernel, frozenset({added.value}))
    return [
        n
        for node in nodes
        for n in walk(node)
        if isinstance(n, cst.BinaryOperation) and isinstance(n.operator, cst.Multiply)
    ]


def _operand_loads(
    model: KernelTileFacts, kernel: Kernel, operand: cst.BaseExpression, loads: list[LoopLoad]
) -> list[LoopLoad]:
    """The load an operand is (inline or through a name), or the loads it is computed from in the loop (a
    depthwise result accumulated from the input and its taps, then multiplied into a pointwise sum)."""
    inline = [load for load in loads if any(child is load.call for child in walk(operand))]
    if inline:
        return inline[:1]
    reached = model.depends_on(kernel, operand, through_loads=False)
    return [load for load in loads if load.target is not None and load.target in reached]


def _product_loads(
    model: KernelTileFacts, kernel: Kernel, product: cst.BinaryOperation, loads: list[LoopLoad], top: bool
) -> list[tuple[LoopLoad, LoopLoad]]:
    """The (left, right) loads the product's operands follow: one pair for two loaded operands; for a
    computed one (only where the product is what the loop adds, `top`: `acc += dw[:, None] * w[None, :]`),
    a pair per load it is computed from (the caller keeps the pair whose two loads follow different output
    indices)."""
    if model.code(product.left) == model.code(product.right):
        return []  # a square (`v * v`: a variance's sum), not a product of two operands
    lefts = _operand_loads(model, kernel, product.left, loads)
    rights = _operand_loads(model, kernel, product.right, loads)
    if len(lefts) > 1 and len(rights) > 1:
        return []  # two computed operands: no operand is a loaded tile of A or B
    if (len(lefts) > 1 or len(rights) > 1) and not top:
        return []  # a computed operand inside a larger expression (`sigmoid((y + b) * s)`): elementwise work
    return [(left, right) for left in lefts for right in rights if left is not right]


def _broadcast(node: cst.BaseExpression) -> bool:
    return any(
        isinstance(n, cst.Index) and isinstance(n.value, cst.Name) and n.value.value == "None" for n in walk(node)
    )


def _form(
    model: KernelTileFacts,
    kernel: Kernel,
    accumulator: str,
    added: cst.BaseExpression,
    product: cst.BinaryOperation,
    left: LoopLoad,
    right: LoopLoad,
) -> str:
    """How the product builds a GEMM's or convolution's sum."""
    if _broadcast(product.left) or _broadcast(product.right):
        return "a broadcast product"
    summed = any(
        isinstance(n, cst.Call) and model.is_tl(n.func, "sum") and any(child is product for child in walk(n))
        for n in walk(added)
    )
    if summed:
        return "a dot product per output"
    if not left.tile or not right.tile:
        return "scalar multiply-adds"
    # Two tiles multiplied elementwise and summed later (`acc += a * b`, then
    # tl.sum(acc)): a dot product when the operands follow different output
    # indices, which the caller checks; an elementwise product at the same
    # positions (a norm's dW) does not pass that check. Without the later sum, each lane's running sum is an
    # output of its own (a direct convolution over a flattened output index).
    summed_after = any(
        model.is_tl(call.func, "sum")
        and call.args
        and isinstance(call.args[0].value, cst.Name)
        and call.args[0].value.value == accumulator
        for call in kernel.function.calls
    )
    return "a dot product per output (summed after the loop)" if summed_after else "a dot product per output lane"


def _program_id_names(model: KernelTileFacts, kernel: Kernel) -> frozenset[str]:
    """Names the kernel assigns from an expression that calls `tl.program_id`."""
    roots = set()
    for name in _assigned_names(kernel):
        for value in model.kernel_values(kernel, frozenset({name})):
            if any(isinstance(n, cst.Call) and model.is_tl(n.func, "program_id") for n in walk(value)):
                roots.add(name)
    return frozenset(roots)


def _assigned_names(kernel: Kernel) -> set[str]:
    names = set()
    for node in walk(kernel.function.node.body) if kernel.function.node is not None else ():
        if isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Name):
            names.add(node.target.value)
        elif isinstance(node, cst.AssignTarget) and isinstance(node.target, cst.Tuple):
            names.update(e.value.value for e in node.target.elements if isinstance(e.value, cst.Name))
    return names


def _output_indices(
    model: KernelTileFacts, kernel: Kernel, load: LoopLoad, pid_roots: frozenset[str], stored: frozenset[str]
) -> tuple[frozenset[str], frozenset[str]]:
    """The program-id values (and names built from them) the load's address depends on; and apart, the vectors
    of indices it shares with the kernel's stores (`offs_oc = tl.arange(0, BLOCK_OC)`: a program that computes
    every output channel indexes them without its program id)."""
    address = load.call.args[0].value
    found, shared = set(), set()
    pointers = _pointer_names(model, kernel)
    for name in model.depends_on(kernel, address, through_loads=False):
        if name in pointers or kernel.param(name) is not None:
            # A pointer (`x_ptr += row * stride`, `a_ptrs`) is where the operand lives, and a parameter
            # is a size or a base: neither is an index of the output.
            continue
        if name in pid_roots or model.depends_on(kernel, cst.Name(name), through_loads=False) & pid_roots:
            found.add(name)
        elif name in stored:
            shared.add(name)
    if any(isinstance(n, cst.Call) and model.is_tl(n.func, "program_id") for n in walk(address)):
        found.update(
            model.code(n) for n in walk(address) if isinstance(n, cst.Call) and model.is_tl(n.func, "program_id")
        )
    return frozenset(found), frozenset(shared)


def _index_vectors(model: KernelTileFacts, kernel: Kernel) -> tuple[frozenset[str], frozenset[str]]:
    """The names bound to a vector of indices (`tl.arange`) that no loop moves: those the kernel's stores'
    addresses use (an output's own index vector, not a reduction's block: `offset_c = off + tl.arange(...)` in
    the loop over C, also stored by a later pass), and those any load's or store's address uses (all the output
    channels of a product the kernel reduces over them before it stores)."""
    stored: set[str] = set()
    addressed: set[str] = set()
    for call in kernel.function.calls:
        if not call.args:
            continue
        store = model.is_tl(call.func, "store")
        if store or model.is_tl(call.func, "load"):
            used = model.depends_on(kernel, call.args[0].value, through_loads=False)
            addressed |= used
            if store:
                stored |= used
    loops = model.kernel_loops(kernel)
    moved = {target for loop in loops for target in loop.targets} | {name for loop in loops for name in loop.assigned}

    def unmoved(names: set[str]) -> frozenset[str]:
        return frozenset(
            name
            for name in _tiles(model, kernel, frozenset(names))
            if name not in moved and not model.depends_on(kernel, cst.Name(name), through_loads=False) & moved
        )

    return unmoved(stored), unmoved(addressed)


def _pointer_names(model: KernelTileFacts, kernel: Kernel) -> frozenset[str]:
    """Names used as the base of a load's or store's address (the first name
    of `ptrs + offs`), and, through their assignments, the bases they are built on."""
    bases: set[str] = set()
    pending: list[str] = []
    for call in kernel.function.calls:
        if (model.is_tl(call.func, "load") or model.is_tl(call.func, "store")) and call.args:
            first = _base_name(model, call.args[0].value)
            if first is not None:
                pending.append(first)
    while pending:
        name = pending.pop()
        if name in bases:
            continue
        bases.add(name)
        for value in model.kernel_values(kernel, frozenset({name})):
            first = _base_name(model, value)
            if first is not None:
                pending.append(first)
    return frozenset(bases)


def _base_name(model: KernelTileFacts, address: cst.BaseExpression) -> str | None:
    """The first name of an address (`ptrs + offs`), or of the base a block
    pointer is made from or advanced (`tl.make_block_ptr(h_ptr, ...)`)."""
    if (
        isinstance(address, cst.Call)
        and (model.is_tl(address.func, "make_block_ptr") or model.is_tl(address.func, "advance"))
        and address.args
    ):
        return _base_name(model, address.args[0].value)
    first = next(iter(names_in(address)), None)
    return first.value if first is not None else None


def _distinct_output_indices(
    model: KernelTileFacts,
    kernel: Kernel,
    left: LoopLoad,
    right: LoopLoad,
    pid_roots: frozenset[str],
    stored: frozenset[str],
) -> bool:
    """Each operand follows an output index the other does not: rows vs columns, positions vs channels. A
    vector of output indices without a program id (all the output channels) counts against an operand that
    follows a block of outputs (pixels): a 2-D output tile; against one output row per program (a weighted sum
    of a few gathered rows per token) it is a vector product, not a GEMM's tile."""
    a, a_shared = _output_indices(model, kernel, left, pid_roots, stored)
    b, b_shared = _output_indices(model, kernel, right, pid_roots, stored)
    a_block, b_block = _tiles(model, kernel, a), _tiles(model, kernel, b)
    if b_block:
        a |= a_shared
    if a_block:
        b |= b_shared
    both = _tiles(model, kernel, a) & _tiles(model, kernel, b)
    if any(_reaches_unsplit(model, kernel, load.call.args[0].value, both) for load in (left, right)):
        # Both operands follow the same output tile vector (a gather around
        # each query, a neighborhood): a banded product, not a GEMM's rows x columns.
        # (A vector both reach only split with `%` or `//`, a flattened output index whose position part
        # one operand follows and whose channel part the other, is a direct convolution's, one output per lane.)
        return False
    return bool(a - b) and bool(b - a)


def _reaches_unsplit(model: KernelTileFacts, kernel: Kernel, node: cst.BaseExpression, tiles: frozenset[str]) -> bool:
    """Whether an address reaches one of `tiles` other than as what `%` or `//` splits (`ow = offs % W`)."""
    pending, seen = [node], set()
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, cst.Name):
            if current.value in tiles:
                return True
            pending.extend(model.kernel_values(kernel, frozenset({current.value})))
        elif isinstance(current, cst.BinaryOperation) and isinstance(current.operator, (cst.Modulo, cst.FloorDivide)):
            pending.append(current.right)
        elif isinstance(current, cst.Call):
            if not model.is_tl(current.func, "load"):  # a gathered index is data, not the tile's position
                pending.extend(arg.value for arg in current.args)
        else:
            pending.extend(c for c in current.children if isinstance(c, cst.BaseExpression))
    return False


def _tiles(model: KernelTileFacts, kernel: Kernel, names: frozenset[str]) -> frozenset[str]:
    """The names among `names` bound to a vector of indices (`pid * BLOCK + tl.arange(...)`)."""
    return frozenset(
        name
        for name in names
        if any(
            isinstance(n, cst.Call) and model.is_tl(n.func, "arange")
            for value in model.kernel_values(kernel, frozenset({name}))
            for n in walk(value)
        )
    )
