from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from kernlint import cost
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel, Launch
from kernlint.model.shapes import Op
from kernlint.registry import Invalid, Report, Rule, Valid

# The kernel's own time at its grid is at least this multiple of its time
# on the whole GPU (the cost model's, at the file's shapes) before the rule
# speaks: below it, the grid is not what limits the kernel.
SLOWDOWN = 2.0


class TooFewPrograms(Rule):
    """
    ## What it does
    Finds a Triton launch whose grid, at the file's own shapes
    (`get_inputs()` and `get_init_inputs()` of a KernelBench-style file,
    through forward and the helpers it calls), has fewer programs than the
    GPU has SMs while its tensors are large enough that the kernel would run
    at least twice as fast on the whole GPU, by the cost model calibrated on
    that GPU: a LayerNorm launched with one program per row over 16 rows of
    4 M elements, a GEMM with 16 output tiles and K = 131,072 and no
    split-K.

    An autotuned kernel's grid lambda is evaluated under each of its
    configs, and the grid is the most programs any config gives (the
    autotuner picks among them): 4 to 16 tiles under every config is too
    few whichever it picks.

    It stays silent when the grid cannot be evaluated statically (a size
    computed at run time, autotune configs built elsewhere), for
    files that are not KernelBench-style (a library's launcher has no
    shapes), and when the kernel is small enough that its launch, not its
    grid, sets its time.

    ## Why is this bad?
    A program runs on one SM; a grid of 16 programs on an H100's 132 SMs
    leaves 116 of them idle for the whole kernel, so it streams memory, or
    multiplies, at a fraction of the GPU's rate however well each program
    is written. Even a grid of about one program per SM (128 channels of a
    BatchNorm) is slow: one program keeps too few loads in flight to
    stream its SM's share of the bandwidth (the pair's 16 programs moved
    about 2.6 elements per ns each, 5 GB/s of fp16, a sixth of an SM's
    share), which the cost model charges from that measurement.

    ## Example
    ```python
    # x: [16, 64, 256, 256]; one program per row of 4 M elements
    _layernorm_rows[(x.shape[0],)](x, w, b, y, N, eps, BLOCK=1024)
    ```

    ## Use instead
    ```python
    # each row split into chunks: partial sums, then normalize, on (16, 256) programs
    _partial_sums[(B, triton.cdiv(N, CHUNK))](x, part, N, chunks, CHUNK=CHUNK, BLOCK=1024)
    _normalize[(B, triton.cdiv(N, CHUNK))](x, w, b, y, part, N, chunks, eps, CHUNK=CHUNK, BLOCK=1024, PARTS=...)
    ```

    ## Fix safety
    No automatic fix: splitting a row or a K loop over programs adds a
    second pass (or atomics) to combine the partial results.

    ## Category
    Algorithm Replacement: the fix replaces the kernel's decomposition of
    the work with one that has enough independent pieces for every SM: a
    split-K GEMM, a reduction or normalization in two passes (partials per
    chunk, then a combine step). That is a different algorithm for the same
    result (it adds the combine, usually a kernel), not a layout of the same
    data, and not fewer launches. (It was filed under Memory Layout
    Optimization until fresh generated-style files, labelled by reviewers
    who had not seen kernlint's output, named split-K and split reductions
    algorithm replacements four times out of four.)

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl021_too_few_programs/` (`kernlint rule KL021` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL021"
    name = "too-few-programs"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.WARNING
    summary = "A Triton grid has fewer programs than the GPU has SMs for a large tensor; most SMs idle."
    bottleneck = (
        "Occupancy: the grid has fewer programs than the GPU has SMs, so most SMs idle for the whole kernel and "
        "it reaches a fraction of the GPU's memory bandwidth or compute."
    )
    method = (
        "Decompose the work over more programs than SMs: split each row (or the K range of a GEMM) into chunks "
        "with a second pass or atomics to combine the partials, or use smaller tiles."
    )
    priority = 18
    fix_effect = "fill_the_gpu"

    VALID = [
        # Many rows: one program per row fills the GPU.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def rows(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                tl.store(y_ptr + tl.program_id(0) * N + offs, tl.load(x_ptr + tl.program_id(0) * N + offs))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(8192, 1024)]
            def get_init_inputs():
                return []
            """
        ),
        # 256 programs over a large tensor, but each does its row at once (no loop): enough loads in flight.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def rows(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                v = tl.load(x_ptr + tl.program_id(0) * N + offs, mask=offs < N, other=0.0)
                tl.store(y_ptr + tl.program_id(0) * N + offs, v / tl.sum(v, axis=0), mask=offs < N)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=65536)
                    return y
            def get_inputs():
                return [torch.rand(256, 65536)]
            def get_init_inputs():
                return []
            """
        ),
        # A GEMM of 256 output tiles (two per SM): each program's K loop moves whole A and B tiles per
        # step, not one block of elements, so one looping program's streaming rate does not apply.
        Valid(
            """
            import torch, triton
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
                    acc += tl.dot(a, b)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    M, K = a.shape
                    N = b.shape[1]
                    c = torch.empty(M, N, device=a.device, dtype=torch.float16)
                    mm[(M // 128, N // 128)](a, b, c, M, N, K, BM=128, BN=128, BK=64)
                    return c
            def get_inputs():
                return [torch.randn(2048, 2048, dtype=torch.float16), torch.randn(2048, 2048, dtype=torch.float16)]
            def get_init_inputs():
                return []
            """
        ),
        # Few programs, but a small tensor: the launch, not the grid, sets the time.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def rows(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                tl.store(y_ptr + tl.program_id(0) * N + offs, tl.load(x_ptr + tl.program_id(0) * N + offs))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(16, 1024)]
            def get_init_inputs():
                return []
            """
        ),
        # Not a KernelBench-style file: no shapes.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def rows(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                tl.store(y_ptr + tl.program_id(0) * N + offs, tl.load(x_ptr + tl.program_id(0) * N + offs))
            def launch(x):
                y = torch.empty_like(x)
                rows[(16,)](x, y, x.shape[1], BLOCK=1024)
                return y
            """
        ),
        # The grid depends on an autotuned block: 16,384 programs under its one config.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.autotune(configs=[triton.Config({"BLOCK": 1024})], key=["n"])
            @triton.jit
            def copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    n = x.numel()
                    copy[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
                    return y
            def get_inputs():
                return [torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # A blocked elementwise grid over a big tensor.
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
                    y = torch.empty_like(x)
                    n = x.numel()
                    copy[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # The batch size is computed at run time from data: not static.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def rows(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                tl.store(y_ptr + tl.program_id(0) * N + offs, tl.load(x_ptr + tl.program_id(0) * N + offs))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    rows[(int(x.sum().item()),)](x, y, x.shape[1], BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(16, 1 << 22)]
            def get_init_inputs():
                return []
            """
        ),
    ]
    INVALID = [
        # An autotuned row kernel whose grid is too small under each config.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.autotune(configs=[triton.Config({"ROWS": 1}), triton.Config({"ROWS": 2})], key=["N"])
            @triton.jit
            def ln(x_ptr, y_ptr, N, ROWS: tl.constexpr, BLOCK: tl.constexpr):
                for r in range(ROWS):
                    row = tl.program_id(0) * ROWS + r
                    for start in range(0, N, BLOCK):
                        offs = start + tl.arange(0, BLOCK)
                        tl.store(y_ptr + row * N + offs, tl.load(x_ptr + row * N + offs, mask=offs < N), mask=offs < N)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    B = x.shape[0]
                    ln[lambda meta: (B // meta["ROWS"],)](x, y, x.numel() // B, BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.rand(16, 64, 256, 256)]
            def get_init_inputs():
                return []
            """,
            line=16,
            column=9,
        ),
        # KernelBench level 1 problem 40's LayerNorm, one program per row of 4 M elements.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def ln(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                for start in range(0, N, BLOCK):
                    offs = start + tl.arange(0, BLOCK)
                    tl.store(y_ptr + row * N + offs, tl.load(x_ptr + row * N + offs, mask=offs < N), mask=offs < N)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    B = x.shape[0]
                    ln[(B,)](x, y, x.numel() // B, BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.rand(16, 64, 256, 256)]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=9,
        ),
        # BatchNorm statistics with one program per channel: 128 programs, nearly one per SM, but each
        # program alone keeps too few loads in flight to stream its SM's share of 1 GB.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def stats(x_ptr, mean_ptr, NB, C, HW, BLOCK: tl.constexpr):
                c = tl.program_id(0)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for n in range(NB):
                    for start in range(0, HW, BLOCK):
                        offs = start + tl.arange(0, BLOCK)
                        acc += tl.load(x_ptr + (n * C + c) * HW + offs, mask=offs < HW, other=0.0)
                tl.store(mean_ptr + c, tl.sum(acc, axis=0) / (NB * HW))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    NB, C, H, W = x.shape
                    mean = torch.empty(C, device=x.device)
                    stats[(C,)](x, mean, NB, C, H * W, BLOCK=1024)
                    return mean
            def get_inputs():
                return [torch.rand(32, 128, 256, 256)]
            def get_init_inputs():
                return []
            """,
            line=17,
            column=9,
        ),
        # Through a helper forward calls, the grid a constant.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def total(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for start in range(tl.program_id(0) * BLOCK, N, 8 * BLOCK):
                    acc += tl.load(x_ptr + start + tl.arange(0, BLOCK), mask=start + tl.arange(0, BLOCK) < N)
                tl.atomic_add(y_ptr, tl.sum(acc))
            def triton_sum(x):
                y = torch.zeros(1, device=x.device)
                total[(8,)](x, y, x.numel(), BLOCK=1024)
                return y
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    return triton_sum(x)
            def get_inputs():
                return [torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """,
            line=12,
            column=5,
        ),
        # A GEMM with 16 output tiles over K = 524,288 and no split-K (level 1 problem 6).
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
                offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
                offs_k = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
                    b = tl.load(b_ptr + (k + offs_k)[:, None] * N + offs_n[None, :])
                    acc = tl.dot(a, b, acc)
                tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, A, B):
                    M, K = A.shape
                    N = B.shape[1]
                    C = torch.empty(M, N, device=A.device)
                    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
                    mm[grid](A, B, C, M, N, K, BM=64, BN=64, BK=32)
                    return C
            M = 256
            N = 256
            K = 131072 * 4
            def get_inputs():
                return [torch.rand(M, K), torch.rand(K, N)]
            def get_init_inputs():
                return []
            """,
            line=21,
            column=9,
        ),
        # A grid lambda reading the launch's BLOCK_M: 4 programs.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def rows(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
                r = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
                for c0 in range(0, N, BLOCK_N):
                    c = c0 + tl.arange(0, BLOCK_N)
                    v = tl.load(x_ptr + r[:, None] * N + c[None, :])
                    tl.store(y_ptr + r[:, None] * N + c[None, :], v * 2)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    M, N = x.shape
                    y = torch.empty_like(x)
                    rows[lambda meta: (triton.cdiv(M, meta["BLOCK_M"]),)](x, y, M, N, BLOCK_M=64, BLOCK_N=256)
                    return y
            def get_inputs():
                return [torch.randn(256, 65536)]
            def get_init_inputs():
                return []
            """,
            line=15,
            column=9,
        ),
        # The batch from get_init_inputs through a module attribute.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def scale(x_ptr, y_ptr, N, s, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                for start in range(0, N, BLOCK):
                    offs = start + tl.arange(0, BLOCK)
                    tl.store(y_ptr + row * N + offs, tl.load(x_ptr + row * N + offs, mask=offs < N) * s, mask=offs < N)
            class ModelNew(torch.nn.Module):
                def __init__(self, s):
                    super().__init__()
                    self.s = s
                def forward(self, x):
                    y = torch.empty_like(x)
                    scale[(x.shape[0],)](x, y, x.shape[1], self.s, BLOCK=2048)
                    return y
            def get_inputs():
                return [torch.randn(32, 1 << 22)]
            def get_init_inputs():
                return [0.5]
            """,
            line=16,
            column=9,
        ),
        # One program per channel of a BatchNorm-like pass over [N, C, H, W] with C = 64.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def per_channel(x_ptr, y_ptr, NB, C, HW, BLOCK: tl.constexpr):
                c = tl.program_id(0)
                for n in range(NB):
                    for start in range(0, HW, BLOCK):
                        offs = start + tl.arange(0, BLOCK)
                        base = (n * C + c) * HW
                        v = tl.load(x_ptr + base + offs, mask=offs < HW)
                        tl.store(y_ptr + base + offs, tl.maximum(v, 0.0), mask=offs < HW)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    NB, C, H, W = x.shape
                    y = torch.empty_like(x)
                    per_channel[(C,)](x, y, NB, C, H * W, BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(64, 64, 128, 128)]
            def get_init_inputs():
                return []
            """,
            line=17,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        entry = model.entry_point
        calibration = cost.calibration()
        if entry is None or calibration is None:
            return
        c = calibration.constants
        sm_count = int(c["sm_count"])
        seen: set[int] = set()
        for op in entry.ops:
            if op.kind != "triton" or not 0 < op.programs < sm_count or op.site_line in seen:
                continue
            at_grid = cost.gpu_us(op, c)
            whole = cost.gpu_us(replace(op, programs=0), c)
            if at_grid < SLOWDOWN * whole:
                continue
            launch = model.launch_at_site(op.site_line, op.note)
            if launch is None:
                continue
            seen.add(op.site_line)
            yield _report(model, launch, op, sm_count, at_grid, whole)


def _report(model: FileModel, launch: Launch, op: Op, sm_count: int, at_grid: float, whole: float) -> Report:
    kernel: Kernel = launch.kernel
    grid = model.code(launch.node.func.slice[0].slice).strip() if hasattr(launch.node.func, "slice") else "?"
    size = op.bytes / 1e6
    message = (
        f"`{kernel.name}` is launched with {op.programs} program{'s' if op.programs != 1 else ''} (grid `{grid}` at "
        f"the file's shapes) on a GPU of {sm_count} SMs, for {size:,.0f} MB of tensors: {sm_count - op.programs} SMs "
        f"idle and each busy one runs a single program, too few loads in flight to stream its share of the memory "
        f"bandwidth; the kernel's own time about {at_grid / whole:.1f}x what the whole GPU would take"
    )
    if model.kernel_uses(kernel, "dot"):
        plan = (
            f"Give `{kernel.name}` at least {sm_count} programs: split K over a third grid axis (split-K: each "
            f"program multiplies a K range of its output tile and `tl.atomic_add`s it into an fp32 output, or "
            f"writes partials that a second kernel sums), or use smaller BLOCK_M/BLOCK_N tiles, so that "
            f"programs x tiles fill the {sm_count} SMs."
        )
    else:
        plan = (
            f"Give `{kernel.name}` at least {sm_count} programs: split each program's row (or loop range) into "
            f"chunks on a second grid axis, e.g. `({grid.strip('()').rstrip(',')}, triton.cdiv(N, CHUNK))`; a "
            f"reduction writes per-chunk partials (sum, sum of squares) that a second kernel over the same grid "
            f"combines before it normalizes or writes its chunk."
        )
    return Report(node=launch.node, message=message, plan=plan)
