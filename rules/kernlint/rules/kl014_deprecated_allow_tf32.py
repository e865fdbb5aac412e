from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Fix, Severity
from kernlint.model import FileModel
from kernlint.registry import Invalid, Report, Rule, Valid

# allow_tf32=True asked for TF32; False asked for full fp32 ("ieee").
PRECISION = {"True": "tf32", "False": "ieee"}


class DeprecatedAllowTf32(Rule):
    """
    ## What it does
    Finds `tl.dot(..., allow_tf32=...)` (any spelling of `triton.language.dot`).

    ## Why is this bad?
    `allow_tf32` is deprecated in Triton in favour of `input_precision`, which
    also names the choice explicitly ("tf32", "tf32x3", "ieee"). Newer Triton
    releases warn on it, and a reader of `allow_tf32=True` on integer or fp16
    operands cannot tell whether the flag does anything.

    ## Example
    ```python
    acc += tl.dot(a, b, allow_tf32=True)
    ```

    ## Use instead
    ```python
    acc += tl.dot(a, b, input_precision="tf32")
    ```

    ## Fix safety
    Safe: `allow_tf32=True` becomes `input_precision="tf32"` and
    `allow_tf32=False` becomes `input_precision="ieee"`, which Triton treats
    identically. A non-literal value is reported without a fix.
    """

    code = "KL014"
    name = "deprecated-allow-tf32"
    category = Category.API
    severity = Severity.INFO
    summary = "tl.dot(allow_tf32=...) is deprecated; use input_precision=."
    priority = 90

    VALID = [
        Valid("import triton.language as tl\nacc = tl.dot(a, b)\n"),
        Valid('import triton.language as tl\nacc = tl.dot(a, b, input_precision="tf32")\n'),
        Valid("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n"),
        Valid("import numpy as np\nc = np.dot(a, b, allow_tf32=True)\n"),
        Valid("def dot(a, b, allow_tf32):\n    return a\nc = dot(1, 2, allow_tf32=True)\n"),
        Valid("import triton.language as tl\nc = tl.sum(a, allow_tf32=True)\n"),
    ]
    INVALID = [
        Invalid(
            "import triton.language as tl\nacc = tl.dot(a, b, allow_tf32=True)\n",
            line=2,
            column=20,
            fixed='import triton.language as tl\nacc = tl.dot(a, b, input_precision="tf32")\n',
        ),
        Invalid(
            "import triton.language as tl\nacc = tl.dot(a, b, allow_tf32=False)\n",
            line=2,
            column=20,
            fixed='import triton.language as tl\nacc = tl.dot(a, b, input_precision="ieee")\n',
        ),
        Invalid(
            "from triton import language as lang\nacc = lang.dot(a, b, allow_tf32 = True)\n",
            line=2,
            column=22,
            fixed='from triton import language as lang\nacc = lang.dot(a, b, input_precision = "tf32")\n',
        ),
        Invalid(
            "from triton.language import dot\nacc = dot(a, b, allow_tf32=True)\n",
            line=2,
            column=17,
            fixed='from triton.language import dot\nacc = dot(a, b, input_precision="tf32")\n',
        ),
        Invalid(
            "import triton\nacc = triton.language.dot(a, b, allow_tf32=True)\n",
            line=2,
            column=33,
            fixed='import triton\nacc = triton.language.dot(a, b, input_precision="tf32")\n',
        ),
        Invalid("import triton.language as tl\nacc = tl.dot(a, b, allow_tf32=FLAG)\n", line=2, column=20),
        Invalid(
            "from triton.language import *\nacc = dot(a, b, allow_tf32=True)\n",
            line=2,
            column=17,
            fixed='from triton.language import *\nacc = dot(a, b, input_precision="tf32")\n',
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for node in model.calls:
            if not model.is_tl(node.func, "dot"):
                continue
            for arg in node.args:
                if arg.keyword is None or arg.keyword.value != "allow_tf32":
                    continue
                value = arg.value.value if isinstance(arg.value, cst.Name) else None
                precision = PRECISION.get(value or "")
                fix = None
                if precision is not None and value is not None:
                    start, _ = model.offsets(arg.keyword)
                    _, end = model.offsets(arg.value)
                    original = model.source[start:end]
                    replacement = original.replace("allow_tf32", "input_precision", 1)
                    replacement = replacement[: replacement.rindex(value)] + f'"{precision}"'
                    fix = Fix(
                        f'replace allow_tf32={value} with input_precision="{precision}"', ((start, end, replacement),)
                    )
                plan = (
                    f'Replace `allow_tf32={value}` with `input_precision="{precision}"`; the numerics are unchanged.'
                    if precision
                    else 'Replace `allow_tf32=` with `input_precision=` ("tf32" for True, "ieee" for False).'
                )
                yield Report(
                    node=arg,
                    message="`allow_tf32=` in tl.dot is deprecated; use `input_precision=` instead",
                    plan=plan,
                    fix=fix,
                )
