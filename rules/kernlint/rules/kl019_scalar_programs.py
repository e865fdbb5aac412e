from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint import cost
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel, Launch
from kernlint.model.shapes import Op
from kernlint.model.syntax import walk
from kernlint.registry import Invalid, Report, Rule, Valid

# Grid arithmetic that gives each program a block of elements, not one.
BLOCKING = ("cdiv", "ceil", "floor")
# At the file's shapes: a grid of at least this many programs whose scheduling
# (the calibration's time per program) takes at least this many times what the
# same launch takes with blocks of cost.PROGRAM_BLOCK elements (the fix).
MANY_PROGRAMS = 1 << 16
SCHEDULING_BOUND = 2.0


class ScalarPrograms(Rule):
    """
    ## What it does
    Finds a `@triton.jit` kernel whose every load and store is one element
    (no `tl.arange` in any offset: `tl.load(x_ptr + pid)`, a scalar loop
    `for i in range(K): acc += tl.load(x_ptr + base + i)`), launched over a
    grid sized by a tensor's element count (`(x.numel(),)`, or a name
    assigned from it), so each program computes one output element.

    In a KernelBench-style file (static shapes), it also reports any launch
    whose grid, at the file's shapes, has so many programs that scheduling
    them costs at least twice what the launch would take with a block of
    1024 elements per program: one output per program over a 2-D grid
    (`(N * C * OH, OW)`), a block of 32 elements over millions of programs,
    whatever the grid's spelling; and a launch of a kernel whose programs
    loop over scalar loads (`for r in range(R): acc += tl.load(ptr + r *
    stride)`, one output per program), whatever its grid, where the
    calibrated rate of such loops makes it take at least twice what the
    same bytes take loaded a block at a time.

    Without static shapes it stays silent when any address of the kernel is
    a vector (an offsets vector from `tl.arange`, a block pointer), when the
    grid divides the count by a block (`triton.cdiv(n, BLOCK)`,
    `n // BLOCK`), when the grid is not sized by a `numel()`, and for
    kernels that call another `@triton.jit` function (whose addresses it
    does not see).

    ## Why is this bad?
    A Triton program runs on a whole thread block (4 warps, 128 threads by
    default); a scalar load and store use one lane of it, and the grid has
    one program per element: millions of programs that each move a few
    bytes, so the kernel is bound by scheduling programs, not by memory
    bandwidth, and runs one to two orders of magnitude below what the GPU
    can stream.

    ## Example
    ```python
    pid = tl.program_id(0)
    tl.store(y_ptr + pid, tl.maximum(tl.load(x_ptr + pid), 0.0))
    # launched as relu[(x.numel(),)](x, y)
    ```

    ## Use instead
    ```python
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)
    # launched as relu[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
    ```

    ## Fix safety
    No automatic fix: the offsets, masks and any per-element loop must be
    rewritten over a block of elements.

    ## Category
    Memory Layout Optimization: the fix keeps the one launch and changes
    how the same work is laid out over programs and lanes (a block of
    contiguous elements per program, loaded as coalesced vectors instead of
    one scalar per thread block): the same algorithm over the same data,
    where KL021's fix (more programs, with a combine step) changes the
    algorithm. It reduces programs, not kernel launches, so Kernel Launch
    Reduction (KL005, KL006, KL017: launches, syncs and compiles issued
    from the host) does not name it.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl019_scalar_programs/` (`kernlint rule KL019` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL019"
    name = "scalar-programs"
    category = Category.MEMORY_LAYOUT
    severity = Severity.WARNING
    summary = "A kernel whose loads and stores are all scalar, launched with one program per element."
    bottleneck = (
        "Program scheduling: one program (a whole thread block) per element, each using one lane for a scalar "
        "load and store, so the grid is millions of tiny programs and memory bandwidth is never reached."
    )
    method = "Give each program a block of elements: offsets from tl.arange, a mask, and a grid of cdiv(n, BLOCK)."
    priority = 25
    fix_effect = "block_programs"

    VALID = [
        # A vectorized elementwise kernel.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)
            def go(x, y):
                relu[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
            """
        ),
        # Scalar addresses, but the grid is one program per row, not per element.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def first(x_ptr, y_ptr, stride):
                row = tl.program_id(0)
                tl.store(y_ptr + row, tl.load(x_ptr + row * stride))
            def go(x, y):
                first[(x.shape[0],)](x, y, x.stride(0))
            """
        ),
        # One vector load among scalar ones.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def scale(x_ptr, s_ptr, y_ptr, BLOCK: tl.constexpr):
                pid = tl.program_id(0)
                s = tl.load(s_ptr)
                offs = pid * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs) * s)
            def go(x, s, y):
                scale[(x.numel(),)](x, s, y, BLOCK=1)
            """
        ),
        # The grid divides the count by a block.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def copy(x_ptr, y_ptr):
                pid = tl.program_id(0)
                tl.store(y_ptr + pid, tl.load(x_ptr + pid))
            def go(x, y):
                copy[(x.numel() // 4,)](x, y)
            """
        ),
        # Block pointers are tiles.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def copy(x_ptr, y_ptr, n):
                p = tl.make_block_ptr(x_ptr, (n,), (1,), (tl.program_id(0),), (1,), (0,))
                tl.store(y_ptr + tl.program_id(0), tl.sum(tl.load(p), axis=0))
            def go(x, y):
                copy[(x.numel(),)](x, y, x.numel())
            """
        ),
        # A call to another jit function: its addresses are not seen here.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def body(x_ptr, y_ptr, i):
                tl.store(y_ptr + i, tl.load(x_ptr + i))
            @triton.jit
            def copy(x_ptr, y_ptr):
                body(x_ptr, y_ptr, tl.program_id(0))
            def go(x, y):
                copy[(x.numel(),)](x, y)
            """
        ),
        # A KernelBench file whose kernel gives each program a block of 1024: the grid is not the cost.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                x = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, x * tl.sigmoid(1.702 * x), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    n = x.numel()
                    gelu[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
    ]
    INVALID = [
        # One element per program over x.numel().
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def relu(x_ptr, y_ptr):
                pid = tl.program_id(0)
                tl.store(y_ptr + pid, tl.maximum(tl.load(x_ptr + pid), 0.0))
            def go(x, y):
                relu[(x.numel(),)](x, y)
            """,
            line=9,
            column=5,
        ),
        # The count through a name.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def add(a_ptr, b_ptr, c_ptr):
                i = tl.program_id(axis=0)
                tl.store(c_ptr + i, tl.load(a_ptr + i) + tl.load(b_ptr + i))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    c = torch.empty_like(a)
                    n = a.numel()
                    add[(n,)](a, b, c)
                    return c
            """,
            line=13,
            column=9,
        ),
        # A scalar loop per output element (a pooling window).
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def pool(x_ptr, y_ptr, W: tl.constexpr):
                out = tl.program_id(0)
                acc = tl.load(x_ptr + out * W)
                for i in range(1, W):
                    acc = tl.maximum(acc, tl.load(x_ptr + out * W + i))
                tl.store(y_ptr + out, acc)
            def go(x, W):
                y = torch.empty(x.numel() // W, device=x.device)
                pool[(y.numel(),)](x, y, W=W)
                return y
            """,
            line=14,
            column=5,
        ),
        # A grid given as a lambda.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def neg(x_ptr, y_ptr):
                pid = tl.program_id(0)
                tl.store(y_ptr + pid, -tl.load(x_ptr + pid))
            def go(x, y):
                neg[lambda meta: (x.numel(),)](x, y)
            """,
            line=9,
            column=5,
        ),
        # Two-dimensional grid whose first axis is the element count.
        Invalid(
            """
            import triton
            from triton import language as lang
            @triton.jit
            def cast(x_ptr, y_ptr, n):
                i = lang.program_id(0) + lang.program_id(1) * n
                lang.store(y_ptr + i, lang.load(x_ptr + i).to(lang.float16))
            def go(x, y):
                cast[(x[0].numel(), x.shape[0])](x, y, x[0].numel())
            """,
            line=9,
            column=5,
        ),
        # A grid tuple built before the launch.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def sq(x_ptr, y_ptr):
                pid = tl.program_id(0)
                v = tl.load(x_ptr + pid)
                tl.store(y_ptr + pid, v * v)
            def go(x, y):
                grid = (x.numel(),)
                sq[grid](x, y)
            """,
            line=11,
            column=5,
        ),
        # A grid lambda bound to a name, ignoring its blocks.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def relu(x_ptr, y_ptr, n):
                i = tl.program_id(0)
                tl.store(y_ptr + i, tl.maximum(tl.load(x_ptr + i), 0.0))
            def go(x, y):
                n = x.numel()
                grid = lambda META: (n,)
                relu[grid](x, y, n)
            """,
            line=11,
            column=5,
        ),
        # At the file's shapes: blocks of 32 elements over 2 M programs (a 2-D grid of one output per program
        # is reported the same way).
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def gelu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                x = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, x * tl.sigmoid(1.702 * x), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    n = x.numel()
                    gelu[(triton.cdiv(n, 32),)](x, y, n, BLOCK=32, num_warps=1)
                    return y
            def get_inputs():
                return [torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        reported: set[int] = set()
        for kernel in model.kernel_list:
            if not model.scalar_addresses(kernel):
                continue
            for launch in model.launches_of(kernel):
                count = _element_count_axis(model, launch)
                if count is not None:
                    reported.add(model.line_of(launch.node))
                    yield _report(model, kernel, launch, count)
        yield from _scheduling_bound(model, reported)


def _scheduling_bound(model: FileModel, reported: set[int]) -> Iterator[Report]:
    """Launches of the entry point whose grid, at the file's shapes, costs its
    scheduling rather than its bytes (the cost model's time per program), or
    whose programs loop over scalar loads (the calibrated rate of such loops)."""
    entry, calibration = model.entry_point, cost.calibration()
    if entry is None or calibration is None:
        return
    c = calibration.constants
    for op in entry.ops:
        if op.kind != "triton" or op.site_line in reported:
            continue
        if op.programs < MANY_PROGRAMS and not op.scalar_loop:
            continue
        if cost.gpu_us(op, c) < SCHEDULING_BOUND * cost.gpu_us(cost.blocked(op), c):
            continue
        launch = model.launch_at_site(op.site_line, op.note)
        if launch is None:
            continue
        reported.add(op.site_line)
        yield _report_grid(model, launch, op)


def _grid(model: FileModel, launch: Launch) -> cst.BaseExpression:
    """The launch's grid as written, through a name bound to it before the launch (`grid = (n,)`)."""
    grid = launch.grid
    if isinstance(grid, cst.Name):
        return model.assigned_value(launch.caller, grid.value, before=launch.node) or grid
    return grid


def _element_count_axis(model: FileModel, launch: Launch) -> cst.BaseExpression | None:
    """The grid axis sized by a `numel()` with no division by a block, or None."""
    grid = _grid(model, launch)
    if isinstance(grid, cst.Lambda):  # `grid = lambda META: (n,)`: a lambda that ignores its blocks
        grid = grid.body
    axes = [e.value for e in grid.elements] if isinstance(grid, (cst.Tuple, cst.List)) else [grid]
    for axis in axes:
        expression = axis
        if isinstance(axis, cst.Name):
            value = model.assigned_value(launch.caller, axis.value, before=launch.node)
            expression = value if value is not None else axis
        if _is_count(model, expression):
            return axis
    return None


def _is_count(model: FileModel, node: cst.BaseExpression) -> bool:
    has_numel = False
    for child in walk(node) if not isinstance(node, cst.Call) else [node, *walk(node)]:
        if isinstance(child, cst.BinaryOperation) and isinstance(
            child.operator, (cst.FloorDivide, cst.Divide, cst.RightShift)
        ):
            return False
        if isinstance(child, cst.Call):
            name = (model.qualname(child.func) or "").rsplit(".", 1)[-1]
            if isinstance(child.func, cst.Attribute):
                name = child.func.attr.value
            if name in BLOCKING:
                return False
            if name == "numel":
                has_numel = True
    return has_numel


def _report(model: FileModel, kernel: Kernel, launch: Launch, axis: cst.BaseExpression) -> Report:
    count = model.code(axis).strip()
    message = (
        f"`{kernel.name}` loads and stores one element per address (no tl.arange in any offset) and is "
        f"launched with one program per element (grid `{count}`): a thread block per element, bound by "
        f"scheduling millions of programs, not by memory"
    )
    plan = (
        f"Give each program of `{kernel.name}` a block: add `BLOCK: tl.constexpr`, build "
        f"`offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)` with `mask = offs < n` on every load and store "
        f"(a per-element loop becomes a loop over vectors), and launch with `triton.cdiv({count}, BLOCK)` "
        f"programs, BLOCK=1024 for an elementwise kernel."
    )
    return Report(node=launch.node, message=message, plan=plan)


def _report_grid(model: FileModel, launch: Launch, op: Op) -> Report:
    kernel = launch.kernel
    grid = model.code(_grid(model, launch)).strip()
    per_program = op.bytes / op.programs
    if op.scalar_loop:
        message = (
            f"`{kernel.name}` is launched with {op.programs:,} programs at the file's shapes (grid `{grid}`), "
            f"each looping over its {per_program:,.0f} bytes one scalar load at a time: the loop's latency, "
            "not memory bandwidth, sets the launch's time"
        )
    else:
        message = (
            f"`{kernel.name}` is launched with {op.programs:,} programs at the file's shapes (grid `{grid}`), "
            f"each moving {per_program:,.0f} bytes: scheduling that many programs, not memory, sets the launch's "
            "time"
        )
    plan = (
        f"Give each program of `{kernel.name}` a block of about {cost.PROGRAM_BLOCK} elements: offsets "
        f"`pid * BLOCK + tl.arange(0, BLOCK)` with a mask (a per-element loop becomes a loop over vectors, an "
        f"output per program a row or tile of outputs), BLOCK a power of two such as {cost.PROGRAM_BLOCK} and "
        f"num_warps 4-8, and launch `triton.cdiv(n, BLOCK)` programs."
    )
    return Report(node=launch.node, message=message, plan=plan)
