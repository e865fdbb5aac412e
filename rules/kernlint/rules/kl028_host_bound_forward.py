from __future__ import annotations

from collections.abc import Iterator

from kernlint import cost
from kernlint.findings import Category, Severity
from kernlint.model import FileModel
from kernlint.registry import Invalid, Report, Rule, Valid

# Fewer kernels than this per call: the L2 flush in front of a KernelBench
# call (kb_hidden_us in the calibration record) and a few microseconds of
# GPU work per kernel hide most of the host's issue time, and fusing the
# ops (KL004, KL023) is the better plan.
MIN_KERNELS = 16
# Calls that already replay a CUDA graph, or ask torch.compile to.
GRAPHED = frozenset({"torch.cuda.CUDAGraph", "torch.cuda.graph", "torch.cuda.make_graphed_callables", "torch.compile"})


class HostBoundForward(Rule):
    """
    ## What it does
    Finds the forward of a KernelBench-style model (a `Model`/`ModelNew`
    with `get_inputs`) that issues many kernels, each with little GPU work,
    at the file's own shapes: the cost model (calibrated on the GPU) says
    the host's time to issue them, one torch op or launch at a time, is
    longer than the GPU's time to run them. Typical: a CNN or transformer
    of dozens of layers at a small batch (ResNet-18 at batch 2, MobileNet,
    EfficientNet), a deep narrow MLP, a block of norms and activations.

    It stays silent on a forward of fewer than 16 kernels (the flush before
    a KernelBench call hides that much issue time; fusing the ops is the
    better plan there), where the GPU's work takes longer than the issue,
    where the shapes are not static, on a forward that syncs with the host
    or defines a kernel on every call (it cannot be captured: KL006 and
    KL017 come first), on a forward with a loop over a data dimension
    (KL005's per-step loop: batching its steps comes first; a loop over the
    model's layers is not one), and on a file that already replays a CUDA graph or
    compiles the model (`torch.cuda.CUDAGraph`, `torch.cuda.graph`,
    `make_graphed_callables`, `torch.compile`).

    ## Why is this bad?
    Every torch op costs the host several microseconds (Python, the
    dispatcher, the allocator, the launch) whatever its size; the GPU runs a
    small conv or a norm over a 2 x 64 x 56 x 56 tensor in a few. With the
    host behind, the GPU waits between kernels: the call takes the sum of
    the issue times, not of the work. Replaying the whole forward as one
    CUDA graph issues every kernel with one launch, so the call takes the
    GPU's time.

    ## Example
    ```python
    def forward(self, x):  # 60 convs, norms and activations at batch 2
        for block in self.blocks:
            x = block(x)
        return self.fc(torch.flatten(self.pool(x), 1))
    ```

    ## Use instead
    ```python
    def forward(self, x):
        if self.graph is None:  # first call: capture
            self.static_x = x.clone()
            self.graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(self.graph):
                self.static_y = self._forward(self.static_x)
        self.static_x.copy_(x)
        self.graph.replay()
        return self.static_y.clone()
    ```
    after a few warm-up calls on a side stream (as the PyTorch CUDA graphs
    documentation shows); `torch.compile(mode="reduce-overhead")` does the
    same and fuses elementwise ops as well.

    ## Fix safety
    No automatic fix: a graph replays fixed addresses and shapes (a new
    input shape needs a new capture), and code that reads values on the host
    or branches on them cannot be captured.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl028_host_bound_forward/` (`kernlint rule KL028` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL028"
    name = "host-bound-forward"
    category = Category.LAUNCH_REDUCTION
    severity = Severity.WARNING
    summary = "forward issues many small kernels: the host's issue time, not the GPU's work, sets the call's time."
    bottleneck = (
        "Host launch overhead: the forward issues many small kernels one by one from Python, and the GPU waits "
        "between them for the host to issue the next."
    )
    method = (
        "Capture the forward in one CUDA graph on the first call and replay it (inputs copied into its static "
        "buffers), or torch.compile(mode='reduce-overhead'), so that all its kernels go to the GPU with one launch."
    )
    priority = 30
    fix_effect = "capture_graph"

    VALID = [
        # A few large ops: the GPU's work is longer than the issue.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4096, 4096)
                def forward(self, x):
                    return torch.relu(self.fc(x))
            def get_inputs():
                return [torch.randn(8192, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # Many layers, but each one large: GPU-bound.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.ModuleList([nn.Linear(4096, 4096) for _ in range(20)])
                def forward(self, x):
                    for layer in self.layers:
                        x = torch.relu(layer(x))
                    return x
            def get_inputs():
                return [torch.randn(8192, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # Small, but too few kernels to be worth a graph.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(64, 64)
                def forward(self, x):
                    return torch.sigmoid(torch.relu(self.fc(x)) * 2.0)
            def get_inputs():
                return [torch.randn(4, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # Already replayed as a CUDA graph.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.Sequential(*[nn.Linear(64, 64) for _ in range(24)])
                    self.graph = torch.cuda.CUDAGraph()
                def forward(self, x):
                    return self.layers(x)
            def get_inputs():
                return [torch.randn(4, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # A host sync in forward: it cannot be captured (KL006's finding first).
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.Sequential(*[nn.Linear(64, 64) for _ in range(24)])
                def forward(self, x):
                    y = self.layers(x)
                    scale = y.abs().max().item()
                    return y / scale
            def get_inputs():
                return [torch.randn(4, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # Shapes that are not static: nothing to weigh.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, layers):
                    super().__init__()
                    self.layers = nn.Sequential(*[nn.Linear(64, 64) for _ in range(layers)])
                def forward(self, x):
                    return self.layers(x)
            def get_inputs():
                return [torch.randn(4, 64)]
            def get_init_inputs():
                return [read_config()]
            """
        ),
        # A per-step loop over the sequence: KL005's finding, whose fix batches the steps.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = nn.Linear(64, 64)
                def forward(self, x):
                    out = []
                    for t in range(x.shape[0]):
                        out.append(torch.tanh(self.cell(x[t])))
                    return torch.stack(out)
            def get_inputs():
                return [torch.randn(32, 4, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # Not a KernelBench-style file (no get_inputs): no shapes, no finding.
        Valid(
            """
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.layers = nn.Sequential(*[nn.Linear(64, 64) for _ in range(24)])
                def forward(self, x):
                    return self.layers(x)
            """
        ),
    ]
    INVALID = [
        # A deep narrow MLP at a small batch: 24 GEMMs and 24 activations of microseconds each.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    layers = []
                    for _ in range(24):
                        layers += [nn.Linear(256, 256), nn.ReLU()]
                    self.net = nn.Sequential(*layers)
                def forward(self, x):
                    return self.net(x)
            def get_inputs():
                return [torch.randn(8, 256)]
            def get_init_inputs():
                return []
            """,
            line=11,
            column=9,
        ),
        # A residual CNN at batch 2, its blocks a class of the file.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Block(nn.Module):
                def __init__(self, c):
                    super().__init__()
                    self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
                    self.bn1 = nn.BatchNorm2d(c)
                    self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
                    self.bn2 = nn.BatchNorm2d(c)
                def forward(self, x):
                    y = torch.relu(self.bn1(self.conv1(x)))
                    return torch.relu(self.bn2(self.conv2(y)) + x)
            class Model(nn.Module):
                def __init__(self, c, blocks):
                    super().__init__()
                    self.blocks = nn.Sequential(*[Block(c) for _ in range(blocks)])
                def forward(self, x):
                    return self.blocks(x)
            def get_inputs():
                return [torch.randn(2, 32, 28, 28)]
            def get_init_inputs():
                return [32, 4]
            """,
            line=18,
            column=9,
        ),
        # Layers in a ModuleList, run in a loop over the layers.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.norms = nn.ModuleList([nn.LayerNorm(128) for _ in range(12)])
                    self.fcs = nn.ModuleList([nn.Linear(128, 128) for _ in range(12)])
                def forward(self, x):
                    for norm, fc in zip(self.norms, self.fcs):
                        x = x + torch.nn.functional.gelu(fc(norm(x)))
                    return x
            def get_inputs():
                return [torch.randn(16, 128)]
            def get_init_inputs():
                return []
            """,
            line=9,
            column=9,
        ),
        # ModelNew of a generation loop that keeps the torch layers and adds a small Triton kernel.
        Invalid(
            """
            import torch
            import torch.nn as nn
            import triton
            import triton.language as tl
            @triton.jit
            def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)
            class ModelNew(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.net = nn.Sequential(*[nn.Sequential(nn.Linear(64, 64), nn.Tanh()) for _ in range(10)])
                def forward(self, x):
                    x = self.net(x)
                    y = torch.empty_like(x)
                    scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
                    return y
            def get_inputs():
                return [torch.randn(4, 64)]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=9,
        ),
        # Helper functions that build the layers (conv, norm, activation).
        Invalid(
            """
            import torch
            import torch.nn as nn
            def conv_bn(cin, cout, stride):
                return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.body = nn.Sequential(
                        conv_bn(3, 16, 2), conv_bn(16, 32, 1), conv_bn(32, 32, 2), conv_bn(32, 64, 1),
                        conv_bn(64, 64, 2), conv_bn(64, 128, 1),
                    )
                    self.head = nn.Linear(128, 10)
                def forward(self, x):
                    x = self.body(x)
                    x = nn.functional.adaptive_avg_pool2d(x, 1).flatten(1)
                    return self.head(x)
            def get_inputs():
                return [torch.randn(1, 3, 64, 64)]
            def get_init_inputs():
                return []
            """,
            line=14,
            column=9,
        ),
        # A chain of many small elementwise and norm ops without any GEMM.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.norm = nn.LayerNorm(256)
                def forward(self, x):
                    x = torch.tanh(self.norm(x)) * 0.5
                    x = torch.tanh(self.norm(x)) * 0.5
                    x = torch.tanh(self.norm(x)) * 0.5
                    x = torch.tanh(self.norm(x)) * 0.5
                    x = torch.tanh(self.norm(x)) * 0.5
                    return torch.sigmoid(x)
            def get_inputs():
                return [torch.randn(32, 256)]
            def get_init_inputs():
                return []
            """,
            line=8,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        entry = model.entry_point
        calibration = cost.calibration()
        if entry is None or entry.unknown or calibration is None or not entry.ops:
            return
        if any(op.kind in ("sync", "jit") or op.loop_line for op in entry.ops):
            return  # not capturable as it is, or a per-step loop whose own fix (KL005) comes first
        if any(model.qualname(call.func) in GRAPHED for function in model.functions for call in function.calls):
            return
        c = calibration.constants
        kernels = sum(op.repeat for op in entry.ops if op.launches)
        gpu = sum(op.repeat * cost.gpu_us(op, c) for op in entry.ops)
        host = sum(op.repeat * cost.host_us(op, c, "eager") for op in entry.ops)
        if kernels < MIN_KERNELS or host <= gpu:
            return
        forward = next(
            (f for f in model.functions if f.name == "forward" and f.class_name == entry.model_class and f.node),
            None,
        )
        if forward is None or forward.node is None:
            return
        message = (
            f"`{forward.qualname}` issues about {kernels} kernels per call at the file's shapes, about "
            f"{host:,.0f} us of host time to issue them one by one against about {gpu:,.0f} us of GPU work: "
            "the GPU waits for the host between kernels"
        )
        plan = (
            f"Capture `{forward.qualname}` in one CUDA graph on the first call (warm up on a side stream, then "
            "`with torch.cuda.graph(g): static_out = self._forward(static_in)`), and on each call copy the inputs "
            "into `static_in`, `g.replay()` and return `static_out.clone()`; or wrap the model in "
            "`torch.compile(mode='reduce-overhead')`, which also fuses its elementwise ops."
        )
        yield Report(node=forward.node.name, message=message, plan=plan)
