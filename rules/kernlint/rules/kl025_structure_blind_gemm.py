from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo
from kernlint.model.attention import StructuredProduct
from kernlint.registry import Invalid, Report, Rule, Valid


class StructureBlindGemm(Rule):
    """
    ## What it does
    Finds a dense GEMM spent on structure that is visible in the code: a
    product with a diagonal matrix built by `torch.diag(a)` (or
    `torch.diag_embed`, `torch.diagflat`), directly or through a local name
    (`torch.diag(a) @ b`, `torch.mm(b, torch.diag(a))`), and a product
    whose result is masked to a triangle (`torch.tril(a @ b)`,
    `torch.triu(torch.matmul(a, b))`, `(a @ b).tril()`).

    It stays silent on `torch.diag` of something that is not multiplied,
    on a triangular mask of a tensor that is not a product (a causal mask
    built from `torch.ones`), on tests, benchmarks and reference
    implementations, and under `if __name__ == "__main__":`.

    ## Why is this bad?
    `torch.diag(a)` writes an N x N matrix that is zero off the diagonal,
    and the GEMM then spends 2 N^2 M flops and reads it back to scale the
    rows of the other operand: O(N^2 M) work for an O(N M) result. A
    product masked to a triangle computes every tile of the output and
    throws half of them away, then a second kernel writes the mask.

    ## Example
    ```python
    def forward(self, a, b):
        return torch.diag(a) @ b
    ```

    ## Use instead
    ```python
    def forward(self, a, b):
        return a.unsqueeze(1) * b  # row i of b scaled by a[i]
    ```
    and for a triangular result, a GEMM that skips the tiles outside the
    triangle and applies the mask in its store (a Triton kernel whose grid
    covers only the lower or upper tiles).

    ## Fix safety
    No automatic fix: `torch.diag` of a 2-D tensor extracts a diagonal
    instead (the rule cannot always see the rank), and a triangular GEMM
    needs its own kernel.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl025_structure_blind_gemm/` (`kernlint rule KL025` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL025"
    name = "structure-blind-gemm"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.WARNING
    summary = "A dense GEMM with a diagonal matrix built by torch.diag, or a full GEMM masked to a triangle."
    bottleneck = (
        "Wasted compute and traffic: the GEMM multiplies zeros (a dense diagonal matrix) or computes tiles the "
        "triangular mask throws away."
    )
    method = (
        "Use the structure: scale rows or columns by the diagonal's vector instead of a GEMM, and compute only "
        "the triangle's tiles with the mask applied in the GEMM's store."
    )
    priority = 11
    fix_effect = "structured_gemm"

    VALID = [
        # The broadcast product: the fix itself.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, a, b):
                    return a.unsqueeze(1) * b
            """
        ),
        # torch.diag that is not multiplied.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return torch.diag(x).sum()
            """
        ),
        # A causal mask built from ones, not a product.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, s):
                    mask = torch.tril(torch.ones(s.shape[-1], s.shape[-1]))
                    return s.masked_fill(mask == 0, 0.0)
            """
        ),
        # A product of two inputs, no structure in sight.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, a, b):
                    return torch.matmul(a, b)
            """
        ),
        # A reference implementation kept to check a kernel against.
        Valid(
            """
            import torch
            def reference_scale(a, b):
                return torch.diag(a) @ b
            """
        ),
        # Under the main guard.
        Valid(
            """
            import torch
            if __name__ == "__main__":
                a, b = torch.randn(4, 4), torch.randn(4, 4)
                print(torch.triu(a @ b))
            """
        ),
        # The name was rebound by another op before the mask.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, a, b):
                    c = a @ b
                    c = torch.ones_like(c)
                    return torch.tril(c)
            """
        ),
    ]
    INVALID = [
        # KernelBench level 1 problem 12's formula.
        Invalid(
            """
            import torch
            class Model(torch.nn.Module):
                def forward(self, A, B):
                    return torch.diag(A) @ B
            """,
            line=5,
            column=16,
        ),
        # Through a local name, with torch.mm and the diagonal on the right.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, s):
                    d = torch.diag_embed(s)
                    return torch.mm(x, d)
            """,
            line=6,
            column=16,
        ),
        # KernelBench level 1 problem 14: an upper triangular result from a full GEMM.
        Invalid(
            """
            import torch
            class Model(torch.nn.Module):
                def forward(self, A, B):
                    return torch.triu(torch.matmul(A, B))
            """,
            line=5,
            column=27,
        ),
        # A lower triangular result through a name.
        Invalid(
            """
            import torch
            class Model(torch.nn.Module):
                def forward(self, A, B):
                    C = A @ B
                    return torch.tril(C)
            """,
            line=5,
            column=13,
        ),
        # The method spelling of the mask.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, a, b):
                    return (a @ b).tril()
            """,
            line=5,
            column=17,
        ),
        # diagflat under an alias, in a helper forward calls.
        Invalid(
            """
            import torch as T
            class M(T.nn.Module):
                def scale(self, v, w):
                    return T.matmul(T.diagflat(v), w)
                def forward(self, v, w):
                    return self.scale(v, w)
            """,
            line=5,
            column=16,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        hot = model.hot_functions
        for function in model.functions:
            if function not in hot or model.kernel_of(function) is not None or model.is_reference_code(function):
                continue
            for found in model.structured_products(function):
                if model.in_main_guard(found.product):
                    continue
                yield self._report(model, function, found)

    def _report(self, model: FileModel, function: FunctionInfo, found: StructuredProduct) -> Report:
        product = " ".join(model.code(found.product).split())
        builder = model.code(found.builder.func)
        if found.kind == "diagonal":
            vector = model.code(found.builder.args[0].value) if found.builder.args else "the vector"
            message = (
                f"`{product}` in `{function.qualname}` multiplies by a dense diagonal matrix built by `{builder}`: "
                "a GEMM over a matrix that is zero off its diagonal"
            )
            plan = (
                f"Replace the product with a broadcast multiply by `{vector}`: `{vector}.unsqueeze(1) * other` when "
                f"the diagonal is on the left (scales rows), `other * {vector}` when it is on the right (scales "
                f"columns); `{builder}` and the GEMM go."
            )
        else:
            message = (
                f"`{product}` in `{function.qualname}` computes the full product and `{builder}` then keeps one "
                "triangle: half the GEMM's tiles are computed to be thrown away, and the mask is a kernel of its own"
            )
            plan = (
                f"Compute only the triangle's tiles of `{product}`: a Triton GEMM whose grid enumerates the tiles on "
                f"and {'below' if 'tril' in builder else 'above'} the diagonal, masks the diagonal tiles in its "
                "store and writes zeros elsewhere (or skips them if the output is preset); when the operands are "
                "triangular too, each tile's K loop can stop at the diagonal."
            )
        return Report(node=found.product, message=message, plan=plan)
