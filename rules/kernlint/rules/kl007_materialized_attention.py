from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo
from kernlint.model.attention import AttentionChain
from kernlint.model.shapes import (
    FLASH_HEAD_DIM,
    Op,
    from_inputs,
    head_dim,
    mixes_values,
    reads_grid_statistic,
    written_by,
)
from kernlint.model.syntax import keyword, literal_value
from kernlint.registry import Invalid, Report, Rule, Valid


class MaterializedAttention(Rule):
    """
    ## What it does
    Finds attention computed in torch by materializing the full score
    matrix: a matmul of queries and keys (`q @ k.transpose(-2, -1)`,
    `torch.matmul`, `torch.bmm`, `torch.baddbmm`, `q.matmul(...)`, a
    two-operand `torch.einsum`), a softmax of it (`torch.softmax`,
    `F.softmax`, `scores.softmax(-1)`, an `nn.Softmax` module, or a function
    of the file named for a softmax that launches a Triton kernel, as
    generated solutions write `triton_softmax(scores)`), and a matmul
    of the probabilities with values (`attn @ v`). The chain is followed
    through local names and through the scaling, masking (`masked_fill`,
    `+ mask`, `torch.where`), casting (`.float()`, `.to(q.dtype)`) and
    dropout between the three steps. In a KernelBench-style forward, at the
    file's shapes, it also follows attention built from launches that write
    into buffers: scores from a Triton `tl.dot` kernel (or a torch matmul),
    also one a helper launches into a buffer it is handed (`_bmm(q, k, S)`),
    a Triton kernel of the file without `tl.dot` that exponentiates and
    reduces over rows (a softmax, in place or not), and a product of the
    result with the values (an activation: a product with only a module
    parameter after such a kernel is a projection after a whole attention
    kernel, and a causal kernel whose key loop ends at the program's row
    counts); that form's fix is Operator Fusion (the file's own kernels made one),
    where attention in torch ops is Algorithm Replacement (SDPA's kernel).
    There the softmax may also be an activation (ReLU attention, the ReLU in
    the scores' kernel or a kernel after it): a product of two activations
    whose result is at least twice the larger of them (seq x seq against
    seq x head_dim), multiplied by the values as it was written.
    It also finds an `nn.MultiheadAttention`
    module called in a model's forward with `need_weights` left True (the
    default), which makes PyTorch take that unfused path and average the
    weights over the heads; `need_weights=False` lets it run SDPA's kernel.

    It stays silent when a matmul multiplies by a module parameter (`x @
    self.W`: a projection, not attention), when the softmax kernel reads
    statistics the scores' launch accumulated over its whole grid (a batch
    norm of NetVLAD's assignments: it waits for every score, so one pass
    over the keys cannot do it), when the softmax output is not
    multiplied again (a classifier's probabilities), when the three steps do
    not connect through the data, when the file's shapes give a head
    dimension over 256 (KernelBench's level-1 SDPA problem has 1,024: no
    fused kernel takes it, FlashAttention-2's and PyTorch's flash backend's
    limit, so PyTorch's SDPA also writes the scores), under `if __name__ == "__main__":`, and in
    tests, benchmarks and reference implementations (`test_*`, `bench*`,
    `*_ref`, `*reference*`, `*naive*`, files under tests/ or benchmarks/),
    which exist to be compared with a fused kernel.

    ## Why is this bad?
    The score matrix has `seq_len x seq_len` elements per head. Writing it to
    memory, reading it back for the softmax, writing the probabilities and
    reading them again for the second matmul is four passes over a tensor
    that grows quadratically with the sequence, plus one kernel launch per
    step. At 4k tokens, 32 heads and fp16 that is 1 GiB of traffic per layer
    for a result of a few MiB. A fused kernel keeps each tile of scores in
    registers and never writes it.

    ## Example
    ```python
    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) * self.scale
        attn = torch.softmax(scores, dim=-1)
        return attn @ v
    ```

    ## Use instead
    ```python
    def forward(self, q, k, v):
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=self.scale)
    ```
    or a Triton flash-attention kernel: one program per block of queries
    walks the keys in tiles, keeping a running max and a rescaled running sum
    (online softmax) and the output accumulator on chip.

    ## Fix safety
    No automatic fix: masks, dropout and custom scaling between the steps
    must be mapped to `attn_mask`/`is_causal`/`dropout_p`/`scale`, and a
    fused kernel changes the rounding (the probabilities are never rounded to
    the input dtype).
    """

    code = "KL007"
    name = "materialized-attention"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.WARNING
    summary = "Attention materializes the full score matrix between a matmul, a softmax (or activation) and a matmul."
    bottleneck = (
        "Memory traffic quadratic in the sequence: the seq x seq score and probability matrices are "
        "written and read back between three separate kernels."
    )
    method = (
        "Fuse the three steps into one flash-attention kernel (an online softmax, or the activation applied per "
        "tile), or call torch.nn.functional.scaled_dot_product_attention for a softmax, so scores never leave "
        "the chip."
    )
    priority = 10
    fix_effect = "flash_attention"

    VALID = [
        # KernelBench's reference `Model` beside the solution `ModelNew`: the torch code being replaced.
        Valid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            class Model(nn.Module):
                def forward(self, q, k, v):
                    return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
            class ModelNew(nn.Module):
                def forward(self, q, k, v):
                    return F.scaled_dot_product_attention(q, k, v)
            def get_inputs():
                return [torch.randn(2, 8, 1024, 64) for _ in range(3)]
            def get_init_inputs():
                return []
            """
        ),
        # nn.MultiheadAttention told not to return the weights: PyTorch runs SDPA's fused kernel.
        Valid(
            """
            import torch.nn as nn
            class Block(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.attn = nn.MultiheadAttention(256, 8)
                def forward(self, x):
                    return self.attn(x, x, x, need_weights=False)[0]
            """
        ),
        # The library call already fuses it.
        Valid(
            """
            import torch.nn.functional as F
            def attention(q, k, v):
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
            """
        ),
        # One weight both ways (logits, then the gradient of a loss through them): not q, k and v.
        # The softmax reads the logits of line 5: the statement it is in has not assigned yet.
        Valid(
            """
            import torch
            def loss_grad(x, w, t):
                logits = (x @ w.t()).float()
                logits = logits / t
                logits = (
                    torch.log_softmax(logits, -1) - torch.softmax(logits, -1)
                ) / t
                return logits.to(x.dtype) @ w
            """
        ),
        # A projection by a module parameter feeding a softmax, then a weight: not attention.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Pool(nn.Module):
                def __init__(self, d, n):
                    super().__init__()
                    self.w = nn.Parameter(torch.randn(d, n))
                    self.proto = nn.Parameter(torch.randn(n, d))
                def forward(self, x):
                    logits = x @ self.w
                    return logits.softmax(-1) @ self.proto
            """
        ),
        # A softmax whose output is not multiplied again (classifier probabilities).
        Valid(
            """
            import torch
            from torch import matmul
            def classify(x, w):
                logits = matmul(x, w)
                probs = torch.softmax(logits, dim=-1)
                return probs.argmax(-1)
            """
        ),
        # The softmax input does not come from a matmul.
        Valid(
            """
            import torch
            def mix(gates, v):
                weights = torch.softmax(gates * 2.0, dim=-1)
                return weights @ v
            """
        ),
        # Tests and reference implementations exist to be compared with a fused kernel.
        Valid(
            """
            import torch
            def attention_reference(q, k, v):
                return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
            def test_flash(q, k, v):
                s = torch.matmul(q, k.mT)
                assert torch.allclose(flash(q, k, v), s.softmax(-1) @ v)
            """
        ),
        # Under the main guard.
        Valid(
            """
            import torch
            if __name__ == "__main__":
                q = k = v = torch.randn(2, 8, 16)
                print(torch.softmax(q @ k.transpose(1, 2), -1) @ v)
            """
        ),
        # Two unrelated matmuls around a softmax: the data does not connect.
        Valid(
            """
            import torch
            def f(a, b, c, d, e):
                s = a @ b
                p = torch.softmax(c, dim=-1)
                return p @ d, s @ e
            """
        ),
        # Linear attention: k^T v first, a head_dim x head_dim product per head, then q times it. Nothing
        # seq x seq is materialized.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def kv_kernel(k_ptr, v_ptr, kv_ptr, T, D: tl.constexpr, BT: tl.constexpr):
                bh = tl.program_id(0)
                rd = tl.arange(0, D)
                acc = tl.zeros((D, D), dtype=tl.float32)
                for t in range(0, T, BT):
                    rt = t + tl.arange(0, BT)
                    k = tl.load(k_ptr + bh * T * D + rt[None, :] * D + rd[:, None])
                    v = tl.load(v_ptr + bh * T * D + rt[:, None] * D + rd[None, :])
                    acc = tl.dot(k, v, acc)
                tl.store(kv_ptr + bh * D * D + rd[:, None] * D + rd[None, :], acc)
            class ModelNew(torch.nn.Module):
                def forward(self, q, k, v):
                    B, H, T, D = q.shape
                    kv = torch.empty((B, H, D, D), device=q.device)
                    kv_kernel[(B * H,)](k, v, kv, T, D=D, BT=64)
                    return torch.matmul(torch.relu(q), kv)
            def get_inputs():
                return [torch.randn(16, 12, 1024, 64), torch.randn(16, 12, 1024, 64), torch.randn(16, 12, 1024, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # NetVLAD with its assignments batch-normed: the softmax kernel reads statistics the whole scores grid
        # accumulated, so it waits for every score; x is read twice whatever is fused.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def logits_kernel(x_ptr, c_ptr, s_ptr, st_ptr, D: tl.constexpr, K: tl.constexpr, BM: tl.constexpr):
                rm = tl.program_id(0) * BM + tl.arange(0, BM)
                rd = tl.arange(0, D)
                rk = tl.arange(0, K)
                x = tl.load(x_ptr + rm[:, None] * D + rd[None, :])
                c = tl.load(c_ptr + rd[:, None] * K + rk[None, :])
                s = tl.dot(x, c)
                tl.store(s_ptr + rm[:, None] * K + rk[None, :], s)
                tl.atomic_add(st_ptr + rk, tl.sum(s, axis=0))
            @triton.jit
            def bn_softmax_kernel(s_ptr, st_ptr, a_ptr, inv_n, K: tl.constexpr):
                row = tl.program_id(0)
                rk = tl.arange(0, K)
                s = tl.load(s_ptr + row * K + rk) - tl.load(st_ptr + rk) * inv_n
                e = tl.exp(s - tl.max(s, axis=0))
                tl.store(a_ptr + row * K + rk, e / tl.sum(e, axis=0))
            class ModelNew(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.clusters = torch.nn.Parameter(torch.randn(512, 32))
                def forward(self, x):
                    B, N, D = x.shape
                    s = torch.empty((B * N, 32), device=x.device)
                    stats = torch.zeros(32, device=x.device)
                    logits_kernel[(B * N // 64,)](x, self.clusters, s, stats, D=D, K=32, BM=64)
                    a = torch.empty_like(s)
                    bn_softmax_kernel[(B * N,)](s, stats, a, 1.0 / (B * N), K=32)
                    return torch.matmul(a.view(B, N, 32).transpose(1, 2), x)
            def get_inputs():
                return [torch.randn(2048, 100, 512)]
            def get_init_inputs():
                return []
            """
        ),
    ]
    INVALID = [
        # Attention from launches writing into a buffer: a Triton tl.dot scores kernel, a Triton row softmax in
        # place, torch.matmul with the values.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def scores_kernel(q_ptr, k_ptr, s_ptr, T, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
                bh, pm, pn = tl.program_id(2), tl.program_id(0), tl.program_id(1)
                rm = pm * BM + tl.arange(0, BM)
                rn = pn * BN + tl.arange(0, BN)
                rd = tl.arange(0, D)
                q = tl.load(q_ptr + bh * T * D + rm[:, None] * D + rd[None, :])
                k = tl.load(k_ptr + bh * T * D + rn[None, :] * D + rd[:, None])
                tl.store(s_ptr + bh * T * T + rm[:, None] * T + rn[None, :], tl.dot(q, k) * 0.125)
            @triton.jit
            def rows_kernel(s_ptr, T, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                x = tl.load(s_ptr + row * T + cols, mask=cols < T, other=-float("inf"))
                e = tl.exp(x - tl.max(x, axis=0))
                y = e / tl.sum(e, axis=0)
                tl.store(s_ptr + row * T + cols, y, mask=cols < T)
            class ModelNew(torch.nn.Module):
                def forward(self, q, k, v):
                    B, H, T, D = q.shape
                    att = torch.empty((B, H, T, T), device=q.device)
                    scores_kernel[(T // 64, T // 64, B * H)](q, k, att, T, D=D, BM=64, BN=64)
                    rows_kernel[(B * H * T,)](att, T, BLOCK=1024)
                    return torch.matmul(att, v)
            def get_inputs():
                return [torch.randn(16, 12, 1024, 64), torch.randn(16, 12, 1024, 64), torch.randn(16, 12, 1024, 64)]
            def get_init_inputs():
                return []
            """,
            line=26,
            column=9,
        ),
        # Attention with an activation for its softmax: scores from a Triton kernel, squared in place by a second
        # one, then multiplied by the values. The seq x seq matrix still goes to memory and back.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def scores_kernel(q_ptr, k_ptr, s_ptr, T, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
                bh, pm, pn = tl.program_id(2), tl.program_id(0), tl.program_id(1)
                rm = pm * BM + tl.arange(0, BM)
                rn = pn * BN + tl.arange(0, BN)
                rd = tl.arange(0, D)
                q = tl.load(q_ptr + bh * T * D + rm[:, None] * D + rd[None, :])
                k = tl.load(k_ptr + bh * T * D + rn[None, :] * D + rd[:, None])
                tl.store(s_ptr + bh * T * T + rm[:, None] * T + rn[None, :], tl.dot(q, k) * 0.125)
            @triton.jit
            def rows_kernel(s_ptr, T, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.arange(0, BLOCK)
                x = tl.load(s_ptr + row * T + cols, mask=cols < T, other=-float("inf"))
                y = x * x
                tl.store(s_ptr + row * T + cols, y, mask=cols < T)
            class ModelNew(torch.nn.Module):
                def forward(self, q, k, v):
                    B, H, T, D = q.shape
                    att = torch.empty((B, H, T, T), device=q.device)
                    scores_kernel[(T // 64, T // 64, B * H)](q, k, att, T, D=D, BM=64, BN=64)
                    rows_kernel[(B * H * T,)](att, T, BLOCK=1024)
                    return torch.matmul(att, v)
            def get_inputs():
                return [torch.randn(16, 12, 1024, 64), torch.randn(16, 12, 1024, 64), torch.randn(16, 12, 1024, 64)]
            def get_init_inputs():
                return []
            """,
            line=25,
            column=9,
        ),
        # nn.MultiheadAttention with its default need_weights=True (KernelBench level 3's VisionAttention).
        Invalid(
            """
            import torch.nn as nn
            class Block(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.attn = nn.MultiheadAttention(128, 4)
                    self.norm = nn.LayerNorm(128)
                def forward(self, x):
                    out, _ = self.attn(x, x, x)
                    return self.norm(out + x)
            """,
            line=9,
            column=18,
        ),
        # A generated solution's own softmax (a helper launching a Triton row kernel) between the two GEMMs:
        # the score matrix is still written, read and written again.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def row_softmax_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=offs < n, other=float("-inf"))
                e = tl.exp(x - tl.max(x, axis=0))
                tl.store(y_ptr + tl.program_id(0) * n + offs, e / tl.sum(e, axis=0), mask=offs < n)
            def triton_softmax(x):
                y = torch.empty_like(x)
                row_softmax_kernel[(x.numel() // x.shape[-1],)](x, y, x.shape[-1], BLOCK=triton.next_power_of_2(x.shape[-1]))
                return y
            class Attention(torch.nn.Module):
                def forward(self, q, k, v):
                    att = triton_softmax(torch.matmul(q, k.transpose(-2, -1)) * 0.125)
                    return torch.matmul(att, v)
            """,
            line=17,
            column=30,
        ),
        # The classic: `@`, a scale, F.softmax under `import torch.nn.functional as F`.
        Invalid(
            """
            import math
            import torch
            import torch.nn.functional as F
            class Attention(torch.nn.Module):
                def forward(self, q, k, v):
                    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
                    attn = F.softmax(scores, dim=-1)
                    return attn @ v
            """,
            line=7,
            column=18,
        ),
        # `from torch import matmul`, a mask, the method softmax and a cast back.
        Invalid(
            """
            import torch
            from torch import matmul
            def attend(q, k, v, mask):
                s = matmul(q, k.transpose(2, 3))
                s = s.masked_fill(mask == 0, float("-inf"))
                p = s.float().softmax(dim=-1).to(q.dtype)
                return matmul(p, v)
            """,
            line=5,
            column=9,
        ),
        # bmm, torch.softmax, dropout, the method matmul.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            def attend(q, k, v, p_drop):
                scores = torch.bmm(q, k.transpose(1, 2))
                probs = F.dropout(torch.softmax(scores, -1), p=p_drop)
                return probs.matmul(v)
            """,
            line=5,
            column=14,
        ),
        # baddbmm with the scale folded in, an nn.Softmax module attribute.
        Invalid(
            """
            import torch
            from torch import nn
            class SelfAttention(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.softmax = nn.Softmax(dim=-1)
                def forward(self, q, k, v, bias):
                    scores = torch.baddbmm(bias, q, k.transpose(1, 2), alpha=0.125)
                    return torch.bmm(self.softmax(scores), v)
            """,
            line=9,
            column=18,
        ),
        # einsum, and the whole chain in one expression.
        Invalid(
            """
            import torch
            def attend(q, k, v):
                return torch.einsum("bhqk,bhkd->bhqd", torch.einsum("bhqd,bhkd->bhqk", q, k).softmax(-1), v)
            """,
            line=4,
            column=44,
        ),
        # Single head on 2-D tensors, with `.T`; torch.nn.functional.softmax spelled out.
        Invalid(
            """
            import torch
            def head(x, wq, wk, wv):
                q, k, v = x @ wq, x @ wk, x @ wv
                a = torch.nn.functional.softmax((q @ k.T) * 0.125, dim=-1)
                return a @ v
            """,
            line=5,
            column=38,
        ),
        # torch.where masking between the steps; the probabilities on the right of `@`.
        Invalid(
            """
            import torch
            def attend(q, k, v, keep):
                s = torch.matmul(q, k.transpose(-1, -2))
                s = torch.where(keep, s, -1e4)
                p = torch.softmax(s, -1)
                return (v.transpose(-1, -2) @ p.transpose(-1, -2)).transpose(-1, -2)
            """,
            line=4,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for function in (model.top, *model.functions):
            if model.kernel_of(function) is not None or model.is_reference_code(function):
                continue
            if model.in_kernelbench_reference(function):
                continue  # the torch code the solution in ModelNew replaces
            chains = model.attention_chains(function)
            for chain in chains:
                if model.in_main_guard(chain.scores) or model.in_main_guard(chain.output):
                    continue
                if _past_flash_head_dim(model, function, model.line_of(chain.scores)):
                    continue
                yield self._report(model, function, chain)
            if not chains:
                yield from _launched_chains(model, function)
            if function.is_module_level or function not in model.model_functions:
                continue
            for call in function.calls:
                if model.called_module(call, function) == "torch.nn.MultiheadAttention" and not _no_weights(call):
                    yield self._module_report(model, function, call)

    def _module_report(self, model: FileModel, function: FunctionInfo, call: cst.Call) -> Report:
        module = _shown(model, call.func)
        message = (
            f"`{module}` (nn.MultiheadAttention) in `{function.qualname}` is called with need_weights=True (the "
            "default): PyTorch then computes the attention the unfused way, the seq x seq scores and their "
            "softmax written to memory (and averaged over the heads for the weights it returns)"
        )
        plan = (
            f"Call `{module}(..., need_weights=False)` where the weights are not used (PyTorch then runs "
            "`scaled_dot_product_attention`, a fused flash or memory-efficient kernel), or compute q, k, v with "
            f"`{module}.in_proj_weight` and call `torch.nn.functional.scaled_dot_product_attention` yourself, "
            f"then `{module}.out_proj`."
        )
        return Report(node=call, message=message, plan=plan)

    def _report(self, model: FileModel, function: FunctionInfo, chain: AttentionChain) -> Report:
        where = "module level" if function.is_module_level else f"`{function.qualname}`"
        scores, softmax, output = (model.line_of(n) for n in (chain.scores, chain.softmax, chain.output))
        q, v = _shown(model, chain.query), _shown(model, chain.value)
        message = (
            f"{where} materializes the attention scores `{_shown(model, chain.scores)}` (line {scores}), "
            f"takes their softmax (line {softmax}) and multiplies by `{v}` (line {output}): "
            f"the seq x seq matrix makes four trips through memory"
        )
        key = _untransposed(model, chain.key)
        plan = (
            f"Replace lines {scores}-{output} with "
            f"`torch.nn.functional.scaled_dot_product_attention({q}, {key}, {v}, scale=...)` "
            f"(pass the mask as `attn_mask`, or `is_causal=True`, and any dropout as `dropout_p`), "
            f"or a Triton flash-attention kernel that walks `{key}` in tiles with an online softmax "
            f"(running max and rescaled running sum) so the scores never leave the chip."
        )
        return Report(node=chain.scores, message=message, plan=plan)


def _past_flash_head_dim(model: FileModel, function: FunctionInfo, line: int) -> bool:
    """At the file's shapes, the scores product on `line` sums over a head dimension wider than any fused
    attention kernel takes (FLASH_HEAD_DIM)."""
    entry = model.sized_forward(function)
    if entry is None:
        return False
    ops = entry.ops
    return any(op.product and op.line == line and (head_dim(ops, i) or 0) > FLASH_HEAD_DIM for i, op in enumerate(ops))


def _no_weights(call: cst.Call) -> bool:
    """`need_weights=False` at the call: PyTorch already runs the fused kernel."""
    value = keyword(call, "need_weights")
    return value is not None and literal_value(value) is False


def _shown(model: FileModel, node: cst.CSTNode, limit: int = 48) -> str:
    text = " ".join(model.code(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _untransposed(model: FileModel, key: cst.BaseExpression) -> str:
    """`k.transpose(-2, -1)` -> `k`: SDPA takes keys in the layout of q."""
    if isinstance(key, cst.Attribute) and key.attr.value in ("T", "mT"):
        return _shown(model, key.value)
    if isinstance(key, cst.Call) and isinstance(key.func, cst.Attribute) and key.func.attr.value in ("transpose", "t"):
        return _shown(model, key.func.value)
    return _shown(model, key)


# What may stand between the scores and the product with the values: masking, scaling, dropout, copies, and
# Triton kernels without a product of their own (the softmax).
BETWEEN = frozenset({"elementwise", "reduction", "copy", "view", "triton"})


def _launched_chains(model: FileModel, function: FunctionInfo) -> Iterator[Report]:
    """In a KernelBench-style forward, at the file's shapes: scores written by a product (a Triton tl.dot
    launch, or a torch matmul), read by a Triton softmax kernel of the file (exp and a row reduction, no
    product), whose result a second product multiplies by another tensor: attention built from launches
    that write into buffers, which the syntax of `softmax(q @ k^T) @ v` does not show."""
    entry = model.sized_forward(function)
    if entry is None:
        return
    ops = entry.ops
    for i, op in enumerate(ops):
        if not op.product or (head_dim(ops, i) or 0) > FLASH_HEAD_DIM:
            continue
        written = written_by(ops, i)
        reached, frontier = set(), set(written)
        while frontier:
            frontier = {
                j
                for j, other in enumerate(ops)
                if j not in reached and set(other.inputs) & frontier and other.kind in BETWEEN and not other.product
            }
            reached |= frontier
        softmaxes = [j for j in sorted(reached) if _softmax_kernel(model, ops[j])]
        if not softmaxes:
            direct = _activation_chain(ops, i, written, reached)
            scores = _node_on(model, function, op) if direct is not None else None
            if direct is None or scores is None:
                continue
            message = (
                f"`{function.qualname}` materializes a seq x seq product of two activations (line {op.line}, "
                f"{_mb(_written_bytes(ops, written))} MB) and multiplies it by the values (line {ops[direct].line}) "
                "with no softmax between (attention with an activation, a ReLU, in place of the softmax): the "
                "matrix is written to memory and read back in full"
            )
            plan = (
                f"Fuse lines {op.line}-{ops[direct].line} into one Triton kernel: per block of queries, walk the "
                "keys in tiles, compute each tile of scores with tl.dot, apply the mask and the activation in "
                "registers and multiply the tile by the values' tile into the output accumulator, so the scores "
                "never leave the chip (without a softmax there is no running max or sum to keep)."
            )
            yield Report(node=scores, message=message, plan=plan, category=Category.OPERATOR_FUSION)
            return
        if any(reads_grid_statistic(ops, j, i) for j in softmaxes):
            # The softmax reads statistics the scores' whole grid accumulated (NetVLAD's batch norm of the
            # assignments): it waits for every score, so no one kernel walks the keys once.
            continue
        # A softmax kernel writes in place (`rows_kernel[grid](att, ...)`): the product after it reads `att`
        # as the scores' op wrote it.
        output = next(
            (
                j
                for j, other in enumerate(ops)
                if j > softmaxes[0]
                and other.product
                and mixes_values(ops, i, j)
                and set(other.inputs) & (reached | written)
            ),
            None,
        )
        if output is None:
            continue
        scores = _node_on(model, function, op)
        if scores is None:
            continue
        softmax = ops[softmaxes[0]].note
        message = (
            f"`{function.qualname}` materializes attention scores (line {op.line}), normalizes them with the "
            f"`{softmax}` kernel (line {ops[softmaxes[0]].line}) and multiplies them by the values (line "
            f"{ops[output].line}): the seq x seq matrix makes four trips through memory"
        )
        plan = (
            f"Replace lines {op.line}-{ops[output].line} with `torch.nn.functional.scaled_dot_product_attention"
            "(q, k, v, scale=...)` (the mask as `attn_mask` or `is_causal=True`), or one Triton flash-attention "
            "kernel that walks the keys in tiles with an online softmax (running max and rescaled running sum), "
            "so the scores never leave the chip."
        )
        # The file's own kernels: the fix fuses them (where torch ops are replaced by SDPA, the library's).
        yield Report(node=scores, message=message, plan=plan, category=Category.OPERATOR_FUSION)
        return


# The scores of attention are seq x seq per head, against seq x head_dim for each operand: a product of two
# activations whose result is at least this many times the larger of them is such a matrix (a design bound;
# KernelBench's attention problems are 5-16 times).
QUADRATIC = 2


def _activation_chain(ops: tuple[Op, ...], i: int, written: set[int], reached: set[int]) -> int | None:
    """Attention without a softmax (ReLU attention, its activation in the scores' kernel or after it): the
    later product that multiplies product `i`'s result (as written, or through elementwise ops) by values,
    where `i` multiplies two activations (no module parameter) into a result QUADRATIC times the larger."""
    op = ops[i]
    operands = [source for source in op.inputs if source not in written]
    if not operands or not all(from_inputs(ops, source) for source in operands):
        return None  # a projection by a weight (a parameter, or one stacked or cast on every call)
    read = max((size for source, size in zip(op.inputs, op.in_bytes) if source not in written), default=0)
    if not read or _written_bytes(ops, written) < QUADRATIC * read:
        return None
    return next(
        (
            j
            for j in range(i + 1, len(ops))
            if ops[j].product
            and set(ops[j].inputs) & (written | reached)
            and any(from_inputs(ops, s) for s in ops[j].inputs if s not in written | reached)
        ),
        None,
    )


def _written_bytes(ops: tuple[Op, ...], written: set[int]) -> int:
    """What a product wrote: its own result, or the buffer allocated for its launch."""
    return max((ops[j].out_bytes for j in written), default=0)


def _mb(size: int) -> str:
    return f"{size / 1e6:.0f}"


def _softmax_kernel(model: FileModel, op: Op) -> bool:
    """A launch of a kernel of the file without a product that exponentiates and reduces over a row (a
    flash-attention kernel, whose tl.dot loop the table may not size, is not one)."""
    if op.kind != "triton" or op.flops:
        return False
    launch = model.launch_at_site(op.site_line, op.note)
    return (
        launch is not None
        and not model.kernel_uses(launch.kernel, "dot")
        and bool(model.kernel_uses(launch.kernel, "exp", "exp2", "math.exp", "math.exp2"))
        and bool(model.kernel_uses(launch.kernel, "max", "sum"))
    )


def _node_on(model: FileModel, function: FunctionInfo, op: Op) -> cst.CSTNode | None:
    """The call of `function` that `op` stands for: its launch, or a product on its line."""
    if op.kind == "triton":
        launch = model.launch_at_site(op.site_line, op.note)
        if launch is not None and launch.caller is function:
            return launch.node
        # A launch in a helper (`_bmm(q, k, S)`): the helper's call on forward's line.
        return next((call for call in function.calls if model.line_of(call) == op.line), None)
    return next(
        (
            n
            for n in (*function.matmul_ops, *function.calls)
            if model.line_of(n) == op.line and model.matmul_operands(n) is not None
        ),
        None,
    )
