from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import Conversion, DtypeFact, FileModel, Kernel, Launch
from kernlint.model.dtypes import NARROW_DTYPES, short_dtype
from kernlint.model.syntax import keyword, positional
from kernlint.registry import Invalid, Report, Rule, Valid

INTEGER = frozenset({"int8", "uint8"})
# A comment on the tl.dot line (or a comment line right above it) that talks
# about precision marks the fp32 product as a deliberate choice.
PRECISION_COMMENT = re.compile(r"precision|on purpose|intentional", re.IGNORECASE)
# input_precision values that ask for more than TF32 on purpose.
DELIBERATE_PRECISION = frozenset({"ieee", "tf32x3"})
ASSIGNED_TO = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\+=|=)\s*$")


@dataclass(frozen=True)
class Upcast:
    """One tl.dot operand that is a loaded tile converted to fp32."""

    operand: cst.BaseExpression
    conversion: Conversion
    pointer: str
    host: tuple[tuple[DtypeFact, Launch], ...]  # known host dtypes of the pointer's tensor

    @property
    def dtype(self) -> str | None:
        return self.host[0][0].dtype if self.host else None


class UpcastBeforeDot(Rule):
    """
    ## What it does
    Finds `tl.dot` (any spelling of `triton.language.dot`) whose operands are
    tiles loaded with `tl.load` and then explicitly converted to fp32
    (`tl.cast(x, tl.float32)`, `x.to(tl.float32)`, inline or through a name)
    from a narrower dtype: int8/uint8, fp8, fp16 or bf16.

    The source dtype comes from the host code that launches the kernel: a
    wrapper's `assert x.dtype == torch.int8`, the dtype the tensor bound to
    the pointer was created or converted with, or `get_inputs()`. The finding
    has confidence "high" when that dtype is known narrow for every operand,
    and "medium" when only the conversion is visible.

    It stays silent when:
    - only one operand is converted: the other is already wider (a
      mixed-precision kernel dequantizing int4/int8 weights to meet its
      activations), or not a plain loaded tile;
    - the conversion is to fp16/bf16 (that is the fast path);
    - the host says the pointer's tensor is already fp32 (or wider);
    - the wider product is chosen on purpose: `input_precision="ieee"` or
      `"tf32x3"` (or the deprecated `allow_tf32=False`), or a comment on the
      `tl.dot` line, or on a comment line just above it, that mentions
      "precision", "on purpose" or "intentional"
      (`acc += tl.dot(a, b)  # fp32 on purpose: K is tiny`);
    - the conversion sits under `if CAST: ...` of a constexpr that every
      launch sets from a dtype test (`CAST=x.dtype != w.dtype`): the fp32
      path is the fallback for dtypes the narrow path cannot take.

    ## Why is this bad?
    Tensor cores multiply int8, fp8, fp16 and bf16 natively. Once both tiles
    are fp32, `tl.dot` runs on the TF32 path (or on FMA units with
    `input_precision="ieee"`), which has a fraction of the int8/fp16
    throughput, and the converted tiles take two to four times the registers
    and shared memory, which lowers occupancy and pipelining. For int8 the
    fp32 product also loses exactness that an int32 accumulator keeps.

    ## Example
    ```python
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)  # int8
        b = tl.load(b_ptrs)  # int8
        acc += tl.dot(tl.cast(a, tl.float32), tl.cast(b, tl.float32))
    acc = acc * scale
    ```

    ## Use instead
    ```python
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.int32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b, out_dtype=tl.int32)
    acc = acc.to(tl.float32) * scale  # scales in the epilogue, once
    ```
    For fp16/bf16 operands keep the fp32 accumulator: `acc = tl.dot(a, b, acc)`.

    ## Fix safety
    No automatic fix: the accumulator's dtype and where the scales are
    applied change together, and an int32 accumulator can overflow for very
    long K (above about 2**17 for full-range int8).
    """

    code = "KL001"
    name = "upcast-before-dot"
    category = Category.ALGORITHM_REPLACEMENT
    fix_effect = "tensor_cores"
    severity = Severity.WARNING
    summary = "tl.dot operands upcast to fp32 from narrow loads; the tensor cores' native int8/fp16 path is not used."
    bottleneck = (
        "The matmul's inner product runs on the fp32/TF32 path: narrow (int8/fp16/bf16) tiles are converted "
        "to fp32 before tl.dot, which forfeits the native tensor-core throughput and doubles to quadruples "
        "register and shared-memory use per tile."
    )
    method = (
        "Feed the narrow tiles to tl.dot unchanged with the matching accumulator (int8: out_dtype=tl.int32 "
        "and an int32 acc; fp16/bf16: fp32 acc) and apply scales/dequantization once in the epilogue after "
        "the K loop."
    )
    priority = 10

    VALID = [
        # Mixed precision: int8 weights dequantized to meet fp32 activations.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def k(x_ptr, w_ptr, o_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + offs[:, None] * BLOCK + offs[None, :])
                w = tl.load(w_ptr + offs[:, None] * BLOCK + offs[None, :])
                acc = tl.dot(x, w.to(tl.float32))
                tl.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """
        ),
        # Conversion to bf16 is the tensor-core path.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :]).to(tl.bfloat16)
                b = tl.cast(tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :]), tl.bfloat16)
                acc = tl.dot(a, b)
                tl.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """
        ),
        # The host says the tensors are fp32 already: the conversions are no-ops.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
                b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32))
                tl.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)

            def run(a, b, out, block):
                assert a.dtype == torch.float32
                assert b.dtype == torch.float32
                k[(1,)](a, b, out, BLOCK=block)
            """
        ),
        # Full fp32 precision asked for on purpose.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :]).to(tl.float32)
                b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :]).to(tl.float32)
                acc = tl.dot(a, b, input_precision="ieee")
                tl.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """
        ),
        # A precision comment on the dot line documents the choice.
        Valid(
            """
            from triton import language as lang
            import triton

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: lang.constexpr):
                offs = lang.arange(0, BLOCK)
                a = lang.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
                b = lang.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
                acc = lang.dot(lang.cast(a, lang.float32), lang.cast(b, lang.float32))  # fp32 on purpose
                lang.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """
        ),
        # Converted values that were computed, not loaded.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def k(o_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                a = (offs[:, None] + offs[None, :]).to(tl.float32)
                acc = tl.dot(a, a.to(tl.float32))
                tl.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """
        ),
        # A bitcast reinterprets bits; it is not an upcast.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :]).to(tl.float32, bitcast=True)
                b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :]).to(tl.float32, bitcast=True)
                acc = tl.dot(a, b)
                tl.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """
        ),
        # The cast is the fallback the host picks with a dtype test.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: tl.constexpr, CAST_FP32: tl.constexpr):
                a = tl.load(a_ptr + tl.arange(0, BLOCK))
                b = tl.load(b_ptr + tl.arange(0, BLOCK))
                if CAST_FP32:
                    a = a.to(tl.float32)
                    b = b.to(tl.float32)
                tl.store(o_ptr, tl.dot(a, b))
            def run(x, w, out):
                narrow = x.dtype == w.dtype and x.dtype in (torch.float16, torch.bfloat16)
                k[(1,)](x, w, out, BLOCK=16, CAST_FP32=not narrow)
            """
        ),
        # numpy's dot is not Triton's.
        Valid(
            """
            import numpy as np
            a = np.load("a.npy").astype(np.float32)
            c = np.dot(a.astype(np.float32), a.astype(np.float32))
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
                b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
                a_f32 = tl.cast(a, tl.float32)
                b_f32 = tl.cast(b, tl.float32)
                acc = tl.dot(a_f32, b_f32)
                tl.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)

            def run(x, w, out, block):
                assert x.dtype == torch.int8
                assert w.dtype == torch.int8
                k[(1,)](x, w, out, BLOCK=block)
            """,
            line=13,
            column=11,
        ),
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
                b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
                acc = tl.dot(a.to(tl.float32), b.to(tl.float32))
                tl.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """,
            line=10,
            column=11,
        ),
        Invalid(
            """
            import triton
            from triton import language as lang

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: lang.constexpr):
                offs = lang.arange(0, BLOCK)
                a = lang.load(a_ptr + offs[:, None] * BLOCK + offs[None, :]).to(lang.float32)
                b = lang.load(b_ptr + offs[:, None] * BLOCK + offs[None, :]).to(lang.float32)
                acc = lang.dot(a, b)
                lang.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """,
            line=10,
            column=11,
        ),
        Invalid(
            """
            import triton
            import triton.language as tl
            from triton.language import dot

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
                b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
                acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
                acc += dot(tl.cast(a, dtype=tl.float32), tl.cast(b, dtype=tl.float32))
                tl.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """,
            line=12,
            column=12,
        ),
        Invalid(
            """
            import triton
            from triton.language import *

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: constexpr):
                offs = arange(0, BLOCK)
                a = load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
                b = load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
                acc = dot(cast(a, float32), cast(b, float32))
                store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """,
            line=10,
            column=11,
        ),
        Invalid(
            """
            import torch
            import triton

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: triton.language.constexpr):
                offs = triton.language.arange(0, BLOCK)
                a = triton.language.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
                b = triton.language.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
                acc = triton.language.dot(a.to(triton.language.float32), b.to(triton.language.float32))
                triton.language.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)

            def run(x, w, block):
                out = torch.empty((block, block), device=x.device, dtype=torch.float32)
                k[(1,)](x.to(torch.float16), w.half(), out, BLOCK=block)
                return out
            """,
            line=10,
            column=11,
        ),
        # A tf32 choice is not a precision choice: still the slow path.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def k(a_ptr, b_ptr, o_ptr, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
                b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
                acc = tl.dot(tl.cast(a, tl.float32), tl.cast(b, tl.float32), input_precision="tf32")
                tl.store(o_ptr + offs[:, None] * BLOCK + offs[None, :], acc)
            """,
            line=10,
            column=11,
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
                upcasts = [_upcast(model, kernel, operand) for operand in operands]
                if any(u is None for u in upcasts) or _deliberate_precision(model, call):
                    continue
                yield _report(model, kernel, call, [u for u in upcasts if u is not None])


def _operands(call: cst.Call) -> list[cst.BaseExpression]:
    args = positional(call)[:2]
    for name in ("input", "other")[len(args) :]:
        value = keyword(call, name)
        if value is not None:
            args.append(value)
    return args


def _deliberate_precision(model: FileModel, call: cst.Call) -> bool:
    precision = keyword(call, "input_precision")
    if isinstance(precision, cst.SimpleString) and precision.evaluated_value in DELIBERATE_PRECISION:
        return True
    allow = keyword(call, "allow_tf32")
    if isinstance(allow, cst.Name) and allow.value == "False":
        return True
    # The lines of the call, and the line above it when that is a comment.
    source = model.source
    start, end = model.offsets(call)
    first = source.rfind("\n", 0, start) + 1
    above = source.rfind("\n", 0, max(first - 1, 0)) + 1 if first > 0 else first
    last = source.find("\n", end)
    lines = source[first : len(source) if last < 0 else last].splitlines()
    previous = source[above : max(first - 1, above)]
    if previous.lstrip().startswith("#"):
        lines.append(previous)
    for text in lines:
        comment = _comment(text)
        if comment is not None and PRECISION_COMMENT.search(comment):
            return True
    return False


def _comment(line: str) -> str | None:
    """The comment on a source line, skipping `#` inside string literals."""
    quote: str | None = None
    for index, char in enumerate(line):
        if quote is not None:
            if char == quote and line[index - 1] != "\\":
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "#":
            return line[index + 1 :]
    return None


def _upcast(model: FileModel, kernel: Kernel, operand: cst.BaseExpression) -> Upcast | None:
    conversion = model.kernel_cast(kernel, operand)
    if conversion is None or conversion.dtype != "float32":
        return None
    if model.dtype_guarded(kernel, conversion.call) is not None:
        return None  # the fp32 fallback the host picks for dtypes without a narrow path
    pointers = model.loaded_pointers(kernel, conversion.value)
    if not pointers:
        return None
    host = tuple((fact, launch) for fact, launch in model.pointer_dtypes(kernel, pointers[0]) if fact is not None)
    if any(fact.dtype not in NARROW_DTYPES for fact, _ in host):
        return None  # fp32 (or wider) already: the conversion changes nothing
    return Upcast(operand, conversion, pointers[0], host)


def _shown(model: FileModel, node: cst.BaseExpression, limit: int = 40) -> str:
    text = " ".join(model.code(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _evidence(model: FileModel, upcast: Upcast) -> str:
    if not upcast.host:
        return ""
    fact, launch = upcast.host[0]
    bound = launch.arguments[upcast.pointer]
    argument = _shown(model, bound, 30)
    if isinstance(bound, cst.Name):
        # `b = weight_int8.t().contiguous()`: name the tensor the fact is about.
        value = model.assigned_value(launch.caller, bound.value, before=launch.node)
        if value is not None and len(model.code(value)) <= 40 and "\n" not in model.code(value):
            argument = f"{argument} = {model.code(value)}"
    preposition = fact.preposition
    return f" ({argument}: {short_dtype(fact.dtype)} {preposition}{fact.evidence})".replace(
        f"{short_dtype(fact.dtype)} created", f"{short_dtype(fact.dtype)}, created"
    )


def _report(model: FileModel, kernel: Kernel, call: cst.Call, upcasts: list[Upcast]) -> Report:
    a, b = upcasts
    operands = f"`{_shown(model, a.operand)}` and `{_shown(model, b.operand)}`"
    parts = []
    previous: str | None = "-"
    for upcast in upcasts:
        dtype = upcast.dtype
        lead = "" if dtype == previous else (f"{short_dtype(dtype)} loads of " if dtype else "loads of ")
        parts.append(f"{lead}`{upcast.pointer}`{_evidence(model, upcast)}")
        previous = dtype
    dtypes = {u.dtype for u in upcasts}
    known = None not in dtypes
    path = (
        f"{short_dtype(a.dtype)} tensor cores"
        if known and len(dtypes) == 1 and a.dtype
        else "the narrow-dtype tensor-core path"
    )
    unknown = "" if known else " (the source dtype is not known from host code)"
    message = (
        f"tl.dot in `{kernel.name}` multiplies {operands}, upcast to fp32 from {' and '.join(parts)}{unknown}; "
        f"the product runs on the fp32/TF32 path instead of {path}"
    )
    return Report(
        node=call,
        message=message,
        plan=_plan(model, kernel, call, upcasts, dtypes),
        confidence="high" if known else "medium",
    )


def _plan(model: FileModel, kernel: Kernel, call: cst.Call, upcasts: list[Upcast], dtypes: set[str | None]) -> str:
    # The loaded tiles by name where the kernel names them (`a`), else by pointer.
    names = [u.conversion.value.value if isinstance(u.conversion.value, cst.Name) else None for u in upcasts]
    a, b = (f"`{n}`" if n else f"the `{u.pointer}` tile" for n, u in zip(names, upcasts))
    x, y = (n or fallback for n, fallback in zip(names, ("a", "b")))
    acc, shape = _accumulator(model, kernel, call)
    scales = [p.name for p in kernel.params if not p.constexpr and "scale" in p.name.lower()]
    where = (
        f"apply the scales ({', '.join(f'`{s}`' for s in scales)}) in the epilogue"
        if scales
        else "apply any scale or dequantization in the epilogue"
    )
    head = f"In `{kernel.name}`, drop the fp32 conversions and pass {a} and {b} to tl.dot as loaded"
    integer = f"`{acc} += tl.dot({x}, {y}, out_dtype=tl.int32)` with `{acc} = tl.zeros({shape}, dtype=tl.int32)`"
    floating = f"`{acc} = tl.dot({x}, {y}, {acc})` with the fp32 `{acc} = tl.zeros({shape}, dtype=tl.float32)`"
    if dtypes <= INTEGER:
        body = f"{head}: {integer}; after the K loop, convert `{acc}` to fp32 once and {where}."
    elif None not in dtypes and not dtypes & INTEGER:
        body = f"{head}: {floating} (tensor cores accumulate narrow products in fp32); after the K loop, {where}."
    elif None in dtypes:
        body = (
            f"{head}. For int8 data: {integer}, converted to fp32 after the K loop; for fp16/bf16: {floating}. "
            f"Then, after the K loop, {where}."
        )
    else:
        body = (
            f"{head}, converting only the integer operand to the other operand's narrow float dtype (not fp32), "
            f"with the fp32 `{acc}`; after the K loop, {where}."
        )
    return body


def _accumulator(model: FileModel, kernel: Kernel, call: cst.Call) -> tuple[str, str]:
    """The accumulator the dot feeds (`acc += tl.dot(...)` or `tl.dot(a, b, acc)`)
    and the shape its `tl.zeros` gives it."""
    name: str | None = None
    args = positional(call)
    target = keyword(call, "acc") or (args[2] if len(args) > 2 else None)
    if isinstance(target, cst.Name):
        name = target.value
    else:
        # `acc += tl.dot(...)` / `acc = tl.dot(...)`: read the target off the
        # call's line rather than walking the kernel's tree for the statement.
        start = model.offsets(call)[0]
        line_start = model.source.rfind("\n", 0, start) + 1
        match = ASSIGNED_TO.search(model.source[line_start:start])
        if match is not None:
            name = match.group(1)
    shape = "(BLOCK_M, BLOCK_N)"
    if name is not None:
        init = model.assigned_value(kernel.function, name, before=call)
        if isinstance(init, cst.Call) and model.is_tl(init.func, "zeros") and positional(init):
            shape = _shown(model, positional(init)[0], 40)
    return name or "acc", shape
