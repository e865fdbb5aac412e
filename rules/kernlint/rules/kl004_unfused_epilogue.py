from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo
from kernlint.model.epilogues import Epilogue
from kernlint.registry import Invalid, Report, Rule, Valid


class UnfusedEpilogue(Rule):
    """
    ## What it does
    Finds the result of a GEMM or convolution in a hot path (a torch matmul:
    `torch.matmul`, `@`, `F.linear`, `torch.mm`/`bmm`/`addmm`/`baddbmm`, the
    `.matmul`/`.mm`/`.bmm` methods; a module built in `__init__` as
    `nn.Linear`, `nn.Conv1d/2d/3d` or `nn.ConvTranspose1d/2d/3d` and called
    in `forward`; `F.conv*d`/`F.conv_transpose*d`; a Triton launch of a
    kernel that uses `tl.dot`, or a function of the same file that returns
    what such a launch wrote) that is then put through elementwise torch ops
    in the same function before it is returned or stored: scaling
    (`* scale`), `+ bias`, activations (`torch.relu`, `F.gelu`, `.sigmoid()`,
    an `nn.GELU()` module), dtype casts (`.to(torch.float16)`, `.half()`),
    and, once an elementwise op has run, group and batch norms and the
    reductions that end the tail (`mean`, `sum`, `amax`, `logsumexp`); after
    a convolution, pooling layers (`nn.MaxPool2d`, `nn.AvgPool2d`, adaptive
    pools) too. The
    ops are followed through views (`.view`, `.reshape`, `.t()`), names
    assigned along the way and augmented assignments (`y += bias`).

    In a KernelBench-style file (shapes from `get_inputs`), it also reads
    the layers of container modules forward calls (`self.features(x)` of an
    `nn.Sequential` of convs, BatchNorms and ReLUs, a loop over an
    `nn.ModuleList`): a conv or linear layer followed by elementwise layers
    there is the same tail, reported at the container's call.

    A convolution's bias is a tail of its own: PyTorch adds it in a pass
    over the whole output after cuDNN's kernel. Where a conv with a bias
    (a module built without `bias=False`, or `F.conv*d` given a bias that is
    not None nor the function's argument) hands its output to a Triton
    kernel, launched there or by a helper of the file (the output made
    contiguous or not, in the same statement or a later one), it reports the bias:
    that kernel can add it to the values it loads.

    It stays silent on ops that are not elementwise (softmax, another
    matmul, a reduction with no elementwise op before it), on views alone
    (they are free), on a single dtype cast and nothing else (often a small
    tensor, and a cheap pass), once the result's name is rebound by an op
    outside the tail (`y = F.layer_norm(y)`), and under
    `if __name__ == "__main__":`.

    ## Why is this bad?
    Each elementwise op is its own kernel launch that reads the whole GEMM
    output from memory and writes it back. For an M x N fp32 output, a
    scale, a bias, an activation and a cast are four more round trips of 4
    to 8 bytes per element, often more time than the GEMM itself for
    skinny or memory-bound shapes; the GEMM kernel already holds every
    output element in registers before its store.

    ## Example
    ```python
    def forward(self, x):
        y = torch.matmul(x, self.weight.t())
        y = y * self.scale + self.bias
        return torch.relu(y).to(torch.float16)
    ```

    ## Use instead
    ```python
    # in the Triton GEMM kernel, after the K loop:
    scale = tl.load(scale_ptr + offs_n, mask=offs_n < N)
    bias = tl.load(bias_ptr + offs_n, mask=offs_n < N)
    acc = tl.maximum(acc * scale[None, :] + bias[None, :], 0.0)
    tl.store(c_ptrs, acc.to(tl.float16), mask=c_mask)
    ```
    For a plain bias, `F.linear(x, w, bias)` or `torch.addmm` already fuses
    it into cuBLAS; `torch.compile` fuses a pointwise tail into one kernel.

    ## Fix safety
    No automatic fix: the epilogue moves into a kernel, which must load each
    per-row or per-column vector with the output tile's masks.
    """

    code = "KL004"
    name = "unfused-epilogue"
    category = Category.OPERATOR_FUSION
    severity = Severity.WARNING
    summary = "A GEMM's result goes through separate elementwise torch ops (scale, bias, activation, cast)."
    bottleneck = (
        "Memory traffic after the GEMM: each elementwise op on its output (scale, bias, activation, cast) "
        "is a separate kernel that reads and writes the whole output again."
    )
    method = (
        "Fuse the elementwise tail into the GEMM's epilogue: load the per-row/per-column vectors once and "
        "apply them to the accumulator before the single store, in the output dtype; after a cuDNN "
        "convolution, one Triton kernel over its output that also adds the conv's bias."
    )
    priority = 15
    fix_effect = "fuse_epilogue"

    VALID = [
        # A bias added in torch after a Triton GEMM only when the layer has one: the file builds it without.
        Valid(
            """
            import torch
            import torch.nn as nn
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
                    b = tl.load(b_ptr + rn[None, :] * K + (k + rk)[:, None])
                    acc += tl.dot(a, b)
                tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
            class ModelNew(nn.Module):
                def __init__(self, bias=False):
                    super().__init__()
                    self.fc = nn.Linear(1024, 1024, bias=bias)
                def forward(self, x):
                    y = torch.empty(x.shape[0], 1024, device=x.device)
                    mm[(x.shape[0] // 64, 1024 // 64)](x, self.fc.weight, y, x.shape[0], 1024, 1024, BM=64, BN=64, BK=32)
                    if self.fc.bias is not None:
                        y = y + self.fc.bias
                    return y
            def get_inputs():
                return [torch.randn(4096, 1024)]
            def get_init_inputs():
                return [False]
            """
        ),
        # A conv without a bias before a Triton kernel: nothing is added between them.
        Valid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def mish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                x = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, x * tl.sigmoid(x), mask=offs < n)
            def mish(x):
                y = torch.empty_like(x)
                mish_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                return y
            class ModelNew(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(16, 32, 3, bias=False)
                def forward(self, x):
                    x = self.conv(x)
                    return mish(x)
            """
        ),
        # A conv built with `bias=bias`, where the file's init inputs pass False: no bias pass to move.
        Valid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def relu_kernel(x_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                x = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(x_ptr + offs, tl.maximum(x, 0.0), mask=offs < n)
            class ModelNew(nn.Module):
                def __init__(self, c_in, c_out, bias=True):
                    super().__init__()
                    self.conv = nn.Conv3d(c_in, c_out, 3, bias=bias)
                def forward(self, x):
                    y = self.conv(x)
                    relu_kernel[(triton.cdiv(y.numel(), 1024),)](y, y.numel(), BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(8, 16, 32, 32, 32)]
            def get_init_inputs():
                return [16, 32, False]
            """
        ),
        # A container whose conv is followed only by a norm (a ResNet shortcut): no elementwise tail.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.shortcut = nn.Sequential(nn.Conv2d(64, 128, 1, stride=2, bias=False), nn.BatchNorm2d(128))
                def forward(self, x):
                    return self.shortcut(x)
            def get_inputs():
                return [torch.randn(8, 64, 56, 56)]
            def get_init_inputs():
                return []
            """
        ),
        # Views and a reduction after the GEMM are not elementwise passes.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, w):
                    y = torch.matmul(x, w)
                    return y.view(-1).sum(dim=0)
            """
        ),
        # torch.max over a dimension (written -1) reduces the product: no full-size pass follows it.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            def head(x, w):
                logits = F.linear(x, w)
                best, ids = torch.max(logits, -1, keepdim=True)
                return best.sum() + 1.0, ids
            """
        ),
        # A single dtype cast and nothing else.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, w):
                    return (x @ w).to(torch.float16)
            """
        ),
        # Softmax and a second matmul are not an epilogue of the first.
        Valid(
            """
            import torch.nn.functional as F
            from torch import matmul
            class M(torch.nn.Module):
                def forward(self, q, k, v):
                    s = matmul(q, k)
                    p = F.softmax(s, dim=-1)
                    return matmul(p, v)
            """
        ),
        # Not a hot path, and benchmark code under the main guard.
        Valid(
            """
            import torch
            def reference(x, w, b):
                return torch.relu(x @ w + b)
            if __name__ == "__main__":
                x = torch.randn(8, 8)
                print(torch.relu(x @ x + 1.0))
            """
        ),
        # The bias goes into cuBLAS (F.linear with bias) and the result is returned as is.
        Valid(
            """
            import torch.nn.functional as F
            import torch.nn as nn
            class M(nn.Module):
                def forward(self, x):
                    out = F.linear(x, self.weight, self.bias)
                    return out
            """
        ),
        # A launch of a kernel without tl.dot (elementwise already) followed by ops is not a GEMM epilogue.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
            def add(x, y):
                out = torch.empty_like(x)
                add_kernel[(1,)](x, y, out, x.numel(), BLOCK=1024)
                return out * 2 + 1
            """
        ),
        # The elementwise ops act on the inputs, not on the product.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, w):
                    x = torch.relu(x * 2.0 + 1.0)
                    return torch.mm(x, w)
            """
        ),
        # The name is rebound by an op that is not elementwise (a norm) before the scale:
        # the scale acts on the norm's output, not on the product.
        Valid(
            """
            import torch
            import torch.nn.functional as F
            class M(torch.nn.Module):
                def forward(self, x, w):
                    y = x @ w
                    y = F.layer_norm(y, y.shape[-1:])
                    return y * 0.5
            """
        ),
        # A linear module whose output is only reduced, and a convolution followed by pooling:
        # no elementwise pass over the product.
        Valid(
            """
            import torch.nn as nn
            import torch.nn.functional as F
            class Pool(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 64)
                    self.conv = nn.Conv1d(8, 8, 5)
                def forward(self, a, b):
                    return self.fc(a).sum(dim=1), F.max_pool1d(self.conv(b), 2)
            """
        ),
    ]
    INVALID = [
        # A conv's bias, a pass of PyTorch's own, before a Triton kernel that reads the conv's output.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def mish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                x = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, x * tl.sigmoid(x), mask=offs < n)
            def mish(x):
                y = torch.empty_like(x)
                mish_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                return y
            class ModelNew(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(16, 32, 3)
                def forward(self, x):
                    x = self.conv(x)
                    return mish(x)
            """,
            line=20,
            column=13,
        ),
        # The same output made contiguous in a statement of its own before the launch (a no-op on it), the way
        # generated files write it.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def mish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                x = tl.load(x_ptr + offs, mask=offs < n)
                tl.store(y_ptr + offs, x * tl.sigmoid(x), mask=offs < n)
            class ModelNew(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(16, 32, 3)
                def forward(self, x):
                    x = self.conv(x)
                    x = x.contiguous()
                    y = torch.empty_like(x)
                    mish_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                    return y
            """,
            line=16,
            column=13,
        ),
        # A conv whose tail opens with a pooling layer (KernelBench level 2's conv + pool + activation problems;
        # an average pool there folds into the conv: KL026's).
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(8, 16, 3)
                    self.pool = nn.MaxPool2d(2)
                def forward(self, x):
                    x = self.conv(x)
                    x = self.pool(x)
                    return torch.sigmoid(x).sum(dim=(2, 3))
            """,
            line=10,
            column=13,
        ),
        # A container's layers (KernelBench level 3's VGG): each conv followed by a ReLU inside nn.Sequential.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.features = nn.Sequential(
                        nn.Conv2d(3, 64, 3, padding=1), nn.ReLU(inplace=True),
                        nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(inplace=True),
                    )
                def forward(self, x):
                    return self.features(x)
            def get_inputs():
                return [torch.randn(8, 3, 128, 128)]
            def get_init_inputs():
                return []
            """,
            line=12,
            column=16,
        ),
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def forward(self, x):
                    y = torch.matmul(x, self.weight.t())
                    y = y * self.scale + self.bias
                    return torch.relu(y).to(torch.float16)
            """,
            line=6,
            column=13,
        ),
        # torch.min with a second tensor is elementwise (torch.minimum), not a reduction.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, c):
                    super().__init__()
                    self.conv = nn.Conv2d(c, c, 3)
                    self.bias = nn.Parameter(torch.zeros(c, 1, 1))
                def forward(self, x):
                    x = self.conv(x)
                    x = torch.min(x, torch.tensor(0.5))
                    return (x + self.bias) * 2.0
            """,
            line=10,
            column=13,
        ),
        # After a convolution the tail goes through a row normalization (one Triton pass replaces it too).
        Invalid(
            """
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, c):
                    super().__init__()
                    self.conv = nn.Conv2d(c, c, 3)
                    self.norm = nn.InstanceNorm2d(c)
                def forward(self, x):
                    x = self.conv(x)
                    x = self.norm(x)
                    return x / 2.0
            """,
            line=9,
            column=13,
        ),
        # A convolution's tail that opens with a min over the channels still reads the whole output once.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, c):
                    super().__init__()
                    self.conv = nn.Conv2d(c, 2 * c, 3)
                def forward(self, x):
                    x = self.conv(x)
                    x = torch.min(x, dim=1, keepdim=True)[0]
                    return torch.tanh(x)
            """,
            line=9,
            column=13,
        ),
        # `@` with the tail in one expression.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, w, b):
                    return torch.sigmoid(x @ w + b)
            """,
            line=5,
            column=30,
        ),
        # `from torch import matmul` and an augmented assignment.
        Invalid(
            """
            from torch import matmul
            import torch.nn as nn
            class M(nn.Module):
                def forward(self, x, w, bias):
                    out = matmul(x, w)
                    out += bias
                    return out.half()
            """,
            line=6,
            column=15,
        ),
        # `import torch.nn.functional as F`, through a view, to an activation module.
        Invalid(
            """
            import torch.nn as nn
            import torch.nn.functional as F
            class MLP(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.act = nn.GELU()
                def forward(self, x):
                    h = F.linear(x, self.w1).view(4, -1)
                    return self.act(h * 0.5)
            """,
            line=9,
            column=13,
        ),
        # The tensor method spelling.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, a, b, s):
                    c = a.mm(b)
                    c = c.mul(s).clamp(min=0)
                    return c
            """,
            line=5,
            column=13,
        ),
        # A Triton GEMM launch whose output is scaled, biased and cast in torch.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK: tl.constexpr):
                acc = tl.dot(tl.load(a_ptr), tl.load(b_ptr))
                tl.store(c_ptr, acc)
            def gemm(a, b, scale, bias):
                c = torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=torch.float32)
                mm_kernel[(1,)](a, b, c, a.shape[0], b.shape[1], a.shape[1], BLOCK=64)
                c = c * scale[None, :] + bias
                return c.to(torch.float16)
            """,
            line=11,
            column=5,
        ),
        # A wrapper returning a Triton GEMM's output, with the epilogue in the caller.
        Invalid(
            """
            import torch
            import triton
            from triton import language as tl
            @triton.jit
            def mm_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
                tl.store(c_ptr, tl.dot(tl.load(a_ptr), tl.load(b_ptr)))
            def triton_mm(a, b):
                c = torch.empty((a.shape[0], b.shape[1]), device=a.device)
                mm_kernel[(1,)](a, b, c, BLOCK=64)
                return c
            class M(torch.nn.Module):
                def forward(self, x, w, b):
                    y = triton_mm(x, w)
                    return torch.nn.functional.silu(y + b)
            """,
            line=14,
            column=13,
        ),
        # A convolution module built in __init__, then a group norm, a scale and a clamp (KernelBench level 2 shape).
        Invalid(
            """
            import torch
            import torch.nn as nn
            import torch.nn.functional as F
            class ConvNormClamp(nn.Module):
                def __init__(self, c_in, c_out):
                    super().__init__()
                    self.conv = nn.Conv2d(c_in, c_out, kernel_size=3)
                    self.gn = nn.GroupNorm(4, c_out)
                    self.gain = nn.Parameter(torch.full((c_out, 1, 1), 0.5))
                def forward(self, img):
                    img = self.conv(img)
                    img = self.gn(img)
                    return F.hardtanh(img * self.gain, min_val=-2.0, max_val=2.0)
            """,
            line=12,
            column=15,
        ),
        # A linear module, a multiplier and a leaky ReLU, then Swish spelled as two ops.
        Invalid(
            """
            import torch
            from torch import nn
            class LinearSwish(nn.Module):
                def __init__(self, n):
                    super().__init__()
                    self.proj = nn.Linear(n, 2 * n)
                def forward(self, h, mult):
                    h = self.proj(h)
                    h = torch.nn.functional.leaky_relu(h * mult, 0.01)
                    return h * torch.sigmoid(h)
            """,
            line=9,
            column=13,
        ),
        # The functional forms: a transposed convolution, and a batched GEMM with its input added.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            class Up(torch.nn.Module):
                def forward(self, v, kernel, shift, base, q, k):
                    u = F.conv_transpose2d(v, kernel, stride=2)
                    u = torch.sigmoid(u + shift) * 2.0
                    s = torch.baddbmm(base, q, k)
                    return u.mean(dim=1), F.gelu(s)
            """,
            line=6,
            column=13,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        hot = model.hot_functions
        wrappers = model.gemm_wrappers()
        launches_by_caller: dict[int, list] = {}
        for launch in model.launches:
            launches_by_caller.setdefault(id(launch.caller), []).append(launch)
        for function in model.functions:
            if function not in hot or model.kernel_of(function) is not None:
                continue
            # The score matmul of materialized attention is KL007's finding:
            # its fix (a flash kernel) removes the scaling and masking too.
            attention = {
                id(node) for chain in model.attention_chains(function) for node in (chain.scores, chain.output)
            }
            for call in function.calls:
                if id(call) in attention or model.collapsible_reduction(call, function) is not None:
                    # A GEMM summed through linear ops collapses to a GEMV: KL026's finding.
                    continue
                if id(call) in model.dead_node_ids:
                    continue  # a GEMM whose result is thrown away or never used: KL027's finding
                producer = model.gemm_producer(call, function)
                if producer is None and isinstance(call.func, cst.Name) and call.func.value in wrappers:
                    producer = f"`{call.func.value}` (a Triton GEMM)", "gemm"
                if producer is not None and not model.in_main_guard(call):
                    spelled, kind = producer
                    # After a convolution the tail becomes one Triton pass over its output (the plan), so
                    # a row normalization or a softmax over the channels is part of it, as in KL023's chains.
                    epilogue = model.epilogue(call, function, chain=kind == "conv")
                    yield from self._report(model, function, call, spelled, epilogue, kind)
                    if kind == "conv" and not epilogue.ops:
                        found = model.conv_bias_reader(call, function)
                        if found is not None and not _built_without_bias(model, function, call):
                            yield self._bias_report(model, function, call, spelled, found[1])
            for operation in function.matmul_ops:
                if model.collapsible_reduction(operation, function) is not None or id(operation) in model.dead_node_ids:
                    continue
                if not model.in_main_guard(operation) and id(operation) not in attention:
                    yield from self._report(model, function, operation, "`@`", model.epilogue(operation, function))
            for node, gemms, layers in model.layer_tails:
                if any(node is call for call in function.calls) and not model.in_main_guard(node):
                    yield self._layers_report(function, node, gemms, layers, model)
            for launch in launches_by_caller.get(id(function), ()):
                if not model.kernel_uses(launch.kernel, "dot"):
                    continue
                output = model.launch_output(launch)
                if output is not None:
                    epilogue = model.epilogue(launch.node, function, name=output)
                    spelled = f"the `{launch.kernel.name}` launch (output `{output}`)"
                    yield from self._report(model, function, launch.node, spelled, epilogue)

    def _layers_report(
        self, function: FunctionInfo, node: cst.CSTNode, gemms: int, layers: tuple[str, ...], model: FileModel
    ) -> Report:
        called = model.code(node.func) if isinstance(node, cst.Call) else model.code(node)
        names = ", ".join(f"`{layer}`" for layer in layers)
        message = (
            f"`{called}` in `{function.qualname}` runs "
            + (f"{gemms} GEMM/convolution layers, each" if gemms > 1 else "a GEMM/convolution layer")
            + f" followed by separate elementwise/normalization layers ({names}) inside the container: each "
            "of those layers is a kernel that reads and writes the whole output again"
        )
        plan = (
            f"Keep the convolutions/GEMMs of `{called}` on cuDNN/cuBLAS and, after each, replace its following "
            f"layers ({names}) with one Triton kernel that reads the output once, applies them in registers "
            "(a batch norm's per-channel statistics from one reduction first) and writes once; run a "
            "convolution without its bias (`F.conv2d(x, conv.weight, None, ...)`, or its 1-D/3-D form) and add the bias in that "
            "kernel, since PyTorch adds a cuDNN convolution's bias in a pass of its own. Or `torch.compile` "
            "the container, which fuses the pointwise layers the same way."
        )
        return Report(node=node, message=message, plan=plan)

    def _bias_report(
        self, model: FileModel, function: FunctionInfo, call: cst.Call, spelled: str, reader: str
    ) -> Report:
        """A convolution's bias, added by PyTorch in a pass of its own, before a Triton kernel that
        reads the convolution's output anyway."""
        message = (
            f"The bias of {spelled} in `{function.qualname}` is added by PyTorch in a separate pass over "
            f"the whole output after cuDNN's convolution, and the next kernel, {reader}, reads that output "
            "again: the bias could be added there"
        )
        plan = (
            f"Call the convolution without its bias (`{_functional(model, function, call)}(x, weight, None, ...)` "
            f"with the layer's stride, padding, dilation and groups) and add the bias inside {reader}: load the "
            "per-channel bias once per program and add it to the values it loads, before the rest of its "
            "work; one pass over the output instead of two."
        )
        return Report(node=call, message=message, plan=plan)

    def _report(
        self,
        model: FileModel,
        function: FunctionInfo,
        node: cst.CSTNode,
        spelled: str,
        epilogue: Epilogue,
        kind: str = "gemm",
    ) -> Iterator[Report]:
        # A convolution's tail that opens with a reduction (a min over the channels) is still a pass over
        # the whole output, into which the plan's one Triton kernel folds the rest of the tail.
        if not epilogue.full_size_ops and not (kind == "conv" and epilogue.ops):
            return
        if _never_runs(model, function, epilogue):
            return
        ops = ", ".join(f"`{op}`" for op in epilogue.ops)
        count = len(epilogue.ops)
        what = (
            "elementwise" if set(epilogue.kinds) <= {"elementwise", "cast"} else "elementwise/normalization/reduction"
        )
        message = (
            f"The result of {spelled} in `{function.qualname}` goes through {count} separate {what} "
            f"op{'s' if count > 1 else ''} ({ops}), each a kernel that reads and writes the whole output"
        )
        if kind == "conv":
            plan = (
                f"Keep {spelled} on cuDNN and replace {ops} with one Triton kernel that reads the convolution's "
                "output once, applies the whole tail in registers (per-channel vectors loaded once per tile; a "
                "group/batch norm's statistics and a reduction over the tile in the same kernel) and writes once "
                "(`torch.compile` fuses a pointwise tail the same way). If the convolution has a bias, call it "
                f"without (`{_functional(model, function, node)}(x, weight, None, ...)` with the layer's stride and "
                "padding) and "
                "add the bias in that kernel: PyTorch adds a cuDNN convolution's bias in a pass of its own over "
                "the output."
            )
        elif "launch" in spelled or "Triton GEMM" in spelled:
            plan = (
                f"Move {ops} into the GEMM kernel's epilogue: after the K loop, load the per-row/per-column "
                "vectors once (masked like the output tile), apply them to the fp32 accumulator, and store "
                "once in the output dtype."
            )
        else:
            plan = (
                f"Replace {spelled} and {ops} with one Triton GEMM whose epilogue applies them to the "
                "accumulator before its single store (a bias alone fits `F.linear(x, w, bias)`/`torch.addmm`; "
                "`torch.compile` fuses a pointwise tail into one kernel)."
            )
        yield Report(node=node, message=message, plan=plan)


def _functional(model: FileModel, function: FunctionInfo, node: cst.CSTNode) -> str:
    """The convolution at `node` written as a function call (`F.conv3d`)."""
    found = model.conv_functional(node, function) if isinstance(node, cst.Call) else None
    return found or "F.conv2d"


def _built_without_bias(model: FileModel, function: FunctionInfo, call: cst.Call) -> bool:
    """At a KernelBench-style file's own shapes, the convolution `call` runs without a bias (a module built
    with `bias=bias` where the file's init inputs pass False): there is no bias pass to move."""
    entry = model.sized_forward(function)
    if entry is None:
        return False
    line = model.span(call).line
    convs = [op for op in entry.ops if op.line == line and op.kind == "gemm" and op.note.startswith("nn.Conv")]
    return bool(convs) and not any(op.conv_bias for op in convs)


def _never_runs(model: FileModel, function: FunctionInfo, epilogue: Epilogue) -> bool:
    """At a KernelBench-style file's own shapes, none of the epilogue's ops runs (`if self.conv.bias is not
    None: y += ...` for a conv the file builds without a bias): no pass to fuse."""
    entry = model.sized_forward(function)
    if entry is None or not entry.ran:
        return False
    return not any(entry.runs(model.line_of(node), model.line_of(node)) for node in epilogue.nodes)
