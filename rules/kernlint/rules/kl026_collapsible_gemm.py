from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo, Kernel, Launch
from kernlint.model.epilogues import Epilogue, self_attribute_root
from kernlint.model.summed import SummedLoads
from kernlint.model.syntax import keyword, literal_value, positional, walk
from kernlint.registry import Invalid, Report, Rule, Valid


class CollapsibleGemm(Rule):
    """
    ## What it does
    Finds a GEMM with a weight (an `nn.Linear` module, `F.linear`, a matmul
    by a module parameter) whose result goes, through ops that only scale
    or shift it by a number or a module attribute (`/ 2`, `* self.scale`,
    `+ self.bias`), into a sum or mean over one of its dimensions
    (`torch.sum(x, dim=1)`, `.mean(-1)`). The sum commutes with the
    product: sum_j (x W^T)_j = x (W^T 1), so the whole GEMM is a GEMV with
    the weight summed once. An average pool over disjoint windows of the
    output features (`nn.AvgPool1d(k)`, stride k, no padding) is the same
    kind of reduction: the GEMM narrows to N/k outputs with the weight's rows
    averaged in the windows.

    In a Triton kernel: a `tl.dot` accumulator reduced over its output
    columns after the K loop (`tl.sum(acc, axis=1)`), through the same kind
    of linear ops (`acc / 2`, `tl.where(mask, acc, 0.0)`, a cast), before
    its store: the kernel computes an M x N tile to keep M numbers. Or
    summed in windows of consecutive columns, an average pool in the tile
    (`tl.sum(tl.reshape(acc, (BLOCK_M, BLOCK_N // POOL, POOL)), axis=2)`):
    the product narrows to N / POOL columns of the pooled weight.

    A convolution module (`nn.Conv2d`, `nn.ConvTranspose3d`, ...) is a GEMM
    with a weight too. Its output summed or averaged through the same
    linear ops (`torch.mean(y, dim=(2, 3))`, a sum over the channels) is the
    input's sums over the windows its taps read, times the weight: one read
    of the input and a small GEMV. An average pool over disjoint windows of
    a (not transposed) convolution's positions (`nn.AvgPool2d(k)` after
    `nn.Conv2d`, no padding or ceil_mode in the pool) folds into it: one
    convolution whose kernel is the weight convolved with the pool's box,
    with the pool's stride, computes only the pooled positions. The same
    holds where the sum is written in Triton: a convolution's output handed
    to a kernel that adds up its loads before anything else (`acc +=
    tl.load(y + ...)` over a window's `tl.static_range` loops, or over a
    plane or a depth) and only then applies its sigmoid or softmax. A
    launch written in a helper that the forward hands its tensors
    (`_launch_gemm(x, self.weight, y)`, the helper returning nothing or
    `y`) counts as the forward's own.

    It stays silent when a nonlinearity (`torch.sigmoid`, `F.gelu`), a
    max or a logsumexp comes before the reduction, when the product is
    combined with another tensor first (`y * z`), when the product is
    also read whole (`y.mean(0)` beside `y.var(0)` and a kernel reading y:
    batch statistics), when the product is
    handed to another call before the sum (which may overwrite it in
    place: a loss kernel writing gradients into the logits), when no weight is
    involved (`a @ b` of two inputs: summing b's columns is itself a pass),
    on tests, benchmarks and reference implementations, and under
    `if __name__ == "__main__":`.

    ## Why is this bad?
    The GEMM does 2 M N K flops and writes an M x N output that the
    reduction reads back, to produce M numbers that 2 M K flops (and one
    read of the weight) give directly: at KernelBench's 1024 x 8192 x 8192
    the GEMM is milliseconds of work, the GEMV microseconds.

    ## Example
    ```python
    def forward(self, x):
        x = self.gemm(x)
        x = x / 2
        return torch.sum(x, dim=1, keepdim=True) * self.scaling_factor
    ```

    ## Use instead
    ```python
    def forward(self, x):
        w = self.gemm.weight.sum(0)  # [in_features]: the weight summed once
        b = self.gemm.bias.sum()
        return ((x @ w + b) / 2).unsqueeze(1) * self.scaling_factor
    ```

    ## Fix safety
    No automatic fix: the sum runs in another order (last-bit
    differences), and the summed weight must follow the weight when it
    changes (sum it per call, or cache it with the weight's version).

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl026_collapsible_gemm/` (`kernlint rule KL026` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL026"
    name = "collapsible-gemm"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.WARNING
    summary = (
        "A GEMM or convolution summed, averaged or average-pooled through linear ops only: it collapses to a GEMV "
        "(or a narrower convolution) with the weight reduced."
    )
    bottleneck = (
        "Wasted compute: the GEMM (or convolution) computes and writes a whole product that a sum, mean or "
        "average pool reduces right away, where the weight reduced once gives the same numbers from a GEMV (or a "
        "convolution computing only the pooled positions)."
    )
    method = (
        "Move the reduction through the linear ops and the GEMM or convolution: reduce the weight once (W^T 1 and "
        "the bias; a convolution's weight summed over its taps, or convolved with the pool's window), then one "
        "GEMV of the input (or one strided convolution) replaces the product and the reduction."
    )
    priority = 9
    fix_effect = "collapse_gemm"

    VALID = [
        # A LayerNorm kernel after the Linear: each row's values are summed for the mean and also read again.
        Valid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def layer_norm(y_ptr, out_ptr, N: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, N)
                v = tl.load(y_ptr + row * N + cols)
                mean = tl.sum(v, axis=0) / N
                d = v - mean
                tl.store(out_ptr + row * N + cols, d / tl.sqrt(tl.sum(d * d, axis=0) / N + 1e-5))
            class ModelNew(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gemm = nn.Linear(1024, 1024)
                def forward(self, x):
                    y = self.gemm(x)
                    out = torch.empty_like(y)
                    layer_norm[(x.shape[0],)](y, out, N=1024)
                    return out
            """
        ),
        # A Triton kernel that applies the sigmoid to each loaded value before it sums them: not linear.
        Valid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def sigmoid_sum(y_ptr, out_ptr, S, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for start in range(0, S, BLOCK):
                    cols = start + tl.arange(0, BLOCK)
                    acc += tl.sigmoid(tl.load(y_ptr + row * S + cols, mask=cols < S, other=0.0))
                tl.store(out_ptr + row, tl.sum(acc, axis=0))
            class ModelNew(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(8, 64, 3)
                def forward(self, x):
                    y = self.conv(x)
                    out = torch.empty(y.shape[0] * 64, device=y.device)
                    sigmoid_sum[(out.numel(),)](y, out, y.shape[2] * y.shape[3], BLOCK=1024)
                    return out
            """
        ),
        # A nonlinearity between the convolution and its pool: the pool does not fold into it.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(8, 64, 3)
                    self.pool = nn.AvgPool2d(4)
                def forward(self, x):
                    return self.pool(torch.relu(self.conv(x)))
            """
        ),
        # A transposed convolution's output pooled in windows: no single convolution computes the pooled values.
        Valid(
            """
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.up = nn.ConvTranspose3d(3, 16, 3, stride=2)
                    self.pool = nn.AvgPool3d(2)
                def forward(self, x):
                    return self.pool(self.up(x))
            """
        ),
        # Overlapping windows (stride 1): folding widens the kernel and keeps every position.
        Valid(
            """
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(8, 64, 3)
                    self.pool = nn.AvgPool2d(3, stride=1)
                def forward(self, x):
                    return self.pool(self.conv(x))
            """
        ),
        # A Triton GEMM tile through a ReLU before its row sum: not linear.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_rowsum(x_ptr, w_ptr, out_ptr, M, N, K, scale, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                acc = tl.where(rn[None, :] < N, acc, 0.0)
                tl.atomic_add(out_ptr + rm, tl.sum(tl.maximum(acc, 0.0), axis=1))
            """
        ),
        # The tile times another tile before its row sum (a gradient's weights): the sum does not pass through it.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_rowsum(x_ptr, w_ptr, out_ptr, M, N, K, scale, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                acc = tl.where(rn[None, :] < N, acc, 0.0)
                y = tl.load(out_ptr + rm[:, None] * N + rn[None, :])
                tl.atomic_add(out_ptr + rm, tl.sum(acc * y, axis=1))
            """
        ),
        # The tile stored whole: no reduction.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_rowsum(x_ptr, w_ptr, out_ptr, M, N, K, scale, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                acc = tl.where(rn[None, :] < N, acc, 0.0)
                tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc * scale)
            """
        ),
        # The tile stored whole, then its row sums too: the product is needed.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_rowsum(x_ptr, w_ptr, out_ptr, M, N, K, scale, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                acc = tl.where(rn[None, :] < N, acc, 0.0)
                tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc * scale)
                tl.atomic_add(out_ptr + M * N + rm, tl.sum(acc, axis=1))
            """
        ),
        # A max over windows of the tile (a max pool) does not commute with the product.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_pool(x_ptr, w_ptr, out_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, POOL: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                pooled = tl.max(tl.reshape(acc, (BM, BN // POOL, POOL)), axis=2)
                tl.atomic_max(out_ptr + rm, tl.max(pooled, axis=1), mask=rm < M)
            """
        ),
        # Windows summed after a GELU: not linear.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_pool(x_ptr, w_ptr, out_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, POOL: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                g = 0.5 * acc * (1.0 + tl.erf(acc * 0.7071067811865476))
                pooled = tl.sum(tl.reshape(g, (BM, BN // POOL, POOL)), axis=2)
                tl.atomic_max(out_ptr + rm, tl.max(pooled, axis=1), mask=rm < M)
            """
        ),
        # A Triton GEMM launch through a ReLU in its kernel, then summed in torch: not linear.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                tl.store(y_ptr + rm[:, None] * N + rn[None, :], tl.maximum(acc, 0.0))
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty((x.shape[0], self.weight.shape[0]), device=x.device)
                    gemm_kernel[(8, 8)](x, self.weight, y, 1024, 1024, 1024, BM=128, BN=128, BK=32)
                    return torch.sum(y, dim=1)
            """
        ),
        # A Triton GEMM's output averaged over the batch and also read whole (its variance, then a kernel):
        # training-mode BatchNorm statistics need the product, not only its mean.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty((x.shape[0], self.weight.shape[0]), device=x.device)
                    gemm_kernel[(8, 8)](x, self.weight, y, 1024, 1024, 1024, BM=128, BN=128, BK=32)
                    mean = y.mean(dim=0)
                    var = y.var(dim=0, unbiased=False)
                    return (y - mean) / torch.sqrt(var + 1e-5)
            """
        ),
        # A Triton GEMM of two inputs, then summed: no weight to sum once.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, x, w):
                    y = torch.empty((x.shape[0], w.shape[0]), device=x.device)
                    gemm_kernel[(8, 8)](x, w, y, 1024, 1024, 1024, BM=128, BN=128, BK=32)
                    return torch.sum(y, dim=1)
            """
        ),
        # Overlapping windows (stride 1): not an average of disjoint groups of the weight's rows.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8192, 8192)
                    self.pool = nn.AvgPool1d(16, stride=1)
                def forward(self, x):
                    return self.pool(self.fc(x).unsqueeze(1)).squeeze(1)
            def get_inputs():
                return [torch.randn(1024, 8192)]
            def get_init_inputs():
                return []
            """
        ),
        # A nonlinearity before the sum keeps the product.
        Valid(
            """
            import torch
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 64)
                def forward(self, x):
                    return torch.sum(torch.sigmoid(self.fc(x)), dim=1)
            """
        ),
        # A max is not a sum.
        Valid(
            """
            import torch
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 64)
                def forward(self, x):
                    return torch.amax(self.fc(x), dim=1)
            """
        ),
        # Two inputs multiplied: no weight to sum once.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, a, b):
                    return torch.sum(a @ b, dim=1)
            """
        ),
        # Combined with another tensor before the sum.
        Valid(
            """
            import torch
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 64)
                def forward(self, x, z):
                    y = self.fc(x) * z
                    return y.sum(dim=1)
            """
        ),
        # No reduction: the product is returned.
        Valid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 64)
                def forward(self, x):
                    return self.fc(x) * 2.0
            """
        ),
        # The product is handed to a kernel before the sum: it may be overwritten in place (gradients in logits).
        Valid(
            """
            import torch.nn as nn
            import torch.nn.functional as F
            class M(nn.Module):
                def forward(self, x, target):
                    logits = F.linear(x, self.weight, self.bias)
                    loss = cross_entropy_fwd(logits=logits, target=target)
                    return loss, logits.sum(0)
            """
        ),
        # A reference implementation kept to check a kernel against.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            def reference_sum(x, w):
                return F.linear(x, w).sum(dim=-1)
            """
        ),
    ]
    INVALID = [
        # KernelBench level2/51's shape: nn.Linear kept in torch, then a Triton kernel that averages each row
        # of its output before the GELU.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def mean_gelu(y_ptr, out_ptr, N, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for start in range(0, N, BLOCK):
                    cols = start + tl.arange(0, BLOCK)
                    acc += tl.load(y_ptr + row * N + cols, mask=cols < N, other=0.0)
                mean = tl.sum(acc, axis=0) / N
                tl.store(out_ptr + row, 0.5 * mean * (1.0 + tl.math.erf(mean * 0.7071067811865476)))
            class ModelNew(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gemm = nn.Linear(8192, 8192)
                def forward(self, x):
                    y = self.gemm(x)
                    out = torch.empty(x.shape[0], device=x.device)
                    mean_gelu[(x.shape[0],)](y, out, 8192, BLOCK=1024)
                    return out
            """,
            line=20,
            column=13,
        ),
        # The LLM-written shape of KernelBench level2/65: cuDNN's convolution, then a Triton kernel that
        # averages each 4 x 4 window of its output before the sigmoid.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def pool_sigmoid(y_ptr, out_ptr, W, PW, POOL: tl.constexpr, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for i in tl.static_range(POOL):
                    for j in tl.static_range(POOL):
                        acc += tl.load(y_ptr + (row * POOL + i) * W + cols * POOL + j, mask=cols < PW, other=0.0)
                tl.store(out_ptr + row * PW + cols, tl.sigmoid(acc / (POOL * POOL)), mask=cols < PW)
            class ModelNew(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(8, 64, 3)
                def forward(self, x):
                    y = self.conv(x).contiguous()
                    out = torch.empty(y.shape[0], 64, y.shape[2] // 4, y.shape[3] // 4, device=y.device)
                    pool_sigmoid[(out.numel() // out.shape[-1],)](y, out, y.shape[3], out.shape[3], POOL=4, BLOCK=32)
                    return out
            """,
            line=20,
            column=13,
        ),
        # KernelBench level2/65's shape of code: a 3x3 convolution, then an average pool over 4 x 4 windows.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(8, 64, 3)
                    self.pool = nn.AvgPool2d(4)
                def forward(self, x):
                    y = self.conv(x)
                    y = self.pool(y * 0.5)
                    return torch.sigmoid(y).sum(dim=[1, 2, 3])
            """,
            line=10,
            column=13,
        ),
        # A transposed convolution's output averaged over its positions (a global average pool).
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.up = nn.ConvTranspose2d(64, 128, 3, stride=2)
                def forward(self, x):
                    y = self.up(x) + self.bias
                    return torch.logsumexp(torch.mean(y, dim=(2, 3), keepdim=True), dim=1)
            """,
            line=9,
            column=13,
        ),
        # A Triton kernel's tl.dot tile halved, masked and summed over its columns (atomically across N tiles).
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_rowsum(x_ptr, w_ptr, out_ptr, M, N, K, scale, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                acc = tl.where(rn[None, :] < N, acc, 0.0)
                acc = acc / 2.0
                tl.atomic_add(out_ptr + rm, tl.sum(acc, axis=1) * scale, mask=rm < M)
            """,
            line=16,
            column=33,
        ),
        # KernelBench level2/98 (Matmul, AvgPool, GELU, Scale, Max) fused into one kernel: the bias added and
        # the tile averaged in windows of POOL output columns before the GELU.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_pool(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, POOL: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                acc += tl.load(b_ptr + rn)[None, :]
                pooled = tl.sum(tl.reshape(acc, (BM, BN // POOL, POOL)), axis=2) * (1.0 / POOL)
                g = 0.5 * pooled * (1.0 + tl.erf(pooled * 0.7071067811865476))
                tl.atomic_max(out_ptr + rm, tl.max(g, axis=1), mask=rm < M)
            """,
            line=15,
            column=14,
        ),
        # The same with a bias row added and the halving written in place (`acc += ...`, `acc /= ...`).
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_rowsum(x_ptr, w_ptr, out_ptr, M, N, K, scale, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                acc = tl.where(rn[None, :] < N, acc, 0.0)
                acc += tl.load(w_ptr + rn)[None, :]
                acc /= 2.0
                tl.atomic_add(out_ptr + rm, tl.sum(acc, axis=1) * scale, mask=rm < M)
            """,
            line=17,
            column=33,
        ),
        # A Triton GEMM launch by a parameter, halved in its kernel, then summed in torch (level 2 problem 14 as
        # a code generator writes it).
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc / 2.0)
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    y = torch.empty((x.shape[0], self.weight.shape[0]), device=x.device)
                    gemm_kernel[(8, 8)](x, self.weight, y, 1024, 1024, 1024, BM=128, BN=128, BK=32)
                    return torch.sum(y, dim=1, keepdim=True) * self.scaling_factor
            """,
            line=19,
            column=9,
        ),
        # The same GEMM behind a wrapper function that returns its output.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def gemm_kernel(x_ptr, w_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rn = tl.program_id(1) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc)
            def triton_linear(x, w):
                y = torch.empty((x.shape[0], w.shape[0]), device=x.device)
                gemm_kernel[(8, 8)](x, w, y, 1024, 1024, 1024, BM=128, BN=128, BK=32)
                return y
            class ModelNew(torch.nn.Module):
                def forward(self, x):
                    return triton_linear(x, self.weight).mean(dim=-1)
            """,
            line=22,
            column=16,
        ),
        # An average pool over disjoint windows of a Linear's output features (nn.AvgPool1d(k), stride k).
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(8192, 8192)
                    self.pool = nn.AvgPool1d(16)
                def forward(self, x):
                    y = self.pool(self.fc(x).unsqueeze(1)).squeeze(1)
                    return torch.max(y * 2.0, dim=1).values
            def get_inputs():
                return [torch.randn(1024, 8192)]
            def get_init_inputs():
                return []
            """,
            line=10,
            column=23,
        ),
        # KernelBench level 2 problem 14.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, input_size, hidden_size, scaling_factor):
                    super().__init__()
                    self.weight = nn.Parameter(torch.randn(hidden_size, input_size))
                    self.scaling_factor = scaling_factor
                def forward(self, x):
                    x = torch.matmul(x, self.weight.T)
                    x = x / 2
                    x = torch.sum(x, dim=1, keepdim=True)
                    return x * self.scaling_factor
            """,
            line=10,
            column=13,
        ),
        # KernelBench level 2 problem 18's opening: a Linear module summed over its outputs.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, in_features, out_features):
                    super().__init__()
                    self.linear = nn.Linear(in_features, out_features)
                def forward(self, x):
                    x = self.linear(x)
                    x = torch.sum(x, dim=1, keepdim=True)
                    return torch.logsumexp(x, dim=1, keepdim=True)
            """,
            line=9,
            column=13,
        ),
        # A subtracted parameter, then a mean (level 2 problem 51's opening).
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.gemm = nn.Linear(512, 1024)
                    self.subtract = nn.Parameter(torch.randn(1024))
                def forward(self, x):
                    x = self.gemm(x)
                    x = x - self.subtract
                    return torch.mean(x, dim=1, keepdim=True)
            """,
            line=10,
            column=13,
        ),
        # F.linear and the method spelling of the sum.
        Invalid(
            """
            import torch.nn.functional as F
            from torch import nn
            class M(nn.Module):
                def forward(self, x):
                    return (F.linear(x, self.w, self.b) * 0.5).sum(-1)
            """,
            line=6,
            column=17,
        ),
        # `@` by a parameter, an augmented scale.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, h):
                    y = h @ self.proj
                    y *= 3.0
                    return y.mean(dim=0)
            """,
            line=5,
            column=13,
        ),
        # In a helper that forward calls.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(32, 32)
                def score(self, x):
                    return torch.sum(self.fc(x) + 1.0, dim=-1)
                def forward(self, x):
                    return self.score(x)
            """,
            line=9,
            column=26,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for kernel in model.kernel_list:
            yield from self._kernel_sums(model, kernel)
        hot = model.hot_functions
        wrappers = model.gemm_wrappers()
        for function in model.functions:
            if function not in hot or model.kernel_of(function) is not None or model.is_reference_code(function):
                continue
            producers: list[cst.CSTNode] = [*function.matmul_ops, *function.calls]
            for producer in producers:
                if model.in_main_guard(producer) or id(producer) in model.dead_node_ids:
                    continue  # a GEMM whose result is thrown away: KL027's finding
                tail = model.collapsible_reduction(producer, function)
                if tail is None and isinstance(producer, cst.Call):
                    tail = self._launched_gemm_sum(model, function, producer, wrappers)
                if tail is not None:
                    yield self._report(model, function, producer, tail)
                else:
                    yield from self._summed_in_kernel(model, function, producer)

    def _summed_in_kernel(self, model: FileModel, function: FunctionInfo, call: cst.CSTNode) -> Iterator[Report]:
        """A convolution's or a weight GEMM's output handed to a Triton kernel that adds up its loads before
        any other use (`SummedLoadFacts.summed_loads`): an average pool, a mean or a row sum written in Triton
        after the product, which collapses into it as a torch reduction does."""
        module = model.conv_call_kind(call, function) if isinstance(call, cst.Call) else None
        readers = model.product_output_launches(call, function) or self._gemm_launch_readers(model, function, call)
        for launch, param in readers:
            summed = next((s for s in model.summed_loads(launch.kernel) if s.param == param), None)
            if summed is None or (module and "Transpose" in module and summed.trips is not None):
                continue  # a window after a transposed convolution: no convolution computes the pooled values
            if module is None:
                yield self._gemm_summed_report(model, function, call, launch, summed)
                return
            conv = " ".join(model.code(call).split())
            kind = module
            if summed.trips is not None:
                message = (
                    f"`{conv}` ({kind}) in `{function.qualname}` hands its output to `{launch.kernel.name}`, "
                    f"which adds up each window of it (`{summed.accumulator} += ...`) before anything else: an "
                    "average pool, which folds into the convolution, so every output position is computed and "
                    "written to keep one per window"
                )
                plan = (
                    f"Fold the window into `{conv}`: one convolution whose kernel is the weight convolved with the "
                    "window's box (each side dilation * (kernel - 1) + 1 + stride * (window - 1)), at stride times "
                    f"the window, same padding and bias, computes the pooled values; `{launch.kernel.name}` then "
                    "reads them instead of the full output and keeps the rest of its work (scale by 1 / taps if it "
                    "divides). Remake the folded weight when the weight changes."
                )
            else:
                message = (
                    f"`{conv}` ({kind}) in `{function.qualname}` hands its output to `{launch.kernel.name}`, "
                    f"which sums it (`{summed.accumulator}`) before anything else: the sum commutes with the "
                    "convolution, so its whole output is computed and written to be reduced away"
                )
                plan = (
                    f"Replace `{conv}` and the sum in `{launch.kernel.name}` with the reduction of the "
                    "convolution's input: per input channel and tap, the input summed over the window that tap "
                    "reads (the whole input for an unpadded transposed convolution), times the weight summed the "
                    "same way, plus the bias; the kernel's work after its sum then runs on those few values. "
                    "Keep the reduced weight in step with the weight."
                )
            yield Report(node=call, message=message, plan=plan)
            return

    def _gemm_launch_readers(
        self, model: FileModel, function: FunctionInfo, call: cst.CSTNode
    ) -> list[tuple[Launch, str]]:
        """For a launch of a tl.dot GEMM kernel by a module parameter that stores its tile through linear ops
        into a buffer allocated here: the later launches in `function` handed that buffer (not rebound
        between), with the parameter that receives it."""
        if not isinstance(call, cst.Call):
            return []
        # The launch itself, or a helper's launch into the caller's buffer (FileModel.launches_in).
        launches = [x for x in model.launches_in(function) if x.node is call]
        # A weight among the tensors, positional or by keyword (not a tile size read from the module:
        # `BLOCK_M=self.BLOCK_M`, a constexpr parameter).
        if not launches:
            return []
        constexprs = launches[0].kernel.constexprs
        if not any(
            self_attribute_root(argument) and param not in constexprs
            for param, argument in launches[0].arguments.items()
        ):
            return []
        output = model.launch_output(launches[0])
        if output is None or not _stores_linear_tile(model.home_of(launches[0].kernel), launches[0].kernel):
            return []
        buffer = model.assigned_value(function, output, before=call, strict=True)
        shape = positional(buffer)[0] if isinstance(buffer, cst.Call) and positional(buffer) else None
        if isinstance(shape, (cst.Tuple, cst.List)) and len(shape.elements) != 2:
            return []  # split-K partial products ([S, M, N]) summed by the next kernel: the GEMM's own reduction
        found = []
        for later in model.launches_in(function):
            if later.node is call or model.line_of(later.node) <= model.line_of(call):
                continue
            for param, argument in later.arguments.items():
                if isinstance(argument, cst.Name) and argument.value == output:
                    if model.assigned_value(function, output, before=later.node, strict=True) is buffer:
                        found.append((later, param))
        return found

    def _gemm_summed_report(
        self, model: FileModel, function: FunctionInfo, call: cst.CSTNode, launch: Launch, summed: SummedLoads
    ) -> Report:
        gemm = " ".join(model.code(call).split())
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Subscript):
            gemm = f"{model.code(call.func)}(...)"
        if summed.trips is not None:
            message = (
                f"`{gemm}` in `{function.qualname}` hands its output to `{launch.kernel.name}`, which adds up "
                f"windows of it (`{summed.accumulator} += ...`) before anything else: an average pool over the "
                "GEMM's output features commutes with it, so each window's features are computed to keep one"
            )
            plan = (
                f"Narrow the GEMM: average the weight's rows (and the bias) in the windows once, multiply the input "
                f"by that N/k x K weight, and let `{launch.kernel.name}` read the M x N/k result instead of "
                "summing windows; keep the averaged weight in step with the weight."
            )
        else:
            message = (
                f"`{gemm}` in `{function.qualname}` hands its output to `{launch.kernel.name}`, which sums it "
                f"(`{summed.accumulator}`) before anything else: the sum commutes with the GEMM, so the M x N "
                "product is computed to be reduced away"
            )
            plan = (
                "Replace the GEMM and the kernel's sum with a GEMV: sum the weight once over the reduced dimension "
                f"(W^T 1, and the bias the same way), multiply the input by that vector, and let "
                f"`{launch.kernel.name}` start from the M results; keep the summed weight in step with the weight."
            )
        return Report(node=call, message=message, plan=plan)

    def _launched_gemm_sum(
        self, model: FileModel, function: FunctionInfo, call: cst.Call, wrappers: frozenset[str]
    ) -> Epilogue | None:
        """A Triton GEMM (a launch of a tl.dot kernel, or a call of this file's function that launches one and
        returns its output) by a module parameter, whose kernel stores the tile through linear ops only, then
        summed in torch through linear ops: the same collapse as a torch GEMM's."""
        if isinstance(call.func, cst.Name) and call.func.value in wrappers:
            launches = [x for x in model.launches if x.caller.name == call.func.value and x.caller.class_name is None]
            output = None
        else:
            launches = [x for x in model.launches if x.node is call]
            output = model.launch_output(launches[0]) if launches else None
            if output is None:
                return None
        if not launches or not any(self_attribute_root(a.value) for a in call.args if a.keyword is None):
            return None  # two inputs multiplied: no weight to sum once (`BLOCK_M=self.BLOCK_M` is no weight)
        tail = model.collapsible_tail(call, function, name=output)
        # A kernel imported from another module of the project is read in the model of its own file. (Asked
        # last: following the tile through the kernel costs more than the checks above, which most calls fail.)
        if tail is None or not all(_stores_linear_tile(model.home_of(x.kernel), x.kernel) for x in launches):
            return None
        return tail

    def _kernel_sums(self, model: FileModel, kernel: Kernel) -> Iterator[Report]:
        """A Triton kernel's tl.dot accumulator summed over its N axis (`tl.sum(acc, axis=1)`) after the K
        loop, through linear ops only: the kernel computes a GEMM tile to keep one number per row of it."""
        if not model.kernel_uses(kernel, "sum"):
            return  # the function index answers this without a walk of the body: most kernels stop here
        found: cst.Call | None = None
        window = model.tile_window(kernel)  # `tl.sum(tl.reshape(t, (BM, BN // POOL, POOL)), axis=2)`
        params = {p.name for p in kernel.params}
        for statement, linear, sums, outside in _tile_flow(model, kernel):
            if statement is None or outside:
                # The tile read outside its reduction (stored, or fed to anything but the sum): the product is
                # needed whole, not only its row sums.
                return
            for total in sums:
                args = positional(total)
                axis = keyword(total, "axis") or (args[1] if len(args) > 1 else None)
                if found is not None or not args or axis is None:
                    continue
                if window is not None and total is window.sum:
                    if _linear(model, window.tile, linear, params):
                        found = total
                elif literal_value(axis) in (1, -1) and _linear(model, args[0], linear, params):
                    found = total
        if found is not None:
            yield self._kernel_report(model, kernel, found, windowed=window is not None and found is window.sum)

    def _kernel_report(self, model: FileModel, kernel: Kernel, total: cst.Call, windowed: bool = False) -> Report:
        summed = " ".join(model.code(total).split())
        if windowed:
            message = (
                f"`{kernel.name}` computes a tl.dot GEMM tile and sums it in windows of consecutive output "
                f"columns (`{summed}`) through linear ops only: the average pool commutes with the product, so "
                "each window's columns are computed to keep one number"
            )
            plan = (
                f"Narrow the GEMM in `{kernel.name}`: average the weight's rows (and the bias) in the pool's "
                "windows once on the host (`w_pool = weight.view(N // POOL, POOL, K).mean(1)`), then run the "
                "kernel's product over the N / POOL pooled columns with that weight, dropping the reshape and "
                "the sum, and apply the rest of the epilogue to its result; keep the pooled weight in step "
                "with the weight."
            )
            return Report(node=total, message=message, plan=plan)
        message = (
            f"`{kernel.name}` computes a tl.dot GEMM tile and reduces it over its output columns (`{summed}`) "
            "through linear ops only: the sum commutes with the product, so the M x N tile is computed to keep M numbers"
        )
        plan = (
            f"Replace the GEMM in `{kernel.name}` with a GEMV: sum the weight over its output rows once on the host "
            "(`w_sum = weight.sum(0)`, the K-vector W^T 1; weighted by any per-column scale), then compute each "
            "row's dot product with it (`x @ w_sum`, or a Triton kernel that streams x once) and apply the scales "
            "and shifts to the M results; keep the summed weight in step with the weight."
        )
        return Report(node=total, message=message, plan=plan)

    def _report(self, model: FileModel, function: FunctionInfo, producer: cst.CSTNode, tail: Epilogue) -> Report:
        gemm = " ".join(model.code(producer).split())
        if isinstance(producer, cst.Call) and isinstance(producer.func, cst.Subscript):
            gemm = f"{model.code(producer.func)}(...)"  # a Triton launch: its kernel and grid say which
        ops = ", ".join(f"`{op}`" for op in tail.ops)
        conv = model.called_module(producer, function) if isinstance(producer, cst.Call) else None
        if conv is not None and "Conv" in conv:
            return self._conv_report(model, function, producer, tail, gemm, ops, conv.rsplit(".", 1)[-1])
        if tail.ops[-1].strip(".()").rsplit(".", 1)[-1].strip("()") not in ("sum", "mean"):
            # An average pool over disjoint windows of the output features (nn.AvgPool1d(k)).
            message = (
                f"`{gemm}` in `{function.qualname}` is averaged over disjoint windows of its output features "
                f"through linear ops only ({ops}): the average commutes with the GEMM, so k output features are "
                "computed for every one kept"
            )
            plan = (
                f"Replace `{gemm}` and {ops} with a narrower GEMM: average the weight's rows (and the bias) once "
                "in the pool's windows, giving an N/k x K weight, multiply the input by it and apply the scales "
                "and shifts to the M x N/k results; keep the averaged weight in step with the weight."
            )
            return Report(node=producer, message=message, plan=plan)
        message = (
            f"`{gemm}` in `{function.qualname}` is summed over a dimension through linear ops only ({ops}): "
            "the sum commutes with the GEMM, so the M x N product is computed to be reduced away"
        )
        plan = (
            f"Replace `{gemm}` and {ops} with a GEMV: sum the weight once over the reduced dimension (W^T 1, "
            "and the bias the same way), multiply the input by that vector, and apply the scales and shifts to "
            "the M results; keep the summed weight in step with the weight (sum it per call, or cache it with the "
            "weight's version)."
        )
        return Report(node=producer, message=message, plan=plan)

    def _conv_report(
        self,
        model: FileModel,
        function: FunctionInfo,
        producer: cst.CSTNode,
        tail: Epilogue,
        conv: str,
        ops: str,
        module: str,
    ) -> Report:
        if tail.ops[-1].strip(".()").rsplit(".", 1)[-1].strip("()") not in ("sum", "mean"):
            # An average pool over disjoint windows of the convolution's positions (nn.AvgPool2d(k)).
            message = (
                f"`{conv}` (nn.{module}) in `{function.qualname}` is averaged over disjoint windows of its output "
                f"positions through linear ops only ({ops}): the pool folds into the convolution, so every output "
                "position is computed and written to keep one in k per dimension"
            )
            plan = (
                f"Fold the pool into `{conv}`: one convolution whose kernel is the weight convolved with the "
                "pool's k x k box divided by its size (each side dilation * (kernel - 1) + 1 + stride * (k - 1)), "
                "with stride times k, the same padding and the same bias, replaces the convolution and the pool "
                f"(`F.conv{module[-2]}d(x, w_folded, bias, stride=stride * k, padding=padding)`); apply the "
                "scales and shifts to its pooled output, and remake the folded weight when the weight changes."
            )
            return Report(node=producer, message=message, plan=plan)
        message = (
            f"`{conv}` (nn.{module}) in `{function.qualname}` is summed or averaged over a dimension through "
            f"linear ops only ({ops}): the reduction commutes with the convolution, so its whole output is "
            "computed and written to be reduced away"
        )
        plan = (
            f"Replace `{conv}` and {ops} with the reduction of its input: a mean over the output positions is, "
            "per input channel and tap, the input summed over the window that tap reads (the whole input for "
            "an unpadded transposed convolution; a sum over a rectangle per tap otherwise), times the weight "
            "summed the same way, plus the bias; a sum over the channels is one convolution with the weight "
            "summed over its output channels. One read of the input and a small GEMV replace the convolution; "
            "keep the reduced weight in step with the weight."
        )
        return Report(node=producer, message=message, plan=plan)


def _tile_flow(
    model: FileModel, kernel: Kernel
) -> Iterator[tuple[cst.BaseSmallStatement | None, set[str], list[cst.Call], bool]]:
    """Follows a GEMM kernel's tl.dot accumulator (a K loop streaming both operands) through its statements:
    yields each statement with the names then holding a linear function of the tile, the statement's `tl.sum`
    calls, and whether it is a statement after the loop (not an assignment) that reads the tile outside those
    sums (a store, say). Yields `(None, ...)` and stops where an assignment feeds the tile to anything but a
    linear op or a sum (a nonlinearity, another product)."""
    if not model.kernel_uses(kernel, "dot"):
        return
    loops = model.dot_loops(kernel)
    # A GEMM's K loop (both operands stream from memory), not attention's chained products.
    if not loops or not all(loop.streams_both for loop in loops):
        return
    params = {p.name for p in kernel.params}
    dots = {id(dot) for loop in loops for dot in loop.dots}
    after = max(model.line_of(loop.loop.node) for loop in loops)
    linear: set[str] = set()
    for statement in _in_order(kernel.node.body):
        sums = [n for n in walk(statement) if isinstance(n, cst.Call) and model.is_tl(n.func, "sum")]
        if not isinstance(statement, (cst.Assign, cst.AugAssign)):
            outside = model.line_of(statement) > after and _read_outside(statement, sums, linear)
            yield statement, linear, sums, outside
            continue
        value = statement.value
        if isinstance(statement, cst.AugAssign):
            targets: list[cst.BaseExpression] = [statement.target]
        else:
            targets = [t.target for t in statement.targets]
        names = [t.value for t in targets if isinstance(t, cst.Name)]
        if any(id(n) in dots for n in walk(value)):
            linear.update(names)  # the accumulator: `acc += tl.dot(a, b)`, `acc = tl.dot(a, b, acc)`
        elif model.line_of(statement) > after:
            if isinstance(statement, cst.AugAssign) and isinstance(statement.target, cst.Name):
                # `acc += bias[None, :]`, `acc *= scale`: the binary operation it stands for.
                operator = AUGMENTED.get(type(statement.operator))
                value = (
                    cst.BinaryOperation(left=statement.target, operator=operator(), right=statement.value)
                    if operator is not None
                    else statement.value
                )
                keeps = operator is not None and _linear(model, value, linear, params)
            else:
                keeps = _linear(model, value, linear, params)
            if not keeps and _read_outside(value, sums, linear):
                yield None, linear, sums, True
                return
            for name in names:
                (linear.add if keeps else linear.discard)(name)
        yield statement, linear, sums, False


def _linear_store(model: FileModel, statement: cst.BaseSmallStatement, linear: set[str], params: set[str]) -> bool:
    """`tl.store(ptrs, acc * scale, mask=...)`: the statement stores a linear function of the tile, and reads it
    nowhere else."""
    if not isinstance(statement, cst.Expr) or not isinstance(statement.value, cst.Call):
        return False
    call = statement.value
    if not model.is_tl(call.func, "store"):
        return False
    args = positional(call)
    value = keyword(call, "value") or (args[1] if len(args) > 1 else None)
    if value is None or not _linear(model, value, linear, params):
        return False
    return not any(_read_outside(a.value, [], linear) for a in call.args if a.value is not value)


def _stores_linear_tile(model: FileModel, kernel: Kernel) -> bool:
    """The kernel is a GEMM whose every use of its tl.dot tile after the K loop is a store of a linear function
    of it (`tl.store(c_ptrs, acc / 2)`): its output is the product, scaled or shifted."""
    stored = False
    params = {p.name for p in kernel.params}
    for statement, linear, _, outside in _tile_flow(model, kernel):
        if statement is None:
            return False
        if outside:
            if not _linear_store(model, statement, linear, params):
                return False
            stored = True
    return stored


AUGMENTED: dict[type, type] = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
}


def _linear(model: FileModel, node: cst.BaseExpression, names: set[str], params: set[str]) -> bool:
    """`node` is a linear (affine) function of the accumulator `names`: scaled or shifted by a number, a
    scalar parameter of the kernel or a row vector broadcast over the rows (`scale[None, :]`), masked to zero
    (`tl.where(mask, acc, 0.0)`), cast; not a nonlinearity, nor a product with another tile (its values
    differ per row and column, so the sum does not pass through it)."""

    def uses(expr: cst.BaseExpression) -> bool:
        return any(isinstance(n, cst.Name) and n.value in names for n in walk(expr))

    def per_column(expr: cst.BaseExpression) -> bool:
        if isinstance(expr, (cst.Integer, cst.Float)) or isinstance(expr, cst.Name) and expr.value in params:
            return True
        if isinstance(expr, cst.Subscript) and len(expr.slice) == 2:
            first = expr.slice[0].slice  # `v[None, :]`: one value per column
            return isinstance(first, cst.Index) and isinstance(first.value, cst.Name) and first.value.value == "None"
        return isinstance(expr, cst.BinaryOperation) and per_column(expr.left) and per_column(expr.right)

    if isinstance(node, cst.Name):
        return node.value in names
    if isinstance(node, cst.BinaryOperation):
        left, right = uses(node.left), uses(node.right)
        if isinstance(node.operator, (cst.Add, cst.Subtract)):
            return all(
                _linear(model, side, names, params) if used else per_column(side)
                for side, used in ((node.left, left), (node.right, right))
            )
        if isinstance(node.operator, cst.Multiply):
            return left != right and (
                _linear(model, node.left, names, params) and per_column(node.right)
                if left
                else _linear(model, node.right, names, params) and per_column(node.left)
            )
        if isinstance(node.operator, cst.Divide):
            return left and not right and _linear(model, node.left, names, params) and per_column(node.right)
        return False
    if isinstance(node, cst.Call):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "to":
            return _linear(model, node.func.value, names, params)
        if model.is_tl(node.func, "where"):
            args = positional(node)
            return (
                len(args) == 3
                and not uses(args[0])
                and any(
                    literal_value(a) == 0 and _linear(model, b, names, params)
                    for a, b in ((args[2], args[1]), (args[1], args[2]))
                )
            )
    return False


def _read_outside(node: cst.CSTNode, sums: list[cst.Call], names: set[str]) -> bool:
    """`node` reads one of `names` other than inside one of the `sums`."""
    inside = {id(n) for total in sums for n in walk(total)}
    return any(isinstance(n, cst.Name) and n.value in names and id(n) not in inside for n in walk(node))


def _in_order(block: cst.BaseSuite) -> Iterator[cst.BaseSmallStatement]:
    """The simple statements of a block in source order, those of nested blocks where they stand."""
    for statement in getattr(block, "body", ()):
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, cst.BaseCompoundStatement):
            yield from _in_order(statement.body)
            orelse = getattr(statement, "orelse", None)
            if orelse is not None:
                yield from _in_order(orelse.body if isinstance(orelse, (cst.Else, cst.If)) else orelse)
