from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel
from kernlint.model.offsets import LOADED, PID, RUNTIME
from kernlint.model.syntax import keyword, positional
from kernlint.registry import Invalid, Report, Rule, Valid


def is_power_of_two(value: int) -> bool:
    return value > 0 and value & (value - 1) == 0


class NonPow2Arange(Rule):
    """
    ## What it does
    Finds `tl.arange(start, end)` in a `@triton.jit` function whose range
    `end - start` is known and is not a power of two for every value it can
    take: a literal (`tl.arange(0, 48)`), or constexprs whose every value is
    known from the source (the literals or module constants passed at each
    launch, the entries of every `@triton.autotune` config, a signature
    default when no launch passes it), or arithmetic on those
    (`tl.arange(0, 3 * BLOCK)`).

    It stays silent whenever any part of the range is unknown (a constexpr
    set by `@triton.heuristics`, by a config list built elsewhere, by a
    computed launch argument such as `triton.next_power_of_2(N)`, or a
    kernel launched from another file), and whenever any known value is a
    power of two. `tl.static_range` and Python's `range` have no such
    constraint and are never reported. In a KernelBench-style file (static
    shapes) a computed launch argument is known too: `BLOCK_N=N` or
    `BLOCK=pick_block(K)` (a host helper that searches for a divisor), at
    the file's shapes, is reported when its value is not a power of two.

    Two more launches that cannot compile are reported here, because they
    fail the same way:
    - `tl.arange(0, n)` whose bound is a runtime value: a kernel argument
      not declared `tl.constexpr`, a program id or a loaded value, in a
      kernel this file launches (a `@triton.jit` helper's plain parameter
      may receive a constexpr from its caller, so helpers are left alone);
    - `tl.program_id(axis)` or `tl.num_programs(axis)` with an axis known to
      be outside 0, 1, 2: a Triton grid has three axes.

    ## Why is this bad?
    Triton requires the range of `tl.arange` to be a power of two known at
    compile time: the kernel fails to compile at its first launch (`arange's
    range must be a power of 2`, `arange's arguments must be of type
    tl.constexpr`), so the code cannot have run with these values. The same
    holds for a fourth grid axis (`program_id axis must be 0, 1, or 2`).

    ## Example
    ```python
    offs = tl.arange(0, BLOCK)  # launched with BLOCK=96
    x = tl.load(x_ptr + offs, mask=offs < n)
    ```

    ## Use instead
    ```python
    offs = tl.arange(0, BLOCK)  # launched with BLOCK=triton.next_power_of_2(96) == 128
    x = tl.load(x_ptr + offs, mask=offs < n)  # the mask drops the tail
    ```

    ## Fix safety
    No automatic fix: the host must round the block up with
    `triton.next_power_of_2`, and every load and store over the range needs a
    mask for the padded tail.
    """

    code = "KL013"
    name = "non-pow2-arange"
    category = Category.HAZARD
    severity = Severity.ERROR
    summary = (
        "tl.arange over a range that is never a power of two or not a constexpr, or a grid axis past 2: "
        "a compile error at first launch."
    )
    priority = 5
    bottleneck = (
        "The kernel cannot compile: Triton rejects the program at its first launch, so the file does not run at "
        "all (KernelBench scores it as a failure, slower than any kernel that runs)."
    )
    method = (
        "Tile the dimension with a power-of-two tl.constexpr block (triton.next_power_of_2 on the host) and mask "
        "the tail; fold a grid axis past the third into one of the three (one program id split with // and %)."
    )
    fix_category = Category.MEMORY_LAYOUT

    VALID = [
        # The same block rounded up on the host: 1024 at the file's shapes.
        Valid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def row_sum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + tl.program_id(0) * N + offs, mask=offs < N)
                tl.store(y_ptr + tl.program_id(0), tl.sum(x, axis=0))
            class ModelNew(nn.Module):
                def forward(self, x):
                    y = torch.empty(x.shape[0], device=x.device)
                    row_sum[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
                    return y
            def get_inputs():
                return [torch.randn(64, 1000)]
            def get_init_inputs():
                return []
            """
        ),
        # Power-of-two literal, `tl.program_id(axis=0)`, and a Python range of 3.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, n):
                offs = tl.program_id(axis=0) * 64 + tl.arange(0, 64)
                for i in range(3):
                    tl.store(x_ptr + offs, i, mask=offs < n)
            """
        ),
        # tl.static_range takes any length.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                for i in tl.static_range(3):
                    tl.store(x_ptr + i * BLOCK + offs, i)
            def launch(x):
                k[(1,)](x, BLOCK=128)
            """
        ),
        # The bound comes from a heuristic: unknown.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.heuristics({"BLOCK_N": lambda args: triton.next_power_of_2(args["N"])})
            @triton.jit
            def k(x_ptr, N, BLOCK_N: tl.constexpr):
                offs = tl.arange(0, BLOCK_N)
                tl.store(x_ptr + offs, 0, mask=offs < N)
            def launch(x, N):
                k[(1,)](x, 96)
            """
        ),
        # Computed at the launch: unknown.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, N, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                tl.store(x_ptr + offs, 0, mask=offs < N)
            def launch(x, N):
                k[(1,)](x, N, BLOCK=triton.next_power_of_2(N))
            """
        ),
        # One autotune config is a power of two: not every value fails.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.autotune(configs=[triton.Config({"BLOCK": 96}), triton.Config({"BLOCK": 128})], key=["N"])
            @triton.jit
            def k(x_ptr, N, BLOCK: tl.constexpr):
                pid_m, pid_n = tl.program_id(0), tl.program_id(1)
                offs = pid_m * BLOCK + tl.arange(0, BLOCK)
                tl.store(x_ptr + offs, pid_n, mask=offs < N)
            """
        ),
        # A launch from another file: only a default is seen, the bound is unknown.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, N, BLOCK: tl.constexpr = 96):
                offs = tl.arange(0, BLOCK)
                tl.store(x_ptr + offs, 0, mask=offs < N)
            """
        ),
        # Block pointers: the block shape is not an arange; the arange is 16 wide.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, M, N, s0, s1, BM: tl.constexpr, BN: tl.constexpr):
                p = tl.make_block_ptr(x_ptr, (M, N), (s0, s1), (0, 0), (BM, BN), (1, 0))
                tile = tl.load(tl.advance(p, (BM, 0)))
                tl.store(x_ptr + tl.arange(8, 24), tl.sum(tile, axis=0))
            def launch(x, M, N):
                k[(1,)](x, M, N, x.stride(0), x.stride(1), BM=48, BN=48)
            """
        ),
        # Two launches, one with a power of two.
        Valid(
            """
            import triton
            from triton import language as lang
            @triton.jit
            def k(x_ptr, BLOCK: lang.constexpr):
                lang.store(x_ptr + lang.arange(0, BLOCK), 0)
            def launch(x):
                k[(1,)](x, BLOCK=100)
                k[(1,)](x, BLOCK=256)
            """
        ),
        # A helper's plain parameter takes the caller's constexpr; axis 2 exists.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def row(x_ptr, WIDTH):
                return tl.load(x_ptr + tl.arange(0, WIDTH))
            @triton.jit
            def k(x_ptr, y_ptr, WIDTH: tl.constexpr):
                batch = tl.program_id(2)
                tl.store(y_ptr + batch * WIDTH + tl.arange(0, WIDTH), row(x_ptr, WIDTH))
            def launch(x, y):
                k[(1, 1, 4)](x, y, WIDTH=64)
            """
        ),
    ]
    INVALID = [
        # A block the host computes from the input's shape: 1000 at the file's shapes.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def row_sum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + tl.program_id(0) * N + offs, mask=offs < N)
                tl.store(y_ptr + tl.program_id(0), tl.sum(x, axis=0))
            class ModelNew(nn.Module):
                def forward(self, x):
                    y = torch.empty(x.shape[0], device=x.device)
                    row_sum[(x.shape[0],)](x, y, x.shape[1], BLOCK=x.shape[1])
                    return y
            def get_inputs():
                return [torch.randn(64, 1000)]
            def get_init_inputs():
                return []
            """,
            line=8,
            column=12,
        ),
        # A runtime argument bounds the arange.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, n):
                offs = tl.arange(0, n)
                tl.store(x_ptr + offs, 0)
            def launch(x):
                k[(1,)](x, x.numel())
            """,
            line=6,
            column=12,
        ),
        # A fourth grid axis.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, BLOCK: tl.constexpr):
                group = tl.program_id(axis=3)
                tl.store(x_ptr + group * BLOCK + tl.arange(0, BLOCK), 0)
            """,
            line=6,
            column=13,
        ),
        # A literal range.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, n):
                offs = tl.program_id(axis=0) * 48 + tl.arange(0, 48)
                tl.store(x_ptr + offs, 0, mask=offs < n)
            """,
            line=6,
            column=41,
        ),
        # A launch literal.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, N, BLOCK_SIZE: tl.constexpr):
                pid = tl.program_id(0)
                offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
                tl.store(x_ptr + offs, 0, mask=offs < N)
            def launch(x, N):
                k[(triton.cdiv(N, 96),)](x, N, BLOCK_SIZE=96)
            """,
            line=7,
            column=31,
        ),
        # Every autotune config fails.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.autotune(configs=[triton.Config({"BLOCK": 48}, num_warps=2), triton.Config({"BLOCK": 96})], key=["N"])
            @triton.jit
            def k(x_ptr, N, BLOCK: tl.constexpr):
                pid_m, pid_n = tl.program_id(0), tl.program_id(1)
                offs = pid_m * BLOCK + tl.arange(0, BLOCK)
                tl.store(x_ptr + offs, pid_n, mask=offs < N)
            """,
            line=8,
            column=28,
        ),
        # A start offset makes the range 24.
        Invalid(
            """
            import triton
            from triton import language as lang
            @triton.jit
            def k(x_ptr):
                lang.store(x_ptr + lang.arange(8, 32), 0)
            def launch(x):
                k[(1,)](x)
            """,
            line=6,
            column=24,
        ),
        # Arithmetic on a module constant, inside tl.static_range.
        Invalid(
            """
            import triton
            import triton.language as tl
            HEAD = 64
            @triton.jit
            def k(x_ptr, D: tl.constexpr):
                for i in tl.static_range(2):
                    tl.store(x_ptr + i * D + tl.arange(0, 3 * D), 0)
            def launch(x):
                k[(1,)](x, D=HEAD)
            """,
            line=8,
            column=34,
        ),
        # A default the only launch relies on, and a name assigned once in the kernel.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.heuristics({"EVEN": lambda args: args["N"] % 80 == 0})
            @triton.jit
            def k(x_ptr, N, EVEN: tl.constexpr, BLOCK: tl.constexpr = 80):
                width = BLOCK
                offs = tl.arange(0, width)
                tl.store(x_ptr + offs, 0, mask=offs < N)
            def launch(x, N):
                k[(1,)](x, N)
            """,
            line=8,
            column=12,
        ),
        # Block pointers elsewhere in the kernel do not hide the arange.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(x_ptr, M, N, s0, s1, BM: tl.constexpr, BN: tl.constexpr):
                p = tl.make_block_ptr(x_ptr, (M, N), (s0, s1), (0, 0), (BM, BN), (1, 0))
                p = tl.advance(p, (BM, 0))
                tile = tl.load(p)
                cols = tl.arange(0, BN)
                tl.store(x_ptr + cols, tl.sum(tile, axis=0))
            def launch(x, M, N):
                k[(1,)](x, M, N, x.stride(0), x.stride(1), BM=32, BN=48)
            """,
            line=9,
            column=12,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for kernel in model.kernel_list:
            launched = bool(model.launches_of(kernel))
            for call in kernel.function.calls:
                if model.is_tl(call.func, "program_id") or model.is_tl(call.func, "num_programs"):
                    report = _grid_axis(model, kernel, call)
                    if report is not None:
                        yield report
                    continue
                if not model.is_tl(call.func, "arange"):
                    continue
                args = positional(call)
                if len(args) != 2:
                    continue
                if launched:
                    runtime = _runtime_bound(model, kernel, args)
                    if runtime is not None:
                        yield _runtime_report(model, kernel, call, runtime)
                        continue
                start = model.int_values(kernel, args[0])
                end = model.int_values(kernel, args[1]) if start is not None else None
                if start is None or end is None:
                    continue
                ranges = sorted({e - s for s in start for e in end})
                if not ranges or any(is_power_of_two(r) or r <= 0 for r in ranges):
                    continue
                yield _report(model, kernel, call, args, ranges)
        yield from _at_file_shapes(model)


def _at_file_shapes(model: FileModel) -> Iterator[Report]:
    """In a KernelBench-style file: `tl.arange(0, BLOCK)` where the launch passes BLOCK a value
    computed on the host (`BLOCK_N=N`, `BLOCK=pick_block(K)`) that, at the file's shapes, is not a
    power of two. Where the source alone fixes the constexpr's values, the check above has
    reported it already."""
    entry = model.entry_point
    if entry is None or entry.unknown:
        return
    seen: set[tuple[int, int]] = set()
    for op in entry.ops:
        if op.kind != "triton" or not op.int_keywords:
            continue
        launch = model.launch_at_site(op.site_line, op.note)
        if launch is None:
            continue
        kernel, values = launch.kernel, dict(op.int_keywords)
        for call in kernel.function.calls:
            args = positional(call)
            if not model.is_tl(call.func, "arange") or len(args) != 2 or not isinstance(args[1], cst.Name):
                continue
            name, start = args[1].value, model.int_values(kernel, args[0])
            if name not in values or start != frozenset({0}) or (id(call), values[name]) in seen:
                continue
            if model.int_values(kernel, args[1]) is not None or is_power_of_two(values[name]):
                continue  # known from the source alone: the check above decides
            seen.add((id(call), values[name]))
            argument = next((a.value for a in launch.node.args if a.keyword and a.keyword.value == name), None)
            spelled = model.code(argument).strip() if argument is not None else name
            message = (
                f"`{model.code(call)}` in `{kernel.name}` spans {values[name]:,} elements at the file's shapes "
                f"(the launch on line {op.site_line} passes `{name}={spelled}`), not a power of two: Triton "
                "refuses to compile it at the first launch"
            )
            plan = (
                f"Pass `{name}` as a power of two (`triton.next_power_of_2(...)`, {_next_pow2(values[name])} "
                f"here, or a fixed block such as 1024 with a loop over the rest) and mask each load and store "
                "over the range on the real length."
            )
            yield Report(node=call, message=message, plan=plan)


def _report(
    model: FileModel, kernel: Kernel, call: cst.Call, args: list[cst.BaseExpression], ranges: list[int]
) -> Report:
    shown = ", ".join(str(r) for r in ranges)
    bound = model.code(args[1])
    names = [n for n in (bound.strip(),) if n.isidentifier() and kernel.param(n) is not None]
    message = (
        f"`{model.code(call)}` in `{kernel.name}` spans {shown} elements, "
        f"never a power of two: Triton refuses to compile it at the first launch"
    )
    if names:
        plan = (
            f"Pass `{names[0]}` rounded up to a power of two (`triton.next_power_of_2(...)`, e.g. "
            f"{_next_pow2(ranges[0])} for {ranges[0]}) at every launch and config of `{kernel.name}`, "
            f"and mask each load and store over the range on the real length."
        )
    else:
        plan = (
            f"Make the range a power of two ({_next_pow2(ranges[0])} instead of {ranges[0]}) and mask the "
            f"padded tail of each load and store on the real length."
        )
    return Report(node=call, message=message, plan=plan)


def _runtime_bound(model: FileModel, kernel: Kernel, args: list[cst.BaseExpression]) -> cst.BaseExpression | None:
    """The first bound of the arange that is a runtime value (a plain
    argument, a program id, a loaded value), or None."""
    for arg in args:
        if {RUNTIME, PID, LOADED} & model.offset_provenance(kernel, arg):
            return arg
    return None


def _runtime_report(model: FileModel, kernel: Kernel, call: cst.Call, bound: cst.BaseExpression) -> Report:
    shown = model.code(bound).strip()
    message = (
        f"`{model.code(call)}` in `{kernel.name}` has a runtime bound `{shown}` (not a `tl.constexpr`): "
        f"Triton refuses to compile it, the range of tl.arange must be a power-of-two constant"
    )
    plan = (
        f"Add a block constexpr to `{kernel.name}` (`BLOCK: tl.constexpr`), pass "
        f"`triton.next_power_of_2({shown})` for it at the launch (or loop over `{shown}` in BLOCK-sized "
        f"steps when it can be large), write `tl.arange(0, BLOCK)`, and mask each load and store with "
        f"`offs < {shown}`."
    )
    return Report(node=call, message=message, plan=plan)


def _grid_axis(model: FileModel, kernel: Kernel, call: cst.Call) -> Report | None:
    args = positional(call)
    axis = keyword(call, "axis") or (args[0] if args else None)
    if axis is None:
        return None
    values = model.int_values(kernel, axis)
    if not values or any(0 <= v <= 2 for v in values):
        return None
    shown = ", ".join(str(v) for v in sorted(values))
    message = (
        f"`{model.code(call)}` in `{kernel.name}` asks for grid axis {shown}: a Triton grid has three axes "
        f"(0, 1, 2), so the kernel fails to compile"
    )
    plan = (
        f"Fold the extra dimension into one of the three axes of `{kernel.name}`'s grid (launch "
        f"`(a, b, c * d)` and recover both indices with `pid // d` and `pid % d`), or loop over it inside "
        f"the kernel."
    )
    return Report(node=call, message=message, plan=plan)


def _next_pow2(value: int) -> int:
    return 1 << max(0, (value - 1).bit_length())
