from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo, Kernel, Launch
from kernlint.model.kernel_loops import KernelLoop, RowPasses
from kernlint.registry import Invalid, Report, Rule, Valid

MAX_CALLS = ("max", "maximum", "math.max")
EXP_CALLS = ("exp", "exp2", "math.exp", "math.exp2")
PASSES = 3


class MultipassSoftmax(Rule):
    """
    ## What it does
    Finds softmax computed in three or more passes over global memory:
    - in one kernel, three or more sequential loops of the same block that
      each load the same pointer parameter (the same row), one of them
      taking a maximum (`tl.max`/`tl.maximum`) and a later one an
      exponential (`tl.exp`/`tl.exp2`): the max pass, the exp-sum pass, the
      normalize pass. Loops are `range`, `tl.range` or `tl.static_range`,
      and the pointer may be used directly or through block pointers;
    - in one host function, three or more kernel launches in the same
      block (one after the other, not alternatives in different branches)
      that read the same tensor, a max-taking kernel launched before an
      exp-taking one.

    A max pass is a loop that takes a maximum and no exponential. It stays
    silent on online softmax (the running max and the rescaled running sum
    in one loop, then one normalize loop: two passes, however each is
    split into a main loop and a tail), on a row that fits one block (no
    loop), on loops that load one element at a time (a tiny matrix walked
    with scalar loads stays in cache), on three passes that are not a softmax
    (a layer norm's mean, variance and normalize passes take no maximum),
    on loops over different pointers, on loops in different branches of an
    `if`, and on loops nested in one another.

    ## Why is this bad?
    A row longer than one block is read from DRAM once per pass. Softmax
    is bandwidth bound, so three reads and one write cost about twice the
    time of the online form's two reads and one write.

    ## Example
    ```python
    m = -float("inf")
    for off in range(0, n_cols, BLOCK):
        m = tl.maximum(m, tl.max(tl.load(row + off + cols, mask=..., other=-float("inf")), 0))
    s = 0.0
    for off in range(0, n_cols, BLOCK):
        s += tl.sum(tl.exp(tl.load(row + off + cols, mask=..., other=-float("inf")) - m), 0)
    for off in range(0, n_cols, BLOCK):
        x = tl.load(row + off + cols, mask=...)
        tl.store(out + off + cols, tl.exp(x - m) / s, mask=...)
    ```

    ## Use instead
    ```python
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, n_cols, BLOCK):
        x = tl.load(row + off + cols, mask=..., other=-float("inf"))
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    m_row = tl.max(m, 0)
    s_row = tl.sum(s * tl.exp(m - m_row), 0)
    for off in range(0, n_cols, BLOCK):
        x = tl.load(row + off + cols, mask=...)
        tl.store(out + off + cols, tl.exp(x - m_row) / s_row, mask=...)
    ```
    When the row fits one block, load it once and do all three steps on
    the registers.

    ## Fix safety
    No automatic fix: the running sum must be rescaled where the running
    max changes, and masked lanes must start at -inf.

    ## Measured speedup
    From the `kl008_multipass_softmax` pair's record (`kernlint rule KL008`
    prints it with the GPU and shapes).
    """

    code = "KL008"
    name = "multipass-softmax"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.INFO
    summary = "Softmax reads each row from global memory in three or more passes (max, exp-sum, normalize)."
    bottleneck = (
        "The kernel is bandwidth bound and reads every row once per pass: a separate max pass, exp-sum "
        "pass and normalize pass read it three times."
    )
    method = (
        "Fuse the max and exp-sum passes into one online pass (running max, running sum rescaled by "
        "exp(m_old - m_new)), then one normalize pass; one pass when the row fits a block."
    )
    priority = 60
    fix_effect = "online_passes"

    VALID = [
        # Online softmax: two passes.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
                row = tl.program_id(axis=0)
                cols = tl.arange(0, BLOCK)
                m = tl.full((BLOCK,), -float("inf"), tl.float32)
                s = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, n_cols, BLOCK):
                    x = tl.load(x_ptr + row * n_cols + off + cols, mask=off + cols < n_cols, other=-float("inf"))
                    m_new = tl.maximum(m, x)
                    s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
                    m = m_new
                m_row = tl.max(m, 0)
                s_row = tl.sum(s * tl.exp(m - m_row), 0)
                for off in range(0, n_cols, BLOCK):
                    x = tl.load(x_ptr + row * n_cols + off + cols, mask=off + cols < n_cols)
                    tl.store(y_ptr + row * n_cols + off + cols, tl.exp(x - m_row) / s_row, mask=off + cols < n_cols)
            """
        ),
        # The row fits one block: one load, no loop.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
                e = tl.exp(x - tl.max(x, 0))
                tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, 0), mask=cols < n_cols)
            """
        ),
        # Layer norm: three passes over the row, but no maximum: not a softmax.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def layer_norm(x_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, N, BLOCK):
                    acc += tl.load(x_ptr + row * N + off + cols, mask=off + cols < N, other=0.0)
                mean = tl.sum(acc, 0) / N
                var = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, N, BLOCK):
                    x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N, other=0.0)
                    var += tl.where(off + cols < N, (x - mean) * (x - mean), 0.0)
                rstd = 1 / tl.sqrt(tl.sum(var, 0) / N + eps)
                for off in range(0, N, BLOCK):
                    x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N)
                    tl.store(y_ptr + row * N + off + cols, (x - mean) * rstd, mask=off + cols < N)
            """
        ),
        # Three loops over three different inputs.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def k(a_ptr, b_ptr, c_ptr, y_ptr, N, BLOCK: tl.constexpr):
                cols = tl.arange(0, BLOCK)
                m = tl.full((BLOCK,), -float("inf"), tl.float32)
                for off in range(0, N, BLOCK):
                    m = tl.maximum(m, tl.load(a_ptr + off + cols))
                s = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, N, BLOCK):
                    s += tl.exp(tl.load(b_ptr + off + cols) - tl.max(m, 0))
                for off in range(0, N, BLOCK):
                    tl.store(y_ptr + off + cols, tl.load(c_ptr + off + cols) / tl.sum(s, 0))
            """
        ),
        # Alternatives under a constexpr `if`, and a nested tile loop: no three sequential passes.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def k(x_ptr, y_ptr, N, BLOCK: tl.constexpr, SUB: tl.constexpr, FAST: tl.constexpr):
                cols = tl.arange(0, BLOCK)
                m = tl.full((BLOCK,), -float("inf"), tl.float32)
                if FAST:
                    for off in range(0, N, BLOCK):
                        m = tl.maximum(m, tl.load(x_ptr + off + cols))
                else:
                    for off in range(0, N, BLOCK):
                        for sub in tl.static_range(SUB):
                            m = tl.maximum(m, tl.load(x_ptr + off + sub + cols))
                s = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, N, BLOCK):
                    s += tl.exp(tl.load(x_ptr + off + cols) - tl.max(m, 0))
                tl.store(y_ptr + cols, s)
            """
        ),
        # Host: max, exp-sum and normalize kernels over different tensors, or only two launches on x.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl

            @triton.jit
            def row_max(x_ptr, m_ptr, N, BLOCK: tl.constexpr):
                tl.store(m_ptr, tl.max(tl.load(x_ptr + tl.arange(0, BLOCK)), 0))

            @triton.jit
            def row_exp_sum(x_ptr, m_ptr, s_ptr, N, BLOCK: tl.constexpr):
                tl.store(s_ptr, tl.sum(tl.exp(tl.load(x_ptr + tl.arange(0, BLOCK)) - tl.load(m_ptr)), 0))

            def softmax_stats(x, n):
                m = torch.empty(1, device=x.device)
                s = torch.empty(1, device=x.device)
                row_max[(1,)](x, m, n, BLOCK=1024)
                row_exp_sum[(1,)](x, m, s, n, BLOCK=1024)
                return m, s
            """
        ),
    ]
    INVALID = [
        # The three-pass form; `tl.program_id(axis=0)` picks the row.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def softmax(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
                row = tl.program_id(axis=0)
                cols = tl.arange(0, BLOCK)
                m = -float("inf")
                for off in range(0, n_cols, BLOCK):
                    x = tl.load(x_ptr + row * n_cols + off + cols, mask=off + cols < n_cols, other=-float("inf"))
                    m = tl.maximum(m, tl.max(x, 0))
                s = 0.0
                for off in range(0, n_cols, BLOCK):
                    x = tl.load(x_ptr + row * n_cols + off + cols, mask=off + cols < n_cols, other=-float("inf"))
                    s += tl.sum(tl.exp(x - m), 0)
                for off in range(0, n_cols, BLOCK):
                    x = tl.load(x_ptr + row * n_cols + off + cols, mask=off + cols < n_cols)
                    tl.store(y_ptr + row * n_cols + off + cols, tl.exp(x - m) / s, mask=off + cols < n_cols)
            """,
            line=10,
            column=5,
        ),
        # tl.static_range passes, the tile count set by @triton.heuristics.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.heuristics({"TILES": lambda args: triton.cdiv(args["N"], args["BLOCK"])})
            @triton.jit
            def softmax(x_ptr, y_ptr, N, BLOCK: tl.constexpr, TILES: tl.constexpr):
                x_row = x_ptr + tl.program_id(0) * N
                cols = tl.arange(0, BLOCK)
                m = tl.full((BLOCK,), -float("inf"), tl.float32)
                for t in tl.static_range(TILES):
                    m = tl.maximum(m, tl.load(x_row + t * BLOCK + cols, mask=t * BLOCK + cols < N, other=-float("inf")))
                m_row = tl.max(m, 0)
                s = tl.zeros((BLOCK,), tl.float32)
                for t in tl.static_range(TILES):
                    s += tl.exp(tl.load(x_row + t * BLOCK + cols, mask=t * BLOCK + cols < N, other=-float("inf")) - m_row)
                s_row = tl.sum(s, 0)
                for t in tl.static_range(TILES):
                    x = tl.load(x_row + t * BLOCK + cols, mask=t * BLOCK + cols < N)
                    tl.store(y_ptr + tl.program_id(0) * N + t * BLOCK + cols, tl.exp(x - m_row) / s_row, mask=t * BLOCK + cols < N)
            """,
            line=11,
            column=5,
        ),
        # A persistent loop over rows holding the three passes; autotuned BLOCK.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.autotune(configs=[triton.Config({"BLOCK": 1024}), triton.Config({"BLOCK": 4096})], key=["N"])
            @triton.jit
            def softmax(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
                cols = tl.arange(0, BLOCK)
                for row in range(tl.program_id(0), M, tl.num_programs(0)):
                    m = -float("inf")
                    for off in tl.range(0, N, BLOCK):
                        m = tl.maximum(m, tl.max(tl.load(x_ptr + row * N + off + cols, mask=off + cols < N, other=-float("inf")), 0))
                    s = 0.0
                    for off in tl.range(0, N, BLOCK):
                        s += tl.sum(tl.exp(tl.load(x_ptr + row * N + off + cols, mask=off + cols < N, other=-float("inf")) - m), 0)
                    for off in tl.range(0, N, BLOCK):
                        x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N)
                        tl.store(y_ptr + row * N + off + cols, tl.exp(x - m) / s, mask=off + cols < N)
            """,
            line=11,
            column=9,
        ),
        # Log-softmax with exp2 and `from triton.language import ...`; a fourth pass does not help.
        Invalid(
            """
            import triton
            from triton.language import arange, exp2, load, log2, max, program_id, store, sum

            @triton.jit
            def log_softmax(x_ptr, y_ptr, N, BLOCK: "tl.constexpr"):
                base = x_ptr + program_id(0) * N
                cols = arange(0, BLOCK)
                m = -float("inf")
                for off in range(0, N, BLOCK):
                    m = max(load(base + off + cols, mask=off + cols < N, other=-float("inf")), 0)
                s = 0.0
                for off in range(0, N, BLOCK):
                    s += sum(exp2(load(base + off + cols, mask=off + cols < N, other=-float("inf")) - m), 0)
                for off in range(0, N, BLOCK):
                    x = load(base + off + cols, mask=off + cols < N)
                    store(y_ptr + program_id(0) * N + off + cols, x - m - log2(s), mask=off + cols < N)
            """,
            line=10,
            column=5,
        ),
        # Block pointers re-made for each pass and advanced along the row.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def softmax(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
                pid_m = tl.program_id(0)
                m = tl.full((1, BLOCK), -float("inf"), tl.float32)
                blk = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid_m, 0), (1, BLOCK), (1, 0))
                for _ in range(0, N, BLOCK):
                    m = tl.maximum(m, tl.load(blk, boundary_check=(1,), padding_option="nan"))
                    blk = tl.advance(blk, (0, BLOCK))
                m_row = tl.max(m)
                s = 0.0
                blk = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid_m, 0), (1, BLOCK), (1, 0))
                for _ in range(0, N, BLOCK):
                    s += tl.sum(tl.exp(tl.load(blk, boundary_check=(1,)) - m_row))
                    blk = tl.advance(blk, (0, BLOCK))
                out = tl.make_block_ptr(y_ptr, (M, N), (N, 1), (pid_m, 0), (1, BLOCK), (1, 0))
                blk = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (pid_m, 0), (1, BLOCK), (1, 0))
                for _ in range(0, N, BLOCK):
                    tl.store(out, tl.exp(tl.load(blk, boundary_check=(1,)) - m_row) / s, boundary_check=(1,))
                    blk = tl.advance(blk, (0, BLOCK))
                    out = tl.advance(out, (0, BLOCK))
            """,
            line=10,
            column=5,
        ),
        # Host: three kernels over the same logits.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl

            @triton.jit
            def row_max(x_ptr, m_ptr, N, BLOCK: tl.constexpr):
                tl.store(m_ptr, tl.max(tl.load(x_ptr + tl.arange(0, BLOCK)), 0))

            @triton.jit
            def row_exp_sum(x_ptr, m_ptr, s_ptr, N, BLOCK: tl.constexpr):
                tl.store(s_ptr, tl.sum(tl.exp(tl.load(x_ptr + tl.arange(0, BLOCK)) - tl.load(m_ptr)), 0))

            @triton.jit
            def normalize(x_ptr, m_ptr, s_ptr, y_ptr, N, BLOCK: tl.constexpr):
                cols = tl.arange(0, BLOCK)
                tl.store(y_ptr + cols, tl.exp(tl.load(x_ptr + cols) - tl.load(m_ptr)) / tl.load(s_ptr))

            class Softmax(torch.nn.Module):
                def forward(self, logits):
                    m = torch.empty(1, device=logits.device)
                    s = torch.empty(1, device=logits.device)
                    y = torch.empty_like(logits)
                    row_max[(1,)](logits, m, logits.shape[-1], BLOCK=1024)
                    row_exp_sum[(1,)](logits, m, s, logits.shape[-1], BLOCK=1024)
                    normalize[(1,)](logits, m, s, y, logits.shape[-1], BLOCK=1024)
                    return y
            """,
            line=24,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for kernel in model.kernel_list:
            # A max pass and an exp pass are calls of the kernel: without
            # both, its loops need not be indexed.
            if not (model.kernel_uses(kernel, *MAX_CALLS) and model.kernel_uses(kernel, *EXP_CALLS)):
                continue
            for passes in model.row_passes(kernel):
                if len(passes.loops) >= PASSES and self._max_then_exp(model, passes.loops):
                    yield self._kernel_report(model, kernel, passes)
                    break
        for function in model.functions:
            yield from self._host_passes(model, function)

    @staticmethod
    def _max_then_exp(model: FileModel, loops: tuple[KernelLoop, ...]) -> bool:
        # A pass that takes the max without exponentials; an online pass
        # takes both (its running sum is rescaled as the max grows).
        first_max = next(
            (
                i
                for i, loop in enumerate(loops)
                if model.loop_uses(loop, *MAX_CALLS) and not model.loop_uses(loop, *EXP_CALLS)
            ),
            None,
        )
        return first_max is not None and any(model.loop_uses(loop, *EXP_CALLS) for loop in loops[first_max + 1 :])

    def _kernel_report(self, model: FileModel, kernel: Kernel, passes: RowPasses) -> Report:
        lines = ", ".join(str(model.line_of(loop.node)) for loop in passes.loops)
        message = (
            f"`{kernel.name}` reads the same row of `{passes.pointer}` from global memory in {len(passes.loops)} "
            f"passes (loops at lines {lines}): a max pass, then exp-sum and normalize passes"
        )
        plan = (
            f"Merge the max and exp-sum loops of `{kernel.name}` into one online pass over `{passes.pointer}` "
            f"(keep a running max m and a running sum s, rescaling s by tl.exp(m_old - m_new) when m grows), "
            f"then normalize in one more pass; if the row fits one block, load it once and drop the loops."
        )
        return Report(node=passes.loops[0].node, message=message, plan=plan)

    def _host_passes(self, model: FileModel, function: FunctionInfo) -> Iterator[Report]:
        launches = [launch for launch in model.launches if launch.caller is function]
        if len(launches) < PASSES:
            return
        by_tensor: dict[str, list[Launch]] = {}
        for launch in launches:
            loaded = model.loaded_params(launch.kernel)
            for param, argument in launch.arguments.items():
                text = model.code(argument)
                if param in loaded and launch not in by_tensor.setdefault(text, []):
                    by_tensor[text].append(launch)
        for tensor, reads in by_tensor.items():
            if len(reads) < PASSES or not model.in_one_block(function, [launch.node for launch in reads]):
                continue
            first_max = next(
                (i for i, launch in enumerate(reads) if model.kernel_uses(launch.kernel, *MAX_CALLS)), None
            )
            if first_max is None or not any(
                model.kernel_uses(launch.kernel, *EXP_CALLS) for launch in reads[first_max + 1 :]
            ):
                continue
            names = ", ".join(f"`{launch.kernel.name}`" for launch in reads)
            yield Report(
                node=reads[0].node,
                message=f"`{function.name}` reads `{tensor}` in {len(reads)} separate kernels ({names}): softmax in {len(reads)} passes over global memory",
                plan=(
                    f"Replace {names} with one kernel that computes the row max and the rescaled exp-sum in one "
                    f"online pass over `{tensor}` and normalizes in a second pass (one pass when a row fits a block)."
                ),
            )
            return
