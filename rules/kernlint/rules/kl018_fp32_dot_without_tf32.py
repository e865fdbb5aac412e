from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel
from kernlint.model.syntax import keyword, positional
from kernlint.registry import Invalid, Report, Rule, Valid

# Tensor-core MMA shapes start at 16 rows and columns; smaller tiles are KL015's.
MINIMUM = 16
# A comment near the dot that says the precision is wanted: the choice is deliberate.
ON_PURPOSE = re.compile(r"#.*\b(ieee|tf32|precision|precise|exact|accura|bitwise|determinis)", re.IGNORECASE)


@dataclass(frozen=True)
class Switch:
    """The argument that turns TF32 off, as written."""

    node: cst.Arg
    text: str


class Fp32DotWithoutTf32(Rule):
    """
    ## What it does
    Finds `tl.dot(a, b, input_precision="ieee")` and `tl.dot(a, b,
    allow_tf32=False)` whose operands are fp32 (known from the host tensors
    or conversions, or not known to be narrower) and whose tile dimensions
    are all known (launch literals, autotune configs, module constants) and
    at least 16, or computed at the launch with a floor of at least 16
    (`BLOCK_K = max(16, triton.next_power_of_2(K))`) or, in a KernelBench-style
    file, from the file's static shapes (`BLOCK_K = min(64,
    triton.next_power_of_2(K))` with K = 64): a GEMM-sized product told to skip the tensor cores, in a
    kernel that a model launches (from `forward` of an `nn.Module` or an
    autograd Function, or what those call in the file).

    A kernel launched only from library functions stays silent: a kernel
    library that reimplements a torch op (`mm`, `conv3d`) keeps torch's own
    fp32 numerics, and torch runs fp32 matmuls without TF32 unless the user
    asks (`torch.backends.cuda.matmul.allow_tf32`). It also stays silent when an operand is fp16, bf16, int8 or fp8 (the setting
    changes nothing there), when a tile dimension is unknown or below 16
    (KL015's case), and for `input_precision="tf32"`/`"tf32x3"` or the
    default. A comment on the dot's line or the line above that names the
    precision (`# ieee: bitwise match with torch`) marks the choice as
    deliberate: the finding drops to info.

    ## Why is this bad?
    On an H100, fp32 operands on the IEEE path run as FMA instructions on the
    CUDA cores, about 8x slower than TF32 on the tensor cores (67 vs. 495
    dense TFLOPS in the data sheet). TF32 rounds the operands to a 10-bit
    mantissa, so results move by about 1e-3 relative (more for long K
    with cancellation): use it where the caller's tolerance allows that,
    e.g. the 1e-2 tolerances of KernelBench, not where the kernel must match
    fp32 bit for bit.

    ## Example
    ```python
    acc += tl.dot(a, b, input_precision="ieee")  # a, b fp32, 64x32 and 32x64 tiles
    ```

    ## Use instead
    ```python
    acc += tl.dot(a, b)  # TF32 on the tensor cores (input_precision="tf32")
    ```

    ## Fix safety
    No automatic fix: the numbers change (about 1e-3 relative), which only
    the caller's tolerance can accept.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl018_fp32_dot_without_tf32/` (`kernlint rule KL018` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL018"
    name = "fp32-dot-without-tf32"
    category = Category.ALGORITHM_REPLACEMENT
    fix_effect = "tensor_cores"
    severity = Severity.WARNING
    summary = "tl.dot on fp32 tiles with TF32 switched off (ieee): the tensor cores never run."
    bottleneck = (
        "Compute-bound on the CUDA cores: fp32 operands on the IEEE path are multiplied with FMA instructions "
        "instead of TF32 tensor-core MMAs, about 8x less throughput on an H100."
    )
    method = (
        'Let tl.dot use TF32 (input_precision="tf32", the default) where a ~1e-3 relative change is within tolerance.'
    )
    priority = 20

    VALID = [
        # The default precision (TF32 for fp32 operands).
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
                a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
                b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
                tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b))
            def go(a, b, c):
                k[(1,)](a, b, c, BM=64, BN=64, BK=32)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    return go(a, b, c)
            """
        ),
        # fp16 operands: the setting changes nothing.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
                a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :]).to(tl.float16)
                b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :]).to(tl.float16)
                tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b, input_precision="ieee"))
            def go(a, b, c):
                k[(1,)](a, b, c, BM=64, BN=64, BK=32)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    return go(a, b, c)
            """
        ),
        # Tile sizes unknown (computed at the launch).
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
                a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
                b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
                tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b, allow_tf32=False))
            def go(a, b, c, m):
                k[(1,)](a, b, c, BM=triton.next_power_of_2(m), BN=64, BK=32)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c, m):
                    return go(a, b, c, m)
            """
        ),
        # A tile computed at the launch whose floor is below 16: it may be KL015's small tile.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
                a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
                b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
                tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b, input_precision="ieee"))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    bk = max(8, triton.next_power_of_2(a.shape[1]))
                    k[(1,)](a, b, c, BM=64, BN=64, BK=bk)
                    return c
            """
        ),
        # A tile below 16 is KL015's finding, not this one.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
                a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
                b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
                tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b, input_precision="ieee"))
            def go(a, b, c):
                k[(1,)](a, b, c, BM=8, BN=64, BK=32)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    return go(a, b, c)
            """
        ),
        # TF32 asked for explicitly, and tf32x3.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr):
                r = tl.arange(0, 32)
                a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
                b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
                c = tl.dot(a, b, input_precision="tf32") + tl.dot(a, b, input_precision="tf32x3")
                tl.store(c_ptr + r[:, None] * 32 + r[None, :], c)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    k[(1,)](a, b, c)
                    return c
            """
        ),
        # bf16 tensors from the host.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr):
                r = tl.arange(0, 32)
                a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
                b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
                tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot(a, b, allow_tf32=False))
            class ModelNew(torch.nn.Module):
                def forward(self, c):
                    a = torch.randn(32, 32, dtype=torch.bfloat16, device="cuda")
                    b = torch.randn(32, 32, dtype=torch.bfloat16, device="cuda")
                    k[(1,)](a, b, c)
                    return c
            """
        ),
        # A kernel library's torch-op replacement: launched from a plain function, torch's fp32 numerics.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr):
                r = tl.arange(0, 32)
                a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
                b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
                tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot(a, b, allow_tf32=False))
            def mm(a, b, c):
                k[(1,)](a, b, c)
                return c
            """
        ),
        # A constexpr flag the launches set both ways: not off at every launch.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, TF32: tl.constexpr):
                r = tl.arange(0, 32)
                a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
                b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
                tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot(a, b, allow_tf32=TF32))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c, exact):
                    if exact:
                        k[(1,)](a, b, c, TF32=False)
                    else:
                        k[(1,)](a, b, c, TF32=True)
                    return c
            """
        ),
    ]
    INVALID = [
        # A KernelBench file whose BLOCK_K is computed from K without a floor: the file's shapes give it (64).
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
                    acc += tl.dot(a, b, input_precision="ieee")
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, A, B):
                    M, K = A.shape
                    N = B.shape[1]
                    C = torch.empty((M, N), device=A.device, dtype=A.dtype)
                    BK = min(64, triton.next_power_of_2(K))
                    mm[(M // 128, N // 128)](A, B, C, M, N, K, BM=128, BN=128, BK=BK)
                    return C
            def get_inputs():
                return [torch.rand(8192, 64), torch.rand(64, 8192)]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=29,
        ),
        # ieee on fp32 tiles of 64x32 and 32x64, through a wrapper forward calls.
        Invalid(
            """
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
                a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
                b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
                tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b, input_precision="ieee"))
            def go(a, b, c):
                k[(1,)](a, b, c, BM=64, BN=64, BK=32)
            class ModelNew(nn.Module):
                def forward(self, a, b, c):
                    go(a, b, c)
                    return c
            """,
            line=10,
            column=67,
        ),
        # The K tile computed at the launch with a floor of 16 (`max(16, next_power_of_2(K))`): at least 16 at any K.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
                a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=rk[None, :] < K, other=0.0)
                b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :], mask=rk[:, None] < K, other=0.0)
                tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b, input_precision="ieee"))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    K = a.shape[1]
                    BLOCK_K = max(16, triton.next_power_of_2(K))
                    k[(1,)](a, b, c, K, BM=64, BN=64, BK=BLOCK_K)
                    return c
            """,
            line=10,
            column=67,
        ),
        # allow_tf32=False, literal tiles.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr):
                r = tl.arange(0, 32)
                a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
                b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
                tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot(a, b, allow_tf32=False))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    k[(1,)](a, b, c)
                    return c
            """,
            line=10,
            column=65,
        ),
        # A constexpr flag that every launch sets to False.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, TF32: tl.constexpr):
                r = tl.arange(0, 32)
                a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
                b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
                tl.store(c_ptr + r[:, None] * 32 + r[None, :], tl.dot(a, b, allow_tf32=TF32))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    k[(1,)](a, b, c, TF32=False)
                    return c
            """,
            line=10,
            column=65,
        ),
        # fp32 made explicit, and an accumulator argument.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr):
                r = tl.arange(0, 32)
                acc = tl.zeros((32, 32), dtype=tl.float32)
                a = tl.load(a_ptr + r[:, None] * 32 + r[None, :]).to(tl.float32)
                b = tl.load(b_ptr + r[:, None] * 32 + r[None, :]).to(tl.float32)
                acc = tl.dot(a, b, acc, input_precision="ieee")
                tl.store(c_ptr + r[:, None] * 32 + r[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    k[(1,)](a, b, c)
                    return c
            """,
            line=11,
            column=29,
        ),
        # Autotune configs that all give GEMM-sized tiles.
        Invalid(
            """
            import torch
            import triton
            from triton import language as lang
            @triton.autotune(configs=[triton.Config({"BM": 64, "BN": 64}), triton.Config({"BM": 128, "BN": 32})], key=["M"])
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, M, BM: lang.constexpr, BN: lang.constexpr):
                rm, rn, rk = lang.arange(0, BM), lang.arange(0, BN), lang.arange(0, 32)
                a = lang.load(a_ptr + rm[:, None] * 32 + rk[None, :])
                b = lang.load(b_ptr + rk[:, None] * BN + rn[None, :])
                lang.store(c_ptr + rm[:, None] * BN + rn[None, :], lang.dot(a, b, allow_tf32=False))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    k[(1,)](a, b, c)
                    return c
            """,
            line=11,
            column=71,
        ),
        # fp32 tensors from the host (torch.randn's default dtype).
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr):
                r = tl.arange(0, 16)
                a = tl.load(a_ptr + r[:, None] * 16 + r[None, :])
                b = tl.load(b_ptr + r[:, None] * 16 + r[None, :])
                tl.store(c_ptr + r[:, None] * 16 + r[None, :], tl.dot(a, b, input_precision="ieee"))
            class Op(torch.autograd.Function):
                @staticmethod
                def forward(ctx, c):
                    a = torch.randn(16, 16, device="cuda")
                    b = torch.randn(16, 16, device="cuda")
                    k[(1,)](a, b, c)
                    return c
            """,
            line=10,
            column=65,
        ),
        # A comment that names the precision: reported, as info.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def k(a_ptr, b_ptr, c_ptr):
                r = tl.arange(0, 32)
                a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
                b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
                # ieee: must match torch's fp32 matmul exactly
                c = tl.dot(a, b, input_precision="ieee")
                tl.store(c_ptr + r[:, None] * 32 + r[None, :], c)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b, c):
                    k[(1,)](a, b, c)
                    return c
            """,
            line=11,
            column=22,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for kernel in model.kernel_list:
            for call in kernel.function.calls:
                if not model.is_tl(call.func, "dot"):
                    continue
                if not any(launch.caller in model.model_functions for launch in model.launches_of(kernel)):
                    break
                switch = _tf32_off(model, kernel, call)
                if switch is None:
                    continue
                operands = _operands(call)
                if len(operands) != 2:
                    continue
                dtypes = [model.kernel_value_dtype(kernel, operand) for operand in operands]
                if any(fact is not None and fact.dtype != "float32" for fact in dtypes):
                    continue
                dims = _tile_dims(model, kernel, operands) or _launched_tile(model, kernel)
                if dims is None:
                    continue
                yield _report(model, kernel, call, switch, dims, all(f is not None for f in dtypes))


def _tf32_off(model: FileModel, kernel: Kernel, call: cst.Call) -> Switch | None:
    found = model.dot_tf32_off(kernel, call)
    return Switch(*found) if found is not None else None


def _operands(call: cst.Call) -> list[cst.BaseExpression]:
    args = positional(call)[:2]
    for name in ("input", "other")[len(args) :]:
        value = keyword(call, name)
        if value is not None:
            args.append(value)
    return args


def _tile_dims(model: FileModel, kernel: Kernel, operands: list[cst.BaseExpression]) -> list[int] | None:
    """The largest-known sizes of every tile dimension of both operands, when
    all are known and each of their values is at least MINIMUM; else None."""
    dims: list[int] = []
    for operand in operands:
        ranges = model.tile_ranges(kernel, operand)
        if not ranges:
            return None
        for tile in ranges:
            values = model.int_values(kernel, tile.size)
            least = min(values) if values else _floor(model, kernel, tile.size)
            if least is None or least < MINIMUM:
                return None
            dims.append(least)
    return dims


def _launched_tile(model: FileModel, kernel: Kernel) -> list[int] | None:
    """The tile (BLOCK_M, BLOCK_N, BLOCK_K) the entry point's launches of the kernel use at the file's static
    shapes (`BLOCK_K = min(64, triton.next_power_of_2(K))` with K known), when every such launch has one and
    each dimension is at least MINIMUM; else None."""
    entry = model.entry_point
    if entry is None or entry.unknown:
        return None
    tiles = []
    for op in entry.ops:
        if op.kind != "triton":
            continue
        launch = model.launch_at_site(op.site_line, op.note)
        if launch is None or launch.kernel is not kernel:
            continue
        if len(op.dot_tile) < 3 or min(op.dot_tile[:3]) < MINIMUM:
            return None
        tiles.append(list(op.dot_tile[:3]))
    return min(tiles, key=min) if tiles else None


def _floor(model: FileModel, kernel: Kernel, size: cst.BaseExpression) -> int | None:
    """A tile size computed at the launch with a floor (`max(16, next_power_of_2(K))`): its least value."""
    if isinstance(size, cst.Name) and (param := kernel.param(size.value)) is not None and param.constexpr:
        return model.constexpr_floor(kernel, size.value)
    return None


def _on_purpose(model: FileModel, call: cst.Call) -> bool:
    span = model.span(call)
    lines = model.source.splitlines()
    first = max(span.line - 2, 0)
    return any(ON_PURPOSE.search(line) for line in lines[first : span.end_line])


def _report(
    model: FileModel, kernel: Kernel, call: cst.Call, switch: Switch, dims: list[int], known_fp32: bool
) -> Report:
    deliberate = _on_purpose(model, call)
    operands = "fp32 operands" if known_fp32 else "operands not known to be narrower than fp32"
    message = (
        f"tl.dot in `{kernel.name}` sets `{switch.text}` on {operands} with tiles of at least "
        f"{min(dims)}: the product runs as FMA on the CUDA cores, about 8x slower than TF32 on the tensor cores"
        + (" (a comment says the precision is chosen on purpose)" if deliberate else "")
    )
    plan = (
        f'Drop `{switch.text}` from the tl.dot in `{kernel.name}` (or write `input_precision="tf32"`) so the '
        f"tensor cores run it. TF32 changes the result by about 1e-3 relative (more for a long K): check the "
        f"output against the reference at the tolerance callers use (KernelBench's 1e-4 fails plain TF32 even "
        f'at K = 64; `input_precision="tf32x3"`, three TF32 products on the tensor cores, passes it), '
        f"and keep the IEEE path only where fp32 must match exactly (then say so in a comment)."
    )
    return Report(
        node=switch.node,
        message=message,
        plan=plan,
        severity=Severity.INFO if deliberate else None,
        confidence="high" if known_fp32 else "medium",
    )
