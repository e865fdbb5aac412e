from __future__ import annotations

from collections.abc import Iterator

from kernlint import cost
from kernlint.findings import Category, Severity
from kernlint.model import FileModel
from kernlint.model.shapes import library_prologue
from kernlint.registry import Invalid, Report, Rule, Valid

# The library kernel must take this much longer than its Triton replacement at
# the file's shapes (the verdict's own bar for "worth optimizing").
MIN_GAIN = 1.2
# What each library kernel is called in a message, and the kernel that replaces it.
KERNELS = {
    "max_pool": ("PyTorch's max pool (one thread per output, the window's argmax found too)", "pool"),
    "avg_pool": ("PyTorch's average pool (one thread per output, generic index arithmetic)", "pool"),
    "batch_norm": ("PyTorch's train-mode BatchNorm (statistics, then normalizing)", "batch_norm"),
    "group_norm": ("PyTorch's GroupNorm", "norm"),
    "instance_norm": ("PyTorch's InstanceNorm", "norm"),
    "layer_norm": ("PyTorch's LayerNorm (one block per row)", "layer_norm"),
    "softmax": ("PyTorch's softmax (several passes over a row that does not stay on chip)", "softmax"),
    "log_softmax": ("PyTorch's log-softmax (several passes over a row that does not stay on chip)", "softmax"),
    "scan": ("PyTorch's row scan", "scan"),
    "depthwise_conv": ("PyTorch's depthwise convolution (groups = channels, NCHW)", "depthwise"),
}
PLANS = {
    "pool": (
        "Write the pool as a Triton kernel without indices: each program takes a block of one output row and "
        "reduces the window's shifted loads (`tl.maximum` or a sum) in registers, so the input is read about once "
        "and nothing but the output is written."
    ),
    "batch_norm": (
        "Compute the batch statistics in one Triton kernel (per-channel sum and sum of squares, one read of the "
        "input, partial sums per program combined with atomics or a second tiny kernel) and normalize, scale and "
        "shift in a second (one read, one write); update running_mean/running_var from the same sums."
    ),
    "norm": (
        "Write the norm as one Triton kernel per group of rows: a first loop over the group accumulates mean and "
        "variance in fp32, a second normalizes, scales and shifts; no intermediate tensor."
    ),
    "layer_norm": (
        "Split each row across many programs: a first Triton kernel writes per-block partial sums and sums of "
        "squares (every SM busy), a second combines a row's partials and normalizes its block; for rows that fit "
        "on chip, one program per row holding the row in registers."
    ),
    "softmax": (
        "Write it as an online softmax in Triton: one pass keeps the running max and the rescaled running sum of "
        "exponentials per row, a second writes exp(x - max) / sum (its log for a log-softmax); a row that fits on "
        "chip is read once."
    ),
    "depthwise": (
        "Write the depthwise convolution as a Triton window sum: each program takes a block of one output row "
        "of one (batch, channel) plane, loads the channel's K x K weights and bias once, and accumulates the "
        "shifted input loads times the weights in fp32 (a pool's kernel with a weight per tap): the input is "
        "read about once and the output written once."
    ),
    "scan": (
        "Scan each row in a Triton kernel: one program per row (or block of rows) loads a block at a time, "
        "`tl.cumsum` (`tl.associative_scan` for a product) over it plus the carry of the blocks before, and "
        "stores it: one read and one write."
    ),
}


class SlowLibraryKernel(Rule):
    """
    ## What it does
    Finds a PyTorch op in a KernelBench-style forward whose own CUDA kernel,
    at the file's shapes, takes at least 1.2x the time of a Triton kernel
    that moves the same bytes: the cost model prices both from calibration
    probes of those very kernels on the GPU. The kernels it knows:
    `max_pool*d`/`avg_pool*d` (nn.MaxPool*d, nn.AvgPool*d, F.*), a
    depthwise convolution (nn.Conv2d with groups = in_channels), a
    train-mode BatchNorm, GroupNorm, InstanceNorm, LayerNorm (a few huge rows:
    one block each), softmax and log-softmax over long rows, and cumsum or
    cumprod along the last dimension.

    It stays silent where the shapes are not static, where the measured
    kernel is close to its bytes at the file's shapes (a sum, an argmax, a
    non-overlapping pool on a small tensor), and on ops without a calibrated
    rate at the file's shapes (an InstanceNorm or GroupNorm over planes that
    stay on chip: the probes measured planes that do not).

    ## Why is this bad?
    A library kernel is written for every shape; at some it runs far from
    the memory bandwidth its bytes need. PyTorch's CUDA max pool runs one
    thread per output with generic index arithmetic and computes the argmax
    as well; with overlapping windows (a 3x3 window at stride 1) it takes
    several times the time of reading the input once. LayerNorm runs one
    block per row, so 16 rows of 4 million elements use 16 of 132 SMs.
    A train-mode BatchNorm reads its input in separate statistics passes.
    Where the op is most of the forward, the forward runs that much slower.

    ## Example
    ```python
    self.pool = nn.MaxPool2d(kernel_size=3, stride=1)
    return self.pool(x)  # x: [16, 64, 512, 512] fp32
    ```

    ## Use instead
    ```python
    @triton.jit
    def max_pool2d_kernel(x_ptr, out_ptr, H, W, OH, OW, K: tl.constexpr, BLOCK_W: tl.constexpr):
        row = tl.program_id(0)
        plane, oh = (row // OH).to(tl.int64), row % OH
        ow = tl.program_id(1) * BLOCK_W + tl.arange(0, BLOCK_W)
        acc = tl.full([BLOCK_W], float("-inf"), tl.float32)
        for kh in tl.static_range(K):
            for kw in tl.static_range(K):
                x = tl.load(x_ptr + plane * H * W + (oh + kh) * W + ow + kw, mask=ow < OW, other=float("-inf"))
                acc = tl.maximum(acc, x)
        tl.store(out_ptr + (plane * OH + oh) * OW + ow, acc, mask=ow < OW)
    ```

    ## Fix safety
    No automatic fix: the replacement is a new kernel, and a max pool that
    must return indices (`return_indices=True`) or a norm in eval mode needs
    its own variant.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl029_slow_library_kernel/` (`kernlint rule KL029` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL029"
    name = "slow-library-kernel"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.WARNING
    summary = "a PyTorch op whose own kernel runs far slower than its bytes need at the file's shapes."
    bottleneck = (
        "A library kernel far from memory bandwidth at these shapes: generic per-output index arithmetic, "
        "extra passes over the data, or too few blocks for the GPU."
    )
    method = (
        "Replace the op with a Triton kernel that moves only the bytes the op needs: an index-free window "
        "reduction, a split-row or online normalization, a one-pass row scan."
    )
    priority = 40
    fix_effect = "replace_library_kernel"

    VALID = [
        # A grouped convolution with several input channels per group: cuDNN's GEMM, not a depthwise kernel.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.conv = nn.Conv2d(64, 64, 3, padding=1, groups=8)
                def forward(self, x):
                    return self.conv(x)
            def get_inputs():
                return [torch.randn(16, 64, 256, 256)]
            def get_init_inputs():
                return []
            """
        ),
        # A non-overlapping pool on a small tensor: a launch, close to its bytes.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.pool = nn.MaxPool2d(2)
                def forward(self, x):
                    return self.pool(x)
            def get_inputs():
                return [torch.randn(2, 8, 32, 32)]
            def get_init_inputs():
                return []
            """
        ),
        # A reduction PyTorch runs at its bytes' speed.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def forward(self, x):
                    return torch.sum(x, dim=1)
            def get_inputs():
                return [torch.randn(4096, 8192)]
            def get_init_inputs():
                return []
            """
        ),
        # An InstanceNorm over planes that stay on chip (64 x 64): the calibration measured PyTorch's kernel
        # on planes that do not, so nothing prices it slower than a Triton kernel here.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.norm = nn.InstanceNorm2d(64)
                def forward(self, x):
                    return self.norm(x)
            def get_inputs():
                return [torch.randn(16, 64, 64, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # A LayerNorm over many short rows.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.norm = nn.LayerNorm(64)
                def forward(self, x):
                    return self.norm(x)
            def get_inputs():
                return [torch.randn(64, 64)]
            def get_init_inputs():
                return []
            """
        ),
        # A scan along the first dimension: not the row scan the calibration measured.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def forward(self, x):
                    return torch.cumsum(x, dim=0)
            def get_inputs():
                return [torch.randn(4096, 4096)]
            def get_init_inputs():
                return []
            """
        ),
        # Shapes that are not static.
        Valid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.pool = nn.MaxPool3d(3, stride=1)
                def forward(self, x):
                    return self.pool(x)
            def get_inputs():
                return [torch.randn(*read_shape())]
            def get_init_inputs():
                return []
            """
        ),
    ]
    INVALID = [
        # A depthwise 3x3 convolution over a large activation.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, c):
                    super().__init__()
                    self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c)
                def forward(self, x):
                    return self.dw(x)
            def get_inputs():
                return [torch.randn(16, 128, 256, 256)]
            def get_init_inputs():
                return [128]
            """,
            line=9,
            column=16,
        ),
        # An overlapping 3x3 max pool over a large tensor.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.pool = nn.MaxPool2d(kernel_size=3, stride=1)
                def forward(self, x):
                    return self.pool(x)
            def get_inputs():
                return [torch.randn(16, 64, 512, 512)]
            def get_init_inputs():
                return []
            """,
            line=9,
            column=16,
        ),
        # The functional form, a 3-D window.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            class Model(torch.nn.Module):
                def forward(self, x):
                    return F.avg_pool3d(x, kernel_size=3, stride=1, padding=1)
            def get_inputs():
                return [torch.randn(8, 32, 64, 64, 64)]
            def get_init_inputs():
                return []
            """,
            line=6,
            column=16,
        ),
        # A LayerNorm over a few huge rows: one block each, most SMs idle.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.ln = nn.LayerNorm((32, 256, 256))
                def forward(self, x):
                    return self.ln(x)
            def get_inputs():
                return [torch.randn(8, 32, 256, 256)]
            def get_init_inputs():
                return []
            """,
            line=9,
            column=16,
        ),
        # A train-mode BatchNorm over a large activation.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def __init__(self, c):
                    super().__init__()
                    self.bn = nn.BatchNorm2d(c)
                def forward(self, x):
                    return self.bn(x)
            def get_inputs():
                return [torch.randn(32, 64, 256, 256)]
            def get_init_inputs():
                return [64]
            """,
            line=9,
            column=16,
        ),
        # A softmax over rows of a quarter million elements.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def forward(self, x):
                    return torch.softmax(x, dim=1)
            def get_inputs():
                return [torch.randn(1024, 262144)]
            def get_init_inputs():
                return []
            """,
            line=6,
            column=16,
        ),
        # A cumulative sum along the rows, as a method.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def forward(self, x):
                    y = x * 2.0
                    return y.cumsum(dim=-1)
            def get_inputs():
                return [torch.randn(16384, 16384)]
            def get_init_inputs():
                return []
            """,
            line=7,
            column=16,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        entry = model.entry_point
        calibration = cost.calibration()
        if entry is None or entry.unknown or calibration is None:
            return
        c = calibration.constants
        reported: set[int] = set()
        for i, op in enumerate(entry.ops):
            node = entry.nodes[i] if i < len(entry.nodes) else None
            if op.kernel not in cost.LIBRARY_KERNELS or node is None or op.line in reported:
                continue
            # The kernel's time at its measured rate, not a small op's launch floor: a finding is about a
            # kernel slow at its bytes (the verdict weighs the whole forward, floors and host included).
            before = cost.library_us(op, c)
            after = sum(cost.gpu_us(r, c) for r in cost.library_replacement(op))
            if before is None or before < MIN_GAIN * after:
                continue
            reported.add(op.line)
            family = op.kernel.rstrip("123d")  # max_pool2d -> max_pool
            what, fix = KERNELS[family]
            message = (
                f"{what} takes about {before:,.0f} us per run here ({op.note or op.kernel}, "
                f"{op.bytes / 2**20:,.0f} MiB to move), about {before / after:.1f}x the {after:,.0f} us of a "
                "Triton kernel that moves the same bytes"
            )
            plan = PLANS[fix]
            pre = library_prologue(entry.ops, i)
            if pre is not None:
                # The elementwise pass that writes this kernel's input (a norm's apply and activation) goes too.
                spelled = entry.ops[pre].note or entry.ops[pre].kind
                plan += (
                    f" Apply the elementwise pass that writes its input (line {entry.ops[pre].line}, {spelled}) to "
                    "the values the new kernel loads, so that tensor is never written nor read back."
                )
            yield Report(node=node, message=message, plan=plan)
