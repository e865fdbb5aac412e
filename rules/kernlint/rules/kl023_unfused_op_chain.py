from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo
from kernlint.model.epilogues import Epilogue
from kernlint.registry import Invalid, Report, Rule, Valid


class UnfusedOpChain(Rule):
    """
    ## What it does
    Finds a chain of two or more torch elementwise, normalization, scan or
    reduction ops with no GEMM in it, in the forward of an `nn.Module` (and
    what it calls): a tensor the function receives goes through
    `torch.abs`, `torch.mean`, a division, `** 2`, `.cumsum()`, `.flip()`,
    `F.log_softmax`, `torch.gather`, an activation module or a loss, each
    feeding the next through the data (`((a - b) ** 2).mean()`,
    `x / x.norm()`, `x * torch.tanh(F.softplus(x))`,
    `x.flip(1).cumsum(1).flip(1)`). Each op is a kernel of its own.

    It stays silent on a single op, on casts alone, on plain arithmetic
    with no torch call in it (`top_k * n + block - 1` may be Python
    numbers), on one-time preparation (`quantize*`, `prepare*`, `load*`),
    on a chain that starts at a GEMM's or a convolution's output or mixes
    one in (that tail is KL004's; `x + self.attn(x)` is a residual around
    other work), outside the torch code of a model (an autograd Function's
    glue around its own kernels, a function that launches one), on a
    parameter rebound by another op before the chain, on a chain read back
    on the host (`x.abs().amax().item()`: KL006's finding), on tests, benchmarks
    and reference implementations (`*_ref`, `*naive*`, files under tests/),
    and under `if __name__ == "__main__":`.

    ## Why is this bad?
    Every op reads its whole input from memory and writes its whole output:
    a chain of n ops over an N-element tensor moves about 2nN elements
    where one fused kernel moves 2N (read the inputs once, write once), and
    pays n launches. On a large tensor the chain is n times slower than it
    needs to be; on a small one the launches dominate. The cost model sizes
    the chain at the file's shapes, so a chain that is a sliver of the
    file's time does not make the file worth optimizing.

    ## Example
    ```python
    def forward(self, x):
        return x / torch.mean(torch.abs(x), dim=1, keepdim=True)
    ```

    ## Use instead
    ```python
    def forward(self, x):
        out = torch.empty_like(x)
        l1_normalize_rows_kernel[(x.shape[0],)](x, out, x.shape[1], x.stride(0), BLOCK=2048)
        return out
    ```
    one Triton kernel per row (or `torch.compile`, which fuses such chains):
    it sums |x| in registers, then reads the row again from L2 and writes
    x / mean once.

    ## Fix safety
    No automatic fix: a fused kernel reduces in another order than torch
    (last-bit differences) and must keep the chain's dtype and broadcasting.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl023_unfused_op_chain/` (`kernlint rule KL023` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL023"
    name = "unfused-op-chain"
    category = Category.OPERATOR_FUSION
    severity = Severity.WARNING
    summary = "A chain of elementwise/normalization/reduction torch ops with no GEMM, one kernel and one pass each."
    bottleneck = (
        "Memory traffic and launches: each op of the chain is a kernel that reads and writes the whole tensor, "
        "where one fused kernel would read the inputs once and write once."
    )
    method = (
        "Fuse the chain into one Triton kernel (or torch.compile) that reads the inputs once, applies every op in "
        "registers (row reductions over a tile it holds) and writes the result once."
    )
    priority = 16
    fix_effect = "fuse_chain"

    VALID = [
        # One op is one kernel: nothing to fuse.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return torch.relu(x)
            """
        ),
        # A cast and a view are not passes of their own worth a kernel.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    return x.view(-1).float()
            """
        ),
        # The tail of a GEMM is KL004's, not a GEMM-free chain.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, w):
                    y = x @ w
                    return torch.relu(y) * 2.0
            """
        ),
        # The parameter is rebound by a convolution before the ops: their input is its output.
        Valid(
            """
            import torch
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(3, 8, 3)
                def forward(self, x):
                    x = self.conv(x)
                    return torch.sigmoid(x) * x
            """
        ),
        # A reference implementation exists to be compared with a fused kernel.
        Valid(
            """
            import torch
            def naive_rmsnorm(x, eps):
                return x / torch.sqrt(torch.mean(x ** 2, dim=-1, keepdim=True) + eps)
            """
        ),
        # Benchmark code under the main guard, and a plain helper outside any model.
        Valid(
            """
            import torch
            def helper(a, b):
                return ((a - b) ** 2).mean()
            if __name__ == "__main__":
                a = torch.randn(8)
                print(torch.exp(a).sum())
            """
        ),
        # A chain read back on the host is KL006's host sync.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    if x.abs().amax().item() > 1.0:
                        x = x.clamp(-1.0, 1.0)
                    return x
            """
        ),
        # Each op on a different input: no op reads another's result.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, a, b):
                    return torch.relu(a), torch.sigmoid(b)
            """
        ),
    ]
    INVALID = [
        # KernelBench level 1 problem 38: abs, mean, divide.
        Invalid(
            """
            import torch
            class Model(torch.nn.Module):
                def forward(self, x):
                    return x / torch.mean(torch.abs(x), dim=1, keepdim=True)
            """,
            line=5,
            column=31,
        ),
        # One call torch runs as two kernels: log_softmax, written in full, then nll_loss.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            class Loss(torch.nn.Module):
                def forward(self, logits, targets):
                    return F.cross_entropy(logits, targets)
            """,
            line=6,
            column=16,
        ),
        # Mean squared error spelled as three ops.
        Invalid(
            """
            import torch
            class Mse(torch.nn.Module):
                def forward(self, predictions, targets):
                    return torch.mean((predictions - targets) ** 2)
            """,
            line=5,
            column=28,
        ),
        # Mish as three ops, through an assigned name.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            class Mish(torch.nn.Module):
                def forward(self, x):
                    sp = F.softplus(x)
                    return x * torch.tanh(sp)
            """,
            line=6,
            column=14,
        ),
        # A reverse cumulative sum: flip, scan, flip.
        Invalid(
            """
            import torch
            class RevCumsum(torch.nn.Module):
                def forward(self, x):
                    return torch.cumsum(x.flip(1), dim=1).flip(1)
            """,
            line=5,
            column=29,
        ),
        # log_softmax and a gather of the targets' entries, negated and averaged.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            class Nll(torch.nn.Module):
                def forward(self, logits, target):
                    logp = F.log_softmax(logits, dim=-1)
                    return -logp.gather(1, target[:, None]).mean()
            """,
            line=6,
            column=16,
        ),
        # A normalization by the tensor's own norm, with the method spelling.
        Invalid(
            """
            import torch.nn as nn
            class Frob(nn.Module):
                def forward(self, x):
                    norm = x.norm(p="fro")
                    return x / norm
            """,
            line=5,
            column=16,
        ),
        # An activation module after elementwise ops on the input.
        Invalid(
            """
            import torch
            from torch import nn
            class Block(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.act = nn.GELU()
                def forward(self, h, scale):
                    return self.act(h * scale + 1.0)
            """,
            line=9,
            column=25,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        hot = model.module_forward_functions
        for function in model.functions:
            if function not in hot or model.is_reference_code(function) or model.is_preparation(function):
                continue
            for chain in model.gemm_free_chains(function):
                if model.in_main_guard(chain.nodes[0]):
                    continue
                yield self._report(model, function, chain)

    def _report(self, model: FileModel, function: FunctionInfo, chain: Epilogue) -> Report:
        passes = [op for op, kind in zip(chain.ops, chain.kinds) if kind != "cast"]
        ops = ", ".join(f"`{op}`" for op in chain.ops)
        source = model.code(chain.producer)
        first, last = model.line_of(chain.nodes[0]), max(model.line_of(n) for n in chain.nodes)
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        message = (
            f"`{source}` goes through {len(passes)} separate elementwise/normalization/reduction ops ({ops}) "
            f"in `{function.qualname}` with no GEMM between them, each a kernel that reads and writes "
            "the whole tensor"
        )
        plan = (
            f"Replace {ops} ({where}) with one Triton kernel that reads `{source}` once per tile (a row per "
            "program where the chain reduces over a row), applies every op in registers and stores the result "
            "once; `torch.compile` on this forward fuses the same chain."
        )
        return Report(node=chain.nodes[0], message=message, plan=plan)
