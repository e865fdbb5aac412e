from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel
from kernlint.model.offsets import TileRange
from kernlint.model.syntax import keyword, positional
from kernlint.registry import Activation, Invalid, Report, Rule, Valid

# Tensor-core MMA minimum per dimension (16-bit operands; 8-bit need K >= 32).
MINIMUM = 16
MINIMUM_K_INT8 = 32
INTEGER8 = frozenset({"int8", "uint8"})
# Dimension names by (operand, axis): a is M x K, b is K x N.
ROLES = {(0, 0): "M", (0, 1): "K", (1, 0): "K", (1, 1): "N"}


@dataclass(frozen=True)
class SmallDim:
    role: str | None  # "M", "N", "K", or None when the axis is not visible
    size: cst.BaseExpression
    values: tuple[int, ...]
    minimum: int


class SmallDotTile(Rule):
    """
    ## What it does
    Finds `tl.dot` whose operand tiles have a dimension known to be below
    the tensor-core minimum: M, N or K under 16, or K under 32 when the host
    code says the operands are int8. A tile dimension is the range of the
    `tl.arange` that builds the operand's address (`offs_m[:, None]` is the
    row axis, `offs_k[None, :]` the column axis) or an entry of its block
    pointer's `block_shape`; its size is known when it is a literal or a
    constexpr whose every value is known from the source (launch literals,
    every `@triton.autotune` config, the default the launches rely on). A
    kernel launched with `BLOCK_M=1` on a `tl.dot` (a GEMV through the
    matmul path) is the common case.

    It stays silent when any value of the dimension is at or above the
    minimum, when a value is unknown (set by `@triton.heuristics`, computed
    at the launch, a config list built elsewhere), and on kernels without
    `tl.dot` (a reduction with `BLOCK_M=1` is the right GEMV).

    ## Why is this bad?
    Tensor-core MMA instructions work on 16-row (and 16- or 32-deep) blocks.
    A 1-row tile is padded to 16 rows: the kernel pays for the MMA, the
    register layout conversions and the shared-memory staging of a full tile
    to use 1/16 of it, while a GEMV is bound by reading the weight, which a
    plain multiply-and-reduce streams with no layout conversion at all.

    ## Example
    ```python
    @triton.autotune(configs=[triton.Config({"BLOCK_M": 1, "BLOCK_N": 64, "BLOCK_K": 256})], key=["N", "K"])
    @triton.jit
    def gemv(x_ptr, w_ptr, ...):
        ...
        acc += tl.dot(x_tile, w_tile)  # x_tile is 1 x BLOCK_K
    ```

    ## Use instead
    ```python
    @triton.jit
    def gemv(x_ptr, w_ptr, ..., NUM_STAGES: tl.constexpr):
        ...
        for k in tl.range(0, K, BLOCK_K, num_stages=NUM_STAGES):
            w = tl.load(w_ptrs)  # BLOCK_N x BLOCK_K
            x = tl.load(x_ptrs)  # BLOCK_K
            acc += tl.sum(w * x[None, :], axis=1)
            ...
    ```
    Keep the K loop pipelined: Triton software-pipelines the loads of a
    loop without `tl.dot` (asynchronous copies, several tiles in flight)
    only when the loop asks for it with `tl.range(..., num_stages=N)`; a
    plain `range` keeps one tile in flight, and a GEMV is bound by the bytes
    it keeps in flight, so it loses to the 1-row `tl.dot`, whose operand
    loads are pipelined by default. With several rows (M = 2-4), let one
    program take all of them so each weight tile is read once. For a tile
    that is merely small (M = 8), raise it to 16 and mask the padded rows.

    ## Fix safety
    No automatic fix: replacing `tl.dot` by a reduction changes the kernel's
    loop and layout, and raising a tile needs masks on the padded rows.
    """

    code = "KL015"
    name = "small-dot-tile"
    category = Category.TUNING
    # Info: the library's pair measured the fix under 5% in every mode at
    # every shape on an H100 (`kernlint rule KL015` prints the record's
    # numbers; tests/test_kernels_claims.py keeps severity and record in step).
    severity = Severity.INFO
    # Opt-in (issue 25): its reference pair measures 0.96-1.06x: no mode and shape where the fix pays, so by default it would only add noise
    # (ruff keeps such rules out of its defaults). `extend-select = ["KL015"]` turns it on.
    activation = Activation.OPT_IN
    summary = "A tl.dot tile dimension is below the tensor-core minimum (a 1-row GEMV tile, M/N/K < 16, int8 K < 32)."
    bottleneck = (
        "The MMA pads the small tile dimension to the tensor-core block (16 rows): for a 1-row GEMV tile 15/16 "
        "of every MMA, plus layout conversions and shared-memory staging, is wasted on a weight-bound problem."
    )
    method = (
        "For M = 1 (GEMV) replace tl.dot by a multiply-and-reduce (`tl.sum(w * x[None, :], axis=1)`) that "
        "streams the weight; otherwise raise the tile to the minimum and mask the padded rows."
    )
    priority = 40

    VALID = [
        # 16 x 16 x 32 tiles meet the minimum; `tl.program_id(axis=0)`.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
                offs_m = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
                offs_n = tl.arange(0, BLOCK_N)
                offs_k = tl.arange(0, BLOCK_K)
                a = tl.load(a_ptr + offs_m[:, None] * BLOCK_K + offs_k[None, :])
                b = tl.load(b_ptr + offs_k[:, None] * BLOCK_N + offs_n[None, :])
                tl.store(c_ptr + offs_m[:, None] * BLOCK_N + offs_n[None, :], tl.dot(a, b))
            def go(a, b, c):
                mm[(1,)](a, b, c, BLOCK_M=16, BLOCK_N=16, BLOCK_K=32)
            """
        ),
        # A GEMV as a reduction: BLOCK_M=1 without tl.dot.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemv(x_ptr, w_ptr, y_ptr, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
                offs_n = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
                offs_k = tl.arange(0, BLOCK_K)
                w = tl.load(w_ptr + offs_n[:, None] * K + offs_k[None, :])
                x = tl.load(x_ptr + offs_k)
                tl.store(y_ptr + offs_n, tl.sum(w * x[None, :], axis=1))
            def go(x, w, y, K):
                gemv[(1,)](x, w, y, K, BLOCK_N=1, BLOCK_K=1)
            """
        ),
        # The tile is set by a heuristic: unknown.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.heuristics({"BLOCK_M": lambda args: max(16, triton.next_power_of_2(args["M"]))})
            @triton.jit
            def mm(a_ptr, b_ptr, M, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
                pid_m, pid_n = tl.program_id(0), tl.program_id(1)
                offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
                offs_k = tl.arange(0, BLOCK_K)
                a = tl.load(a_ptr + offs_m[:, None] * BLOCK_K + offs_k[None, :])
                tl.store(b_ptr + offs_m[:, None] * BLOCK_K + offs_k[None, :], tl.dot(a, tl.trans(a)))
            def go(a, b, M):
                mm[(1, 1)](a, b, M, BLOCK_K=32)
            """
        ),
        # One autotune config reaches 16 rows: not every value is small.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.autotune(configs=[triton.Config({"BM": 8, "BK": 32}), triton.Config({"BM": 16, "BK": 32})], key=["M"])
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, M, BM: tl.constexpr, BK: tl.constexpr):
                offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
                offs_k = tl.arange(0, BK)
                a = tl.load(a_ptr + offs_m[:, None] * BK + offs_k[None, :])
                b = tl.load(b_ptr + offs_k[:, None] * BK + offs_k[None, :])
                tl.store(c_ptr + offs_m[:, None] * BK + offs_k[None, :], tl.dot(a, b))
            """
        ),
        # Block pointers with 64 x 32 tiles, stepped with tl.advance in a tl.static_range loop.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, M, K, s0, s1, BM: tl.constexpr, BK: tl.constexpr):
                pa = tl.make_block_ptr(a_ptr, (M, K), (s0, s1), (tl.program_id(0) * BM, 0), (BM, BK), (1, 0))
                pb = tl.make_block_ptr(b_ptr, (K, M), (s1, s0), (0, 0), (BK, BM), (0, 1))
                acc = tl.zeros((BM, BM), dtype=tl.float32)
                for i in tl.static_range(4):
                    acc += tl.dot(tl.load(pa), tl.load(pb))
                    pa = tl.advance(pa, (0, BK))
                    pb = tl.advance(pb, (BK, 0))
            def go(a, b, M, K):
                mm[(1,)](a, b, M, K, a.stride(0), a.stride(1), BM=64, BK=32)
            """
        ),
        # Computed at the launch, and launched from another file: unknown.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, M, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr = 8):
                offs_m = tl.arange(0, BLOCK_M)
                offs_k = tl.arange(0, BLOCK_K)
                a = tl.load(a_ptr + offs_m[:, None] * BLOCK_K + offs_k[None, :])
                tl.store(a_ptr + offs_m[:, None] * BLOCK_K + offs_k[None, :], tl.dot(a, tl.trans(a)))
            def go(a, M):
                mm[(1,)](a, M, BLOCK_M=max(16, triton.next_power_of_2(M)), BLOCK_K=pick(M))
            """
        ),
        # int8 operands with K = 32 meet the int8 minimum.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
                offs_m = tl.arange(0, BLOCK_M)
                offs_k = tl.arange(0, BLOCK_K)
                a = tl.load(a_ptr + offs_m[:, None] * BLOCK_K + offs_k[None, :])
                b = tl.load(b_ptr + offs_k[:, None] * BLOCK_M + offs_m[None, :])
                tl.store(c_ptr + offs_m[:, None] * BLOCK_M + offs_m[None, :], tl.dot(a, b, out_dtype=tl.int32))
            def go(x, w, c):
                assert x.dtype == torch.int8
                assert w.dtype == torch.int8
                mm[(1,)](x, w, c, BLOCK_M=16, BLOCK_K=32)
            """
        ),
    ]
    INVALID = [
        # A GEMV launched with a 1-row tl.dot tile.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemv(x_ptr, w_ptr, y_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
                offs_m = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
                offs_n = tl.program_id(axis=1) * BLOCK_N + tl.arange(0, BLOCK_N)
                offs_k = tl.arange(0, BLOCK_K)
                x = tl.load(x_ptr + offs_m[:, None] * K + offs_k[None, :])
                w = tl.load(w_ptr + offs_k[:, None] + offs_n[None, :] * K)
                tl.store(y_ptr + offs_m[:, None] * K + offs_n[None, :], tl.dot(x, w))
            def go(x, w, y, N, K):
                gemv[(1, N // 64)](x, w, y, K, BLOCK_M=1, BLOCK_N=64, BLOCK_K=128)
            """,
            line=11,
            column=61,
        ),
        # Every autotune config has 8-row tiles; `pid_m, pid_n = ...`.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.autotune(configs=[triton.Config({"BM": 8, "BK": 32}), triton.Config({"BM": 4, "BK": 64})], key=["M"])
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, M, BM: tl.constexpr, BK: tl.constexpr):
                pid_m, pid_n = tl.program_id(0), tl.program_id(1)
                offs_m = pid_m * BM + tl.arange(0, BM)
                offs_k = tl.arange(0, BK)
                a = tl.load(a_ptr + offs_m[:, None] * BK + offs_k[None, :])
                b = tl.load(b_ptr + offs_k[:, None] * BK + offs_k[None, :] + pid_n)
                acc = tl.dot(a, b)
                tl.store(c_ptr + offs_m[:, None] * BK + offs_k[None, :], acc)
            """,
            line=12,
            column=11,
        ),
        # Block pointers with an 8-deep K tile, stepped with tl.advance.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, M, K, s0, s1, BM: tl.constexpr, BK: tl.constexpr):
                pa = tl.make_block_ptr(a_ptr, (M, K), (s0, s1), (tl.program_id(0) * BM, 0), (BM, BK), (1, 0))
                pb = tl.make_block_ptr(b_ptr, (K, M), (s1, s0), (0, 0), (BK, BM), (0, 1))
                acc = tl.zeros((BM, BM), dtype=tl.float32)
                for i in tl.static_range(4):
                    acc += tl.dot(tl.load(pa), tl.load(pb))
                    pa = tl.advance(pa, (0, BK))
                    pb = tl.advance(pb, (BK, 0))
            def go(a, b, M, K):
                mm[(1,)](a, b, M, K, a.stride(0), a.stride(1), BM=64, BK=8)
            """,
            line=10,
            column=16,
        ),
        # int8 operands (from the host's asserts) with K = 16.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
                offs_m = tl.arange(0, BLOCK_M)
                offs_k = tl.arange(0, BLOCK_K)
                a = tl.load(a_ptr + offs_m[:, None] * BLOCK_K + offs_k[None, :])
                b = tl.load(b_ptr + offs_k[:, None] * BLOCK_M + offs_m[None, :])
                tl.store(c_ptr + offs_m[:, None] * BLOCK_M + offs_m[None, :], tl.dot(a, b, out_dtype=tl.int32))
            def go(x, w, c):
                assert x.dtype == torch.int8
                assert w.dtype == torch.int8
                mm[(1,)](x, w, c, BLOCK_M=64, BLOCK_K=16)
            """,
            line=11,
            column=67,
        ),
        # Literal ranges, `from triton import language as lang`.
        Invalid(
            """
            import triton
            from triton import language as lang
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr):
                rows = lang.arange(0, 4)
                cols = lang.arange(0, 32)
                a = lang.load(a_ptr + rows[:, None] * 32 + cols[None, :])
                b = lang.load(b_ptr + cols[:, None] * 32 + cols[None, :])
                lang.store(c_ptr + rows[:, None] * 32 + cols[None, :], lang.dot(a, b))
            """,
            line=10,
            column=60,
        ),
        # The default the only launch relies on, beside a heuristic that only sets EVEN_K.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.heuristics({"EVEN_K": lambda args: args["K"] % 64 == 0})
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, K, EVEN_K: tl.constexpr, BLOCK_M: tl.constexpr = 1, BLOCK_K: tl.constexpr = 64):
                offs_m = tl.arange(0, BLOCK_M)
                offs_k = tl.arange(0, BLOCK_K)
                a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :]).to(tl.float16)
                b = tl.load(b_ptr + offs_k[:, None] * 64 + offs_k[None, :])
                tl.store(c_ptr + offs_m[:, None] * 64 + offs_k[None, :], tl.dot(a, b))
            def go(a, b, c, K):
                mm[(1,)](a, b, c, K)
            """,
            line=11,
            column=62,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for kernel in model.kernel_list:
            for call in kernel.function.calls:
                if not model.is_tl(call.func, "dot"):
                    continue
                operands = _operands(call)
                if len(operands) != 2:
                    continue
                int8 = _is_int8(model, kernel, operands)
                small = _small_dims(model, kernel, operands, int8)
                if small:
                    yield _report(model, kernel, call, small, int8)


def _operands(call: cst.Call) -> list[cst.BaseExpression]:
    args = positional(call)[:2]
    for name in ("input", "other")[len(args) :]:
        value = keyword(call, name)
        if value is not None:
            args.append(value)
    return args


def _is_int8(model: FileModel, kernel: Kernel, operands: list[cst.BaseExpression]) -> bool:
    for operand in operands:
        pointers = model.loaded_pointers(kernel, operand)
        if not pointers:
            return False
        facts = [fact for fact, _ in model.pointer_dtypes(kernel, pointers[0]) if fact is not None]
        if not facts or any(fact.dtype not in INTEGER8 for fact in facts):
            return False
    return True


def _small_dims(model: FileModel, kernel: Kernel, operands: list[cst.BaseExpression], int8: bool) -> list[SmallDim]:
    small: list[SmallDim] = []
    seen: set[tuple[str | None, str]] = set()
    for position, operand in enumerate(operands):
        ranges: tuple[TileRange, ...] = model.tile_ranges(kernel, operand) or ()
        for tile in ranges:
            role = ROLES.get((position, tile.axis)) if tile.axis is not None else None
            minimum = MINIMUM_K_INT8 if int8 and role == "K" else MINIMUM
            values = model.int_values(kernel, tile.size)
            if not values or max(values) >= minimum or min(values) <= 0:
                continue
            key = (role, model.code(tile.size))
            if key not in seen:
                seen.add(key)
                small.append(SmallDim(role, tile.size, tuple(sorted(values)), minimum))
    return small


def _report(model: FileModel, kernel: Kernel, call: cst.Call, small: list[SmallDim], int8: bool) -> Report:
    parts = []
    for dim in small:
        shown = "/".join(str(v) for v in dim.values)
        name = model.code(dim.size).strip()
        size = shown if name == shown else f"`{name}` = {shown}"
        role = f"{dim.role} " if dim.role else ""
        parts.append(
            f"{'an' if role.startswith(('M', 'N')) else 'a'} {role}tile dimension {size} (minimum {dim.minimum}{' for int8' if dim.minimum == MINIMUM_K_INT8 else ''})"
        )
    gemv = any(dim.role == "M" and dim.values == (1,) for dim in small)
    message = (
        f"tl.dot in `{kernel.name}` has {' and '.join(parts)} below the tensor-core minimum; "
        f"the MMA pads it and wastes most of each instruction"
        + (": a 1-row tile is a GEMV run through the matmul path" if gemv else "")
    )
    if gemv:
        plan = (
            f"Rewrite `{kernel.name}` as a reduction without tl.dot: load a (BLOCK_N, BLOCK_K) weight tile and the "
            f"row's BLOCK_K slice of the input, accumulate `tl.sum(w * x[None, :], axis=1)` in fp32 "
            f"({'int32 for int8 data' if int8 else 'or int32 for int8'}) over K, and keep the epilogue."
        )
    else:
        names = ", ".join(f"`{model.code(d.size).strip()}`" for d in small)
        plan = (
            f"Raise {names} to at least {max(d.minimum for d in small)} at every launch and autotune config of "
            f"`{kernel.name}`, and mask the padded rows/columns of the loads and the store."
        )
    return Report(node=call, message=message, plan=plan)
