from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import Conversion, DtypeFact, FileModel, FunctionInfo
from kernlint.model.dtypes import NARROW_DTYPES, short_dtype
from kernlint.model.syntax import call_name, keyword, positional
from kernlint.registry import Invalid, Report, Rule, Valid

# torch function -> (positions of the multiplied operands, their keyword names).
MATMUL_FUNCTIONS = {
    "torch.matmul": ((0, 1), ("input", "other")),
    "torch.mm": ((0, 1), ("input", "mat2")),
    "torch.bmm": ((0, 1), ("input", "mat2")),
    "torch.nn.functional.linear": ((0, 1), ("input", "weight")),
    "torch.addmm": ((1, 2), ("mat1", "mat2")),
    "torch.baddbmm": ((1, 2), ("batch1", "batch2")),
}
MATMUL_METHODS = frozenset({"matmul", "mm", "bmm"})
BATCHED = frozenset({"torch.bmm", "torch.baddbmm", "torch.einsum", "bmm"})


@dataclass(frozen=True)
class Upcast:
    operand: cst.BaseExpression
    conversion: Conversion
    source: DtypeFact | None  # what is known of the converted tensor's dtype


class UpcastBeforeTorchMatmul(Rule):
    """
    ## What it does
    Finds host torch code that converts narrow tensors (int8/uint8, fp16,
    bf16, fp8) to fp32 (`.float()`, `.to(torch.float32)`,
    `.to(dtype=torch.float32)`, `.type(torch.float32)`) and then multiplies
    them: `torch.matmul`, `@`, `torch.mm`, `torch.bmm`, `torch.addmm`,
    `torch.baddbmm`, `F.linear`, `torch.einsum`, or the `.matmul/.mm/.bmm`
    methods. It is the torch twin of KL001.

    It fires only when the source dtype of at least one operand is known to
    be narrow: from an `assert x.dtype == torch.int8`, the dtype a tensor or
    module parameter was created with, a conversion, or `get_inputs()`
    (confidence "high" when every operand's source dtype is known, "medium"
    when one is). It stays silent when an operand is not converted (the
    other side is already fp32: weights dequantized to meet fp32
    activations), when a source is already fp32 or wider, on `.double()`
    and fp16/bf16 conversions, on conversions not followed by a multiply,
    and under `if __name__ == "__main__":`.

    ## Why is this bad?
    The conversion materializes fp32 copies of both operands (two to four
    times their bytes, read and written once more), and the product then runs
    as an fp32 GEMM, on the TF32 path at best, instead of the int8 or fp16
    tensor-core GEMM that the data was stored for: int8 tensor cores have
    about twice the fp16 and four to eight times the TF32 throughput.

    ## Example
    ```python
    def forward(self, x):  # x: int8
        out = torch.matmul(x.float(), self.weight_int8.t().float())
        return out * self.scale
    ```

    ## Use instead
    ```python
    def forward(self, x):
        out = torch._int_mm(x, self.weight_int8.t())  # int8 x int8 -> int32
        return out.float() * self.scale
    ```
    `torch._int_mm` needs 2-D int8 operands with more than 16 rows and K, N
    multiples of 8 on CUDA. Faster still, and for any shape: one int8 Triton
    kernel (`tl.dot(a, b, out_dtype=tl.int32)`) with the scales in its
    epilogue, no int32 result written and read back. The estimate for the
    file prices that kernel, as the rule's reference pair measures it.
    For fp16/bf16 operands, multiply them as they are (cuBLAS accumulates in
    fp32) and convert the result if fp32 is needed.

    ## Fix safety
    No automatic fix: the int32 product must be rescaled by the caller, and
    `torch._int_mm` has shape limits.
    """

    code = "KL016"
    name = "upcast-before-torch-matmul"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.WARNING
    summary = "Narrow tensors converted to fp32 before a torch matmul; the int8/fp16 tensor-core GEMM is not used."
    bottleneck = (
        "The matmul runs as an fp32 (TF32 at best) GEMM on fp32 copies of int8/fp16 tensors: extra conversion "
        "kernels and memory traffic, and a fraction of the narrow tensor-core throughput."
    )
    method = (
        "Multiply in the stored dtype: int8 operands in one int8 Triton GEMM with the scales in its epilogue "
        "(or torch._int_mm, then the scales in one pass); fp16/bf16 operands go to the GEMM unconverted."
    )
    priority = 12
    fix_effect = "narrow_fused_gemm"

    VALID = [
        # Sources already fp32: the conversions are no-ops.
        Valid(
            """
            import torch
            x = torch.randn(64, 64)
            w = torch.randn(64, 64)
            y = torch.matmul(x.float(), w.float())
            """
        ),
        # .double() asks for fp64 on purpose.
        Valid(
            """
            import torch
            x = torch.randint(-128, 127, (64, 64), dtype=torch.int8)
            y = x.double() @ x.double().t()
            """
        ),
        # A conversion that is not multiplied.
        Valid(
            """
            import torch
            def f(x):
                assert x.dtype == torch.int8
                return x.float() * 0.5
            """
        ),
        # Mixed precision: int8 weights converted to meet fp32 activations.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            def f(x, w):
                assert x.dtype == torch.float32
                assert w.dtype == torch.int8
                return F.linear(x, w.float())
            """
        ),
        # Unknown source dtypes: nothing says the tensors are narrow.
        Valid(
            """
            import torch
            def f(a, b):
                return torch.mm(a.float(), b.float())
            """
        ),
        # fp16 conversions are the tensor-core path.
        Valid(
            """
            import torch
            def f(x, w):
                assert x.dtype == torch.int8
                assert w.dtype == torch.int8
                return x.half() @ w.half()
            """
        ),
        # Benchmark code under the main guard.
        Valid(
            """
            import torch
            if __name__ == "__main__":
                x = torch.randint(-128, 127, (64, 64), dtype=torch.int8)
                print(torch.matmul(x.float(), x.float()))
                print(x.float() @ x.float())
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            import torch.nn as nn

            class Model(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.w = nn.Parameter(torch.randint(-128, 127, (n, n), dtype=torch.int8), requires_grad=False)

                def forward(self, x):
                    return torch.matmul(x.float(), self.w.t().float())

            def get_inputs():
                return [torch.randint(-128, 127, (64, 64), dtype=torch.int8)]
            """,
            line=11,
            column=16,
        ),
        Invalid(
            """
            import torch
            def f(x, w):
                assert x.dtype == torch.int8
                assert w.dtype == torch.int8
                return x.to(torch.float32) @ w.to(dtype=torch.float32)
            """,
            line=6,
            column=12,
        ),
        Invalid(
            """
            import torch
            from torch.nn import functional as F
            def f(x, w):
                assert x.dtype == torch.bfloat16
                assert w.dtype == torch.bfloat16
                xf = x.float()
                wf = w.type(torch.float32)
                return F.linear(xf, wf)
            """,
            line=9,
            column=12,
        ),
        Invalid(
            """
            import torch
            def f(x, w):
                assert x.dtype == torch.int8
                return torch.bmm(x.float(), w.float())
            """,
            line=5,
            column=12,
        ),
        Invalid(
            """
            import torch as th
            a = th.randn(8, 16, 16, dtype=th.float16)
            b = th.randn(8, 16, 16, dtype=th.float16)
            c = th.einsum("bij,bjk->bik", a.float(), b.float())
            """,
            line=5,
            column=5,
        ),
        Invalid(
            """
            import torch
            def f(x, w):
                assert x.dtype == torch.int8
                assert w.dtype == torch.int8
                return x.float().matmul(w.t().float())
            """,
            line=6,
            column=12,
        ),
        Invalid(
            """
            import torch
            def f(bias, x, w):
                assert x.dtype == torch.int8
                assert w.dtype == torch.int8
                y = torch.addmm(bias, x.to(torch.float), w.float().t())
                return y
            """,
            line=6,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        kernels = {id(kernel.function) for kernel in model.kernel_list}
        for scope in (model.top, *model.functions):
            if id(scope) in kernels:
                continue
            for call in scope.calls:
                site = _call_operands(model, call)
                if site is not None and not model.in_main_guard(call):
                    yield from self._check(model, scope, call, *site)
            for operation in scope.matmul_ops:
                if not model.in_main_guard(operation):
                    yield from self._check(model, scope, operation, "`@`", None, [operation.left, operation.right])

    def _check(
        self,
        model: FileModel,
        scope: FunctionInfo,
        node: cst.CSTNode,
        spelled: str,
        function: str | None,
        operands: list[cst.BaseExpression],
    ) -> Iterator[Report]:
        if len(operands) < 2:
            return
        upcasts = []
        for operand in operands:
            conversion = model.torch_cast(operand, scope)
            if conversion is None or conversion.dtype != "float32":
                return
            source = model.dtype_of(conversion.value, scope)
            if source is not None and source.dtype not in NARROW_DTYPES:
                return  # fp32 (or wider) already
            upcasts.append(Upcast(operand, conversion, source))
        if all(u.source is None for u in upcasts):
            return
        yield _report(model, scope, node, spelled, function, upcasts)


def _call_operands(model: FileModel, call: cst.Call) -> tuple[str, str | None, list[cst.BaseExpression]] | None:
    """(how the multiply is spelled, its torch function, the multiplied
    operands) for a matmul call; None for any other call."""
    name = model.qualname(call.func)
    args = positional(call)
    if name in MATMUL_FUNCTIONS:
        positions, keywords = MATMUL_FUNCTIONS[name]
        operands = []
        for position, word in zip(positions, keywords):
            value = args[position] if position < len(args) else keyword(call, word)
            if value is None:
                return None
            operands.append(value)
        return f"`{model.code(call.func)}`", name, operands
    if name == "torch.einsum":
        return f"`{model.code(call.func)}`", name, args[1:]
    method = call_name(call)
    if method in MATMUL_METHODS and args and not (name or "").startswith("torch."):
        assert isinstance(call.func, cst.Attribute)
        return f"`.{method}`", method, [call.func.value, args[0]]
    return None


def _shown(model: FileModel, node: cst.CSTNode, limit: int = 40) -> str:
    text = " ".join(model.code(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _unconverted(model: FileModel, upcast: Upcast) -> str:
    """The operand as written, without its fp32 conversion."""
    operand = model.code(upcast.operand)
    conversion = model.code(upcast.conversion.call)
    if conversion in operand:
        return " ".join(operand.replace(conversion, model.code(upcast.conversion.value), 1).split())
    return " ".join(model.code(upcast.conversion.value).split())


def _report(
    model: FileModel,
    scope: FunctionInfo,
    node: cst.CSTNode,
    spelled: str,
    function: str | None,
    upcasts: list[Upcast],
) -> Report:
    where = "at module level" if scope.is_module_level else f"in `{scope.qualname}`"
    operands = " and ".join(f"`{_shown(model, u.operand)}`" for u in upcasts)
    sources = []
    for upcast in upcasts:
        tensor = _shown(model, upcast.conversion.value, 30)
        fact = upcast.source
        if fact is None:
            sources.append(f"`{tensor}` (dtype not known)")
        else:
            preposition = fact.preposition or (", " if fact.source == "creation" else "")
            sources.append(
                f"`{tensor}` ({short_dtype(fact.dtype, variant=False)}{'' if preposition == ', ' else ' '}{preposition}{fact.evidence})"
            )
    dtypes = {u.source.dtype for u in upcasts if u.source is not None}
    known = all(u.source is not None for u in upcasts)
    if dtypes <= {"int8", "uint8"}:
        fast = "an int8 tensor-core GEMM"
    elif len(dtypes) == 1:
        dtype = short_dtype(next(iter(dtypes)), variant=False)
        fast = f"{'a' if dtype.startswith('b') else 'an'} {dtype} tensor-core GEMM"
    else:
        fast = "a narrow-dtype tensor-core GEMM"
    message = (
        f"{spelled} {where} multiplies {operands}, converted to fp32 from {' and '.join(sources)}; "
        f"the product runs as an fp32 GEMM on fp32 copies instead of {fast}"
    )
    return Report(
        node=node,
        message=message,
        plan=_plan(model, scope, function, upcasts, dtypes, known),
        confidence="high" if known else "medium",
    )


def _plan(
    model: FileModel,
    scope: FunctionInfo,
    function: str | None,
    upcasts: list[Upcast],
    dtypes: set[str],
    known: bool,
) -> str:
    plain = [_unconverted(model, u) for u in upcasts]
    scales = [p for p in scope.params if "scale" in p.lower()]
    owner = model.class_of(scope)
    if owner is not None:
        scales += [f"self.{name}" for name in owner.tensors if "scale" in name.lower()]
    fused = (
        f"apply the scales ({', '.join(f'`{s}`' for s in scales)}) to the accumulator before its one store"
        if scales
        else "apply any scale, bias and output cast to the accumulator before its one store"
    )
    kernel = (
        f"one int8 Triton kernel: `tl.dot(a, b, out_dtype=tl.int32)` over the int8 tiles, then {fused} "
        "(what the estimate prices and the reference pair measures)"
    )
    if dtypes <= {"int8"} and known and function != "torch.einsum" and len(upcasts) == 2:
        a, b = plain
        if function == "torch.nn.functional.linear":
            b = f"{b}.t()"
        batched = " (it is 2-D only: fold the batch dimension into the rows first)" if function in BATCHED else ""
        layout = (
            "; pass the transposed weight as a view (a column-major B is its fast layout, `.contiguous()` is not)"
            if b.endswith((".t()", ".T", ".mT"))
            else ""
        )
        return (
            f"Multiply in int8 in {kernel}. The library route is `torch._int_mm({a}, {b})`, the exact int32 "
            f"product{batched}, then one fused elementwise pass for the scales; on CUDA it needs more than 16 rows "
            f"and K, N multiples of 8{layout}."
        )
    if dtypes & {"int8", "uint8"}:
        return (
            f"Keep the int8 data out of fp32: quantize both operands to int8 and multiply them in {kernel} "
            "(or `torch._int_mm`, int32 result, then one fused pass for the scales); if one side must stay "
            "floating point, convert the int8 side to fp16/bf16, not fp32."
        )
    listed = ", ".join(f"`{p}`" for p in plain)
    if any(dtype.startswith("float8") for dtype in dtypes):
        return (
            f"Multiply {listed} in fp8 with `torch._scaled_mm` (fp8 x fp8 with per-tensor or row-wise scales, "
            "fp32 accumulation, `out_dtype=torch.bfloat16` or fp32) instead of converting them to fp32; its "
            "second operand must be column-major."
        )
    return (
        f"Drop the fp32 conversions and multiply {listed} in their stored dtype (cuBLAS accumulates fp16/bf16 "
        "products in fp32); convert the result with `.float()` afterwards only if fp32 output is needed."
    )
