from __future__ import annotations

from collections.abc import Iterator

from kernlint import cost
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Launch
from kernlint.model.shapes import Op
from kernlint.registry import Invalid, Report, Rule, Valid

# The kernel must take this much longer with its operands as they are read than K-major, the copy the fix makes
# included (the verdict's own bar for "worth optimizing").
MIN_GAIN = 1.2


class Tf32OperandLayout(Rule):
    """
    ## What it does
    Finds a Triton `tl.dot` on fp32 tiles on the TF32 path (tl.dot's
    default, or `input_precision="tf32"`), launched by a KernelBench-style
    file's forward at the file's own shapes, that reads an operand with its
    unit stride off K: B with a stride along K other than 1 (a `B [K, N]`
    read as it lies in memory, `b_ptr + offs_k[:, None] * stride_bk +
    offs_n[None, :]`; a convolution weight (C_out, C_in, kh, kw) gathered
    tap by tap), or A with its unit stride along M (an implicit-GEMM
    convolution gathering a tile's rows as adjacent pixels of an NCHW channel
    plane; a transposed A). An operand with no unit stride on either axis (a
    transposed convolution's weight (C_in, C_out, kh, kw) gathered tap by tap)
    is also loaded a 32-byte sector per lane, and its tiles are priced at the
    measured rate of such loads. The strides are read at the launch's values, and the finding is
    made only where the kernel's estimate at the file's shapes, with both
    operands K-major and the copies that takes, is at least 1.2x faster.
    An NCHW convolution's pixels indexed by a flat index split into a row
    and a column (`((n * C + ic[:, None]) * H + ih[None, :]) * W +
    iw[None, :]`, `iw` from `p % W`) run along the row: B read so is off
    K-major, and a weight read [C_out, C_in] per tap (A with no unit stride)
    is too. On an H200, fresh3's eg02 (such a kernel, 0.15x of cuDNN) fixed
    as the plan says, the input copied channels-last and the weight
    permuted to (C_out, kh, kw, C_in), measured 5.21x
    (`checks/h200/fixed_plans_h200.jsonl`); the finding estimates 3.55x.
    It gains nothing where the product's K is not a multiple of 16: Triton
    then loads the tiles element by element along K in either layout
    (fresh's cb02, 8205 x 2949 x 5921: 0.99x measured).

    It stays silent when both operands are read K-major (A `[M, K]`
    row-major; B out of a weight `[N, K]`, as kernels read an nn.Linear
    weight), on fp16, bf16 and int8 tiles (the MMAs read those either way:
    the fp16 probes differ by 10-20%), on the IEEE path (KL018's) and on
    tf32x3 (three TF32 MMAs: A's layout measured 1.13x there), when the
    strides or the file's shapes are not known, and on products too small
    for the layout to matter beside the copy or the launch.

    ## Why is this bad?
    Hopper's TF32 tensor-core MMAs read their operands K-major; a tile laid
    out otherwise runs on a slower path. The calibration's tile probes
    measure a 4096^3 GEMM at 128x128x32 on an H100 at 277 TFLOPS with both
    operands K-major and 84 with B row-major; on an H200 an implicit-GEMM
    convolution gathering A from NCHW ran at 42 TFLOPS against 156 from
    NHWC (`bench/conv_layout_h200.md`). Such a kernel can lose to PyTorch's
    cuDNN convolution, which runs TF32 by default. Where the operand is an
    input, the fix copies it K-major on every call: for a product that
    reads each element few times (a GEMV-like M), the copy costs more than
    the layout saves, and the rule stays silent.

    ## Example
    ```python
    b = tl.load(b_ptr + offs_k[:, None] * N + offs_n[None, :])  # B [K, N]: unit stride along N
    acc = tl.dot(a, b, acc)  # fp32 tiles: TF32, off K-major
    ```

    ## Use instead
    ```python
    # forward: bt = b.t().contiguous() (or a weight laid out [N, K] once, in __init__)
    b = tl.load(bt_ptr + offs_n[None, :] * K + offs_k[:, None])  # unit stride along K
    acc = tl.dot(a, b, acc)
    ```

    ## Fix safety
    No automatic fix: the host code makes the K-major copy (or lays out a
    weight at load time) and the kernel's addresses change with it. The
    products are the same TF32 products; only the MMA path that runs them
    changes (the pair's two sides measured the same error against fp64).

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl031_tf32_operand_layout/` (`kernlint rule KL031` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL031"
    name = "tf32-operand-layout"
    category = Category.MEMORY_LAYOUT
    severity = Severity.WARNING
    summary = "A TF32 tl.dot reads an operand off K-major (B N-major, A M-major): the tensor cores' slow path."
    bottleneck = (
        "Compute-bound on a slow tensor-core path: TF32 MMAs read both operands K-major, and a tile whose unit "
        "stride is not along K (B's along N, or none, a weight gathered tap by tap; A's along M) runs several times "
        "below the K-major rate."
    )
    method = (
        "Read both tl.dot operands K-major: a weight laid out [N, K] once at load time, an input copied K-major "
        "(transposed, or an NCHW activation made channels-last) before the launch."
    )
    priority = 19
    fix_effect = "kmajor_operands"

    VALID = [
        # B read K-major out of a weight [N, K] (nn.Linear's layout), A row-major: both K-major.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, w_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc = tl.dot(a, b, acc)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.weight = torch.nn.Parameter(torch.randn(4096, 4096))
                def forward(self, x):
                    M, K = x.shape
                    N = self.weight.shape[0]
                    c = torch.empty(M, N, device=x.device)
                    mm[(M // 128, N // 128)](x, self.weight, c, M, N, K, BM=128, BN=128, BK=32)
                    return c
            def get_inputs():
                return [torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # fp16 tiles: the MMAs read them in either layout.
        Valid(
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
                    acc = tl.dot(a, b, acc)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    M, K = a.shape
                    N = b.shape[1]
                    c = torch.empty(M, N, device=a.device, dtype=torch.float16)
                    mm[(M // 128, N // 128)](a, b, c, M, N, K, BM=128, BN=128, BK=32)
                    return c
            def get_inputs():
                return [torch.randn(4096, 4096, dtype=torch.float16), torch.randn(4096, 4096, dtype=torch.float16)]
            def get_init_inputs():
                return []
            """
        ),
        # The IEEE path: KL018's finding, not this one.
        Valid(
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
                    acc = tl.dot(a, b, acc, input_precision="ieee")
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    M, K = a.shape
                    N = b.shape[1]
                    c = torch.empty(M, N, device=a.device)
                    mm[(M // 128, N // 128)](a, b, c, M, N, K, BM=128, BN=128, BK=32)
                    return c
            def get_inputs():
                return [torch.randn(4096, 4096), torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # tf32x3: three TF32 MMAs, which an operand's layout slows far less.
        Valid(
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
                    acc = tl.dot(a, b, acc, input_precision="tf32x3")
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    M, K = a.shape
                    N = b.shape[1]
                    c = torch.empty(M, N, device=a.device)
                    mm[(M // 128, N // 128)](a, b, c, M, N, K, BM=128, BN=128, BK=32)
                    return c
            def get_inputs():
                return [torch.randn(4096, 4096), torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # No static shapes: the strides and the product's size are not known.
        Valid(
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
                    acc = tl.dot(a, b, acc)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    M, K = a.shape
                    N = b.shape[1]
                    c = torch.empty(M, N, device=a.device)
                    mm[(M // 128, N // 128)](a, b, c, M, N, K, BM=128, BN=128, BK=32)
                    return c
            """
        ),
        # An implicit-GEMM convolution over a channels-last input: A's rows split out of the pixel index, its
        # channels the unit-stride axis of the tile (K-major), the weight laid out (C_out, kh, kw, C_in) once.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def conv(x_ptr, w_ptr, y_ptr, C, H, W, CO, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                ow = rm % W
                oh = (rm // W) % H
                n = rm // (W * H)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for t in tl.static_range(9):
                    ih = oh + t // 3 - 1
                    iw = ow + t % 3 - 1
                    ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                    for c0 in range(0, C, BK):
                        ci = c0 + tl.arange(0, BK)
                        a = tl.load(x_ptr + (n * H * W * C)[:, None] + (ih * W * C + iw * C)[:, None] + ci[None, :],
                                    mask=ok[:, None], other=0.0)
                        b = tl.load(w_ptr + rn[None, :] * 9 * C + t * C + ci[:, None])
                        acc = tl.dot(a, b, acc)
                tl.store(y_ptr + rm[:, None] * CO + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = torch.nn.Conv2d(64, 128, 3, padding=1, bias=False)
                    self.register_buffer("w_k", self.conv.weight.detach().permute(0, 2, 3, 1).contiguous())
                def forward(self, x):
                    N, C, H, W = x.shape
                    x = x.permute(0, 2, 3, 1).contiguous()
                    y = torch.empty(N, H, W, 128, device=x.device)
                    conv[(N * H * W // 128, 1)](x, self.w_k, y, C, H, W, 128, BM=128, BN=128, BK=32)
                    return y.permute(0, 3, 1, 2)
            def get_inputs():
                return [torch.randn(16, 64, 128, 128)]
            def get_init_inputs():
                return []
            """
        ),
        # A few rows against an input B: copying B K-major costs more than the layout saves.
        Valid(
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
                    acc = tl.dot(a, b, acc)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    M, K = a.shape
                    N = b.shape[1]
                    c = torch.empty(M, N, device=a.device)
                    mm[(M // 16, N // 64)](a, b, c, M, N, K, BM=16, BN=64, BK=32)
                    return c
            def get_inputs():
                return [torch.randn(16, 8192), torch.randn(8192, 8192)]
            def get_init_inputs():
                return []
            """
        ),
    ]
    INVALID = [
        # B [K, N] read as it lies (unit stride along N), through the launch's strides.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, M, N, K, sbk, sbn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(b_ptr + (k + rk)[:, None] * sbk + rn[None, :] * sbn)
                    acc = tl.dot(a, b, acc)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    M, K = a.shape
                    N = b.shape[1]
                    c = torch.empty(M, N, device=a.device)
                    mm[(M // 128, N // 128)](a, b, c, M, N, K, b.stride(0), b.stride(1), BM=128, BN=128, BK=32)
                    return c
            def get_inputs():
                return [torch.randn(4096, 4096), torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """,
            line=21,
            column=9,
        ),
        # The same with `input_precision="tf32"` spelled out and the strides written in the kernel.
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
                    acc += tl.dot(a, b, input_precision="tf32")
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    M, K = a.shape
                    N = b.shape[1]
                    c = torch.empty(M, N, device=a.device)
                    mm[(M // 64, N // 64)](a, b, c, M, N, K, BM=64, BN=64, BK=32)
                    return c
            def get_inputs():
                return [torch.randn(2048, 8192), torch.randn(8192, 2048)]
            def get_init_inputs():
                return []
            """,
            line=21,
            column=9,
        ),
        # A weight parameter [K, N] read N-major: laid out [N, K] once, in __init__, it costs a call nothing.
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
                    acc = tl.dot(a, b, acc)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.w = torch.nn.Parameter(torch.randn(4096, 4096))
                def forward(self, x):
                    M, K = x.shape
                    N = self.w.shape[1]
                    c = torch.empty(M, N, device=x.device)
                    mm[(M // 128, N // 128)](x, self.w, c, M, N, K, BM=128, BN=128, BK=32)
                    return c
            def get_inputs():
                return [torch.randn(8192, 4096)]
            def get_init_inputs():
                return []
            """,
            line=24,
            column=9,
        ),
        # A transposed A read as it lies ([K, M] in memory: unit stride along M), B K-major.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def mm(at_ptr, w_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(at_ptr + (k + rk)[None, :] * M + rm[:, None])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc = tl.dot(a, b, acc)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, at, w):
                    K, M = at.shape
                    N = w.shape[0]
                    c = torch.empty(M, N, device=at.device)
                    mm[(M // 128, N // 128)](at, w, c, M, N, K, BM=128, BN=128, BK=32)
                    return c
            def get_inputs():
                return [torch.randn(4096, 4096), torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """,
            line=21,
            column=9,
        ),
        # An implicit-GEMM convolution gathering A's rows as adjacent pixels of an NCHW plane (unit stride
        # along M), its weight made once as (C_out, kh, kw, C_in): B K-major.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def conv(x_ptr, w_ptr, y_ptr, N, C, H, W, CO, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                ow, oh, n = rm % W, (rm // W) % H, rm // (W * H)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for t in tl.static_range(9):
                    ih, iw = oh + t // 3 - 1, ow + t % 3 - 1
                    ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                    for c0 in range(0, C, BK):
                        a = tl.load(x_ptr + (n * C * H * W + ih * W + iw)[:, None] + (c0 + rk)[None, :] * H * W,
                                    mask=ok[:, None], other=0.0)
                        b = tl.load(w_ptr + rn[None, :] * 9 * C + t * C + (c0 + rk)[:, None])
                        acc = tl.dot(a, b, acc)
                tl.store(y_ptr + (n * CO * H * W + oh * W + ow)[:, None] + rn[None, :] * H * W, acc)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = torch.nn.Conv2d(64, 128, 3, padding=1, bias=False)
                    self.register_buffer("w_k", self.conv.weight.detach().permute(0, 2, 3, 1).contiguous())
                def forward(self, x):
                    N, C, H, W = x.shape
                    y = torch.empty(N, 128, H, W, device=x.device)
                    conv[(N * H * W // 128, 1)](x, self.w_k, y, N, C, H, W, 128, BM=128, BN=128, BK=32)
                    return y
            def get_inputs():
                return [torch.randn(16, 64, 128, 128)]
            def get_init_inputs():
                return []
            """,
            line=29,
            column=9,
        ),
        # The same gather with K flattened as (C_in, kh, kw), the way generated kernels write it: A's rows
        # split out of the pixel index with `%`/`//` and summed from several terms, its K terms split too.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def conv(x_ptr, w_ptr, y_ptr, C, H, W, CO, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                ow = rm % W
                oh = (rm // W) % H
                n = rm // (W * H)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k0 in range(0, C * 9, BK):
                    rk = k0 + tl.arange(0, BK)
                    ci = rk // 9
                    kh = (rk % 9) // 3
                    kw = rk % 3
                    ih = oh[:, None] + kh[None, :] - 1
                    iw = ow[:, None] + kw[None, :] - 1
                    ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W) & (rk < C * 9)[None, :]
                    a = tl.load(x_ptr + (n * C * H * W)[:, None] + ci[None, :] * H * W + ih * W + iw, mask=ok, other=0.0)
                    b = tl.load(w_ptr + rn[None, :] * C * 9 + rk[:, None], mask=(rk < C * 9)[:, None], other=0.0)
                    acc += tl.dot(a, b)
                tl.store(y_ptr + (n * CO * H * W + oh * W + ow)[:, None] + rn[None, :] * H * W, acc)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = torch.nn.Conv2d(64, 128, 3, padding=1, bias=False)
                def forward(self, x):
                    N, C, H, W = x.shape
                    y = torch.empty(N, 128, H, W, device=x.device)
                    conv[(N * H * W // 128, 1)](x, self.conv.weight, y, C, H, W, 128, BM=128, BN=128, BK=32)
                    return y
            def get_inputs():
                return [torch.randn(16, 64, 128, 128)]
            def get_init_inputs():
                return []
            """,
            line=32,
            column=9,
        ),
        # Autotuned tiles, B N-major: every config reads it so.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.autotune(
                configs=[triton.Config({"BM": 128, "BN": 128, "BK": 32}, num_warps=8),
                         triton.Config({"BM": 64, "BN": 128, "BK": 32}, num_warps=4)],
                key=["M", "N", "K"],
            )
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
                    acc = tl.dot(a, b, acc)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, a, b):
                    M, K = a.shape
                    N = b.shape[1]
                    c = torch.empty(M, N, device=a.device)
                    grid = lambda meta: (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))
                    mm[grid](a, b, c, M, N, K)
                    return c
            def get_inputs():
                return [torch.randn(4096, 4096), torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """,
            line=27,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        entry = model.entry_point
        calibration = cost.calibration()
        if entry is None or entry.unknown or calibration is None:
            return
        c = calibration.constants
        seen: set[int] = set()
        for op in entry.ops:
            if (
                op.kind != "triton"
                or op.path != "tf32"
                or op.dot_passes != 1
                or not (op.a_off_kmajor or op.dot_b_off_kmajor)
                or op.site_line in seen
            ):
                continue
            launch = model.launch_at_site(op.site_line, op.note)
            if launch is None or (not op.dot_a_mmajor and _kl002s(entry.ops, op)):
                continue
            before = cost.gpu_us(op, c)
            fixed = cost.kmajor_operands((op,), op.site_line, op.site_line, c) or (op,)
            after = sum(cost.gpu_us(o, c) for o in fixed)
            if before < MIN_GAIN * after:
                continue
            seen.add(op.site_line)
            yield _report(model, launch, op, fixed, before, after)


def _kl002s(ops: tuple[Op, ...], op: Op) -> bool:
    """The launch reads a per-call transposed copy of a parameter matrix (`w.t().contiguous()`): KL002's finding,
    whose fix reads the parameter itself, K-major, and drops the copy."""
    return any(
        0 <= i < len(ops) and ops[i].kind == "transpose_copy" and ops[i].matrix_transpose and ops[i].inputs == (-1,)
        for i in op.inputs
    )


def _report(model: FileModel, launch: Launch, op: Op, fixed: tuple[Op, ...], before: float, after: float) -> Report:
    kernel = launch.kernel
    a_off = op.a_off_kmajor
    off = [
        *(["A with its unit stride along M"] if op.dot_a_mmajor else ["A"] if a_off else []),
        *(["B with a stride along K other than 1"] if op.dot_b_off_kmajor else []),
    ]
    # Which operands the fix reads K-major: where copying an activation costs more than its layout saves, only
    # the other (a weight laid out once).
    relay_a = a_off and not fixed[0].a_off_kmajor
    relay_b = op.dot_b_off_kmajor and not fixed[0].dot_b_off_kmajor
    copied = sum(o.bytes // 2 for o in fixed[1:])
    which = "both operands" if relay_a and relay_b else "A" if relay_a else "B"
    # An operand with no unit stride on either axis: whichever axis Triton runs a load's lanes along, each lane
    # reads a 32-byte sector of its own.
    gathered = dict(zip("AB", op.dot_gather_bytes))
    off = [
        f"{o} (no unit stride on either axis: each lane of its loads reads a sector of its own, "
        f"{gathered[o[0]] / 2**30:,.1f} GiB of tiles gathered so)"
        if gathered[o[0]]
        else o
        for o in off
    ]
    message = (
        f"`{kernel.name}` runs tl.dot on fp32 tiles as TF32 reading {' and '.join(off)}: off K-major, its "
        f"{op.flops / 1e9:,.0f} GFLOP product takes about {before:,.0f} us here against {after:,.0f} us with "
        f"{which} read K-major" + (f" (a {copied / 2**20:,.0f} MiB K-major copy per call included)" if copied else "")
    )
    steps = []
    if relay_b:
        steps.append(
            "hand the kernel B K-major: a weight laid out once, in __init__, with K contiguous (a [K, N] matrix as "
            "`w.t().contiguous()`, a convolution weight as (C_out, kh, kw, C_in): `w.permute(0, 2, 3, 1).contiguous()`, "
            "registered as a buffer), an input copied `b.t().contiguous()` before the launch, and load B's tile with "
            "K as its unit-stride axis (`bt_ptr + offs_n[None, :] * K + offs_k[:, None]`)"
        )
    if relay_a:
        steps.append(
            "hand the kernel A K-major: a transposed A copied `a.t().contiguous()`, or an NCHW activation made "
            "channels-last (`x.permute(0, 2, 3, 1).contiguous()`) and gathered with the channels as the unit-stride "
            "axis of A's tile (`pixel[:, None] * C + ci[None, :]`), the weight laid out (C_out, kh, kw, C_in) once"
        )
    kept = "A" if a_off and not relay_a else "B" if op.dot_b_off_kmajor and not relay_b else ""
    if kept:
        steps.append(f"keep {kept} as it is: copying it K-major on every call costs more than its layout saves")
    plan = (
        f"Read {'both of ' if relay_a and relay_b else ''}`{kernel.name}`'s tl.dot "
        + ("operands" if relay_a and relay_b else f"operand {which}")
        + " with the unit stride along K: "
        + "; ".join(steps)
        + ". The same TF32 products run on the K-major MMA path; a copy is timed in the estimate."
    )
    return Report(node=launch.node, message=message, plan=plan)
