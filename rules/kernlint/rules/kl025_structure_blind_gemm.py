from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo, Kernel
from kernlint.model.attention import StructuredProduct
from kernlint.model.shapes import IM2COL, im2col_readers
from kernlint.registry import Invalid, Report, Rule, Valid


class StructureBlindGemm(Rule):
    """
    ## What it does
    Finds a dense GEMM spent on structure that is visible in the code: a
    product with a diagonal matrix built by `torch.diag(a)` (or
    `torch.diag_embed`, `torch.diagflat`), directly or through a local name
    (`torch.diag(a) @ b`, `torch.mm(b, torch.diag(a))`), and a product
    whose result is masked to a triangle (`torch.tril(a @ b)`,
    `torch.triu(torch.matmul(a, b))`, `(a @ b).tril()`), or a Triton `tl.dot`
    kernel that masks its result to a triangle after its K loop
    (`tl.where(offs_n[None, :] >= offs_m[:, None], acc, 0.0)`, or a store mask
    comparing a tile's rows with its columns) and computes every tile (no
    early `return` for a tile wholly on the masked side: a causal attention's
    separate scores kernel too). In a KernelBench-style
    forward (at the file's shapes, through the helpers it calls) it also finds
    a convolution lowered to im2col: `F.unfold`, or a Triton kernel of the
    file without a product that writes at least twice the bytes it reads (an
    im2col or zero-inserted copy of its input), writes the column matrix (each
    input element once per kernel tap) and a GEMM (a Triton `tl.dot` kernel or
    torch's matmul) reads it back; its estimate drops the column matrix, the
    GEMM reading the windows from the input. And it finds a transposed
    convolution written as a gather over every kernel tap: a `tl.dot` kernel
    whose taps are masked by stride parity (`(od + PAD - kd) % STRIDE == 0`
    in the load's mask, one test per output dimension), where the file's
    forward launches it with a stride above 1: each output takes only one
    tap in `stride` per dimension, so the kernel runs `stride**dims` tap
    products for each one that lands (8 at stride 2 in 3-D).

    It stays silent on `torch.diag` of something that is not multiplied,
    on a triangular mask of a tensor that is not a product (a causal mask
    built from `torch.ones`), on tests, benchmarks and reference
    implementations, and under `if __name__ == "__main__":`.

    ## Why is this bad?
    `torch.diag(a)` writes an N x N matrix that is zero off the diagonal,
    and the GEMM then spends 2 N^2 M flops and reads it back to scale the
    rows of the other operand: O(N^2 M) work for an O(N M) result. An im2col
    matrix of a k x k convolution is k^2 times its input at stride 1: one
    kernel writes it and the GEMM reads it back, where cuDNN's or a Triton
    implicit GEMM loads each window from the input, which stays in cache. A
    product masked to a triangle computes every tile of the output and
    throws half of them away, then a second kernel writes the mask. A
    parity-masked gather loads zeros for the taps that do not land and still
    multiplies them on the tensor cores: 7 of 8 products wasted at stride 2
    in 3-D.

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
    covers only the lower or upper tiles). For a parity-masked transposed
    convolution, one grid (or program axis) per output phase `r = (o + PAD)
    % STRIDE`, each program looping over its phase's taps only:
    ```python
    for kh in range((r_h + PAD) % STRIDE, K, STRIDE):   # every tap lands
        ih = (oh + PAD - kh) // STRIDE
    ```

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
    summary = (
        "A dense GEMM with a diagonal matrix built by torch.diag, a full GEMM masked to a triangle, a convolution "
        "lowered to an im2col matrix (F.unfold, or a Triton kernel that expands its input) that a GEMM reads, or a "
        "transposed convolution whose tl.dot runs every tap and masks those the stride skips."
    )
    bottleneck = (
        "Wasted compute and traffic: the GEMM multiplies zeros (a dense diagonal matrix), computes tiles the "
        "triangular mask throws away, reads a column matrix that repeats each input element once per kernel tap, or "
        "multiplies the masked-out taps of a strided transposed convolution."
    )
    method = (
        "Use the structure: scale rows or columns by the diagonal's vector instead of a GEMM, compute only the "
        "triangle's tiles with the mask applied in the GEMM's store, and read a convolution's windows from its input "
        "(cuDNN's convolution, or an implicit-GEMM kernel) instead of an im2col matrix, and split a strided "
        "transposed convolution by output phase so each program loops over only the taps that land."
    )
    priority = 11
    fix_effect = "structured_gemm"

    VALID = [
        # A transposed convolution gathered over every tap at stride 1 (every tap lands), and one split by
        # output phase, each launch looping over only its phase's taps.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def convt(x_ptr, w_ptr, y_ptr, H, W, OH, OW, C: tl.constexpr, S: tl.constexpr, K: tl.constexpr, BM: tl.constexpr):
                m = tl.program_id(0) * BM + tl.arange(0, BM)
                c = tl.arange(0, C)
                oh, ow = m // OW, m % OW
                acc = tl.zeros((BM, C), tl.float32)
                for kh in tl.static_range(K):
                    th = oh + 1 - kh
                    for kw in tl.static_range(K):
                        tw = ow + 1 - kw
                        ok = (th >= 0) & (th % S == 0) & (th // S < H) & (tw >= 0) & (tw % S == 0) & (tw // S < W)
                        a = tl.load(x_ptr + c[None, :] * H * W + ((th // S) * W + tw // S)[:, None], mask=ok[:, None], other=0.0)
                        acc = tl.dot(a, tl.load(w_ptr + ((kh * K + kw) * C + c[:, None]) * C + c[None, :]), acc)
                tl.store(y_ptr + c[None, :] * OH * OW + m[:, None], acc, mask=(m < OH * OW)[:, None])
            class ModelNew(torch.nn.Module):
                def forward(self, x, w):
                    C, H, W = x.shape
                    OH, OW = (H - 1) * STRIDE + 2, (W - 1) * STRIDE + 2
                    y = torch.empty((C, OH, OW), device=x.device)
                    convt[(triton.cdiv(OH * OW, 128),)](x, w, y, H, W, OH, OW, C=C, S=STRIDE, K=4, BM=128)
                    return y
            STRIDE = 1
            def get_inputs():
                return [torch.randn(64, 512, 512), torch.randn(16, 64, 64)]
            def get_init_inputs():
                return []
            """
        ),
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def convt_phase(x_ptr, w_ptr, y_ptr, H, W, OH, OW, C: tl.constexpr, RH: tl.constexpr, RW: tl.constexpr,
                            K: tl.constexpr, BM: tl.constexpr):
                q = tl.program_id(0) * BM + tl.arange(0, BM)
                c = tl.arange(0, C)
                oh, ow = (q // (OW // 2)) * 2 + RH, (q % (OW // 2)) * 2 + RW
                acc = tl.zeros((BM, C), tl.float32)
                for kh in tl.static_range((RH + 1) % 2, K, 2):
                    ih = (oh + 1 - kh) // 2
                    for kw in tl.static_range((RW + 1) % 2, K, 2):
                        iw = (ow + 1 - kw) // 2
                        ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                        a = tl.load(x_ptr + c[None, :] * H * W + (ih * W + iw)[:, None], mask=ok[:, None], other=0.0)
                        acc = tl.dot(a, tl.load(w_ptr + ((kh * K + kw) * C + c[:, None]) * C + c[None, :]), acc)
                tl.store(y_ptr + c[None, :] * OH * OW + (oh * OW + ow)[:, None], acc, mask=(oh < OH)[:, None])
            class ModelNew(torch.nn.Module):
                def forward(self, x, w):
                    C, H, W = x.shape
                    OH, OW = 2 * H, 2 * W
                    y = torch.empty((C, OH, OW), device=x.device)
                    convt_phase[(triton.cdiv(H * W, 128),)](x, w, y, H, W, OH, OW, C=C, RH=0, RW=0, K=4, BM=128)
                    convt_phase[(triton.cdiv(H * W, 128),)](x, w, y, H, W, OH, OW, C=C, RH=0, RW=1, K=4, BM=128)
                    convt_phase[(triton.cdiv(H * W, 128),)](x, w, y, H, W, OH, OW, C=C, RH=1, RW=0, K=4, BM=128)
                    convt_phase[(triton.cdiv(H * W, 128),)](x, w, y, H, W, OH, OW, C=C, RH=1, RW=1, K=4, BM=128)
                    return y
            def get_inputs():
                return [torch.randn(64, 512, 512), torch.randn(16, 64, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # A triangle-masked Triton GEMM that returns early from the tiles wholly below the diagonal, a causal
        # attention kernel whose mask is on each tile of scores inside its loop, and a chunk's causal mask
        # within the one tile each program computes (no tile to skip).
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def triu_mm(a_ptr, b_ptr, c_ptr, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                pid_m, pid_n = tl.program_id(0), tl.program_id(1)
                rm = pid_m * BM + tl.arange(0, BM)
                rn = pid_n * BN + tl.arange(0, BN)
                if pid_m * BM >= pid_n * BN + BN:
                    tl.store(c_ptr + rm[:, None] * N + rn[None, :], tl.zeros((BM, BN), tl.float32))
                    return
                acc = tl.zeros((BM, BN), tl.float32)
                for k in range(0, N, BK):
                    rk = k + tl.arange(0, BK)
                    acc += tl.dot(tl.load(a_ptr + rm[:, None] * N + rk[None, :]), tl.load(b_ptr + rk[:, None] * N + rn[None, :]))
                acc = tl.where(rn[None, :] >= rm[:, None], acc, 0.0)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            @triton.jit
            def causal(q_ptr, k_ptr, o_ptr, T, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                d = tl.arange(0, D)
                q = tl.load(q_ptr + rm[:, None] * D + d[None, :])
                m = tl.full((BM,), -float("inf"), tl.float32)
                for j in range(0, T, BN):
                    rn = j + tl.arange(0, BN)
                    s = tl.dot(q, tl.trans(tl.load(k_ptr + rn[:, None] * D + d[None, :])))
                    s = tl.where(rm[:, None] >= rn[None, :], s, -float("inf"))
                    m = tl.maximum(m, tl.max(s, 1))
                tl.store(o_ptr + rm, m)
            @triton.jit
            def chunk_scores(q_ptr, k_ptr, a_ptr, BT: tl.constexpr, D: tl.constexpr):
                o_i = tl.arange(0, BT)
                d = tl.arange(0, D)
                base = tl.program_id(0) * BT * D
                q = tl.load(q_ptr + base + o_i[:, None] * D + d[None, :])
                k = tl.load(k_ptr + base + o_i[:, None] * D + d[None, :])
                a = tl.dot(q, tl.trans(k))
                a = tl.where(o_i[:, None] >= o_i[None, :], a, 0.0)
                tl.store(a_ptr + tl.program_id(0) * BT * BT + o_i[:, None] * BT + o_i[None, :], a)
            def run(a, b, c, q, k, o, s):
                triu_mm[(32, 32)](a, b, c, 4096, BM=128, BN=128, BK=32)
                causal[(16,)](q, k, o, 1024, BM=64, BN=64, D=64)
                chunk_scores[(256,)](q, k, s, BT=64, D=64)
            """
        ),
        # The same convolution through cuDNN (F.conv2d): no column matrix.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = torch.nn.Conv2d(64, 128, 3, padding=1, bias=False)
                def forward(self, x):
                    return F.conv2d(x, self.conv.weight, None, padding=1)
            def get_inputs():
                return [torch.randn(16, 64, 64, 64)]
            def get_init_inputs():
                return []
            """
        ),
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
        # A Triton kernel that writes what it reads (a cast of the input) before the GEMM: no expanded copy.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 0.5, mask=offs < n)
            @triton.jit
            def gemm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
                    b = tl.load(b_ptr + rn[None, :] * K + (k + rk)[:, None], mask=(k + rk)[:, None] < K, other=0.0)
                    acc += tl.dot(a, b)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, x, w):
                    y = torch.empty_like(x)
                    scale[(x.numel() // 1024,)](x, y, x.numel(), BLOCK=1024)
                    out = torch.empty(4096, 256, device=x.device)
                    gemm[(64, 4)](y, w, out, 4096, 256, 576, BM=64, BN=64, BK=32)
                    return out
            def get_inputs():
                return [torch.randn(4096, 576), torch.randn(256, 576)]
            def get_init_inputs():
                return []
            """
        ),
        # A kernel that adds a bias to a GEMM's output in place (it loads and stores the same 4 MB, and reads a
        # 4 KB bias), before the next layer's matmul: it writes what it reads, no expanded copy.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def bias_relu(y_ptr, b_ptr, n, N, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                y = tl.load(y_ptr + offs, mask=offs < n) + tl.load(b_ptr + offs % N, mask=offs < n)
                tl.store(y_ptr + offs, tl.maximum(y, 0.0), mask=offs < n)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.a = torch.nn.Linear(1024, 1024)
                    self.b = torch.nn.Linear(1024, 1024)
                def forward(self, x):
                    for lin in (self.a, self.b):
                        x = torch.matmul(x, lin.weight.t())
                        bias_relu[(x.numel() // 1024,)](x, lin.bias, x.numel(), 1024, BLOCK=1024)
                    return x
            def get_inputs():
                return [torch.randn(1024, 1024)]
            def get_init_inputs():
                return []
            """
        ),
    ]
    INVALID = [
        # A generated kernel's im2col in Triton: one kernel writes the column matrix (9x its input), a tl.dot GEMM
        # reads it back.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def im2col(x_ptr, col_ptr, C, H, W, K, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                k = tl.arange(0, BLOCK)
                c, kh, kw = k // 9, (k % 9) // 3, k % 3
                h, w = row // W + kh - 1, row % W + kw - 1
                ok = (k < K) & (h >= 0) & (h < H) & (w >= 0) & (w < W)
                v = tl.load(x_ptr + (c * H + h) * W + w, mask=ok, other=0.0)
                tl.store(col_ptr + row * K + k, v, mask=k < K)
            @triton.jit
            def gemm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
                    b = tl.load(b_ptr + rn[None, :] * K + (k + rk)[:, None], mask=(k + rk)[:, None] < K, other=0.0)
                    acc += tl.dot(a, b)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, x, w):
                    _, C, H, W = x.shape
                    cols = torch.empty(H * W, C * 9, device=x.device)
                    im2col[(H * W,)](x, cols, C, H, W, C * 9, BLOCK=1024)
                    out = torch.empty(H * W, 256, device=x.device)
                    gemm[(H * W // 64, 4)](cols, w, out, H * W, 256, C * 9, BM=64, BN=64, BK=32)
                    return out
            def get_inputs():
                return [torch.randn(1, 64, 128, 128), torch.randn(256, 576)]
            def get_init_inputs():
                return []
            """,
            line=29,
            column=9,
        ),
        # A 3x3 convolution as F.unfold, then a Triton GEMM over the column matrix (a generated kernel's lowering).
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            import triton
            import triton.language as tl
            @triton.jit
            def gemm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(k + rk)[None, :] < K, other=0.0)
                    b = tl.load(b_ptr + rn[None, :] * K + (k + rk)[:, None], mask=(k + rk)[:, None] < K, other=0.0)
                    acc += tl.dot(a, b)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = torch.nn.Conv2d(64, 128, 3, padding=1, bias=False)
                def forward(self, x):
                    B, C, H, W = x.shape
                    cols = F.unfold(x, 3, padding=1).transpose(1, 2).reshape(B * H * W, C * 9)
                    w = self.conv.weight.view(128, C * 9)
                    out = torch.empty(B * H * W, 128, device=x.device)
                    gemm[(B * H * W // 64, 2)](cols, w, out, B * H * W, 128, C * 9, BM=64, BN=64, BK=32)
                    return out.view(B, H, W, 128).permute(0, 3, 1, 2)
            def get_inputs():
                return [torch.randn(16, 64, 64, 64)]
            def get_init_inputs():
                return []
            """,
            line=23,
            column=16,
        ),
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
        # A Triton GEMM whose result is masked to the upper triangle after its K loop: every tile computed.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def triu_mm(a_ptr, b_ptr, c_ptr, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                acc = tl.zeros((BM, BN), tl.float32)
                for k in range(0, N, BK):
                    rk = k + tl.arange(0, BK)
                    acc += tl.dot(tl.load(a_ptr + rm[:, None] * N + rk[None, :]), tl.load(b_ptr + rk[:, None] * N + rn[None, :]))
                acc = tl.where(rn[None, :] >= rm[:, None], acc, 0.0)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            def run(a, b, c):
                triu_mm[(32, 32)](a, b, c, 4096, BM=128, BN=128, BK=32)
            """,
            line=12,
            column=20,
        ),
        # The same lower-triangle mask named first (`keep = ...`, then `tl.where(keep, acc, 0.0)`).
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def tril_mm(a_ptr, b_ptr, c_ptr, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                acc = tl.zeros((BM, BN), tl.float32)
                for k in range(0, N, BK):
                    rk = k + tl.arange(0, BK)
                    acc += tl.dot(tl.load(a_ptr + rm[:, None] * N + rk[None, :]), tl.load(b_ptr + rk[:, None] * N + rn[None, :]))
                keep = rm[:, None] >= rn[None, :]
                acc = tl.where(keep, acc, 0.0)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            def run(a, b, c):
                tril_mm[(32, 32)](a, b, c, 4096, BM=128, BN=128, BK=32)
            """,
            line=12,
            column=12,
        ),
        # A transposed convolution at stride 2 gathered over all 16 taps, the taps masked by parity: 3 of 4
        # products multiply zeros.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def convt(x_ptr, w_ptr, y_ptr, H, W, OH, OW, C: tl.constexpr, S: tl.constexpr, K: tl.constexpr, BM: tl.constexpr):
                m = tl.program_id(0) * BM + tl.arange(0, BM)
                c = tl.arange(0, C)
                oh, ow = m // OW, m % OW
                acc = tl.zeros((BM, C), tl.float32)
                for kh in tl.static_range(K):
                    th = oh + 1 - kh
                    for kw in tl.static_range(K):
                        tw = ow + 1 - kw
                        ok = (th >= 0) & (th % S == 0) & (th // S < H) & (tw >= 0) & (tw % S == 0) & (tw // S < W)
                        a = tl.load(x_ptr + c[None, :] * H * W + ((th // S) * W + tw // S)[:, None], mask=ok[:, None], other=0.0)
                        acc = tl.dot(a, tl.load(w_ptr + ((kh * K + kw) * C + c[:, None]) * C + c[None, :]), acc)
                tl.store(y_ptr + c[None, :] * OH * OW + m[:, None], acc, mask=(m < OH * OW)[:, None])
            class ModelNew(torch.nn.Module):
                def forward(self, x, w):
                    C, H, W = x.shape
                    OH, OW = (H - 1) * STRIDE + 2, (W - 1) * STRIDE + 2
                    y = torch.empty((C, OH, OW), device=x.device)
                    convt[(triton.cdiv(OH * OW, 128),)](x, w, y, H, W, OH, OW, C=C, S=STRIDE, K=4, BM=128)
                    return y
            STRIDE = 2
            def get_inputs():
                return [torch.randn(64, 512, 512), torch.randn(16, 64, 64)]
            def get_init_inputs():
                return []
            """,
            line=15,
            column=31,
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
            yield from _im2col_products(model, function)
        for kernel in model.kernel_list:
            mask = model.triangle_mask(kernel)
            if mask is None or not model.launches_of(kernel):
                continue
            yield _triangle_report(model, kernel, mask)
        yield from _parity_reports(model)

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


def _im2col_products(model: FileModel, function: FunctionInfo) -> Iterator[Report]:
    """In a KernelBench-style forward (at the file's shapes, through the helpers it calls): a convolution
    lowered to `F.unfold` (im2col), whose column matrix, kh x kw times the input, a GEMM then reads (a
    Triton tl.dot kernel or torch's matmul)."""
    entry = model.sized_forward(function)
    if entry is None:
        return
    ops = entry.ops
    reported: set[int] = set()
    for i, op in enumerate(ops):
        if op.line in reported or not (op.note == IM2COL or op.expands):
            continue
        gemm = next((ops[j] for j in im2col_readers(ops, i)[0] if ops[j].flops), None)
        if gemm is None:
            continue
        if op.expands:
            launch = model.launch_at_site(op.site_line, op.note)
            if launch is None:
                continue
            reported.add(op.line)
            read, wrote = op.expands
            yield Report(
                node=launch.node,
                message=(
                    f"`{op.note}` in `{function.qualname}` writes {wrote / 1e6:,.0f} MB, {wrote / read:.0f}x the "
                    f"{read / 1e6:,.0f} MB it reads (an im2col or zero-inserted copy of its input), for the GEMM "
                    f"at line {gemm.line} to read back: a product blind to the convolution's structure"
                ),
                plan=(
                    f"Fold `{op.note}`'s index arithmetic into the GEMM kernel's loads: an implicit GEMM whose A tile "
                    "is loaded straight from the input at each (channel, tap, output position) offset, masked where "
                    "the window leaves the input (or where a zero-inserted tap would be zero), or call cuDNN "
                    "(`F.conv2d`/`F.conv_transpose2d`, 3d alike) and keep only the epilogue in Triton; drop the "
                    "expanded buffer and its kernel."
                ),
            )
            continue
        node = _unfolding_call(model, function, op.line)
        if node is None:
            continue
        reported.add(op.line)
        where = "" if (model.qualname(node.func) or "").endswith("unfold") else f" (in `{model.code(node.func)}`)"
        yield Report(
            node=node,
            message=(
                f"A convolution lowered to `F.unfold`{where} in `{function.qualname}`: the {op.out_bytes / 1e6:,.0f} MB "
                f"column matrix (each input element copied once per kernel tap, from {op.in_bytes[0] / 1e6:,.0f} MB of "
                f"input) is written and read back by the GEMM at line {gemm.line}: a GEMM blind to the "
                "convolution's structure"
            ),
            plan=(
                "Read the windows in the GEMM instead of materializing them: call `F.conv2d` (cuDNN's implicit GEMM, "
                "with the layer's stride, padding and dilation) and keep only the epilogue in Triton, or make the "
                "Triton kernel an implicit GEMM whose A tile is loaded straight from the input at each (channel, "
                "tap, output position) offset; delete the `F.unfold` and its column matrix."
            ),
        )


def _unfolding_call(model: FileModel, function: FunctionInfo, line: int) -> cst.Call | None:
    """`function`'s call on `line` that runs the F.unfold: the call itself, or the call of a helper of the
    file whose body calls it (`conv2d_relu(x, self.conv1)`)."""
    calls = [c for c in function.calls if model.line_of(c) == line]
    for call in calls:
        if (model.qualname(call.func) or "").endswith("functional.unfold"):
            return call
    for call in calls:
        helper = model.function(call.func.value) if isinstance(call.func, cst.Name) else None
        if helper is not None and any(
            (model.qualname(inner.func) or "").endswith("functional.unfold") for inner in helper.calls
        ):
            return call
    return None


def _triangle_report(model: FileModel, kernel: Kernel, mask: cst.Comparison) -> Report:
    return Report(
        node=mask,
        message=(
            f"`{kernel.name}` masks its `tl.dot` result to a triangle (`{model.code(mask)}`) before the "
            "store but computes every output tile: the tiles wholly on the masked side of the diagonal, "
            "about half, are computed to be thrown away"
        ),
        plan=(
            f"In `{kernel.name}`, exit early from a program whose tile lies wholly on the masked side (store "
            "the mask's value if the output is not preset, then `return`), or launch only the triangle's "
            "tiles; keep the mask for the diagonal tiles. When the operands are triangular too, start or "
            "stop each tile's K loop at the diagonal."
        ),
    )


def _parity_reports(model: FileModel) -> Iterator[Report]:
    """A transposed convolution gathered over every tap, its taps masked by stride parity, at a launch of the
    file's forward whose stride is above 1 (the entry point's Op says how many taps it runs per tap that lands)."""
    entry = model.entry_point
    if entry is None or entry.unknown:
        return
    for kernel in model.kernel_list:
        masks = model.parity_masks(kernel)
        if not masks or kernel.function.node is None:
            continue
        span = model.span(kernel.function.node)
        waste = max(
            (
                op.parity_waste
                for op in entry.ops
                if op.kind == "triton" and op.kernel_lines == (span.line, span.end_line)
            ),
            default=1,
        )
        if waste <= 1:
            continue
        first, modulus = masks[0]
        tests = ", ".join(f"`{model.code(test)}`" for test, _ in masks)
        yield Report(
            node=first,
            message=(
                f"`{kernel.name}` runs its `tl.dot` over every tap of a transposed convolution and masks the taps "
                f"the stride skips ({tests}): at the launch's stride, {waste - 1} of every {waste} tap products "
                "multiply masked-out zeros"
            ),
            plan=(
                f"Split `{kernel.name}`'s outputs by phase, `r = (o + padding) % {model.code(modulus)}` in each masked "
                f"dimension ({waste} phases: a grid axis or one launch each), and loop each program over its phase's "
                f"taps only, `for kh in range((r_h + padding) % {model.code(modulus)}, K, {model.code(modulus)})` with "
                f"`ih = (oh + padding - kh) // {model.code(modulus)}` exact, so every product lands and the parity "
                "masks go; or call torch's conv_transpose (cuDNN)."
            ),
        )
