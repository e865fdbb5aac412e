from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel
from kernlint.model.kernel_loops import KernelLoop, RowPasses
from kernlint.model.shapes import from_row_start
from kernlint.registry import Invalid, Report, Rule, Valid

# A pass that takes a row's maximum is a softmax's (KL008's) or a pool's, not a statistic's; an elementwise
# `tl.maximum` (a ReLU after the normalization) is neither.
MAX_CALLS = ("max", "math.max")
EXP_CALLS = ("exp", "exp2", "math.exp", "math.exp2")
SUM_CALLS = ("sum", "math.sum")
# A normalization divides by a standard deviation (or a root mean square): the mark that the passes' sums are
# statistics, not a product's or a scan's partial results.
ROOT_CALLS = ("sqrt", "rsqrt", "math.sqrt", "math.rsqrt", "sqrt_rn", "math.sqrt_rn")
PASSES = 3


class MultipassNorm(Rule):
    """
    ## What it does
    Finds a normalization (a layer, instance, group or batch norm written
    in Triton) that reads each row from global memory in three or more
    passes: in one kernel, three or more sequential loops of the same block
    that each start at the row's beginning and load the same pointer
    parameter, the kernel reducing with `tl.sum` and taking a square root
    (`tl.sqrt`, `tl.rsqrt`: a standard deviation), the last loop storing.
    That is the textbook form: a mean pass, a variance pass (the sum of
    `(x - mean)^2`), then a normalize pass. Loops are `range`, `tl.range`
    or `tl.static_range`.

    It stays silent on the two-pass forms (the sum and the sum of squares,
    or Welford's running mean and M2, in one loop, then one normalize
    loop, however each pass is split into a main loop and a tail), on a row that fits one block (no loop), on a softmax (a max
    pass, then exponentials: KL008's), on loops over different pointers,
    on alternatives in different branches of an `if`, on nested loops, on
    loops that load one element at a time, and on kernels without a square
    root (a product's or a scan's passes over one pointer are not a norm's).

    ## Why is this bad?
    A row longer than a block does not stay in cache between passes when
    every program holds one (an instance norm's 1 MB planes, a group norm's
    groups): each pass reads it from DRAM again. The normalization is
    bandwidth bound, so three reads and one write cost about 4/3 of the
    one-pass statistics' two reads and one write.

    ## Example
    ```python
    acc = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, n, BLOCK):
        acc += tl.load(row + off + cols, mask=off + cols < n, other=0.0)
    mean = tl.sum(acc, 0) / n
    acc2 = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, n, BLOCK):
        d = tl.where(off + cols < n, tl.load(row + off + cols, mask=off + cols < n, other=0.0) - mean, 0.0)
        acc2 += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc2, 0) / n + eps)
    for off in range(0, n, BLOCK):
        x = tl.load(row + off + cols, mask=off + cols < n)
        tl.store(out + off + cols, (x - mean) * rstd, mask=off + cols < n)
    ```

    ## Use instead
    ```python
    s = tl.zeros((BLOCK,), tl.float32)
    q = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, n, BLOCK):
        x = tl.load(row + off + cols, mask=off + cols < n, other=0.0).to(tl.float32)
        s += x
        q += x * x
    mean = tl.sum(s, 0) / n
    rstd = 1.0 / tl.sqrt(tl.maximum(tl.sum(q, 0) / n - mean * mean, 0.0) + eps)
    for off in range(0, n, BLOCK):
        x = tl.load(row + off + cols, mask=off + cols < n)
        tl.store(out + off + cols, (x - mean) * rstd, mask=off + cols < n)
    ```
    Where a row's mean is large against its spread, keep Welford's running
    mean and M2 per lane instead of the sum of squares (same two passes,
    merged after the loop). When the row fits one block, load it once.

    ## Fix safety
    No automatic fix: `E[x^2] - mean^2` in fp32 loses precision on rows
    whose mean dwarfs their standard deviation; which form is safe depends
    on the data.

    ## Measured speedup
    From the `kl033_multipass_norm` pair's record (`kernlint rule KL033`
    prints it with the GPU and shapes); "unmeasured" until the pair has
    been measured on a GPU.
    """

    code = "KL033"
    name = "multipass-norm"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.INFO
    summary = "A normalization reads each row from global memory in three or more passes (mean, variance, normalize)."
    bottleneck = (
        "The kernel is bandwidth bound and reads every row once per pass: a mean pass, a variance pass and a "
        "normalize pass read it three times."
    )
    method = (
        "Compute the mean and the variance in one pass (the sum and the sum of squares, or Welford's running "
        "mean and M2), then normalize in a second pass; one pass when the row fits a block."
    )
    priority = 60
    fix_effect = "online_passes"

    VALID = [
        # The sum and the sum of squares in one loop, then the normalize loop: two passes.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def layer_norm(x_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                s = tl.zeros((BLOCK,), tl.float32)
                q = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, N, BLOCK):
                    x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N, other=0.0)
                    s += x
                    q += x * x
                mean = tl.sum(s, 0) / N
                rstd = 1.0 / tl.sqrt(tl.sum(q, 0) / N - mean * mean + eps)
                for off in range(0, N, BLOCK):
                    x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N)
                    tl.store(y_ptr + row * N + off + cols, (x - mean) * rstd, mask=off + cols < N)
            """
        ),
        # The row fits one block: one load.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def layer_norm(x_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + row * N + cols, mask=cols < N, other=0.0)
                mean = tl.sum(x, 0) / N
                d = tl.where(cols < N, x - mean, 0.0)
                rstd = 1.0 / tl.sqrt(tl.sum(d * d, 0) / N + eps)
                tl.store(y_ptr + row * N + cols, d * rstd, mask=cols < N)
            """
        ),
        # A three-pass softmax: KL008's finding.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def softmax(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                m = tl.full((BLOCK,), -float("inf"), tl.float32)
                for off in range(0, n, BLOCK):
                    m = tl.maximum(m, tl.load(x_ptr + row * n + off + cols, mask=off + cols < n, other=-float("inf")))
                m_row = tl.max(m, 0)
                s = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, n, BLOCK):
                    s += tl.exp(tl.load(x_ptr + row * n + off + cols, mask=off + cols < n, other=-float("inf")) - m_row)
                s_row = tl.sum(s, 0)
                for off in range(0, n, BLOCK):
                    x = tl.load(x_ptr + row * n + off + cols, mask=off + cols < n)
                    tl.store(y_ptr + row * n + off + cols, tl.exp(x - m_row) / s_row, mask=off + cols < n)
            """
        ),
        # Three loops over three different inputs.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def three_sums(a_ptr, b_ptr, c_ptr, y_ptr, N, BLOCK: tl.constexpr):
                cols = tl.arange(0, BLOCK)
                sa = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, N, BLOCK):
                    sa += tl.load(a_ptr + off + cols, mask=off + cols < N, other=0.0)
                sb = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, N, BLOCK):
                    sb += tl.load(b_ptr + off + cols, mask=off + cols < N, other=0.0)
                for off in range(0, N, BLOCK):
                    c = tl.load(c_ptr + off + cols, mask=off + cols < N, other=0.0)
                    tl.store(y_ptr + off + cols, c * tl.sum(sa, 0) / tl.sum(sb, 0), mask=off + cols < N)
            """
        ),
        # Welford's running mean and M2 per lane in one loop, then the normalize loop.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def layer_norm(x_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                mean = tl.zeros((BLOCK,), tl.float32)
                m2 = tl.zeros((BLOCK,), tl.float32)
                count = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, N, BLOCK):
                    mask = off + cols < N
                    x = tl.load(x_ptr + row * N + off + cols, mask=mask, other=0.0)
                    count += tl.where(mask, 1.0, 0.0)
                    delta = tl.where(mask, x - mean, 0.0)
                    mean += delta / tl.maximum(count, 1.0)
                    m2 += delta * tl.where(mask, x - mean, 0.0)
                row_mean = tl.sum(mean * count, 0) / N
                rstd = 1.0 / tl.sqrt(tl.sum(m2, 0) / N + eps)
                for off in range(0, N, BLOCK):
                    x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N)
                    tl.store(y_ptr + row * N + off + cols, (x - row_mean) * rstd, mask=off + cols < N)
            """
        ),
        # Two passes, each a main loop over whole blocks and a tail (flag-gems' loop kernels): four loops.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def layer_norm(x_ptr, y_ptr, N, eps, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                steps = tl.cdiv(N, BLOCK)
                s = tl.zeros((BLOCK,), tl.float32)
                q = tl.zeros((BLOCK,), tl.float32)
                for step in range(0, steps - 1):
                    x = tl.load(x_ptr + row * N + step * BLOCK + cols)
                    s += x
                    q += x * x
                for step in range(steps - 1, steps):
                    x = tl.load(x_ptr + row * N + step * BLOCK + cols, mask=step * BLOCK + cols < N, other=0.0)
                    s += x
                    q += x * x
                mean = tl.sum(s, 0) / N
                rstd = tl.rsqrt(tl.sum(q, 0) / N - mean * mean + eps)
                for off in range(0, BLOCK, BLOCK):
                    x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N)
                    tl.store(y_ptr + row * N + off + cols, (x - mean) * rstd, mask=off + cols < N)
                for off in range(BLOCK, N, BLOCK):
                    x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N)
                    tl.store(y_ptr + row * N + off + cols, (x - mean) * rstd, mask=off + cols < N)
            """
        ),
        # The passes are alternatives under a constexpr `if`: two passes whichever runs.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def norm(x_ptr, y_ptr, N, eps, RMS: tl.constexpr, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                q = tl.zeros((BLOCK,), tl.float32)
                if RMS:
                    for off in range(0, N, BLOCK):
                        x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N, other=0.0)
                        q += x * x
                    r = 1.0 / tl.sqrt(tl.sum(q, 0) / N + eps)
                    for off in range(0, N, BLOCK):
                        x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N)
                        tl.store(y_ptr + row * N + off + cols, x * r, mask=off + cols < N)
                else:
                    for off in range(0, N, BLOCK):
                        x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N, other=0.0)
                        q += x
                    m = tl.sum(q, 0) / N
                    for off in range(0, N, BLOCK):
                        x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N)
                        tl.store(y_ptr + row * N + off + cols, x - m, mask=off + cols < N)
            """
        ),
    ]
    INVALID = [
        # Mean, variance and normalize passes over one instance-norm plane.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def instance_norm(x_ptr, y_ptr, HW, eps, BLOCK: tl.constexpr):
                base = tl.program_id(0).to(tl.int64) * HW
                cols = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), tl.float32)
                for start in range(0, HW, BLOCK):
                    acc += tl.load(x_ptr + base + start + cols, mask=start + cols < HW, other=0.0)
                mean = tl.sum(acc, axis=0) / HW
                acc2 = tl.zeros((BLOCK,), tl.float32)
                for start in range(0, HW, BLOCK):
                    v = tl.load(x_ptr + base + start + cols, mask=start + cols < HW, other=0.0)
                    d = tl.where(start + cols < HW, v - mean, 0.0)
                    acc2 += d * d
                rstd = 1.0 / tl.sqrt(tl.sum(acc2, axis=0) / HW + eps)
                for start in range(0, HW, BLOCK):
                    v = tl.load(x_ptr + base + start + cols, mask=start + cols < HW, other=0.0)
                    tl.store(y_ptr + base + start + cols, (v - mean) * rstd, mask=start + cols < HW)
            """,
            line=10,
        ),
        # A group norm with its affine: the channel's weight and bias are other pointers, the row's three passes
        # over x remain; `tl.range` loops.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def group_norm(x_ptr, w_ptr, b_ptr, y_ptr, GS, HW, eps, BLOCK: tl.constexpr):
                g = tl.program_id(0)
                base = g.to(tl.int64) * GS
                cols = tl.arange(0, BLOCK)
                total = tl.zeros((BLOCK,), tl.float32)
                for off in tl.range(0, GS, BLOCK):
                    total += tl.load(x_ptr + base + off + cols, mask=off + cols < GS, other=0.0)
                mean = tl.sum(total, 0) / GS
                sq = tl.zeros((BLOCK,), tl.float32)
                for off in tl.range(0, GS, BLOCK):
                    x = tl.load(x_ptr + base + off + cols, mask=off + cols < GS, other=0.0)
                    sq += tl.where(off + cols < GS, (x - mean) * (x - mean), 0.0)
                rstd = tl.rsqrt(tl.sum(sq, 0) / GS + eps)
                for off in tl.range(0, GS, BLOCK):
                    x = tl.load(x_ptr + base + off + cols, mask=off + cols < GS, other=0.0)
                    c = (off + cols) // HW
                    w = tl.load(w_ptr + c, mask=off + cols < GS, other=1.0)
                    b = tl.load(b_ptr + c, mask=off + cols < GS, other=0.0)
                    tl.store(y_ptr + base + off + cols, (x - mean) * rstd * w + b, mask=off + cols < GS)
            """,
            line=11,
        ),
        # tl.static_range passes over a row whose blocks the launch fixes; a cast to fp32 in each load.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def layer_norm(x_ptr, y_ptr, eps, N: tl.constexpr, BLOCK: tl.constexpr):
                row = tl.program_id(0).to(tl.int64) * N
                cols = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), tl.float32)
                for i in tl.static_range(N // BLOCK):
                    acc += tl.load(x_ptr + row + i * BLOCK + cols).to(tl.float32)
                mean = tl.sum(acc, 0) / N
                acc = tl.zeros((BLOCK,), tl.float32)
                for i in tl.static_range(N // BLOCK):
                    d = tl.load(x_ptr + row + i * BLOCK + cols).to(tl.float32) - mean
                    acc += d * d
                rstd = tl.rsqrt(tl.sum(acc, 0) / N + eps)
                for i in tl.static_range(N // BLOCK):
                    x = tl.load(x_ptr + row + i * BLOCK + cols).to(tl.float32)
                    tl.store(y_ptr + row + i * BLOCK + cols, (x - mean) * rstd)
            """,
            line=10,
        ),
        # A training-mode batch norm and its ReLU: one program per channel walks its N * HW values three times.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def batch_norm(x_ptr, y_ptr, N, C, HW, eps, BLOCK: tl.constexpr):
                c = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                total = N * HW
                s = tl.zeros((BLOCK,), tl.float32)
                for start in range(0, total, BLOCK):
                    i = start + cols
                    s += tl.load(x_ptr + (i // HW) * C * HW + c * HW + i % HW, mask=i < total, other=0.0)
                mean = tl.sum(s, 0) / total
                v = tl.zeros((BLOCK,), tl.float32)
                for start in range(0, total, BLOCK):
                    i = start + cols
                    x = tl.load(x_ptr + (i // HW) * C * HW + c * HW + i % HW, mask=i < total, other=0.0)
                    v += tl.where(i < total, (x - mean) * (x - mean), 0.0)
                rstd = 1.0 / tl.sqrt(tl.sum(v, 0) / total + eps)
                for start in range(0, total, BLOCK):
                    i = start + cols
                    x = tl.load(x_ptr + (i // HW) * C * HW + c * HW + i % HW, mask=i < total, other=0.0)
                    y = tl.maximum((x - mean) * rstd, 0.0)
                    tl.store(y_ptr + (i // HW) * C * HW + c * HW + i % HW, y, mask=i < total)
            """,
            line=11,
        ),
        # A persistent loop over rows holding the three passes.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def layer_norm(x_ptr, y_ptr, M, N, eps, BLOCK: tl.constexpr):
                cols = tl.arange(0, BLOCK)
                for row in range(tl.program_id(0), M, tl.num_programs(0)):
                    acc = tl.zeros((BLOCK,), tl.float32)
                    for off in range(0, N, BLOCK):
                        acc += tl.load(x_ptr + row * N + off + cols, mask=off + cols < N, other=0.0)
                    mean = tl.sum(acc, 0) / N
                    acc = tl.zeros((BLOCK,), tl.float32)
                    for off in range(0, N, BLOCK):
                        x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N, other=0.0)
                        acc += tl.where(off + cols < N, (x - mean) * (x - mean), 0.0)
                    rstd = 1.0 / tl.sqrt(tl.sum(acc, 0) / N + eps)
                    for off in range(0, N, BLOCK):
                        x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N)
                        tl.store(y_ptr + row * N + off + cols, (x - mean) * rstd, mask=off + cols < N)
            """,
            line=10,
        ),
        # An instance norm that also writes its mean and rstd for a backward pass.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def instance_norm_fwd(x_ptr, y_ptr, mean_ptr, rstd_ptr, HW, eps, BLOCK: tl.constexpr):
                pid = tl.program_id(0)
                base = pid.to(tl.int64) * HW
                cols = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, HW, BLOCK):
                    acc += tl.load(x_ptr + base + off + cols, mask=off + cols < HW, other=0.0)
                mean = tl.sum(acc, 0) / HW
                acc2 = tl.zeros((BLOCK,), tl.float32)
                for off in range(0, HW, BLOCK):
                    x = tl.load(x_ptr + base + off + cols, mask=off + cols < HW, other=0.0)
                    acc2 += tl.where(off + cols < HW, (x - mean) * (x - mean), 0.0)
                rstd = 1.0 / tl.sqrt(tl.sum(acc2, 0) / HW + eps)
                tl.store(mean_ptr + pid, mean)
                tl.store(rstd_ptr + pid, rstd)
                for off in range(0, HW, BLOCK):
                    x = tl.load(x_ptr + base + off + cols, mask=off + cols < HW)
                    tl.store(y_ptr + base + off + cols, (x - mean) * rstd, mask=off + cols < HW)
            """,
            line=11,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for kernel in model.kernel_list:
            # The statistics are sums; without one (or with a softmax's exponentials) the loops need no index.
            if (
                not model.kernel_uses(kernel, *SUM_CALLS)
                or not model.kernel_uses(kernel, *ROOT_CALLS)
                or model.kernel_uses(kernel, *EXP_CALLS)
            ):
                continue
            loaded = model.loaded_params(kernel)
            for passes in model.row_passes(kernel):
                if passes.pointer in loaded and self._normalizes(model, passes.loops):
                    yield self._report(model, kernel, passes)
                    break

    @staticmethod
    def _normalizes(model: FileModel, loops: tuple[KernelLoop, ...]) -> bool:
        """Three or more passes over the row (a loop that starts at its beginning; a main loop's tail, or the
        rest of a sweep after its first block, continues the pass before it), the last loop storing, none
        taking a row's maximum."""
        return (
            sum(1 for loop in loops if from_row_start(loop.node)) >= PASSES
            and bool(model.loop_uses(loops[-1], "store"))
            and not any(model.loop_uses(loop, *MAX_CALLS) for loop in loops)
        )

    def _report(self, model: FileModel, kernel: Kernel, passes: RowPasses) -> Report:
        lines = ", ".join(str(model.line_of(loop.node)) for loop in passes.loops)
        message = (
            f"`{kernel.name}` reads the same row of `{passes.pointer}` from global memory in {len(passes.loops)} "
            f"passes (loops at lines {lines}): the statistics take {len(passes.loops) - 1} passes before the "
            "normalize pass"
        )
        plan = (
            f"Accumulate the sum and the sum of squares of `{passes.pointer}` in fp32 in one loop of "
            f"`{kernel.name}` (var = E[x^2] - mean^2, clamped at zero; Welford's running mean and M2 per lane "
            "where the mean is large against the spread), then normalize in one more loop: two passes over the "
            "row instead of three; if the row fits one block, load it once and drop the loops."
        )
        return Report(node=passes.loops[0].node, message=message, plan=plan)
