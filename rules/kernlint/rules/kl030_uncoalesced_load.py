from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Launch
from kernlint.model.shapes import Op
from kernlint.registry import Invalid, Report, Rule, Valid

# Tensors smaller than this read strided cost microseconds: not worth a finding.
LEAST_BYTES = 4 << 20


class UncoalescedLoad(Rule):
    """
    ## What it does
    Finds a Triton kernel, launched by a KernelBench-style file's forward at
    the file's own shapes, that loads a tensor with every vector lane far
    enough from the next to need a 32-byte sector of its own (8 fp32
    elements, 16 fp16 ones, or more): each term of the load's
    address that carries a `tl.arange` is multiplied by a stride
    (`base + offs * stride_d1`, with `stride_d1 = x.stride(1)` at the
    launch), none adds the lanes as they are. The typical case is a
    reduction over a middle dimension with one program per output column:
    the lanes walk down the column. Its estimate reads the tensor at the
    streaming rate and turns the grid with the lanes: where each program held
    one position of the contiguous dimension (an RMSNorm's 64 channels as
    lanes, one program per pixel), it then holds as many adjacent positions
    as it had lanes, and the grid shrinks by that many. A store whose lanes
    are as far apart is priced as such a load. Where the kernel reduces
    across the lanes it strides over (a softmax over an NCHW tensor's
    channels), the plan keeps the reduced dimension whole in a 2-D tile
    whose lanes run along the contiguous one, reduced over axis 0, so the
    input is still read once: on an H200, fresh5's gb11 measured 2.68x with
    the tile and 2.06x with a loop over the channels (an online pass, then
    a second read).

    It stays silent when one lane axis of a tile is contiguous (a GEMM's
    2-D tiles), when the launch makes the stride 1 or a few elements (a
    stride-2 pool's window, whose next tap reads the rest of each sector
    from L1) or a loop adds consecutive offsets at least as many as the
    stride (`w0 + kw` over `for kw in range(KS)`, a pool as wide as its
    stride: over the window's taps the lanes read every element between
    them, each sector from L1 after its first tap), when the strides are
    not known (a library's launcher, outside a KernelBench-style file), on
    one-element loads (KL019's) and on tensors under 4 MB.

    ## Why is this bad?
    A warp's load is served in 32-byte sectors. Lanes that read adjacent
    fp32 elements share one sector among eight; lanes a row apart each need
    a sector of their own, so the load moves up to eight times the bytes it
    uses through the memory system and issues a transaction per lane. On
    the H100 such a load reaches a fraction of the streaming rate
    (the calibration's `triton_strided_lanes_fp32` probe), and the kernel
    is slower than PyTorch's reduction, which reads rows.

    ## Example
    ```python
    pid = tl.program_id(0)                 # one program per (b, j) column
    base = x_ptr + (pid // D2) * stride_b + (pid % D2)
    for r0 in range(0, D1, BLOCK):
        offs = r0 + tl.arange(0, BLOCK)
        acc += tl.load(base + offs * stride_d1, mask=offs < D1)
    ```

    ## Use instead
    ```python
    j = tl.program_id(1) * BLOCK_J + tl.arange(0, BLOCK_J)   # lanes on the contiguous dim
    for r in range(0, D1):
        acc += tl.load(x_ptr + b * stride_b + r * stride_d1 + j, mask=j < D2)
    ```

    ## Fix safety
    No automatic fix: the grid and each program's share of the work change.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl030_uncoalesced_load/` (`kernlint rule KL030` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL030"
    name = "uncoalesced-load"
    category = Category.MEMORY_LAYOUT
    severity = Severity.WARNING
    summary = "A Triton kernel loads a large tensor with its vector lanes a stride apart (uncoalesced)."
    bottleneck = (
        "Memory access pattern: adjacent lanes of each load read elements a stride apart, so every lane needs a "
        "32-byte sector of its own and the kernel reaches a fraction of the memory bandwidth."
    )
    method = (
        "Put the kernel's vector lanes on the tensor's contiguous dimension (each program a block of adjacent "
        "columns, looping over the strided one), so every load reads adjacent elements."
    )
    priority = 19
    fix_effect = "coalesce"

    VALID = [
        # A 2x2 pool with stride 2: lanes two elements apart share each 32-byte sector, and the window's next
        # tap (j = 1) reads the other half of it from L1.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def pool2(x_ptr, y_ptr, W, OW, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                ow = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for i in tl.static_range(2):
                    for j in tl.static_range(2):
                        acc += tl.load(x_ptr + (row * 2 + i) * W + ow * 2 + j, mask=ow < OW, other=0.0)
                tl.store(y_ptr + row * OW + ow, acc * 0.25, mask=ow < OW)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    H, W = x.shape
                    y = torch.empty(H // 2, W // 2, device=x.device)
                    pool2[(H // 2,)](x, y, W, W // 2, BLOCK=4096)
                    return y
            def get_inputs():
                return [torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """
        ),
        # An 8x8 average pool of stride 8: the lanes are 8 elements (a sector) apart, and the window's taps (kw) read
        # every element between them.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def pool8(x_ptr, y_ptr, W, OW, S, KS: tl.constexpr, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                ow = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for kh in range(KS):
                    for kw in range(KS):
                        acc += tl.load(x_ptr + (row * S + kh) * W + ow * S + kw, mask=ow < OW, other=0.0)
                tl.store(y_ptr + row * OW + ow, acc / (KS * KS), mask=ow < OW)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    H, W = x.shape
                    y = torch.empty(H // 8, W // 8, device=x.device)
                    pool8[(H // 8, triton.cdiv(W // 8, 256))](x, y, W, W // 8, 8, KS=8, BLOCK=256)
                    return y
            def get_inputs():
                return [torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """
        ),
        # The lanes read adjacent elements: a row per program.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def row_sums(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for start in range(0, N, BLOCK):
                    acc += tl.load(x_ptr + tl.program_id(0) * N + start + offs, mask=start + offs < N)
                tl.store(out_ptr + tl.program_id(0), tl.sum(acc, axis=0))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    out = torch.empty(x.shape[0], device=x.device)
                    row_sums[(x.shape[0],)](x, out, x.shape[1], BLOCK=1024)
                    return out
            def get_inputs():
                return [torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """
        ),
        # A GEMM's tiles: the A tile's K lanes and the B tile's N lanes are contiguous.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
                    acc += tl.dot(a, b)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    c = torch.empty(4096, 4096, device=a.device)
                    mm[(32, 32)](a, b, c, 4096, 4096, BM=128, BN=128, BK=32)
                    return c
            def get_inputs():
                return [torch.randn(4096, 4096), torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # The launch hands the last dimension's stride, which is 1: the lanes are contiguous.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def scale(x_ptr, y_ptr, stride_row, stride_col, N, BLOCK: tl.constexpr):
                cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
                p = tl.program_id(0) * stride_row + cols * stride_col
                tl.store(y_ptr + p, tl.load(x_ptr + p, mask=cols < N) * 2.0, mask=cols < N)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    scale[(x.shape[0], triton.cdiv(x.shape[1], 1024))](x, y, x.stride(0), x.stride(1), x.shape[1], BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """
        ),
        # A library's launcher: no shapes, so no stride is known.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def column_sums(x_ptr, out_ptr, R, C, BLOCK: tl.constexpr):
                j = tl.program_id(0)
                offs = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for r0 in range(0, R, BLOCK):
                    acc += tl.load(x_ptr + (r0 + offs) * C + j, mask=r0 + offs < R)
                tl.store(out_ptr + j, tl.sum(acc, axis=0))
            def launch(x, out):
                column_sums[(x.shape[1],)](x, out, x.shape[0], x.shape[1], BLOCK=256)
            """
        ),
        # A small tensor (1 MB): the strided reads cost microseconds.
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def column_sums(x_ptr, out_ptr, R, C, BLOCK: tl.constexpr):
                j = tl.program_id(0)
                offs = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for r0 in range(0, R, BLOCK):
                    acc += tl.load(x_ptr + (r0 + offs) * C + j, mask=r0 + offs < R)
                tl.store(out_ptr + j, tl.sum(acc, axis=0))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    out = torch.empty(x.shape[1], device=x.device)
                    column_sums[(x.shape[1],)](x, out, x.shape[0], x.shape[1], BLOCK=256)
                    return out
            def get_inputs():
                return [torch.randn(512, 512)]
            def get_init_inputs():
                return []
            """
        ),
        # One element per program, no lanes at all (KL019 reports that grid).
        Valid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def copy_one(x_ptr, y_ptr, C):
                pid = tl.program_id(0)
                tl.store(y_ptr + pid, tl.load(x_ptr + (pid % C) * C + pid // C))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty_like(x)
                    copy_one[(x.numel(),)](x, y, x.shape[1])
                    return y
            def get_inputs():
                return [torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
    ]
    INVALID = [
        # A sum over the middle dimension, one program per (batch, column): the lanes walk down a column.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def sum_dim1(x_ptr, out_ptr, D1, D2, stride_b, stride_d1, BLOCK: tl.constexpr):
                pid = tl.program_id(0)
                base = x_ptr + (pid // D2) * stride_b + pid % D2
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for r0 in range(0, D1, BLOCK):
                    offs = r0 + tl.arange(0, BLOCK)
                    acc += tl.load(base + offs * stride_d1, mask=offs < D1, other=0.0)
                tl.store(out_ptr + pid, tl.sum(acc, axis=0))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    B, D1, D2 = x.shape
                    out = torch.empty(B, D2, device=x.device)
                    sum_dim1[(B * D2,)](x, out, D1, D2, x.stride(0), x.stride(1), BLOCK=256)
                    return out
            def get_inputs():
                return [torch.randn(16, 1024, 1024)]
            def get_init_inputs():
                return []
            """,
            line=17,
            column=9,
        ),
        # Column sums with the row length as the stride, through a helper that launches the kernel.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def column_sums(x_ptr, out_ptr, R, C, BLOCK: tl.constexpr):
                j = tl.program_id(0)
                offs = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for r0 in range(0, R, BLOCK):
                    acc += tl.load(x_ptr + (r0 + offs) * C + j, mask=r0 + offs < R)
                tl.store(out_ptr + j, tl.sum(acc, axis=0))
            def colsum(x):
                out = torch.empty(x.shape[1], device=x.device)
                column_sums[(x.shape[1],)](x, out, x.shape[0], x.shape[1], BLOCK=256)
                return out
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    return colsum(x)
            def get_inputs():
                return [torch.randn(8192, 4096)]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=5,
        ),
        # An argmax over dimension 1 of [B, D1, D2]: the same walk down each column.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def argmax_dim1(x_ptr, out_ptr, D1, D2, BLOCK: tl.constexpr):
                pid = tl.program_id(0)
                offs = tl.arange(0, BLOCK)
                vals = tl.load(x_ptr + (pid // D2) * D1 * D2 + offs * D2 + pid % D2, mask=offs < D1, other=-float("inf"))
                tl.store(out_ptr + pid, tl.argmax(vals, axis=0))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    B, D1, D2 = x.shape
                    out = torch.empty(B, D2, device=x.device, dtype=torch.int32)
                    argmax_dim1[(B * D2,)](x, out, D1, D2, BLOCK=1024)
                    return out
            def get_inputs():
                return [torch.randn(32, 1024, 1024)]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=9,
        ),
        # A transpose written as a gather: the output row's lanes read down a column of x.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def transpose_rows(x_ptr, y_ptr, R, C, BLOCK: tl.constexpr):
                j = tl.program_id(0)
                offs = tl.arange(0, BLOCK)
                for r0 in range(0, R, BLOCK):
                    rows = r0 + offs
                    tl.store(y_ptr + j * R + rows, tl.load(x_ptr + rows * C + j, mask=rows < R), mask=rows < R)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty(x.shape[1], x.shape[0], device=x.device)
                    transpose_rows[(x.shape[1],)](x, y, x.shape[0], x.shape[1], BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=9,
        ),
        # A 2-D tile whose both lane axes are strided (an interleaved channel read).
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def even_channels(x_ptr, y_ptr, C, BR: tl.constexpr, BC: tl.constexpr):
                r = tl.program_id(0) * BR + tl.arange(0, BR)
                c = tl.arange(0, BC)
                v = tl.load(x_ptr + r[:, None] * (8 * C) + c[None, :] * 8)
                tl.store(y_ptr + r[:, None] * C + c[None, :], v)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty(x.shape[0], 64, device=x.device)
                    even_channels[(x.shape[0] // 16,)](x, y, 64, BR=16, BC=64)
                    return y
            def get_inputs():
                return [torch.randn(65536, 512)]
            def get_init_inputs():
                return []
            """,
            line=13,
            column=9,
        ),
        # A mean over the middle dimension of a 4-D tensor, the lanes stepping by the inner planes' size.
        Invalid(
            """
            import torch, triton
            import triton.language as tl
            @triton.jit
            def channel_mean(x_ptr, out_ptr, C, HW, BLOCK: tl.constexpr):
                pid = tl.program_id(0)
                offs = tl.arange(0, BLOCK)
                v = tl.load(x_ptr + (pid // HW) * C * HW + offs * HW + pid % HW, mask=offs < C, other=0.0)
                tl.store(out_ptr + pid, tl.sum(v, axis=0) / C)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    B, C, H, W = x.shape
                    out = torch.empty(B, H, W, device=x.device)
                    channel_mean[(B * H * W,)](x, out, C, H * W, BLOCK=64)
                    return out
            def get_inputs():
                return [torch.randn(16, 64, 256, 256)]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        entry = model.entry_point
        if entry is None or entry.unknown:
            return
        seen: set[int] = set()
        for op in entry.ops:
            if op.kind != "triton" or op.strided_bytes < LEAST_BYTES or op.site_line in seen:
                continue
            launch = model.launch_at_site(op.site_line, op.note)
            if launch is None:
                continue
            seen.add(op.site_line)
            yield _report(model, launch, op)


def _report(model: FileModel, launch: Launch, op: Op) -> Report:
    kernel = launch.kernel
    loads = model.strided_lane_loads(kernel)
    address, multipliers, _ = loads[0]
    home = model.home_of(kernel)
    where = f"line {home.line_of(address.call)}: `{home.code(address.call.args[0].value)}`"
    stride = " and ".join(f"`{home.code(m)}`" for m in multipliers)
    message = (
        f"`{kernel.name}` loads {op.strided_bytes / 1e6:,.0f} MB with every vector lane {stride} "
        f"= {op.lane_stride:,} elements from the next ({where}): each lane's element comes in a 32-byte sector "
        "of its own, where lanes reading adjacent elements would share one"
    )
    stride_code = model.code(multipliers[0]) if len(multipliers) == 1 else "stride"
    if op.reduces:
        # It reduces across the lanes it strides over (a softmax over an NCHW tensor's channels): a loop over
        # that dimension needs an online pass and a second read, a 2-D tile keeps the one read. On an H200,
        # fresh5's gb11 (checks/h200/fixed_plans_h200.jsonl, run s55a) measured 2.68x with the tile, 2.06x
        # with the loop.
        plan = (
            f"Put `{kernel.name}`'s vector lanes on the contiguous dimension and keep the dimension it reduces "
            "whole in a 2-D tile: give each program a block of adjacent elements (`cols = pid_c * BLOCK + "
            f"tl.arange(0, BLOCK)`) and load `offs_r[:, None] * {stride_code} + cols[None, :]`, all of the reduced "
            "dimension down axis 0, reducing over axis 0: every load reads adjacent elements and the kernel still "
            "reads its input once; or hand the kernel a layout with the reduced dimension last."
        )
    else:
        plan = (
            f"Put `{kernel.name}`'s vector lanes on the contiguous dimension: give each program a block of "
            "adjacent elements of that dimension (`cols = pid_c * BLOCK + tl.arange(0, BLOCK)`) and loop over the "
            f"strided one (adding `r * {stride_code}` as a scalar), so every load reads adjacent elements; or hand "
            "the kernel a layout with the reduced dimension last."
        )
    return Report(node=launch.node, message=message, plan=plan)
