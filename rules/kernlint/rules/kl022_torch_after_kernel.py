from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo, Kernel, Launch
from kernlint.model.epilogues import Epilogue
from kernlint.model.shapes import Op, concatenated_launches, prologue_of, reads_grid_statistic, statistics_of
from kernlint.model.syntax import walk
from kernlint.registry import Invalid, Report, Rule, Valid


class TorchAfterKernel(Rule):
    """
    ## What it does
    Finds the output of a Triton kernel without `tl.dot` (elementwise, a
    normalization, a reduction per row) that goes through separate torch
    ops before it is returned or passed to the next kernel: an activation,
    a scale or bias (`F.gelu(y)`, `y * s`, `torch.sigmoid(y) + y`), a group
    or batch norm. It follows the tensor the launch writes (an argument
    allocated with `torch.empty*` just before it) in the launching
    function, or in the function that hands it to a helper launching into
    it (`_launch(x, out, n)`, the helper returning nothing or `out`), and
    the value of a helper (a function of the file, or a
    method of the model called as `self.m(...)`) that launches the kernel
    and returns that tensor or a view of it, where the model's forward (or
    an autograd Function's forward/backward) calls it. Its estimate drops
    the elementwise ops' passes and, for a norm, charges the kernel one more
    read for the statistics.

    In a KernelBench-style file (at its own shapes, through forward and the
    helpers it calls) it also finds a second Triton kernel doing that work:
    an elementwise kernel (no loop, no reduction, no `tl.dot`) whose
    largest tensor is the output of an earlier kernel that nothing else
    reads (`x = triton_mish(x); x = triton_mish(x)`, or a Triton GEMM whose
    output a second kernel activates: its epilogue's work), or a kernel that
    reduces what an elementwise kernel wrote (a loss's difference, then its
    sum of squares: the first one's work belongs in the second one's loads),
    or what a window kernel wrote (a few taps along one axis, every loop a
    `tl.static_range`: a separable pool's first pass, which the second
    kernel can take from the input as one window over all the axes). A
    `tl.dot` kernel reading such a tensor as its operand (a depthwise
    convolution, then the pointwise GEMM) is not reported: the taps computed
    in its K loop measured slower than the two kernels (0.80x on an H200,
    `fixtures/costmodel/kl022_dwsep`). A tensor handed to a pointer the
    kernel never touches at that launch (a dummy for `bias_ptr` with
    `HAS_BIAS=False`) is not read.
    Its estimate merges the two launches into one that reads the first one's
    inputs and writes the second one's output. Where the second kernel also
    reads statistics the first one accumulates over the whole grid (a
    channel's sum over the batch, with atomics or partials: more elements
    than one program holds), the two cannot be one kernel; the finding says
    so, and its estimate keeps both launches but drops the tensor between
    them: the first no longer stores it, the second recomputes it from the
    first one's input.

    Also in a KernelBench-style forward: a sum or mean (`torch.mean(y)`,
    `y.sum(dim=1)`) that is the only reader of an elementwise kernel's
    full-size output (a loss written per element, then averaged), or an
    `F.nll_loss` picking one entry per row of a row kernel's output (a
    log-softmax written whole for it): the kernel can reduce its block in
    registers and write partials, and the full tensor is never written nor
    read back. Its estimate drops both. Likewise a pooling layer or function
    (`self.pool(y)` with `nn.AvgPool2d`, `F.max_pool2d(y, 2)`) that is the
    only reader of such an output: each program can compute a block of the
    pooled output from its windows (KernelBench level 2's conv, activation,
    pool chains with the pool left in torch); its estimate writes the pooled
    tensor instead of the full one. On an H200, fresh2's dh10 fixed so (its
    conv bias moved into the same kernel, as the plan says) measured 1.68x,
    where the finding estimates 1.64x
    (`checks/h200/fixed_plans_h200.jsonl`).

    And in a KernelBench-style forward: a Triton launch handed a torch
    reduction's result together with the tensor it reduced (`mx =
    torch.amax(x, 1)`, then `kernel[grid](x, mx, out)`, statistics in torch
    and the rest in Triton), also through an elementwise op of that tensor
    before the reduction and small ones after it (an RMS norm's
    `torch.rsqrt(x.pow(2).mean(1) + eps)`), or a Triton kernel of the file
    that only reduces it into a buffer the launch reads, each statistic
    over at most 16,384 elements (a row or a channel column a program can
    hold; a whole tensor's sum needs every program's part first): the
    reduction is a full pass over a tensor the kernel reads anyway. A launch
    that reduces too counts only where it runs as many programs as the
    statistics kernel and loads one statistic per program (a row max, then
    the row's exp-sum), not where it combines partials over a row. Its
    estimate drops those ops, or that launch.

    And a `torch.cat` (or `torch.stack`) of Triton kernels' outputs that
    nothing else reads (a network's branches joined), with at most small
    constant fills beside them (an exclusive scan's zero column): each kernel
    can store into its slice of the joined tensor. Its estimate drops the
    join's copy.

    Also a torch elementwise op (not a cast) whose full-size result only a
    Triton kernel without a product reads, as its largest tensor (`masked =
    x * mask` before a scan kernel): the kernel can apply it as it loads.
    And an `F.pad` copy only a Triton kernel reads, a `tl.dot` kernel too (a
    transposed convolution done as a correlation over the zero-padded input):
    the kernel can mask its loads outside the input.

    And a normalization kernel reading back a Triton GEMM's output (a tl.dot
    kernel of fixed tiles) that nothing else reads, one program per group of
    adjacent columns of a row (a GroupNorm over a row's channels), where the
    GEMM's BLOCK_N is a multiple of the group: each output tile holds whole
    groups, so the norm can be done in the GEMM's epilogue (an Operator
    Fusion finding). Its estimate merges the two launches. On an H200,
    fresh's ca13 fixed so ran 1.71x faster than as written, where KL019's
    plan for its norm kernel gave 1.51x (the finding estimates 2.26x: the
    norm's cost in the epilogue is not priced).

    It stays silent on views and dtype casts alone, on other reductions
    that shrink the tensor (a per-row value summed, or any reduction
    outside a KernelBench-style forward), on torch ops after kernels with
    `tl.dot` (KL004 reports a GEMM's torch epilogue), and on plain launcher functions a library exposes,
    which no model of the file calls.

    ## Why is this bad?
    The kernel writes its whole output to DRAM and each torch op reads it
    back and writes a new tensor: every op is a full pass over the tensor
    and a launch of its own, for work the kernel could do in registers
    before its single store. For a memory-bound kernel each extra op costs
    about as much as the kernel itself.

    ## Example
    ```python
    _layernorm[grid](x, w, b, y, M, N, eps, ROWS=rows, BLOCK_N=block_n)
    y = torch.nn.functional.gelu(y)
    y = y * self.scaling_factor
    ```

    ## Use instead
    ```python
    # in the kernel, before tl.store:
    y = 0.5 * y * (1.0 + tl.math.erf(y * 0.7071067811865476))
    tl.store(y_ptr + offs, (y * scale).to(tl.float16), mask=mask)
    ```

    ## Fix safety
    No automatic fix: the ops move into the kernel's epilogue (a norm's
    statistics need the whole row or group in the program that applies it).

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl022_torch_after_kernel/` (`kernlint rule KL022` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL022"
    name = "torch-after-kernel"
    category = Category.OPERATOR_FUSION
    severity = Severity.WARNING
    summary = "A Triton kernel's output is read back by separate torch elementwise or norm ops, or another elementwise kernel."
    bottleneck = (
        "Memory traffic between kernels: a tensor makes extra full trips through DRAM around a Triton kernel (its "
        "output written, then read back by each following torch op; or read by a torch op in a pass of its own "
        "before the kernel reads it again), a pass and a launch per op."
    )
    method = (
        "Do the torch ops' work (or the next elementwise kernel's) inside the Triton kernel, on the values it "
        "holds in registers, so each tensor is read once and written once."
    )
    priority = 16
    fix_effect = "fuse_into_kernel"

    VALID = [
        # A LayerNorm over rows of 4,096 columns after a GEMM of 128-column tiles: no tile holds a whole row.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, w_ptr, h_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
                    w = tl.load(w_ptr + rn[:, None] * K + (k + rk)[None, :])
                    acc += tl.dot(a, tl.trans(w))
                tl.store(h_ptr + rm[:, None] * N + rn[None, :], acc)
            @triton.jit
            def group_norm(h_ptr, y_ptr, N, GROUP: tl.constexpr):
                row = tl.program_id(0) // (N // GROUP)
                cols = (tl.program_id(0) % (N // GROUP)) * GROUP + tl.arange(0, GROUP)
                v = tl.load(h_ptr + row * N + cols)
                d = v - tl.sum(v, axis=0) / GROUP
                tl.store(y_ptr + row * N + cols, d / tl.sqrt(tl.sum(d * d, axis=0) / GROUP + 1e-5))
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.w = torch.nn.Parameter(torch.randn(4096, 1024))
                def forward(self, x):
                    M, K = x.shape
                    h = torch.empty(M, 4096, device=x.device)
                    mm[(M // 64, 4096 // 128)](x, self.w, h, M, 4096, K, BM=64, BN=128, BK=32)
                    y = torch.empty_like(h)
                    group_norm[(M * 4096 // 4096,)](h, y, 4096, GROUP=4096)
                    return y
            def get_inputs():
                return [torch.randn(4096, 1024)]
            def get_init_inputs():
                return []
            """
        ),
        # The activation's full output is returned beside its pooled one: it must be written anyway.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def act(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                x = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, tl.where(x > 0, x, 0.01 * x), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    act[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                    return y, torch.nn.functional.max_pool2d(y, 2)
            def get_inputs():
                return [torch.randn(64, 64, 256, 256)]
            def get_init_inputs():
                return []
            """
        ),
        # The activation is inside the kernel; the output is returned as is.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    relu[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                    return y.view(x.shape[0], -1)
            """
        ),
        # A cast of the output and nothing else.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x, dtype=torch.float32)
                    relu[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                    return y.to(torch.float16)
            """
        ),
        # A reduction of partial results that shrinks the tensor (a two-stage sum).
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def partial(x_ptr, p_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(p_ptr + tl.program_id(0), tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0)))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    p = torch.empty(triton.cdiv(x.numel(), 1024), device=x.device)
                    partial[(p.numel(),)](x, p, x.numel(), BLOCK=1024)
                    return p.sum()
            """
        ),
        # A plain launcher of a library: no model calls it.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
            def add(x, y, alpha):
                out = torch.empty_like(x)
                add_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
                return out * alpha
            """
        ),
        # A GEMM kernel's epilogue is KL004's.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
                r = tl.arange(0, BLOCK)
                a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
                b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
                tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], tl.dot(a, b))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    c = torch.empty_like(a)
                    mm[(1,)](a, b, c, BLOCK=64)
                    return torch.relu(c)
            """
        ),
        # The torch op acts on the kernel's input, before the launch.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    x = torch.sigmoid(x)
                    y = torch.empty_like(x)
                    copy[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                    return y
            """
        ),
        # The first kernel's output is read by two kernels (statistics, then normalize): it must be written.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def act(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                v = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, v * tl.sigmoid(v), mask=offs < n)
            @triton.jit
            def total(x_ptr, s_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.atomic_add(s_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0)))
            @triton.jit
            def scale(x_ptr, s_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) / tl.load(s_ptr), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    n = x.numel()
                    y = torch.empty_like(x)
                    act[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
                    s = torch.zeros(1, device=x.device)
                    total[(triton.cdiv(n, 1024),)](y, s, n, BLOCK=1024)
                    z = torch.empty_like(x)
                    scale[(triton.cdiv(n, 1024),)](y, s, z, n, BLOCK=1024)
                    return z
            def get_inputs():
                return [torch.rand(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # The log-probabilities are returned too: the full tensor must be written.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            import triton
            import triton.language as tl
            @triton.jit
            def log_softmax_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
                x = x - tl.max(x, axis=0)
                y = x - tl.log(tl.sum(tl.exp(x), axis=0))
                tl.store(y_ptr + row * n_cols + cols, y, mask=cols < n_cols)
            class ModelNew(torch.nn.Module):
                def forward(self, logits, target):
                    log_probs = torch.empty_like(logits)
                    log_softmax_rows[(logits.shape[0],)](
                        logits, log_probs, logits.shape[1], BLOCK=4096
                    )
                    return F.nll_loss(log_probs, target), log_probs
            def get_inputs():
                return [torch.randn(32768, 4096), torch.randint(0, 4096, (32768,))]
            def get_init_inputs():
                return []
            """
        ),
        # A long row's statistics in partials (one pair per chunk), combined by the kernel that applies them:
        # no program could hold the row, so the two kernels are the split the row needs.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def partials(x_ptr, p_ptr, N, CHUNK: tl.constexpr):
                offs = tl.program_id(1) * CHUNK + tl.arange(0, CHUNK)
                v = tl.load(x_ptr + tl.program_id(0) * N + offs, mask=offs < N, other=0.0)
                tl.store(p_ptr + tl.program_id(0) * 64 + tl.program_id(1), tl.sum(v, axis=0))
            @triton.jit
            def center(x_ptr, p_ptr, y_ptr, N, CHUNK: tl.constexpr):
                mean = tl.sum(tl.load(p_ptr + tl.program_id(0) * 64 + tl.arange(0, 64)), axis=0) / N
                offs = tl.program_id(1) * CHUNK + tl.arange(0, CHUNK)
                v = tl.load(x_ptr + tl.program_id(0) * N + offs, mask=offs < N)
                tl.store(y_ptr + tl.program_id(0) * N + offs, v - mean, mask=offs < N)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    p = torch.empty(16, 64, device=x.device)
                    partials[(16, 64)](x, p, x.shape[1], CHUNK=4096)
                    y = torch.empty_like(x)
                    center[(16, 64)](x, p, y, x.shape[1], CHUNK=4096)
                    return y
            def get_inputs():
                return [torch.randn(16, 262144)]
            def get_init_inputs():
                return []
            """
        ),
        # The difference is returned too: it must be written whole, whatever reduces it.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def sub(a_ptr, b_ptr, d_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                a = tl.load(a_ptr + offs, mask=offs < n)
                tl.store(d_ptr + offs, a - tl.load(b_ptr + offs, mask=offs < n), mask=offs < n)
            @triton.jit
            def sq_sum(d_ptr, part_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                d = tl.load(d_ptr + offs, mask=offs < n, other=0.0)
                tl.store(part_ptr + tl.program_id(0), tl.sum(d * d, axis=0))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    n = a.numel()
                    d = torch.empty_like(a)
                    sub[(triton.cdiv(n, 1024),)](a, b, d, n, BLOCK=1024)
                    part = torch.empty(triton.cdiv(n, 1024), device=a.device)
                    sq_sum[(triton.cdiv(n, 1024),)](d, part, n, BLOCK=1024)
                    return d, part.sum() / n
            def get_inputs():
                return [torch.randn(8192, 8192), torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """
        ),
        # One branch's output is returned as well: it must exist on its own, so the join is not the only reader.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    n = a.numel()
                    ya = torch.empty_like(a)
                    relu[(triton.cdiv(n, 1024),)](a, ya, n, BLOCK=1024)
                    yb = torch.empty_like(b)
                    relu[(triton.cdiv(n, 1024),)](b, yb, n, BLOCK=1024)
                    return torch.cat([ya, yb], dim=1), ya
            def get_inputs():
                return [torch.randn(16, 64, 256, 256), torch.randn(16, 64, 256, 256)]
            def get_init_inputs():
                return []
            """
        ),
        # The masked tensor is returned as well: the torch op's result must exist.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def row_cumsum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                cols = tl.arange(0, BLOCK)
                v = tl.load(x_ptr + tl.program_id(0) * N + cols, mask=cols < N, other=0.0)
                tl.store(y_ptr + tl.program_id(0) * N + cols, tl.cumsum(v, axis=0), mask=cols < N)
            class ModelNew(torch.nn.Module):
                def forward(self, x, mask):
                    masked = x * mask
                    y = torch.empty_like(masked)
                    row_cumsum[(x.shape[0],)](masked, y, x.shape[1], BLOCK=4096)
                    return y, masked
            def get_inputs():
                return [torch.randn(32768, 4096), torch.rand(32768, 4096) > 0.5]
            def get_init_inputs():
                return []
            """
        ),
        # The row means are returned too: the torch reduction's result is needed beside the kernel's.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def center(x_ptr, m_ptr, y_ptr, N, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + row * N + cols, mask=cols < N)
                tl.store(y_ptr + row * N + cols, x - tl.load(m_ptr + row), mask=cols < N)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    m = torch.mean(x, dim=1)
                    y = torch.empty_like(x)
                    center[(x.shape[0],)](x, m, y, x.shape[1], BLOCK=4096)
                    return y, m
            def get_inputs():
                return [torch.randn(16384, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # A row sum over a loop of runtime length, then a kernel that reduces the sums: the first kernel is
        # no window of a few taps (its loop walks the whole row), so its output is not recomputed per load.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def row_sums(x_ptr, s_ptr, N, BLOCK: tl.constexpr):
                row = tl.program_id(0).to(tl.int64)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for start in range(0, N, BLOCK):
                    offs = start + tl.arange(0, BLOCK)
                    acc += tl.load(x_ptr + row * N + offs, mask=offs < N, other=0.0)
                tl.store(s_ptr + row * BLOCK + tl.arange(0, BLOCK), acc)
            @triton.jit
            def total(s_ptr, out_ptr, BLOCK: tl.constexpr):
                row = tl.program_id(0).to(tl.int64)
                tl.store(out_ptr + row, tl.sum(tl.load(s_ptr + row * BLOCK + tl.arange(0, BLOCK)), axis=0))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    M, N = x.shape
                    s = torch.empty((M, 1024), device=x.device)
                    row_sums[(M,)](x, s, N, BLOCK=1024)
                    out = torch.empty(M, device=x.device)
                    total[(M,)](s, out, BLOCK=1024)
                    return out
            def get_inputs():
                return [torch.randn(16384, 65536)]
            def get_init_inputs():
                return []
            """
        ),
        # A depthwise-separable convolution as two kernels, the 3x3 depthwise result (1 GB) read back as the
        # pointwise GEMM's operand: computing the taps in the GEMM's K loop measured 0.80x (kl022_dwsep, H200).
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def depthwise(x_ptr, w_ptr, y_ptr, C, H, W, BLOCK: tl.constexpr):
                plane = tl.program_id(0)
                offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
                h, w = offs // W, offs % W
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for kh in tl.static_range(3):
                    for kw in tl.static_range(3):
                        ih, iw = h + kh - 1, w + kw - 1
                        ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                        v = tl.load(x_ptr + plane * H * W + ih * W + iw, mask=ok, other=0.0)
                        acc += v * tl.load(w_ptr + (plane % C) * 9 + kh * 3 + kw)
                tl.store(y_ptr + plane * H * W + offs, acc, mask=offs < H * W)
            @triton.jit
            def pointwise(y_ptr, w_ptr, out_ptr, C_in, C_out, HW, BCO: tl.constexpr, BP: tl.constexpr, BCI: tl.constexpr):
                p = tl.program_id(0) * BP + tl.arange(0, BP)
                co = tl.program_id(1) * BCO + tl.arange(0, BCO)
                n = tl.program_id(2)
                ci = tl.arange(0, BCI)
                acc = tl.zeros((BCO, BP), dtype=tl.float32)
                for c0 in range(0, C_in, BCI):
                    w = tl.load(w_ptr + co[:, None] * C_in + (c0 + ci)[None, :])
                    y = tl.load(y_ptr + n * C_in * HW + (c0 + ci)[:, None] * HW + p[None, :])
                    acc = tl.dot(w, y, acc)
                tl.store(out_ptr + n * C_out * HW + co[:, None] * HW + p[None, :], acc)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.dw = torch.nn.Parameter(torch.randn(64, 1, 3, 3))
                    self.pw = torch.nn.Parameter(torch.randn(128, 64))
                def forward(self, x):
                    N, C, H, W = x.shape
                    y = torch.empty_like(x)
                    depthwise[(N * C, triton.cdiv(H * W, 1024))](x, self.dw, y, C, H, W, BLOCK=1024)
                    out = torch.empty((N, 128, H, W), device=x.device)
                    pointwise[(H * W // 128, 128 // 128, N)](y, self.pw, out, C, 128, H * W, BCO=128, BP=128, BCI=32)
                    return out
            def get_inputs():
                return [torch.randn(16, 64, 512, 512)]
            def get_init_inputs():
                return []
            """
        ),
    ]
    INVALID = [
        # A GroupNorm kernel (a program per 64-column group of a row) reading back a tl.dot GEMM's output, whose
        # 128-column tiles hold whole groups.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, w_ptr, h_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
                    w = tl.load(w_ptr + rn[:, None] * K + (k + rk)[None, :])
                    acc += tl.dot(a, tl.trans(w))
                tl.store(h_ptr + rm[:, None] * N + rn[None, :], acc)
            @triton.jit
            def group_norm(h_ptr, y_ptr, N, GROUP: tl.constexpr):
                row = tl.program_id(0) // (N // GROUP)
                cols = (tl.program_id(0) % (N // GROUP)) * GROUP + tl.arange(0, GROUP)
                v = tl.load(h_ptr + row * N + cols)
                d = v - tl.sum(v, axis=0) / GROUP
                tl.store(y_ptr + row * N + cols, d / tl.sqrt(tl.sum(d * d, axis=0) / GROUP + 1e-5))
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.w = torch.nn.Parameter(torch.randn(4096, 1024))
                def forward(self, x):
                    M, K = x.shape
                    h = torch.empty(M, 4096, device=x.device)
                    mm[(M // 64, 4096 // 128)](x, self.w, h, M, 4096, K, BM=64, BN=128, BK=32)
                    y = torch.empty_like(h)
                    group_norm[(M * 4096 // 64,)](h, y, 4096, GROUP=64)
                    return y
            def get_inputs():
                return [torch.randn(4096, 1024)]
            def get_init_inputs():
                return []
            """,
            line=32,
        ),
        # An elementwise tail in Triton, the average pool after it left in torch: the full-size activation is
        # written only for the pool to read it back.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def act(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                x = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, tl.where(x > 0, x, 0.01 * x), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.pool = torch.nn.AvgPool2d(2)
                def forward(self, x):
                    y = torch.empty_like(x)
                    act[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                    return self.pool(y)
            def get_inputs():
                return [torch.randn(64, 64, 256, 256)]
            def get_init_inputs():
                return []
            """,
            line=16,
        ),
        # A cross-entropy split in two kernels of one program per row: the row max, then the exp-sum that
        # reads the row again and the max (one number per program).
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def row_max(x_ptr, m_ptr, C, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + tl.program_id(0) * C + offs, mask=offs < C, other=float("-inf"))
                tl.store(m_ptr + tl.program_id(0), tl.max(x, axis=0))
            @triton.jit
            def nll(x_ptr, m_ptr, t_ptr, out_ptr, C, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                offs = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + row * C + offs, mask=offs < C, other=float("-inf"))
                m = tl.load(m_ptr + row)
                picked = tl.load(x_ptr + row * C + tl.load(t_ptr + row))
                tl.store(out_ptr + row, tl.log(tl.sum(tl.exp(x - m), axis=0)) + m - picked)
            class ModelNew(torch.nn.Module):
                def forward(self, x, t):
                    m = torch.empty(x.shape[0], device=x.device)
                    row_max[(x.shape[0],)](x, m, x.shape[1], BLOCK=4096)
                    out = torch.empty(x.shape[0], device=x.device)
                    nll[(x.shape[0],)](x, m, t, out, x.shape[1], BLOCK=4096)
                    return out.mean()
            def get_inputs():
                return [torch.randn(32768, 4096), torch.randint(0, 4096, (32768,))]
            def get_init_inputs():
                return []
            """,
            line=23,
        ),
        # Statistics in torch, the rest in Triton: the row means read x in a pass of their own.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def center(x_ptr, m_ptr, y_ptr, N, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + row * N + cols, mask=cols < N)
                tl.store(y_ptr + row * N + cols, x - tl.load(m_ptr + row), mask=cols < N)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    m = torch.mean(x, dim=1)
                    y = torch.empty_like(x)
                    center[(x.shape[0],)](x, m, y, x.shape[1], BLOCK=4096)
                    return y
            def get_inputs():
                return [torch.randn(16384, 4096)]
            def get_init_inputs():
                return []
            """,
            line=15,
            column=9,
        ),
        # An RMS norm's statistics in torch (a square, a mean over the channels, a reciprocal square root) and
        # the scaling in Triton: the square and the mean are two passes over x that the kernel reads anyway.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def scale(x_ptr, r_ptr, y_ptr, n, CHW, HW, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                r = tl.load(r_ptr + (offs // CHW) * HW + offs % HW, mask=offs < n)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * r, mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    r = torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-5)
                    y = torch.empty_like(x)
                    scale[(triton.cdiv(x.numel(), 1024),)](x, r, y, x.numel(), 64 * 4096, 4096, BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(16, 64, 4096)]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=9,
        ),
        # The same statistics in a Triton kernel of their own (one per channel column), then a second kernel
        # that reads x again to apply them: one kernel holding the 64 channels of its positions does both.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def stats(x_ptr, r_ptr, C, HW, BLOCK: tl.constexpr):
                offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for c in range(0, C):
                    v = tl.load(x_ptr + tl.program_id(0) * C * HW + c * HW + offs, mask=offs < HW)
                    acc += v * v
                tl.store(r_ptr + tl.program_id(0) * HW + offs, tl.rsqrt(acc / C + 1e-5), mask=offs < HW)
            @triton.jit
            def scale(x_ptr, r_ptr, y_ptr, n, CHW, HW, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                r = tl.load(r_ptr + (offs // CHW) * HW + offs % HW, mask=offs < n)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * r, mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    r = torch.empty(16, 4096, device=x.device)
                    stats[(16, 4)](x, r, 64, 4096, BLOCK=1024)
                    y = torch.empty_like(x)
                    scale[(triton.cdiv(x.numel(), 1024),)](x, r, y, x.numel(), 64 * 4096, 4096, BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(16, 64, 4096)]
            def get_init_inputs():
                return []
            """,
            line=23,
            column=9,
        ),
        # A loss in two kernels: the difference written whole (268 MB), then read back only to be squared and
        # summed per block; the reducing kernel can load both inputs and subtract.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def sub(a_ptr, b_ptr, d_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                a = tl.load(a_ptr + offs, mask=offs < n)
                tl.store(d_ptr + offs, a - tl.load(b_ptr + offs, mask=offs < n), mask=offs < n)
            @triton.jit
            def sq_sum(d_ptr, part_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                d = tl.load(d_ptr + offs, mask=offs < n, other=0.0)
                tl.store(part_ptr + tl.program_id(0), tl.sum(d * d, axis=0))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    n = a.numel()
                    d = torch.empty_like(a)
                    sub[(triton.cdiv(n, 1024),)](a, b, d, n, BLOCK=1024)
                    part = torch.empty(triton.cdiv(n, 1024), device=a.device)
                    sq_sum[(triton.cdiv(n, 1024),)](d, part, n, BLOCK=1024)
                    return part.sum() / n
            def get_inputs():
                return [torch.randn(8192, 8192), torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """,
            line=21,
            column=9,
        ),
        # A separable pool in two kernels: a 3-tap window along W written whole (268 MB), then read back only
        # by the kernel that pools it along H; one kernel can take the 3 x 3 window from x itself.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def pool_w(x_ptr, t_ptr, W, KS: tl.constexpr, BLOCK: tl.constexpr):
                row = tl.program_id(0).to(tl.int64)
                ow = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for k in tl.static_range(KS):
                    acc += tl.load(x_ptr + row * W + ow + k, mask=ow + k < W, other=0.0)
                tl.store(t_ptr + row * W + ow, acc, mask=ow < W)
            @triton.jit
            def pool_h(t_ptr, y_ptr, H, W, KS: tl.constexpr, BLOCK: tl.constexpr):
                row = tl.program_id(0).to(tl.int64)
                ow = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for k in tl.static_range(KS):
                    acc += tl.load(t_ptr + (row + k) * W + ow, mask=(ow < W) & (row + k < H), other=0.0)
                tl.store(y_ptr + row * W + ow, acc / (KS * KS), mask=ow < W)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    H, W = x.shape
                    t = torch.empty_like(x)
                    pool_w[(H,)](x, t, W, KS=3, BLOCK=8192)
                    y = torch.empty_like(x)
                    pool_h[(H,)](t, y, H, W, KS=3, BLOCK=8192)
                    return y
            def get_inputs():
                return [torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """,
            line=27,
            column=9,
        ),
        # An exclusive scan: the kernel scans all but the last column, then torch.cat prepends a zero column,
        # copying the 268 MB result once more (the kernel could store at offset 1 and write the zeros).
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def row_scan(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
                row = tl.program_id(0).to(tl.int64)
                offs = tl.arange(0, BLOCK)
                v = tl.load(x_ptr + row * stride + offs, mask=offs < n, other=0.0)
                tl.store(y_ptr + row * n + offs, tl.cumsum(v, axis=0), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    M, N = x.shape
                    cs = torch.empty((M, N - 1), device=x.device)
                    row_scan[(M,)](x, cs, N - 1, x.stride(0), BLOCK=8192)
                    zeros = torch.zeros((M, 1), device=x.device)
                    return torch.cat((zeros, cs), dim=1)
            def get_inputs():
                return [torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """,
            line=17,
            column=16,
        ),
        # Two branches' kernels, then torch.cat of their outputs: each output copied once more.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    n = a.numel()
                    ya = torch.empty_like(a)
                    relu[(triton.cdiv(n, 1024),)](a, ya, n, BLOCK=1024)
                    yb = torch.empty_like(b)
                    relu[(triton.cdiv(n, 1024),)](b, yb, n, BLOCK=1024)
                    return torch.cat([ya, yb], dim=1)
            def get_inputs():
                return [torch.randn(16, 64, 256, 256), torch.randn(16, 64, 256, 256)]
            def get_init_inputs():
                return []
            """,
            line=16,
            column=16,
        ),
        # A mask applied in torch before a row-scan kernel: the product written whole, then read back.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def row_cumsum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                cols = tl.arange(0, BLOCK)
                v = tl.load(x_ptr + tl.program_id(0) * N + cols, mask=cols < N, other=0.0)
                tl.store(y_ptr + tl.program_id(0) * N + cols, tl.cumsum(v, axis=0), mask=cols < N)
            class ModelNew(torch.nn.Module):
                def forward(self, x, mask):
                    masked = x * mask
                    y = torch.empty_like(masked)
                    row_cumsum[(x.shape[0],)](masked, y, x.shape[1], BLOCK=4096)
                    return y
            def get_inputs():
                return [torch.randn(32768, 4096), torch.rand(32768, 4096) > 0.5]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=9,
        ),
        # A row log-softmax written whole for F.nll_loss to pick one entry per row (cross-entropy in two steps).
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            import triton
            import triton.language as tl
            @triton.jit
            def log_softmax_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
                x = x - tl.max(x, axis=0)
                y = x - tl.log(tl.sum(tl.exp(x), axis=0))
                tl.store(y_ptr + row * n_cols + cols, y, mask=cols < n_cols)
            class ModelNew(torch.nn.Module):
                def forward(self, logits, target):
                    log_probs = torch.empty_like(logits)
                    log_softmax_rows[(logits.shape[0],)](
                        logits, log_probs, logits.shape[1], BLOCK=4096
                    )
                    return F.nll_loss(log_probs, target)
            def get_inputs():
                return [torch.randn(32768, 4096), torch.randint(0, 4096, (32768,))]
            def get_init_inputs():
                return []
            """,
            line=17,
            column=9,
        ),
        # A per-element loss written whole, then averaged by torch.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def hinge_kernel(p_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                p = tl.load(p_ptr + offs, mask=offs < n)
                t = tl.load(t_ptr + offs, mask=offs < n)
                tl.store(out_ptr + offs, tl.maximum(1.0 - p * t, 0.0), mask=offs < n)
            class ModelNew(nn.Module):
                def forward(self, p, t):
                    losses = torch.empty_like(p)
                    hinge_kernel[(triton.cdiv(p.numel(), 1024),)](p, t, losses, p.numel(), BLOCK=1024)
                    return torch.mean(losses)
            def get_inputs():
                return [torch.randn(4096, 4096), torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """,
            line=15,
            column=9,
        ),
        # The pair's shape: a LayerNorm kernel, then GELU and a scale in torch.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def ln(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                cols = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + tl.program_id(0) * N + cols, mask=cols < N, other=0.0)
                m = tl.sum(x, axis=0) / N
                tl.store(y_ptr + tl.program_id(0) * N + cols, x - m, mask=cols < N)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    ln[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
                    y = torch.nn.functional.gelu(y)
                    return y * 2.0
            """,
            line=13,
            column=9,
        ),
        # Through a helper that launches the kernel and returns its output.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)
            def triton_scale(x):
                y = torch.empty_like(x)
                scale[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                return y
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    x = triton_scale(x)
                    return torch.sigmoid(x)
            """,
            line=14,
            column=13,
        ),
        # A GroupNorm module between two kernels.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def act(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                v = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, v * tl.sigmoid(v), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gn = torch.nn.GroupNorm(8, 64)
                def forward(self, x):
                    y = torch.empty_like(x)
                    act[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                    y = self.gn(y)
                    z = torch.empty_like(y)
                    act[(triton.cdiv(y.numel(), 1024),)](y, z, y.numel(), BLOCK=1024)
                    return z
            """,
            line=15,
            column=9,
        ),
        # An activation module and a bias after the kernel, in an autograd Function's forward.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def sq(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                v = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, v * v, mask=offs < n)
            class Sq(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x, b):
                    y = torch.zeros_like(x)
                    sq[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                    return torch.relu(y + b)
            """,
            line=13,
            column=9,
        ),
        # In-place arithmetic on the output.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + tl.load(y_ptr + offs, mask=offs < n), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x, y):
                    out = torch.empty_like(x)
                    add[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
                    out *= 0.5
                    return out
            """,
            line=11,
            column=9,
        ),
        # Two elementwise kernels in a row through a helper (KernelBench level 2 problem 29's Mish, Mish).
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def mish(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                v = tl.load(x_ptr + offs, mask=offs < n)
                sp = tl.log(1.0 + tl.exp(v))
                e = tl.exp(-2.0 * sp)
                tl.store(y_ptr + offs, v * (1.0 - e) / (1.0 + e), mask=offs < n)
            def triton_mish(x):
                y = torch.empty_like(x)
                mish[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                return y
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    x = triton_mish(x)
                    x = triton_mish(x)
                    return x
            def get_inputs():
                return [torch.rand(1024, 8192)]
            def get_init_inputs():
                return []
            """,
            line=18,
            column=13,
        ),
        # A BatchNorm called on a helper's output, then a tanh.
        Invalid(
            """
            import torch, triton
            import torch.nn as nn
            import triton.language as tl
            @triton.jit
            def shift(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) - 1.0, mask=offs < n)
            def run_shift(x):
                out = torch.empty_like(x)
                shift[(triton.cdiv(x.numel(), 4096),)](x, out, x.numel(), BLOCK=4096)
                return out
            class ModelNew(nn.Module):
                def __init__(self, c):
                    super().__init__()
                    self.bn = nn.BatchNorm2d(c)
                def forward(self, x):
                    return torch.tanh(self.bn(run_shift(x)))
            """,
            line=18,
            column=35,
        ),
        # A Triton GEMM whose output a second kernel activates (its epilogue's work), at a shape where the
        # GEMM is short (K = 64).
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def gemm(a_ptr, b_ptr, c_ptr, N, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, K)
                a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
                b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.dot(a, b))
            @triton.jit
            def silu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                v = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, v * tl.sigmoid(v), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    h = torch.empty(a.shape[0], b.shape[1], device=a.device, dtype=a.dtype)
                    gemm[(a.shape[0] // 128, b.shape[1] // 128)](a, b, h, b.shape[1], K=64, BM=128, BN=128)
                    y = torch.empty_like(h)
                    silu[(triton.cdiv(h.numel(), 1024),)](h, y, h.numel(), BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(8192, 64, dtype=torch.float16), torch.randn(64, 8192, dtype=torch.float16)]
            def get_init_inputs():
                return []
            """,
            line=22,
            column=9,
        ),
        # The border padded by F.pad before a pooling kernel: the padded copy written whole, then read back;
        # the kernel can mask its loads outside the input instead (a tl.dot kernel too).
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            import triton
            import triton.language as tl
            @triton.jit
            def pool3(x_ptr, y_ptr, W, BLOCK: tl.constexpr):
                cols = tl.arange(0, BLOCK)
                row = x_ptr + tl.program_id(0) * (W + 2)
                v = tl.maximum(tl.load(row + cols), tl.load(row + cols + 1))
                tl.store(y_ptr + tl.program_id(0) * W + cols, tl.maximum(v, tl.load(row + cols + 2)))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    padded = F.pad(x, (1, 1), value=float("-inf"))
                    y = torch.empty_like(x)
                    pool3[(x.shape[0],)](padded, y, x.shape[1], BLOCK=4096)
                    return y
            def get_inputs():
                return [torch.randn(65536, 4096)]
            def get_init_inputs():
                return []
            """,
            line=16,
            column=9,
        ),
        # An activation kernel that also sums the channel statistics over the whole grid (atomics), then a
        # kernel that normalizes the activation with them: the two stay kernels (the statistics need every
        # program first), but the activation need not be written: the second recomputes it from x.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def act_stats(x_ptr, y_ptr, s_ptr, C, HW, BLOCK: tl.constexpr):
                offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
                x = tl.load(x_ptr + tl.program_id(0) * HW + offs, mask=offs < HW, other=0.0)
                y = x * tl.sigmoid(x)
                tl.store(y_ptr + tl.program_id(0) * HW + offs, y, mask=offs < HW)
                tl.atomic_add(s_ptr + tl.program_id(0) % C, tl.sum(y, axis=0))
            @triton.jit
            def center(y_ptr, s_ptr, out_ptr, C, HW, count, BLOCK: tl.constexpr):
                offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
                mean = tl.load(s_ptr + tl.program_id(0) % C) / count
                y = tl.load(y_ptr + tl.program_id(0) * HW + offs, mask=offs < HW)
                tl.store(out_ptr + tl.program_id(0) * HW + offs, y - mean, mask=offs < HW)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    N, C, H, W = x.shape
                    y = torch.empty_like(x)
                    s = torch.zeros(C, device=x.device)
                    grid = (N * C, triton.cdiv(H * W, 4096))
                    act_stats[grid](x, y, s, C, H * W, BLOCK=4096)
                    out = torch.empty_like(x)
                    center[grid](y, s, out, C, H * W, float(N * H * W), BLOCK=4096)
                    return out
            def get_inputs():
                return [torch.randn(64, 64, 128, 128)]
            def get_init_inputs():
                return []
            """,
            line=26,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        # Work a KL027 finding's fix removes whole (a kernel whose output is a constant) is left to it.
        dead = model.dead_node_ids
        yield from (report for report in self._reports(model) if id(report.node) not in dead)

    def _reports(self, model: FileModel) -> Iterator[Report]:
        functions = model.model_functions
        wrappers = model.kernel_wrappers()
        for function in model.functions:
            if function not in functions or model.kernel_of(function) is not None:
                continue
            # The last launch that writes a tensor: an earlier one's output is overwritten before it is read.
            writers: dict[str, Launch] = {}
            # model.launches are in source order (the collecting walk's).
            for launch in model.launches_in(function):
                output = model.launch_output(launch)
                if output is not None:
                    writers[output] = launch
            for output, launch in writers.items():
                if model.kernel_uses(launch.kernel, "dot"):
                    continue
                epilogue = model.epilogue(launch.node, function, name=output)
                if not epilogue.ops:
                    # A loss that picks one entry per row (`F.nll_loss(log_probs, target)`) or a pooling layer
                    # (`self.pool(y)`) is not elementwise, but it too reduces the output in a pass the kernel could
                    # do.
                    chained = model.epilogue(launch.node, function, name=output, chain=True)
                    if chained.ops[:1] and (_picking_loss(chained.ops[0]) or model.is_pool(chained.nodes[0], function)):
                        epilogue = chained
                spelled = f"`{launch.kernel.name}`"
                if launch.helper_launch is not None:
                    spelled += f" (launched by `{launch.helper_launch.caller.name}`)"
                yield from _report(model, function, launch.node, spelled, output, epilogue)
            yield from _kernel_chains(model, function)
            yield from _statistics_before(model, function)
            yield from _joined_outputs(model, function)
            yield from _prologues(model, function)
            for call in function.calls:
                if model.in_main_guard(call):
                    continue
                helper: str | None
                if isinstance(call.func, cst.Name) and call.func.value in wrappers:
                    helper = call.func.value
                else:
                    helper = model.kernel_wrapper_method(call, function)
                if helper is not None:
                    epilogue = model.epilogue(call, function)
                    spelled = f"`{helper}` (launches a Triton kernel)"
                    yield from _report(model, function, call, spelled, None, epilogue)


def _report(
    model: FileModel,
    function: FunctionInfo,
    node: cst.CSTNode,
    spelled: str,
    output: str | None,
    epilogue: Epilogue,
) -> Iterator[Report]:
    if not epilogue.full_size_ops:
        if (
            epilogue.kinds[:1] == ("reduction",)
            and (_additive(epilogue.ops[0]) or model.is_pool(epilogue.nodes[0], function))
            and _full_size_reduction(model, function, epilogue.nodes[0])
            and (output is None or _read_once_after(model, function, output, node))
        ):
            pool = model.is_pool(epilogue.nodes[0], function)
            yield _reduction_report(model, function, node, spelled, output, epilogue.ops[0], pool)
        return
    # The ops over the whole tensor: those before a reduction shrinks it.
    full = []
    for op, kind in zip(epilogue.ops, epilogue.kinds):
        if kind == "reduction":
            break
        full.append(op)
    ops = ", ".join(f"`{op}`" for op in full)
    count = len(full)
    what = "output" if output is None else f"output `{output}`"
    message = (
        f"The {what} of {spelled} in `{function.qualname}` is written to memory and read back by {count} separate "
        f"torch op{'s' if count > 1 else ''} ({ops}), each a full pass over the tensor and a launch of its own"
    )
    norms = "norm" in epilogue.kinds[:count]
    plan = (
        f"Apply {ops} inside the kernel of {spelled}, to its values in registers before its single `tl.store` "
        "(per-channel or per-column vectors loaded once per program), and delete the torch ops"
        + (
            "; a group or batch norm needs its statistics first: compute them in the kernel when a program holds "
            "the whole group, else in a small reduction kernel before it"
            if norms
            else ""
        )
        + "."
        + _conv_bias_clause(model, function, node)
    )
    yield Report(node=node, message=message, plan=plan)


def _read_once_after(model: FileModel, function: FunctionInfo, name: str, launch: cst.CSTNode) -> bool:
    """`name` appears once in `function` after the launch (its reduction's read): nothing else reads the
    tensor, nor is it returned."""
    line = model.line_of(launch)
    if function.node is None:
        return False
    own = {id(n) for n in walk(launch)}
    return (
        sum(
            1
            for n in walk(function.node.body)
            if isinstance(n, cst.Name) and n.value == name and id(n) not in own and model.line_of(n) > line
        )
        == 1
    )


def _additive(op: str) -> bool:
    """A sum or a mean (`torch.mean`, `.sum(dim=1)`), or a loss picking one entry per row into its mean:
    partial results per program add up."""
    name = op.split("(")[0].rstrip(".").rsplit(".", 1)[-1]
    return name in ("sum", "mean") or _picking_loss(op)


def _picking_loss(op: str) -> bool:
    """`F.nll_loss(logp, target)`: the mean of one entry per row, the target's."""
    return op.split("(")[0].rstrip(".").rsplit(".", 1)[-1] == "nll_loss"


def _full_size_reduction(model: FileModel, function: FunctionInfo, reduction: cst.CSTNode) -> bool:
    """In a KernelBench-style forward, at the file's shapes: the reduction on `reduction`'s line reads a
    Triton kernel's output as large as the kernel's largest input (an elementwise kernel's, not a
    per-row value), so writing it and reading it back cost two full passes."""
    ops = _forward_ops(model, function)
    line = model.line_of(reduction)
    for op in ops:
        if op.kind != "reduction" or op.line != line or not op.inputs or not 0 <= op.inputs[0] < len(ops):
            continue
        if len(op.inputs) > 1 and op.note != "nll_loss":  # a loss's targets beside the kernel's output
            continue
        producer = ops[op.inputs[0]]
        # (A pooling layer's op records its traffic whole: what it reads is that less what it writes.)
        size = op.in_bytes[0] if op.in_bytes else op.bytes - op.out_bytes
        if op.note == "nll_loss":
            # It reads one entry per row of what the kernel wrote: the size written is its allocation's.
            allocated = [ops[s] for s in producer.inputs if 0 <= s < len(ops)]
            size = max((a.out_bytes for a in allocated if a.kind == "alloc"), default=0)
        if producer.kind == "triton" and not producer.flops and size >= max(producer.in_bytes, default=0):
            return True
    return False


def _reduction_report(
    model: FileModel,
    function: FunctionInfo,
    node: cst.CSTNode,
    spelled: str,
    output: str | None,
    reduction: str,
    pool: bool = False,
) -> Report:
    what = "output" if output is None else f"output `{output}`"
    message = (
        f"The {what} of {spelled} in `{function.qualname}` is written to memory whole only for `{reduction}` to "
        "read it back and reduce it: a full write and a full read of a tensor nothing else needs"
    )
    if pool:
        plan = (
            f"Pool inside the kernel of {spelled}: give each program a block of the pooled output, load each "
            "output's window of inputs, apply the kernel's elementwise work to them in registers and reduce "
            f"them (max, or the mean) before its single `tl.store`; drop `{reduction}` and the full-size output."
            + _conv_bias_clause(model, function, node)
        )
        return Report(node=node, message=message, plan=plan)
    if _picking_loss(reduction):
        summed = (
            "each program loads its rows' targets, keeps the value at the target (`-logp` there, by `tl.where` on "
            "the column index) and adds the rows' sum, divided by the row count, to a one-element output with "
            "`tl.atomic_add`"
        )
    else:
        summed = (
            "each program sums its block in registers (`tl.sum`) and adds the partial to the output with "
            "`tl.atomic_add` (or writes one partial per program for a tiny second pass), dividing by the element "
            "count for a mean"
        )
    plan = (
        f"Reduce inside the kernel of {spelled}: {summed}; drop `{reduction}` and the full-size output."
        + _conv_bias_clause(model, function, node)
    )
    return Report(node=node, message=message, plan=plan)


def _conv_bias_clause(model: FileModel, function: FunctionInfo, node: cst.CSTNode | None) -> str:
    """The plan's sentence for a kernel that reads a convolution's output with its bias added by
    PyTorch in a pass of its own: that kernel adds it instead (the estimate drops the pass)."""
    conv = model.conv_bias_before(node, function) if node is not None else None
    if conv is None:
        return ""
    return (
        f" Call {conv} without its bias and add the bias (per channel) in the same kernel: PyTorch adds a "
        "convolution's bias in a pass of its own over the output."
    )


# Calls that make a kernel more than elementwise: its program reduces, scans or accumulates.
REDUCING = (
    "dot",
    "sum",
    "max",
    "min",
    "argmax",
    "argmin",
    "reduce",
    "cumsum",
    "cumprod",
    "associative_scan",
    "xor_sum",
    "atomic_add",
    "atomic_max",
    "atomic_min",
)


def _kernel_chains(model: FileModel, function: FunctionInfo) -> Iterator[Report]:
    """Triton launches of `function` (a KernelBench-style forward, at the
    file's shapes) that read, as their largest tensor, what an earlier
    Triton launch wrote and nothing else reads (a GEMM's output included),
    when the second kernel is elementwise (no loop, no reduction): its work
    belongs before the first kernel's store; or when the first is elementwise
    and the second reduces what it wrote (a loss's difference, then its sum of
    squares): the first one's work belongs in the second one's loads."""
    ops = _forward_ops(model, function)
    for i, op in enumerate(ops):
        if op.kind != "triton" or not op.in_bytes:
            continue
        for source, size in zip(op.inputs, op.in_bytes):
            producer = ops[source] if 0 <= source < i else None
            if producer is None or producer.kind != "triton" or size < max(op.in_bytes) or producer.returned:
                continue  # a tensor forward returns must be written whole
            if any(source in other.inputs for j, other in enumerate(ops) if j != i):
                continue
            first, second = _kernel_of(model, producer), _kernel_of(model, op)
            if first is None or second is None:
                continue
            reducing = bool(model.kernel_uses(second, *REDUCING) or second.function.loops)
            group = _group_in_tile(model, producer, op, second, size)
            if group:
                node = _call_on_line(model, function, op.line, second)
                if node is not None:
                    yield Report(
                        node=node,
                        message=(
                            f"`{second.name}` (line {op.line}) reads back the {size / 1e6:,.0f} MB output of the GEMM "
                            f"kernel `{first.name}` (line {producer.line}), which nothing else reads, to normalize "
                            f"groups of {group} adjacent columns of a row: each of `{first.name}`'s "
                            f"{producer.dot_tile[1]}-column tiles holds whole groups, so the norm belongs in its "
                            "epilogue"
                        ),
                        plan=(
                            f"Normalize in `{first.name}`'s epilogue, after its K loop: view the accumulator tile as "
                            f"`tl.reshape(acc, (BLOCK_M, BLOCK_N // {group}, {group}))`, take each group's mean and "
                            "variance with `tl.sum(..., axis=2)`, normalize, apply the per-column weight and bias, "
                            f"and store once (keep BLOCK_N a multiple of {group}); delete `{second.name}`'s launch "
                            "and the intermediate tensor."
                        ),
                        category=Category.OPERATOR_FUSION,
                    )
                    break
            # A tl.dot kernel that loads the first one's output as an operand is left alone: computing a window
            # kernel's taps in its K loop (a depthwise convolution before the pointwise GEMM) measured 0.80x on
            # an H200 (fixtures/costmodel/kl022_dwsep), the gathers costing more than the tensor saved.
            if reducing and (
                model.kernel_uses(second, "dot") or not (_elementwise(model, first) or _window(model, first))
            ):
                continue
            node = _call_on_line(model, function, op.line, second)
            if node is None:
                continue
            if reducing:
                # The first kernel's elementwise work (a difference, a square), or its few-tap window along one
                # axis (a separable pool's first pass), moves into the loads of the kernel that reduces its
                # output: one kernel reads the first one's inputs.
                window = not _elementwise(model, first)
                what = "a window of a few neighbouring elements per output" if window else "elementwise work"
                yield Report(
                    node=node,
                    message=(
                        f"`{second.name}` (line {op.line}) reads back the {size / 1e6:,.0f} MB tensor that "
                        f"{'' if window else 'elementwise '}`{first.name}` (line {producer.line}"
                        f"{', ' + what if window else ''}) wrote and nothing else reads, to reduce "
                        "it: two kernels and a full write and read of that tensor where one kernel would do"
                    ),
                    plan=(
                        f"Do `{first.name}`'s {'window (its few taps)' if window else what} inside `{second.name}`, "
                        "on the values it loads "
                        f"(loading `{first.name}`'s inputs at the offsets it reads instead of its output"
                        f"{': one window over all the axes at once' if window else ''}), and delete "
                        f"the launch of `{first.name}` and its output's allocation."
                    ),
                )
                break
            if reads_grid_statistic(ops, i, source):
                # The statistics need every program of the first kernel: two kernels stay, the tensor goes.
                yield Report(
                    node=node,
                    message=(
                        f"`{second.name}` (line {op.line}) reads back the {size / 1e6:,.0f} MB tensor that "
                        f"`{first.name}` (line {producer.line}) wrote and nothing else reads, beside the statistics "
                        f"`{first.name}` accumulates over the whole grid: the kernels stay two, but that tensor "
                        "need not be written and read back"
                    ),
                    plan=(
                        f"Keep `{first.name}`'s statistics and drop its store of the full tensor; in "
                        f"`{second.name}`, load `{first.name}`'s input instead and redo its elementwise work on the "
                        "values before its own (recomputing is cheaper than a write and a read), and delete the "
                        "tensor's allocation."
                    )
                    + _conv_bias_clause(model, function, _call_on_line(model, function, producer.line, first)),
                )
                break
            message = (
                f"`{second.name}` (line {op.line}) reads back the {size / 1e6:,.0f} MB tensor that `{first.name}` "
                f"(line {producer.line}) wrote and nothing else reads, and does elementwise work on it: two kernels "
                f"and a full write and read of that tensor where one kernel would do"
            )
            plan = (
                f"Apply `{second.name}`'s computation inside `{first.name}`, to its values in registers before its "
                f"single `tl.store` (loading any other tensor `{second.name}` reads at the same offsets), and delete "
                f"the launch at line {op.line}."
            ) + _conv_bias_clause(model, function, _call_on_line(model, function, producer.line, first))
            yield Report(node=node, message=message, plan=plan)
            break


def _joined_outputs(model: FileModel, function: FunctionInfo) -> Iterator[Report]:
    """A torch.cat (or stack) in `function` (a KernelBench-style forward, at the file's shapes) of Triton
    launches' outputs that nothing else reads: the join copies every part once more; each kernel can store
    into its slice of the joined tensor."""
    ops = _forward_ops(model, function)
    for i, op in enumerate(ops):
        if not concatenated_launches(ops, i):
            continue
        call = next(
            (c for c in function.calls if model.line_of(c) == op.line and _called_name(c) in ("cat", "stack")), None
        )
        launched = [part for part in op.inputs if ops[part].kind == "triton"]
        kernels = [k for k in (_kernel_of(model, ops[part]) for part in launched) if k is not None]
        if call is None or len(kernels) != len(launched):
            continue
        fills = len(op.inputs) - len(launched)
        names = ", ".join(dict.fromkeys(f"`{k.name}`" for k in kernels))
        yield Report(
            node=call,
            message=(
                f"`{model.code(call.func)}` at line {op.line} copies the outputs of {names} ({op.bytes / 2e6:,.0f} MB) "
                "into a new tensor, and nothing else reads them: a full read and write of every part after the "
                "kernels wrote it"
            ),
            plan=(
                f"Allocate the joined tensor first and let {names} store into their slices of it (the slice's "
                "pointer offset and the joined tensor's strides as arguments)"
                + (", writing the constant part too (a masked store of the fill value)" if fills else "")
                + f", and delete the `{model.code(call.func)}`."
            ),
        )


def _prologues(model: FileModel, function: FunctionInfo) -> Iterator[Report]:
    """A torch elementwise op in `function` (a KernelBench-style forward, at the file's shapes) whose full-size
    result only a Triton kernel without a product reads (`masked = x * mask`, then the kernel over `masked`):
    the kernel can apply it to the values it loads, and the op's write and read go."""
    ops = _forward_ops(model, function)
    for i, op in enumerate(ops):
        for r in prologue_of(ops, i):
            kernel = _kernel_of(model, op)
            node = _call_on_line(model, function, op.line, kernel) if kernel is not None else None
            if kernel is None or node is None:
                continue
            pre = ops[r]
            assigned = [
                b.value for b in function.bindings if isinstance(b, cst.Assign) and model.line_of(b) == pre.line
            ]
            text = model.code(assigned[0]) if len(assigned) == 1 else None
            what = f"`{text}`" if text else "a torch elementwise op"
            yield Report(
                node=node,
                message=(
                    f"`{kernel.name}` (line {op.site_line or op.line}) reads the {pre.out_bytes / 1e6:,.0f} MB "
                    f"result of {what} (line {pre.line}), which nothing else reads: a torch pass that writes it "
                    "and a read back, where the kernel could compute it from the op's inputs as it loads"
                ),
                plan=(
                    f"Hand `{kernel.name}` the unpadded tensor of line {pre.line} and load it with a mask that is "
                    "false outside its bounds (`other=` the pad value), and delete the F.pad."
                    if pre.note == "F.pad"
                    else f"Hand `{kernel.name}` the inputs of line {pre.line} and apply the op to the values it loads "
                    f"(at the same offsets), and delete the torch op."
                ),
            )
            break


def _forward_ops(model: FileModel, function: FunctionInfo) -> tuple[Op, ...]:
    """The entry point's ops at the file's shapes, where `function` is a KernelBench-style forward; else ()."""
    entry = model.sized_forward(function)
    if entry is None:
        return ()
    return entry.ops


def _group_in_tile(model: FileModel, producer: Op, op: Op, second: Kernel, size: int) -> int:
    """The columns of the row groups a normalization kernel (`second`, launched as `op`) takes from a tl.dot
    GEMM's output, where every group lies inside one of the GEMM's output tiles: one group per program (no
    loop: a GroupNorm over contiguous channels of a row, a LayerNorm over a short row), each program reducing
    the elements it loads along the row (lanes on the contiguous columns), the groups covering the output once,
    and the GEMM's fixed BLOCK_N and N multiples of the group. 0 otherwise (a column statistic over the rows,
    a row longer than a tile, an autotuned tile). Measured on an H200: fresh's ca13, a GroupNorm of 64-column
    groups after a 128-column tile, ran at 1,662 us with the norm in the GEMM's epilogue against 2,845 as
    written (checks/h200/fixed_plans_h200.jsonl runs l, m)."""
    if not (producer.flops and producer.path not in ("", "fma") and len(producer.dot_tile) >= 3 and producer.dot_mn):
        return 0
    if second.function.loops or not model.kernel_uses(second, "sum") or model.kernel_uses(second, "dot"):
        return 0
    if model.strided_lane_loads(second) or not op.programs or not producer.stored_elem:
        return 0
    elements = size // producer.stored_elem
    if elements != producer.dot_mn[0] * producer.dot_mn[1]:
        return 0  # not the product itself (a row maximum the GEMM reduced it to)
    group, rest = divmod(elements, op.programs)
    tile_n, n = producer.dot_tile[1], producer.dot_mn[1]
    if rest or group < 2 or tile_n % group or n % group:
        return 0
    return group


def _elementwise(model: FileModel, kernel: Kernel) -> bool:
    """A kernel that maps each element on its own: no loop, no reduction, no product."""
    return not (model.kernel_uses(kernel, *REDUCING, "dot") or kernel.function.loops)


def _window(model: FileModel, kernel: Kernel) -> bool:
    """A kernel whose every output is a fixed handful of neighbouring inputs combined (a pool's or a
    stencil's taps along one axis): no reduction, no product, and every loop unrolled over a compile-time
    count (`tl.static_range`), so a kernel reading its output can recompute it from its inputs."""
    loops = model.kernel_loops(kernel)
    return (
        bool(loops)
        and not model.kernel_uses(kernel, *REDUCING)
        and all(
            isinstance(loop.node.iter, cst.Call) and model.is_tl(loop.node.iter.func, "static_range") for loop in loops
        )
    )


def _statistics_before(model: FileModel, function: FunctionInfo) -> Iterator[Report]:
    """Triton launches of `function` (a KernelBench-style forward, at the file's shapes) handed a torch
    reduction's result together with the tensor that reduction read (`mx = x.amax(1)`, then
    `kernel[grid](x, mx, out)`): the reduction is a full pass over a tensor the kernel reads anyway, so the
    kernel can compute it (a running max, a sum over the row it holds) and the pass goes."""
    ops = _forward_ops(model, function)
    for i, op in enumerate(ops):
        if op.kind != "triton" or op.product or not op.in_bytes:
            continue
        for r, chain in statistics_of(ops, i):
            reduction = ops[r]
            kernel = _kernel_of(model, op)
            node = _call_on_line(model, function, op.line, kernel) if kernel is not None else None
            if kernel is None or node is None:
                continue
            calls = [c for c in function.calls if model.line_of(c) == reduction.line]
            # The reduction's own call where the line holds several (`torch.rsqrt(x.pow(2).mean(1) + eps)`).
            reducing = [c for c in calls if _called_name(c) in _REDUCTIONS] or calls
            name = f"`{model.code(reducing[0])}`" if reducing else "a torch reduction"
            ops_word = "torch op" if len(chain) == 1 else f"{len(chain)} torch ops"
            statistics_kernel = _kernel_of(model, reduction) if reduction.kind == "triton" else None
            where = reduction.line
            if statistics_kernel is not None:
                name, ops_word = f"`{statistics_kernel.name}`", f"launch of `{statistics_kernel.name}`"
                where = reduction.site_line or reduction.line
            message = (
                f"`{kernel.name}` (line {op.site_line or op.line}) is handed the result of {name} (line {where}) and the "
                f"{reduction.in_bytes[0] / 1e6:,.0f} MB tensor it reduced: that reduction is a full pass of its own "
                "over a tensor the kernel reads anyway"
            )
            plan = (
                f"Compute the reduction of line {where} inside `{kernel.name}` from the values it loads "
                "(a running max or sum, with the index where it needs one, over the blocks each program walks; a "
                f"whole row's statistics when a program holds the row) and delete the {ops_word}."
            )
            yield Report(node=node, message=message, plan=plan)
            break


_REDUCTIONS = frozenset({"sum", "mean", "amax", "amin", "max", "min", "var", "std", "norm", "logsumexp", "prod"})


def _called_name(call: cst.Call) -> str:
    func = call.func
    return func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""


def _kernel_of(model: FileModel, op: Op) -> Kernel | None:
    launch = model.launch_at_site(op.site_line, op.note)
    return launch.kernel if launch is not None else None


def _call_on_line(model: FileModel, function: FunctionInfo, line: int, kernel: Kernel) -> cst.CSTNode | None:
    """Forward's call on `line` that launches `kernel`: the launch itself or the helper that does."""
    wrappers = model.kernel_wrappers()
    for call in function.calls:
        if model.line_of(call) != line:
            continue
        if isinstance(call.func, cst.Subscript) and model.code(call.func.value).strip().endswith(kernel.name):
            return call
        if isinstance(call.func, cst.Name) and call.func.value in wrappers:
            return call
        if model.kernel_wrapper_method(call, function) is not None:
            return call
    # A helper of the file that launches `kernel` among others (a statistics kernel, then the one that applies
    # them), called on that line.
    for call in function.calls:
        if model.line_of(call) == line and isinstance(call.func, cst.Name):
            name = call.func.value
            if any(
                x.kernel is kernel and x.caller.name == name and x.caller.class_name is None for x in model.launches
            ):
                return call
    return None
