"""Static shapes and dtypes of a KernelBench-style file's entry point, and
the GPU work its `forward` does (for kernlint.cost).

KernelBench's convention fixes the sizes in the source: module-level
constants, `get_inputs()` (the forward's arguments) and `get_init_inputs()`
(the constructor's). From them this module binds `Model.__init__`'s
parameters (and so the shapes of `nn.Linear` weights, `nn.Parameter`s and
buffers) and `forward`'s arguments, then reads `forward` once, statement by
statement, recording each torch op it runs with its shapes, dtypes, bytes,
flops and line: an `Op`. A Python loop over `range(n)` records its body
once, with `repeat = n`. Triton launches are recorded with the tensors
they are passed.

Nothing is executed: values are evaluated from the syntax alone. What
cannot be evaluated (a size computed at run time, a module this table does
not know, a branch on data) makes the op, or the whole entry point,
unknown, with the reason kept in `EntryPoint.unknown`, never a guess.

Reads only the module-level statements, the model class and the functions
`get_inputs`/`get_init_inputs`: no second pass over the tree.
"""

from __future__ import annotations

import ast
import itertools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

import libcst as cst
from kernlint.model.attention import AttentionFacts
from kernlint.model.dtypes import DtypeFacts
from kernlint.model.facts import FunctionInfo
from kernlint.model.guards import GuardFacts
from kernlint.model.host_values import HostValueFacts
from kernlint.model.kernel import KernelFacts
from kernlint.model.kernel_loops import KernelLoopFacts
from kernlint.model.kernel_tiles import KernelTileFacts
from kernlint.model.offsets import OffsetFacts
from kernlint.model.products import multiply_add_products
from kernlint.model.summed import SummedLoadFacts
from kernlint.model.syntax import COMPARISONS, keyword, literal_value, names_in, positional, walk
from kernlint.model.torch_api import MODULE_MOVES
from kernlint.model.tuning import DEFAULT_NUM_STAGES, DEFAULT_NUM_WARPS

DTYPE_BYTES = {
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "float64": 8,
    "int8": 1,
    "uint8": 1,
    "int32": 4,
    "int64": 8,
    "bool": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
}
# Allocations that fill a constant (a part of a joined tensor a kernel could write as it stores its own).
CONSTANT_FILLS = {"torch.zeros", "torch.ones", "torch.full", "torch.zeros_like", "torch.ones_like", "torch.full_like"}
# The note of F.unfold's copy (a convolution's column matrix).
IM2COL = "F.unfold (im2col)"
# A Triton launch that writes this many times the bytes it reads, with no product, materializes an expanded
# view of its input (`Op.expands`): an im2col matrix is kh x kw times its input, a stride-2 zero-inserted
# input 4 or 8 times. A copy, a cast or a pad writes about what it reads.
EXPANSION = 2
# A warp's load is served in 32-byte sectors: lanes whose elements lie this far apart or more each need one.
SECTOR_BYTES = 32
# A tl.dot with input_precision="tf32x3": a_hi*b_hi + a_hi*b_lo + a_lo*b_hi, three TF32 MMAs per product (the
# definition of the method, not a measured rate).
TF32X3_PASSES = 3
# The program ids per grid axis at which a loop bound read from the id is evaluated (evenly spread) to
# average its trips: enough for a bound that grows linearly with the id (a causal mask's).
PID_SAMPLES = 64
# A warp's 32 lanes of 4 bytes read one 128-byte line: a copy whose contiguous runs are at least this long
# moves whole lines, as a plain copy does.
COALESCED_RUN_BYTES = 4 * SECTOR_BYTES
DTYPE_ALIASES = {"float": "float32", "half": "float16", "double": "float64", "long": "int64", "int": "int32"}
CREATORS = {
    "randn",
    "rand",
    "zeros",
    "ones",
    "empty",
    "full",
    "randint",
    "randn_like",
    "zeros_like",
    "ones_like",
    "empty_like",
    "rand_like",
}
FILLING_ALLOCATORS = {
    "zeros",
    "ones",
    "full",
    "arange",
    "tensor",
    "as_tensor",
    "linspace",
    "eye",
    "zeros_like",
    "ones_like",
    "full_like",
}
UNARY = {
    "relu", "sigmoid", "tanh", "exp", "log", "abs", "neg", "sqrt", "rsqrt", "gelu", "silu", "mish", "softplus",
    "leaky_relu", "elu", "hardtanh", "hardswish", "hardsigmoid", "relu6", "clamp", "clip", "sin", "cos", "erf",
    "reciprocal", "square", "log1p", "expm1", "sign", "round", "floor", "ceil", "dropout", "selu", "celu",
    "logsigmoid", "tanhshrink", "softsign", "swish",
}  # fmt: skip
BINARY = {"add", "sub", "mul", "div", "maximum", "minimum", "pow", "where", "true_divide", "multiply", "subtract"}
SOFTMAX = {"softmax", "log_softmax"}
REDUCTIONS = {
    "sum",
    "mean",
    "amax",
    "amin",
    "max",
    "min",
    "prod",
    "norm",
    "logsumexp",
    "var",
    "std",
    "argmax",
    "argmin",
}
# Reductions whose second positional argument is `unbiased`, before keepdim (torch.var(x, 1, False, True)).
DEVIATIONS = {"var", "std", "var_mean", "std_mean"}
# Same-shape ops that are one kernel and one pass each, beyond UNARY/BINARY:
# scans, reversals, triangular masks (issue 27's GEMM-free chains).
SCANS = {"cumsum", "cumprod", "logcumsumexp"}
SAME_SHAPE = {"flip", "tril", "triu", "roll", "nan_to_num", "masked_fill", "clamp_min", "clamp_max", "softsign"}
# The library kernels of the norm modules (nn.BatchNorm2d -> "batch_norm"), whose measured rates price them.
NORM_KERNELS = {
    "BatchNorm": "batch_norm",
    "GroupNorm": "group_norm",
    "InstanceNorm": "instance_norm",
    "LayerNorm": "layer_norm",
}
# Row normalizations: statistics and the normalized values in one kernel
# (in and out once each), like a softmax.
ROW_NORMS = {"normalize", "layer_norm", "rms_norm", "instance_norm", "group_norm"}
# Losses: read their inputs once, write a scalar (reduction="mean"/"batchmean").
LOSSES = {
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "nll_loss", "cross_entropy",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "triplet_margin_loss", "hinge_embedding_loss",
    "margin_ranking_loss", "cosine_embedding_loss", "soft_margin_loss",
}  # fmt: skip
# Losses torch computes elementwise into a tensor of the inputs' size and then
# reduces (ATen's pointwise loss kernels, then the mean or sum): two kernels.
POINTWISE_LOSSES = {
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "soft_margin_loss",
}  # fmt: skip
# The loss modules, by the function they run.
LOSS_MODULES = {
    "MSELoss": "mse_loss", "L1Loss": "l1_loss", "SmoothL1Loss": "smooth_l1_loss", "HuberLoss": "huber_loss",
    "KLDivLoss": "kl_div", "NLLLoss": "nll_loss", "CrossEntropyLoss": "cross_entropy", "BCELoss": "binary_cross_entropy",
    "BCEWithLogitsLoss": "binary_cross_entropy_with_logits", "TripletMarginLoss": "triplet_margin_loss",
    "HingeEmbeddingLoss": "hinge_embedding_loss", "MarginRankingLoss": "margin_ranking_loss",
    "CosineEmbeddingLoss": "cosine_embedding_loss", "SoftMarginLoss": "soft_margin_loss",
}  # fmt: skip
RNN_GATES = {"GRU": 3, "LSTM": 4, "RNN": 1}
CASTS = {
    "bool": "bool",
    "float": "float32",
    "half": "float16",
    "bfloat16": "bfloat16",
    "double": "float64",
    "int": "int32",
    "long": "int64",
}
# Tensor methods that return a view (`reshape` may copy: that copy is an op of its own, not a view's cost).
VIEW_METHODS = frozenset(
    {"t", "transpose", "swapaxes", "permute", "view", "view_as", "flatten", "unsqueeze", "squeeze", "expand"}
    | {"expand_as", "unflatten", "unfold", "narrow", "select", "diagonal", "movedim", "moveaxis"}
)
VIEWS = {"view", "reshape", "flatten", "unsqueeze", "squeeze", "expand", "expand_as", "view_as", "reshape_as", "detach"}
SYNCS = {"item", "tolist", "cpu", "numpy"}
CONV_DIMS = {"Conv1d": 1, "Conv2d": 2, "Conv3d": 3, "ConvTranspose1d": 1, "ConvTranspose2d": 2, "ConvTranspose3d": 3}
ADAPTIVE_POOL_DIMS = {
    "AdaptiveAvgPool1d": 1, "AdaptiveAvgPool2d": 2, "AdaptiveAvgPool3d": 3,
    "AdaptiveMaxPool1d": 1, "AdaptiveMaxPool2d": 2, "AdaptiveMaxPool3d": 3,
}  # fmt: skip
# The leading arguments of nn.MaxPool*d/F.max_pool*d and nn.AvgPool*d/F.avg_pool*d (an average pool has no dilation).
POOL_ARGUMENTS = {"Max": ("kernel_size", "stride", "padding", "dilation"), "Avg": ("kernel_size", "stride", "padding")}
POOL_DIMS = {"MaxPool1d": 1, "MaxPool2d": 2, "MaxPool3d": 3, "AvgPool1d": 1, "AvgPool2d": 2, "AvgPool3d": 3}
NORMS = {
    "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "LayerNorm", "InstanceNorm1d", "InstanceNorm2d",
    "InstanceNorm3d", "RMSNorm",
}  # fmt: skip
LOOP_LIMIT = 1 << 20
# A host loop over at most this many static sizes (a shape's dimensions) runs item by item.
HOST_UNROLL = 16
# Steps of a `while` loop over a model's layers or sizes the table runs one by one (a design bound: a network's
# layers number in the hundreds; a loop longer than this is a data loop, not followed).
WHILE_LIMIT = 1024
# The items of a list comprehension the table evaluates one by one (a network's layers, a few sizes).
COMPREHENSION_LIMIT = 64
# A host loop that searches for a size (its body returns, calls nothing) runs step by step up to this many steps.
HOST_SEARCH = 4096
# Helpers forward calls, and the module classes it builds, are read through
# (a wrapper that allocates and launches; a stage of blocks of attention and
# MLP modules); deeper chains are left unknown.
INLINE_DEPTH = 8
# Allocators whose result a launch writes: the tensor the kernel produces.
OUTPUT_ALLOCATORS = frozenset({"empty", "empty_like", "zeros", "zeros_like", "empty_strided", "full", "ones"})


@dataclass(frozen=True)
class Tensor:
    shape: tuple[int, ...]
    dtype: str
    contiguous: bool = True
    origin: int = -1  # index of the op that produced it (-1: a parameter or constant; -2, -3, ...: forward's inputs)
    on_host: bool = False  # built in forward without a device: a CPU tensor
    # Issue 27 (KL027): a number every element equals, when the syntax proves
    # one (a softmax over a dimension of size 1 is all ones), and whether the
    # tensor holds its producer's values in their order (False for a slice, a
    # transpose or one of several outputs of one op), so that two tensors with
    # the same `same` hold the same values.
    value: float | None = None
    same: int | None = None
    exact: bool = True
    # Not contiguous, but long runs along its last axis are, so a copy of it streams, where a transposed
    # view's copy runs at the transposed-copy rate: a slice (steps of 1) of a contiguous tensor
    # (`w[:, :k].contiguous()`), or a permutation that keeps the last axis, whose rows are at least
    # COALESCED_RUN_BYTES long (attention's heads put back, `o.transpose(1, 2).contiguous()`).
    runs_contiguous: bool = False
    # A transposed or permuted view of a tensor whose strides are known: (the shape they belong to, the strides),
    # so `w.t().stride(0)` at a launch reads 1 (a kernel reading the weight K-major through the view). A view
    # that changes the shape leaves them behind (they hold only while the shape is this one).
    layout: tuple[tuple[int, ...], tuple[int, ...]] | None = None

    @property
    def strides(self) -> tuple[int, ...] | None:
        """Its strides in elements: row-major where contiguous, a transposed view's where known; else None."""
        if self.contiguous:
            return tuple(math.prod(self.shape[d + 1 :]) for d in range(len(self.shape)))
        if self.layout is not None and self.layout[0] == self.shape:
            return self.layout[1]
        return None

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * DTYPE_BYTES.get(self.dtype, 4)


@dataclass(frozen=True)
class ConvProduct:
    """A convolution a Triton launch computes, as PyTorch's module would run it (`_conv_product`)."""

    module: str  # "nn.Conv2d", "nn.ConvTranspose3d", ...
    depth: int  # input channels per group x taps
    flops: int  # as the module counts them: a transposed one over its input's positions
    groups: int
    window: tuple[int, ...]  # kernel sizes, then strides (read off the sizes), then dilations
    nbytes: int  # input, weight and output


@dataclass(frozen=True)
class Op:
    """One piece of GPU (or host) work `forward` does, at `line`, `repeat` times."""

    kind: str  # gemm | elementwise | reduction | copy | transpose_copy | alloc | attention | sync | triton | jit | view
    line: int
    bytes: int = 0
    flops: int = 0
    path: str = ""  # the GEMM's execution path: fp32, tf32, fp16, bf16, int8
    repeat: int = 1
    loop_line: int = 0  # the `for` this op runs in, 0 outside loops
    inputs: tuple[int, ...] = ()  # producing ops of its tensor inputs
    launches: bool = True  # a GPU kernel (torch.empty allocates without one)
    programs: int = 0  # Triton launches: programs in the grid, when known
    site_line: int = 0  # Triton launches: the launch's own line (`line` is forward's, for a launch in a helper)
    kernel_lines: tuple[int, int] = (0, 0)  # Triton launches: the first and last line of the kernel launched
    streams: bool = False  # Triton launches: each program loops over its data, loads and stores only (no product)
    scalar_loop: bool = False  # ... one element per load and store: the loop walks its data a scalar at a time
    int_keywords: tuple[tuple[str, int], ...] = ()  # Triton launches: keyword arguments with an int value (BLOCK=...)
    note: str = ""
    in_bytes: tuple[int, ...] = ()  # per tensor input
    out_bytes: int = 0
    elem_bytes: int = 4  # bytes per element moved (a transposed copy's rate depends on it)
    steps: int = 0  # a recurrence ("rnn"): its sequential time steps
    library: bool = False  # issued inside one library call (cuDNN's RNN): no Python host cost of its own
    value: float | None = None  # the one number its result holds everywhere, whatever the inputs' values (KL027)
    returned: bool = False  # forward returns its result (or a view of it)
    autotuned: bool = False  # Triton launches: of an @triton.autotune kernel (the autotuner's host work per call)
    recurrent: bool = False  # in a loop whose steps feed the next one's matrix product (an RNN cell)
    # A convolution: its GEMM depth (input channels per group x kernel taps); a pool: its window's taps.
    reduction: int = 0
    conv_bias: bool = False  # a convolution with a bias: cuDNN's convolution, then a pass that adds it
    cloned: bool = False  # an out-of-place masked_fill: ATen clones the input, then fills the clone in place
    layer: bool = False  # run by a layer of an nn.Sequential/nn.ModuleList, not spelled in a forward (KL004)
    # The library kernel that runs it, where the calibration measured that kernel's own rate (KL029): a pool
    # ("max_pool2d"), a norm ("batch_norm", "layer_norm", ...), a softmax, a scan along the last dimension.
    kernel: str = ""
    rows: int = 0  # a row-wise library kernel (layer_norm, softmax, scan): the rows it normalizes or scans
    arguments: int = 0  # Triton launches: arguments in the call, constexpr keywords included (host cost per call)
    # An elementwise op with an operand broadcast against it (a bias row, a column of scales): PyTorch's
    # kernel then indexes every operand and does not vectorize its loads.
    broadcast: bool = False
    # Triton launches: a tensor the kernel reads in several full passes (sequential loops from the start of
    # its row, each loading it: a max pass, a sum pass, a normalize pass): (line of the first pass, passes,
    # the tensor's bytes). `bytes` counts each pass's read.
    row_passes: tuple[tuple[int, int, int], ...] = ()
    # A sync whose value forward goes on to use (a scale computed from `.item()`): the fix keeps it on the
    # device, so the work that computed it stays.
    value_read: bool = False
    # Triton launches: (M, N, K) of a tl.dot product the kernel reduces over N before it stores (an output of
    # one column beside operands [M, K] and a weight [N, K]): its flops are the whole product's.
    reduced_product: tuple[int, ...] = ()
    # Its reduction over N in windows of this many consecutive columns (an average pool in the tile: KL026's
    # fix narrows the product by it); 0 for a sum over the whole row.
    reduced_window: int = 0
    # Triton launches: the inputs (origins, as in `inputs`) bound to pointers the kernel only stores to (an
    # output slice it writes, not a tensor it reads).
    write_only: tuple[int, ...] = ()
    # Triton launches: the bytes of the tensors bound to pointers the kernel stores to, and their element size.
    stored_bytes: int = 0
    stored_elem: int = 0
    # Triton launches of a tl.dot kernel: its tile config (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages)
    # where the file fixes it, the configs an autotuner picks among (the kernel's @triton.autotune, or KL003's
    # set under its fix), and the product's output rows and columns (M, N), which a tile of another size
    # covers with another number of programs.
    dot_tile: tuple[int, ...] = ()
    dot_configs: tuple[tuple[int, ...], ...] = ()
    dot_mn: tuple[int, ...] = ()
    # ... and the extent its K loop walks in BLOCK_K steps (`for ic0 in range(0, C_in, BLOCK_IC)`: a convolution's
    # input channels per tap), where the launch shows it: a deeper tile multiplies masked zeros past it.
    dot_k_extent: int = 0
    # Triton launches of a tl.dot kernel: its B operand is read K-major (a weight [N, K] read transposed, as
    # kernels read an nn.Linear weight), where the launch shows the strides; TF32 runs several times faster so.
    dot_b_kmajor: bool = False
    # ... and its A operand is read M-major (unit stride along M, another along K: an implicit-GEMM convolution
    # gathering NCHW pixels as A's rows): TF32 then runs at the rate of a tile with one operand not K-major,
    # whatever B's layout (measured on an H200: 82 TFLOPS for A M-major and B K-major at 128x128x32, as for
    # A K-major and B N-major, against 286 with both K-major).
    dot_a_mmajor: bool = False
    # ... and its B operand is read off K-major: its K axis's stride not 1 (a B [K, N] read as it lies in memory,
    # unit stride along N; a weight (C_out, C_in, kh, kw) gathered tap by tap, neither axis unit), where the
    # launch shows the strides: with A read M-major, KL031's operands off K-major on TF32.
    dot_b_off_kmajor: bool = False
    # ... and, for A and for B, the bytes of the tensors such an operand (A M-major, B off K-major) is loaded from
    # that forward receives or computes from its inputs on each call: what KL031's fix copies K-major per call
    # (a parameter or buffer, or a copy forward makes of one, is laid out once, at load time: nothing per call).
    dot_relayout_bytes: tuple[int, int] = (0, 0)
    # ... and, for A and for B, the bytes its tiles load (over the whole grid: a tile is re-read by every program
    # that needs it) where the operand has no unit stride along either axis, each a 32-byte sector or more (a
    # transposed convolution's weight gathered tap by tap): whichever axis Triton runs a load's lanes along,
    # each lane reads a sector of its own.
    dot_gather_bytes: tuple[int, int] = (0, 0)
    # Triton launches: the bytes of the tensors the kernel loads or stores with every vector lane a stride apart
    # (KL030), and the smallest such stride in elements, at the launch's values.
    strided_bytes: int = 0
    lane_stride: int = 0
    # ... and the elements one such load reads (its vector lanes; 0: not known).
    strided_lanes: int = 0
    # Triton launches without a product: the elements its tile loads read over the whole grid, every trip of
    # the loops around them counted (a pool's or a depthwise convolution's window re-reads each input element
    # once per tap, from the cache: such a kernel is bound by its loads, not by its bytes); 0 where a loop's
    # trips or a load's tile is not known.
    loaded_elements: int = 0
    # Set by KL020's fix (cost.tensor_cores): the product, once multiply-adds, now on tl.dot, priced at no more
    # than the library's rate for its convolution (`conv_product`).
    at_library_rate: bool = False
    # Triton launches: the kernel reduces across a block (tl.sum, tl.max, ...): one that applies statistics
    # may be combining partials another kernel wrote.
    reduces: bool = False
    # Triton launches without a product that write several times the bytes they only read (an im2col kernel,
    # a zero-inserted copy of the input): (bytes read, bytes written). A GEMM kernel reading what one writes
    # reads a materialized view of a smaller tensor.
    expands: tuple[int, ...] = ()
    # Triton launches with a product: the kernel masks its result to a triangle before storing it and
    # computes every tile (KernelTileFacts.triangle_mask): about half the tiles are thrown away.
    triangle: bool = False
    # A transposed copy of a 2-D tensor (`w.t().contiguous()`): a matrix's rows made its columns, which a tl.dot
    # kernel handed the original reads with the strides swapped (KL002's fix in the cost model).
    matrix_transpose: bool = False
    # Triton launches of a tl.dot kernel on the TF32 path with `input_precision="tf32x3"`: each product is three
    # TF32 MMAs (each operand split into a high and a low TF32 part; the low x low term dropped), so the
    # tensor cores do this many times the product's flops.
    dot_passes: int = 1
    # Triton launches of a tl.dot kernel whose flops are counted from its loops, and whose taps are masked by
    # stride parity (`td % STRIDE == 0`: a transposed convolution gathered over every tap, KL025): the taps it
    # computes per tap that lands (stride to the power of the masked dimensions, at the launch's values).
    parity_waste: int = 1
    # A convolution module's window: its kernel size along each spatial dimension, then its stride along each,
    # then its dilation: what an average pool folded into it widens (KL026's fix).
    conv_window: tuple[int, ...] = ()
    # A convolution module's groups (cuDNN runs a grouped convolution group by group, on fewer channels each).
    conv_groups: int = 1
    # Triton launches whose product the launch's tensors name as a convolution: that convolution as PyTorch's
    # module would run it. KL020's fix prices its tl.dot rewrite at no more than the library's measured rate.
    conv_product: ConvProduct | None = None
    # Triton launches whose kernel adds up the loads of one tensor before any other use of them
    # (SummedLoadFacts.summed_loads): (that tensor's op, the taps of its fixed window at the launch's values;
    # 0 where the sum is over a block or a runtime loop, -1 for a window whose taps are not known).
    summed_input: tuple[int, ...] = ()
    # Triton launches: the ops of the tensors the kernel loads one element of per program (every load of
    # that pointer has no offsets vector: a row's statistic, read by the program that handles the row).
    per_program_reads: tuple[int, ...] = ()

    @property
    def a_off_kmajor(self) -> bool:
        """A tl.dot's A is read off K-major: with its unit stride along M (NCHW pixels), or with no unit stride on
        either axis (a convolution weight (C_out, C_in, kh, kw) read tap by tap as [C_out, C_in])."""
        return self.dot_a_mmajor or bool(self.dot_gather_bytes[0])

    @property
    def product(self) -> bool:
        """A torch GEMM, or a Triton launch whose tensors say it computes one on the tensor cores (tl.dot)."""
        return self.kind == "gemm" or (self.kind == "triton" and self.flops > 0 and self.path not in ("", "fma"))


def statistics_of(ops: tuple[Op, ...], launch: int) -> list[tuple[int, frozenset[int]]]:
    """The torch reductions whose result a Triton launch is handed together with the tensor they reduced (as
    large as the launch's largest tensor), and that nothing else reads: statistics the kernel could compute
    from the values it loads anyway (KL022, and its fix in the cost model). Each comes with every op of its
    pass: an elementwise op of that tensor the reduction reads (`x.pow(2).mean(1)`) and the small elementwise
    ops between the reduction and the launch (`torch.rsqrt(ms + eps)`), which the kernel does on the values
    it holds."""
    op = ops[launch]
    if not op.in_bytes:
        return []
    largest = max(op.in_bytes)
    found = []
    for r in op.inputs:
        after: set[int] = set()
        # Back from the launch's argument through small elementwise ops of one tensor to the reduction.
        while 0 <= r < launch and ops[r].kind == "elementwise" and len(set(ops[r].inputs)) == 1:
            if ops[r].out_bytes * 2 > largest:
                break
            after.add(r)
            r = ops[r].inputs[0]
        # (A launch that reduces too may be combining a long row's partials, which no program of one kernel
        # could hold; not where it runs as many programs as the statistics kernel and reads one element of
        # its statistics per program: a row max, then the row's exp-sum in a second kernel.)
        one_each = (
            0 <= r < launch
            and bool(op.programs)
            and op.programs == ops[r].programs
            # (The statistics buffer: the statistics launch's output, or the allocation it wrote.)
            and (r in op.per_program_reads or any(i in op.per_program_reads for i in ops[r].inputs if 0 <= i < r))
        )
        if 0 <= r < launch and not after and (not op.reduces or one_each) and _statistics_kernel(ops, r, op, largest):
            # A Triton kernel that only reduces a tensor the launch reads too, into a buffer the launch reads.
            if not ops[r].returned and not any(r in other.inputs for j, other in enumerate(ops) if j != launch):
                found.append((r, frozenset({r})))
            continue
        if not 0 <= r < launch or ops[r].kind != "reduction" or not ops[r].inputs or not ops[r].in_bytes:
            continue
        source, size = ops[r].inputs[0], ops[r].in_bytes[0]
        if size < largest or ops[r].out_bytes * 2 > size:
            continue
        before: set[int] = set()
        if source not in op.inputs:
            # An elementwise op of a tensor the kernel reads, reduced whole (a square, an absolute value).
            pre = ops[source] if 0 <= source < r else None
            if pre is None or pre.kind != "elementwise" or not pre.inputs or not set(pre.inputs) <= set(op.inputs):
                continue
            before.add(source)
        chain = frozenset(before | {r} | after)
        if any(ops[c].returned for c in chain):
            continue
        readers = {j for j, other in enumerate(ops) if j != launch and j not in chain and chain & set(other.inputs)}
        if readers:
            continue
        found.append((r, chain))
    return found


def _range_trips(
    loop: cst.For, given: dict[str, int], number: Callable[[cst.BaseExpression], int | None] | None = None
) -> int | None:
    """The trips of `for i in range(start, stop, step)` (or tl.range / tl.static_range) whose bounds are
    whole numbers, names in `given`, and + - * // and cdiv of them (or what `number` makes of them: a
    kernel's names bound once, followed); None otherwise."""
    call = loop.iter
    if not isinstance(call, cst.Call):
        return None
    name = call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", "")
    if name not in ("range", "static_range") or not 1 <= len(call.args) <= 3 or any(a.keyword for a in call.args):
        return None
    bounds = [(number or (lambda n: _whole_number(n, given)))(a.value) for a in call.args]
    if any(b is None for b in bounds):
        return None
    start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
    assert start is not None and stop is not None and step is not None
    return max(0, -(-(stop - start) // step)) if step > 0 else None


def _whole_number(node: cst.BaseExpression, given: dict[str, int]) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.Name):
        return given.get(node.value)
    if isinstance(node, cst.BinaryOperation):
        left, right = _whole_number(node.left, given), _whole_number(node.right, given)
        if left is None or right is None:
            return None
        if isinstance(node.operator, cst.Add):
            return left + right
        if isinstance(node.operator, cst.Subtract):
            return left - right
        if isinstance(node.operator, cst.Multiply):
            return left * right
        if isinstance(node.operator, cst.FloorDivide) and right:
            return left // right
        return None
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "cdiv":
        args = [_whole_number(a.value, given) for a in node.args]
        if len(args) == 2 and args[0] is not None and args[1]:
            return -(-args[0] // args[1])
    if isinstance(node, cst.Call):
        func = node.func.attr.value if isinstance(node.func, cst.Attribute) else getattr(node.func, "value", "")
        if func == "program_id" and node.args:
            # A program's id, where the caller gives it (`_mean_trips` walks the grid's axis).
            axis = _whole_number(node.args[0].value, {})
            return given.get(f"program_id({axis})") if axis is not None else None
        if func in ("minimum", "maximum", "min", "max") and len(node.args) == 2:
            pair = [_whole_number(a.value, given) for a in node.args]
            if pair[0] is not None and pair[1] is not None:
                return min(pair[0], pair[1]) if func in ("minimum", "min") else max(pair[0], pair[1])
    return None


def written_by(ops: tuple[Op, ...], i: int) -> set[int]:
    """Op `i` and the buffers allocated for it that it writes: a launch through a helper's parameter
    (`_bmm(q, k, S)` storing into S) leaves S's allocation as S's origin, so its readers read that (KL007's
    attention built from launches, and its fix in the cost model)."""
    return {i} | {s for s in ops[i].inputs if 0 <= s < i and ops[s].kind == "alloc"}


# The largest head dimension a fused attention kernel takes: FlashAttention-2's and PyTorch's flash backend's
# limit (Triton's flash-attention tutorial holds a tile of that width too). Past it the output tile of a block
# of queries does not fit on chip, and PyTorch's SDPA runs its unfused path: scores through memory either way.
FLASH_HEAD_DIM = 256


def head_dim(ops: tuple[Op, ...], scores: int) -> int | None:
    """The head dimension of attention whose scores product is op `scores`: its flops over twice the scores'
    elements (each score a dot product over the head dimension); None where the sizes are not known."""
    op = ops[scores]
    written = max((ops[j].out_bytes for j in written_by(ops, scores)), default=0)
    elem = op.elem_bytes or 4
    if not op.flops or not written:
        return None
    return op.flops // (2 * max(1, written // elem))


def from_inputs(ops: Sequence[Op], origin: int) -> bool:
    """Whether a tensor (an op's index, or -1 for a parameter or constant, -2, -3, ... for forward's inputs)
    holds values computed from forward's inputs: an activation, not a weight however it was prepared."""
    pending, seen = [origin], set()
    while pending:
        current = pending.pop()
        if current <= -2:
            return True
        if current < 0 or current in seen or current >= len(ops):
            continue
        seen.add(current)
        pending.extend(ops[current].inputs)
    return False


def mixes_values(ops: tuple[Op, ...], scores: int, output: int) -> bool:
    """Whether product `output`, after a softmax of product `scores`' result, multiplies the weights by values:
    an activation (attention's V, NetVLAD's x that the scores read too) rather than only a module parameter
    (inputs -1). A projection by a parameter after a kernel that exponentiates is one after a whole
    attention kernel, not the second half of a materialized one (KL007, and its fix in the cost model)."""
    if -1 not in ops[output].inputs:
        return True
    return bool((set(ops[scores].inputs) - {-1}) & (set(ops[output].inputs) - {-1}))


def reads_grid_statistic(ops: tuple[Op, ...], consumer: int, producer: int) -> bool:
    """Whether Triton launch `consumer` reads, beside the full-size tensor Triton launch `producer` wrote, a
    small tensor `producer` also wrote while reducing, each of whose values sums more elements than one
    program holds (STATISTIC_EXTENT: a channel's batch statistics, accumulated with atomics or partials
    across the grid). It needs every program of `producer` to have finished: a grid-wide dependency, so the
    two cannot be one kernel, and only the tensor between them can go (`consumer` recomputes it from what
    `producer` reads). KL022 and its fix in the cost model."""
    if not ops[producer].reduces:
        return False
    op = ops[consumer]
    sizes = [size for source, size in zip(op.inputs, op.in_bytes) if source == producer]
    if len(sizes) < 2 or not min(sizes):
        return False
    return max(sizes) > min(sizes) * STATISTIC_EXTENT


def prologue_of(ops: tuple[Op, ...], launch: int) -> list[int]:
    """The torch elementwise ops (not a cast) whose full-size result a Triton launch without a product reads as
    its largest tensor, and nothing else reads or returns (`masked = x * mask`, then `scan[grid](masked, ...)`):
    the kernel could apply them to the values it loads (KL022, and its fix in the cost model). A kernel with a
    product (tl.dot) loads each operand tile many times: only a pad (`F.pad`), a mask on its loads, is taken
    into it."""
    op = ops[launch]
    if op.kind != "triton" or not op.in_bytes:
        return []
    largest = max(op.in_bytes)
    found = []
    for r, size in zip(op.inputs, op.in_bytes):
        if not 0 <= r < launch or r in found:
            continue
        pre = ops[r]
        if pre.kind != "elementwise" or pre.note.startswith("cast") or pre.returned or size < largest:
            continue
        if op.product and pre.note != "F.pad":
            continue
        if pre.out_bytes < largest or any(r in other.inputs for j, other in enumerate(ops) if j != launch):
            continue
        found.append(r)
    return found


def library_prologue(ops: tuple[Op, ...], library: int) -> int | None:
    """The elementwise pass whose full-size output only library kernel `library` reads (a BatchNorm's apply
    and its activation, written whole, then a depthwise convolution over it): a torch elementwise op (not a
    cast) or a Triton launch that maps element by element (no product, no reduction, no loop), not returned.
    The Triton kernel that replaces the library's (KL029) can apply it to the values it loads."""
    op = ops[library]
    source = op.inputs[0] if op.inputs else -1
    if not 0 <= source < library:
        return None
    pre = ops[source]
    size = op.in_bytes[0] if op.in_bytes else op.bytes // 2
    # A Triton launch that writes the full-size tensor out of one of the same size and small ones (a
    # norm's apply may sum a few per-channel partials first: that is no reduction of the tensor).
    mapped = pre.kind == "triton" and not (pre.product or pre.streams or pre.row_passes) and 2 * size <= pre.bytes
    mapped = mapped and pre.bytes - 2 * size <= size // 8
    if not (mapped or pre.kind == "elementwise" and not pre.note.startswith("cast") and pre.out_bytes >= size):
        return None
    if pre.returned:
        return None
    if any(source in other.inputs for j, other in enumerate(ops) if j != library):
        return None
    return source


def concatenated_launches(ops: tuple[Op, ...], join: int) -> bool:
    """Whether op `join` is a torch.cat / torch.stack of Triton launches' outputs, and at most small constant
    fills beside them (an exclusive scan's zero column), that nothing else reads or returns: each kernel could
    store into its slice of the joined tensor, and write the constant part too (KL022, and its fix)."""
    op = ops[join]
    if op.kind != "copy" or op.note not in ("torch.cat", "torch.stack") or len(op.inputs) < 2:
        return False
    launches = 0
    for part in op.inputs:
        if not 0 <= part < join or ops[part].returned:
            return False
        if ops[part].kind == "alloc" and ops[part].note in CONSTANT_FILLS and ops[part].out_bytes * 8 <= op.bytes:
            continue
        if ops[part].kind != "triton":
            return False
        launches += 1
        if any(part in other.inputs for j, other in enumerate(ops) if j != join):
            return False
    return launches >= 1


# The most elements one statistic may reduce for the kernel that applies it to compute it too: a program
# then holds the values it reduces (a row, a channel column), as a one-program-per-row norm does; a
# statistic over more (a whole tensor's sum) needs every program's part first, a grid-wide dependency.
STATISTIC_EXTENT = 16384


def _statistics_kernel(ops: tuple[Op, ...], s: int, launch: Op, largest: int) -> bool:
    """Whether Triton launch `s` reduces a tensor `launch` reads whole (as large as its largest) into a
    buffer of its own at most STATISTIC_EXTENT times smaller: statistics, no product, nothing else written.
    (`launch` itself reduces nothing: one that does may be combining a long row's partials, which no
    program of one kernel could hold.)"""
    stats = ops[s]
    if stats.kind != "triton" or stats.flops or stats.product or len(stats.inputs) != len(stats.in_bytes):
        return False
    read = [(i, size) for i, size in zip(stats.inputs, stats.in_bytes) if i in launch.inputs and size >= largest]
    written = [i for i in stats.inputs if 0 <= i < s and ops[i].kind == "alloc"]
    if not read or not written:
        return False
    size = read[0][1]
    out = sum(ops[i].out_bytes for i in written)
    others = [i for i in stats.inputs if i not in written and i != read[0][0]]
    return 0 < out * 2 <= size and size <= out * STATISTIC_EXTENT and not others


@dataclass(frozen=True)
class EntryPoint:
    """What the file's entry point does at its own shapes."""

    model_class: str
    ops: tuple[Op, ...]
    inputs: tuple[tuple[str, str], ...]  # (name, "dtype[shape]") of forward's arguments
    sources: tuple[str, ...]  # where the shapes came from
    unknown: tuple[str, ...] = field(default=())  # why some work could not be sized (empty: all known)
    largest_numel: int = 0  # elements of the largest tensor forward sees or makes
    # Per op, the node of forward that runs it (a helper's ops: forward's call).
    nodes: tuple[cst.CSTNode | None, ...] = field(default=(), compare=False, repr=False)
    # Why an op's result is a constant, for the ops whose inputs are not: (op, reason, value, shape).
    constants: tuple[tuple[int, str, float, tuple[int, ...]], ...] = ()
    # Why the def-use of forward's tensors is not the whole story (an in-place
    # write, a Triton launch writing its arguments, a branch on data, state kept
    # on self): where this is non-empty, no op is called dead.
    side_effects: tuple[str, ...] = ()
    # forward's returned tensors: (producing op, shape, the one number it holds or None).
    outputs: tuple[tuple[int, tuple[int, ...], float | None], ...] = ()
    # The first and last lines of every statement the entry point ran (forward's, and those of the helpers
    # and submodules' methods it inlined; a branch it did not take is not among them) and of every kernel it
    # launched: code outside them is not timed.
    ran: tuple[tuple[int, int], ...] = ()

    def runs(self, first: int, last: int) -> bool:
        """Whether lines `first..last` lie in code the entry point runs."""
        return any(start <= last and first <= end for start, end in self.ran)

    @property
    def fits_int32(self) -> bool:
        """Every tensor of the entry point, at the file's shapes, has fewer than 2**31 elements."""
        return not self.unknown and 0 < self.largest_numel < 2**31


@dataclass(frozen=True)
class DeadWork:
    """Work of the entry point that its result does not need (KL027): an op
    whose result is one number whatever its inputs hold (`kind` "constant":
    a softmax over a dimension of size 1), or an expensive op whose result
    reaches nothing forward returns ("unused")."""

    kind: str
    op: int  # the constant's op, or the unused op
    node: cst.CSTNode
    why: str  # "constant": why the result is one number
    value: float | None  # "constant": that number
    shape: tuple[int, ...]  # "constant": the result's shape
    removed: tuple[int, ...]  # the ops the fix removes (the op itself, what feeds only it, constants after it)
    output: tuple[tuple[int, ...], float] | None  # a returned result that is then one number: (shape, value)


# Ops whose result, unused, is work worth naming (a GEMM, a convolution,
# attention, a recurrence, a reduction that reads more than it writes).
EXPENSIVE_KINDS = frozenset({"gemm", "attention", "rnn"})
# A Triton launch moving at least this much is work worth naming when its result is unused (a design bound:
# below it a launch costs about its floor, which the estimate of its removal says anyway).
EXPENSIVE_LAUNCH_BYTES = 1 << 20


def dead_with(ops: tuple[Op, ...], seeds: set[int], live: set[int]) -> set[int]:
    """`seeds` and what goes with them: the constants and unused ops that read
    them, and the ops whose every reader goes (what only fed them)."""
    drop = set(seeds)
    readers: dict[int, list[int]] = {i: [] for i in range(len(ops))}
    for j, op in enumerate(ops):
        for i in op.inputs:
            if 0 <= i < len(ops):
                readers[i].append(j)
    changed = True
    while changed:
        changed = False
        for j, op in enumerate(ops):
            if j not in drop and (op.value is not None or j not in live) and any(i in drop for i in op.inputs):
                drop.add(j)
                changed = True
        for i in range(len(ops) - 1, -1, -1):
            if i not in drop and not ops[i].returned and readers[i] and all(j in drop for j in readers[i]):
                drop.add(i)
                changed = True
    return drop


def is_expensive(op: Op) -> bool:
    return (
        op.kind in EXPENSIVE_KINDS
        or (op.kind == "reduction" and bool(op.in_bytes) and op.in_bytes[0] > op.out_bytes)
        # A Triton launch of real size (its product, or more than a small tensor's traffic): one whose output
        # nothing reads is work to delete (a Mamba chunk's Y_diag kernel where only the final state is returned).
        or (op.kind == "triton" and (op.flops > 0 or op.bytes >= EXPENSIVE_LAUNCH_BYTES))
    )


class _Unknown(Exception):
    pass


class _LoopExit(Exception):
    """A `break` or `continue` the table ran: the loop that runs the body step by step ends the step (or the loop)."""

    def __init__(self, statement: cst.Break | cst.Continue) -> None:
        super().__init__(type(statement).__name__.lower())
        self.breaks = isinstance(statement, cst.Break)


class ShapeFacts(AttentionFacts):
    # -- static shapes ------------------------------------------------------

    @cached_property
    def entry_point(self) -> EntryPoint | None:
        """The KernelBench entry point's ops at the file's shapes; None when
        the file is not in KernelBench form (no get_inputs or no model class)."""
        evaluator = _Evaluator(self)
        try:
            return evaluator.run()
        except (
            TypeError,
            ValueError,
            IndexError,
            KeyError,
            AttributeError,
            ZeroDivisionError,
            OverflowError,
            RecursionError,
        ) as error:
            # Values of unexpected types (a string where a size goes, a shape
            # indexed past its end): the file's sizes are not static for this
            # table, which is an unknown, not a crash of the lint.
            why = f"a value the shape table cannot evaluate ({type(error).__name__}: {error})"
            return EntryPoint("?", (), (), (), unknown=(why,))

    def sized_forward(self, function: FunctionInfo) -> EntryPoint | None:
        """The entry point at the file's shapes when `function` is its forward (a KernelBench-style file whose
        sizes are all static); None otherwise. What a rule's shape-dependent form reads."""
        entry = self.entry_point
        if entry is None or entry.unknown or function.qualname != f"{entry.model_class}.forward":
            return None
        return entry

    @cached_property
    def dead_work(self) -> tuple[DeadWork, ...]:
        """The entry point's work that its result does not need, at the
        file's shapes: nothing where a size is unknown or where def-use is
        not the whole story (an in-place write, a Triton launch, a branch
        the table cannot decide, state kept on self)."""
        entry = self.entry_point
        if entry is None or entry.unknown or entry.side_effects or len(entry.nodes) != len(entry.ops):
            return ()
        ops = entry.ops
        if not any(op.returned for op in ops):
            return ()
        live = live_ops(ops)
        computed_from = live_ops(ops, through_constants=True)
        # One call's ops go together (a module's layers and directions, a
        # helper's body): where one of them is needed, none is called dead.
        by_node: dict[int, list[int]] = {}
        for i, node in enumerate(entry.nodes):
            by_node.setdefault(id(node), []).append(i)
        found: list[DeadWork] = []
        covered: set[int] = set()
        for index, why, value, shape in entry.constants:
            node = entry.nodes[index]
            if index not in computed_from or node is None:
                continue  # a constant nothing returned needs: unused work, below
            removed = dead_with(ops, {index}, live)
            if any(i in live and i not in removed for i in by_node[id(node)]):
                continue
            output = next(((s, v) for origin, s, v in entry.outputs if v is not None and origin in removed), None)
            covered |= removed
            found.append(DeadWork("constant", index, node, why, value, shape, tuple(sorted(removed)), output))
        for index, op in enumerate(ops):
            node = entry.nodes[index]
            if index in covered or node is None or not is_expensive(op):
                continue
            if any(i in live for i in by_node[id(node)]):
                continue
            removed = dead_with(ops, {index}, live)
            covered |= removed
            found.append(DeadWork("unused", index, node, "", None, (), tuple(sorted(removed)), None))
        return tuple(found)

    @cached_property
    def layer_tails(self) -> tuple[tuple[cst.CSTNode, int, tuple[str, ...]], ...]:
        """Calls of forward whose container module's layers (nn.Sequential,
        a ModuleList) run a GEMM or convolution and then elementwise layers
        on its result (a conv, a BatchNorm, a ReLU), or two normalization or
        reduction layers after a convolution (a BatchNorm, a softmax): per
        call, the node, how many such GEMMs, and the layers of their tails
        in order. The tails
        are inside the container, where forward's syntax does not show them."""
        entry = self.entry_point
        if entry is None or entry.unknown or len(entry.nodes) != len(entry.ops):
            return ()
        ops = entry.ops
        found: dict[int, tuple[cst.CSTNode, list[int], list[str]]] = {}
        for g, op in enumerate(ops):
            node = entry.nodes[g]
            if not op.layer or op.kind != "gemm" or node is None:
                continue
            tail: list[int] = []
            carried = {g}
            for i in range(g + 1, len(ops)):
                later = ops[i]
                if entry.nodes[i] is not node or not later.layer or not carried & set(later.inputs):
                    continue
                if later.kind not in ("elementwise", "reduction"):
                    break  # the next layer's GEMM: its own tail
                tail.append(i)
                carried.add(i)
            # An elementwise layer, or two layers after a convolution (a BatchNorm and a softmax: one pass
            # where there were two); a lone norm after a conv (a ResNet shortcut) is a pass either way.
            conv = op.note.startswith("nn.Conv")
            if any(ops[i].kind == "elementwise" for i in tail) or conv and len(tail) >= 2:
                entry_of = found.setdefault(id(node), (node, [], []))
                entry_of[1].append(g)
                for i in tail:
                    layer = ops[i].note or ops[i].kind
                    if layer not in entry_of[2]:
                        entry_of[2].append(layer)
        return tuple((node, len(gemms), tuple(layers)) for node, gemms, layers in found.values())

    @cached_property
    def dead_node_ids(self) -> frozenset[int]:
        """ids of forward's calls and operations whose work all goes with a
        KL027 finding's fix (a GEMM feeding only a constant, an unused GEMM):
        the other rules leave them to that finding."""
        entry = self.entry_point
        if entry is None or not self.dead_work:
            return frozenset()
        removed = {i for dead in self.dead_work for i in dead.removed}
        by_node: dict[int, list[int]] = {}
        for i, node in enumerate(entry.nodes):
            if node is not None:
                by_node.setdefault(id(node), []).append(i)
        return frozenset(key for key, ops in by_node.items() if all(i in removed for i in ops))


def _methods_of(node: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    return {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}


def _borrowed_methods(node: cst.ClassDef, classes: dict[str, cst.ClassDef]) -> dict[str, cst.FunctionDef]:
    """Methods the class body takes from another class of the file (`_make_layer = Model._make_layer`: a ModelNew
    that reuses its reference's builder)."""
    found: dict[str, cst.FunctionDef] = {}
    for statement in node.body.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
                and isinstance(small.value, cst.Attribute)
                and isinstance(small.value.value, cst.Name)
            ):
                owner = classes.get(small.value.value.value)
                method = _methods_of(owner).get(small.value.attr.value) if owner is not None else None
                if method is not None and owner is not node:
                    found[small.targets[0].target.value] = method
    return found


def _local_bases(node: cst.ClassDef, classes: dict[str, cst.ClassDef]) -> list[cst.ClassDef]:
    """The classes of the file `node` derives from, nearest first, along each class's first base."""
    bases: list[cst.ClassDef] = []
    current = node
    while current.bases and len(bases) < INLINE_DEPTH:
        first = current.bases[0].value
        found = classes.get(first.value) if isinstance(first, cst.Name) else None
        if found is None or found is node or found in bases:
            break
        bases.append(found)
        current = found
    return bases


def _number(node: cst.BaseExpression) -> int | float | None:
    if isinstance(node, (cst.Integer, cst.Float)):
        return ast.literal_eval(node.value)
    return None


class _Evaluator:
    def __init__(self, model: ShapeFacts) -> None:
        self.model = model
        self.constants: dict[str, object] = {}
        self.ops: list[Op] = []
        self.unknown: list[str] = []
        self.loop: tuple[int, int] = (1, 0)
        # The data loops around the statement being run: (index name, trip count), outermost first; and the
        # names assigned in them from their indices (`base = (n * C + g * cpg) * spatial`) -> those indices.
        self.loop_indices: list[tuple[str, int]] = []
        self.from_index: dict[str, frozenset[str]] = {}
        self.self_attrs: dict[str, object] = {}
        # The class whose method is being run (the entry class, or a module class of the file in its own
        # forward): `self` handed on as a value (`_launch(self, x)`) is that module.
        self._self_class: _Class | None = None
        self._recording = False
        # Module-level helpers and the model's methods forward may call: read
        # through, their ops placed on forward's calling line.
        self.functions: dict[str, cst.FunctionDef] = {}
        self.methods: dict[str, cst.FunctionDef] = {}
        self._depth = 0
        # The methods of the entry class's bases that the file defines (`class ModelNew(Model)`), nearest first:
        # what `super().__init__(...)` and `super().forward(x)` run.
        self._supers: list[dict[str, cst.FunctionDef]] = []
        # The first op of the function body being run (forward's, or an inlined helper's).
        self._body_start = 0
        # Per inlined helper, innermost last: its caller's scope, which of its parameters are names of the
        # caller's (`_launch(y, out, n)`: src -> y, dst -> out), and the caller's first op. A launch in the helper
        # that fills `dst` fills the caller's `out`.
        self._aliases: list[tuple[dict, dict[str, str], int]] = []
        # torch's fp32 matmuls run as TF32: the file switches it on (`_turns_on_tf32`).
        self.tf32_matmul = False
        self._layers = 0  # inside the layers of a container module (nn.Sequential, a loop over a ModuleList)
        self._call_line = 0
        # For KL027: the node each op comes from, why an op's result is a
        # constant, reductions that return their input, and what makes def-use
        # incomplete.
        self.nodes: list[cst.CSTNode | None] = []
        self._stack: list[cst.CSTNode] = []
        self._call_node: cst.CSTNode | None = None
        self.constant_reasons: list[tuple[int, str, float, tuple[int, ...]]] = []
        self.identities: dict[int, str] = {}
        self.side_effects: list[str] = []
        # The statements the timed call ran (forward's, and those of the helpers and submodules' methods
        # it inlined): their first and last lines.
        self.ran: list[tuple[int, int]] = []

    def _turns_on_tf32(self, statement: cst.BaseSmallStatement) -> bool:
        """A statement that switches torch's fp32 matmuls to TF32 for the whole process. Written at a file's
        top level, or in the model's `__init__`/`forward`, it holds for both of KernelBench's models: the
        harness imports the file and builds both in one process."""
        qualname = self.model.qualname
        if isinstance(statement, cst.Assign):
            value = statement.value
            for target in statement.targets:
                spelled = qualname(target.target)
                if spelled in _TF32_FLAGS and isinstance(value, cst.Name) and value.value == "True":
                    return True
                if spelled in _TF32_PRECISIONS and isinstance(value, cst.SimpleString):
                    return value.evaluated_value == "tf32"
            return False
        if isinstance(statement, cst.Expr) and isinstance(statement.value, cst.Call):
            call = statement.value
            if qualname(call.func) == "torch.set_float32_matmul_precision" and call.args:
                arg = call.args[0].value
                return isinstance(arg, cst.SimpleString) and arg.evaluated_value in ("high", "medium")
        return False

    def _tf32_in(self, body: Sequence[cst.BaseStatement] | Sequence[cst.BaseSmallStatement]) -> bool:
        return any(
            self._turns_on_tf32(small)
            for statement in body
            if isinstance(statement, cst.SimpleStatementLine)
            for small in statement.body
        )

    # -- the file ------------------------------------------------------------

    def run(self) -> EntryPoint | None:
        module = self.model.module
        functions: dict[str, cst.FunctionDef] = {}
        classes: dict[str, cst.ClassDef] = {}
        for statement in module.body:
            if isinstance(statement, cst.FunctionDef):
                functions[statement.name.value] = statement
            elif isinstance(statement, cst.ClassDef):
                classes[statement.name.value] = statement
        model_class = classes.get("ModelNew") or classes.get("Model")
        if model_class is None or "get_inputs" not in functions:
            return None  # not a KernelBench file: nothing else is read
        self._self_class = _Class(model_class, {})
        for name, node in classes.items():
            if node is not model_class:
                self.constants[name] = _Class(
                    node, {}, tuple(_local_bases(node, classes)), _borrowed_methods(node, classes)
                )
        for statement in module.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign):
                        self._bind_module_assign(small)
        for name, node in classes.items():
            if node is not model_class:
                class_bases = tuple(_local_bases(node, classes))
                constants: dict = {}
                for base in (*reversed(class_bases), node):
                    constants.update(self._class_constants(base))
                self.constants[name] = _Class(node, constants, class_bases, _borrowed_methods(node, classes))
        sources = ["module constants"] if self.constants else []
        inputs = self._returned_list(functions["get_inputs"])
        init_args = self._returned_list(functions["get_init_inputs"]) if "get_init_inputs" in functions else []
        if inputs is None:
            why = tuple(self.unknown) or ("get_inputs() does not return a list",)
            return EntryPoint(model_class.name.value, (), (), tuple(sources), unknown=why)
        sources.append("get_inputs()")
        if init_args is not None and "get_init_inputs" in functions:
            sources.append("get_init_inputs()")
        bases = _local_bases(model_class, classes)
        self._supers = [_methods_of(base) for base in bases]
        # Methods a base defines and the class does not (a ModelNew that swaps Model's layers in __init__ and
        # keeps its forward) are the class's.
        methods = {name: f for found in reversed(self._supers) for name, f in found.items()}
        methods.update(_borrowed_methods(model_class, classes))
        methods.update(_methods_of(model_class))
        for base in reversed(bases):
            self.self_attrs.update(self._class_constants(base))
        self.functions = {
            name: f
            for name, f in functions.items()
            if name not in ("get_inputs", "get_init_inputs") and not f.decorators
        }
        self.methods = {name: f for name, f in methods.items() if name not in ("forward", "__init__")}
        forward = methods.get("forward")
        if forward is None:
            return None
        init = methods.get("__init__")
        self.tf32_matmul = self._tf32_in(module.body) or any(
            self._tf32_in(method.body.body) for method in (init, forward) if method is not None
        )
        # An nn.Module is built in training mode, and KernelBench's harness never calls .eval():
        # `if self.training:` (dropout, batch statistics) takes the training branch.
        self.self_attrs["training"] = True
        self.self_attrs.update(self._class_constants(model_class))
        if init is not None:
            scope = self._bind_params(init, list(init_args or []), skip_self=True)
            try:
                self._run_body(init.body.body, scope, record=False)
            except _Unknown as why:
                self.unknown.append(f"__init__: {why}")
        scope = self._bind_params(forward, list(inputs), skip_self=True)
        # Each input tensor its own origin (-2, -3, ...; -1 is a parameter or
        # a constant): a fused kernel reads each distinct input once.
        for position, (name, value) in enumerate(list(scope.items())):
            if isinstance(value, Tensor) and value.origin == -1:
                scope[name] = replace(value, origin=-2 - position)
        described = tuple((name, _describe(v)) for name, v in scope.items() if isinstance(v, Tensor))
        returned: object = None
        try:
            returned = self._run_body(forward.body.body, scope, record=True)
        except _Unknown as why:
            self.unknown.append(f"forward: {why}")
        outputs = {t.origin for t in _tensors_in(returned) if t.origin >= 0}
        if not _tensors_in(returned):
            self._effect("forward returns no tensor")
        for i in outputs:
            self.ops[i] = replace(self.ops[i], returned=True)
        tensors = [v for v in [*scope.values(), *self.self_attrs.values()] if isinstance(v, Tensor)]
        largest = max(
            [t.numel for t in tensors] + [op.out_bytes // op.elem_bytes for op in self.ops if op.out_bytes], default=0
        )
        return EntryPoint(
            model_class=model_class.name.value,
            ops=tuple(self.ops),
            inputs=described,
            sources=tuple(sources),
            unknown=tuple(self.unknown),
            largest_numel=largest,
            nodes=tuple(self.nodes),
            constants=tuple(self.constant_reasons),
            side_effects=tuple(dict.fromkeys(self.side_effects)),
            outputs=tuple((t.origin, t.shape, t.value) for t in _tensors_in(returned)),
            ran=tuple(dict.fromkeys([*self.ran, *(op.kernel_lines for op in self.ops if op.kernel_lines[0])])),
        )

    def _ran(self, statement: cst.CSTNode) -> None:
        """A statement the timed call runs: a simple one (or a nested def) whole, a compound one's header
        line only (its blocks record their own statements where they run)."""
        span = self.model.span(statement)
        whole = isinstance(statement, (cst.SimpleStatementLine, cst.FunctionDef))
        self.ran.append((span.line, span.end_line if whole else span.line))

    def _class_constants(self, node: cst.ClassDef) -> dict[str, object]:
        """A class body's simple assignments (`expansion = 4`), as the attributes its instances start with."""
        constants: dict[str, object] = {}
        for statement in node.body.body:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1:
                        target = small.targets[0].target
                        value = self._eval_or_none(small.value, dict(self.constants), record=False)
                        if isinstance(target, cst.Name) and value is not None:
                            constants[target.value] = value
        return constants

    def _bind_module_assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            try:
                value = self._eval(node.value, self.constants, record=False)
            except _Unknown:
                continue
            self._assign(target.target, value, self.constants)

    def _returned_list(self, function: cst.FunctionDef) -> list | None:
        try:
            value = self._run_body(function.body.body, dict(self.constants), record=False)
        except _Unknown as why:
            self.unknown.append(f"{function.name.value}(): {why}")
            return None
        return list(value) if isinstance(value, (list, tuple)) else None

    def _bind_params(self, function: cst.FunctionDef, args: list, skip_self: bool) -> dict[str, object]:
        scope: dict[str, object] = dict(self.constants)
        for i, param in enumerate(_params(function, skip_self)):
            if i < len(args):
                scope[param.name.value] = args[i]
            elif param.default is not None:
                try:
                    scope[param.name.value] = self._eval(param.default, scope, record=False)
                except _Unknown:
                    pass
        return scope

    # -- statements ----------------------------------------------------------

    def _run_body(self, body, scope: dict, record: bool) -> object | None:
        self._recording = record
        for position, statement in enumerate(body):
            if record:
                self._ran(statement)
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if isinstance(small, cst.Return):
                        return self._eval(small.value, scope, record) if small.value is not None else None
                    if isinstance(small, cst.Assign):
                        count = len(self.ops)
                        value = self._host_value(small.value, scope, record)
                        for target in small.targets:
                            self._assign(target.target, value, scope)
                        if self.loop_indices:
                            self._follow_loop_index(small)
                        self._mark_read_syncs(count, small, body[position + 1 :])
                    elif isinstance(small, cst.AnnAssign) and small.value is not None:
                        self._assign(small.target, self._eval(small.value, scope, record), scope)
                    elif isinstance(small, cst.AugAssign):
                        left = self._eval(small.target, scope, record)
                        right = self._eval(small.value, scope, record)
                        op = type(small.operator).__name__.removesuffix("Assign")
                        self._stack.append(small)
                        try:
                            result = self._binary(op, left, right, small, record)
                        finally:
                            self._stack.pop()
                        self._assign(small.target, result, scope)
                    elif isinstance(small, (cst.Break, cst.Continue)):
                        raise _LoopExit(small)
                    elif isinstance(small, cst.Expr):
                        self._eval(small.value, scope, record)
                    elif isinstance(small, cst.Assert):
                        # Python runs it (KernelBench does not pass -O): what its test reads on the host
                        # (`assert int(t.max()) < n`) syncs on every call.
                        test = self._eval_or_none(small.test, scope, record)
                        if isinstance(test, Tensor):
                            self._record(record, Op("sync", self._line(small.test), note="assert on a tensor"))
            elif isinstance(statement, cst.For):
                result = self._run_for(statement, scope, record)
                if result is not None:
                    return result
            elif isinstance(statement, cst.While) and statement.orelse is None:
                result = self._run_while(statement, scope, record)
                if result is not None:
                    return result
            elif isinstance(statement, cst.If):
                test = self._eval_or_none(statement.test, scope, record)
                if isinstance(test, Tensor):
                    self._record(record, Op("sync", self._line(statement.test), note="branch on a tensor"))
                    test = None
                if test is None and record:
                    self._effect(f"line {self._line(statement)}: a branch the table cannot decide")
                if test is None or test:
                    result = self._run_body(statement.body.body, scope, record)
                    if result is not None:
                        return result
                elif isinstance(statement.orelse, cst.Else):
                    result = self._run_body(statement.orelse.body.body, scope, record)
                    if result is not None:
                        return result
            elif isinstance(statement, (cst.With,)):
                result = self._run_body(statement.body.body, scope, record)
                if result is not None:
                    return result
            elif isinstance(statement, cst.FunctionDef):
                kernel = self.model.kernels.get(statement.name.value)
                if kernel is not None and kernel.function.node is statement:
                    # A kernel defined on every call: a new kernel object, reloaded before it launches (KL017).
                    line = self._line(statement.decorators[0])
                    self._record(record, Op("jit", line, launches=False, site_line=line, note=statement.name.value))
                elif not statement.decorators:
                    scope[statement.name.value] = statement  # a helper defined in the body, called below
                continue
            elif isinstance(statement, (cst.ClassDef, cst.Pass if hasattr(cst, "Pass") else ())):
                continue
            else:
                raise _Unknown(f"line {self._line(statement)}: a {type(statement).__name__} statement")
        return None

    def _follow_loop_index(self, assign: cst.Assign) -> None:
        """Names an assignment in a data loop computes from the loop's indices, directly or through names
        computed from them before; a name assigned from neither forgets its indices."""
        read = {n.value for n in walk(assign.value) if isinstance(n, cst.Name)}
        loops = {name for name, _ in self.loop_indices}
        indices = frozenset((read & loops) | {i for name in read for i in self.from_index.get(name, ())})
        for target in assign.targets:
            for name in (n.value for n in walk(target.target) if isinstance(n, cst.Name)):
                if indices:
                    self.from_index[name] = indices
                else:
                    self.from_index.pop(name, None)

    def _mark_read_syncs(self, first: int, assign: cst.Assign, rest) -> None:
        """A value read to the host by this assignment (`peak = x.max().item()`) that a later statement of
        the block reads: the work that computed it is still needed once the read stays on the device."""
        syncs = [i for i in range(first, len(self.ops)) if self.ops[i].kind == "sync"]
        if not syncs:
            return  # most assignments: no walk of the rest of the block
        names = {n.value for target in assign.targets for n in walk(target.target) if isinstance(n, cst.Name)}
        if not names or not any(
            isinstance(n, cst.Name) and n.value in names for statement in rest for n in walk(statement)
        ):
            return
        for i in syncs:
            self.ops[i] = replace(self.ops[i], value_read=True)

    def _host_value(self, node: cst.BaseExpression, scope: dict, record: bool) -> object:
        """The value assigned in a timed body; a host number the table cannot compute (a call of another
        module's helper that is given no tensor: `block = 2048 if interpreting() else 4096`) is bound as
        opaque, so that the file stays sized unless something sized reads it (a launch's keyword then
        gives no value, a grid no program count)."""
        count = len(self.ops)
        try:
            return self._eval(node, scope, record)
        except _Unknown as why:
            if not record or len(self.ops) != count or not self._host_only(node, scope):
                raise
            return _Opaque(str(why))

    def _host_only(self, node: cst.BaseExpression, scope: dict) -> bool:
        """No tensor, module or `self` is read in `node`, and no function of this file is called in it
        (a helper of the file may launch work; one of another module given no tensor has none of ours)."""
        local = {f.name for f in self.model.functions}
        for inner in walk(node):
            if isinstance(inner, cst.Name) and (
                inner.value == "self" or isinstance(scope.get(inner.value), (Tensor, _Module, list, tuple, dict))
            ):
                return False
            if isinstance(inner, cst.Call) and isinstance(inner.func, cst.Name) and inner.func.value in local:
                return False
        return True

    def _run_while(self, node: cst.While, scope: dict, record: bool) -> object | None:
        """`while i < len(mods):` stepping over a model's own layers or sizes: run step by step while its test
        is a static value, at most WHILE_LIMIT steps. A test on data, or a longer loop, is not followed."""
        for _ in range(WHILE_LIMIT):
            test = self._eval_or_none(node.test, scope, record=False)
            if test is None or isinstance(test, (Tensor, _HostNumber)):
                raise _Unknown(f"line {self._line(node)}: a while loop whose test is not static")
            if not test:
                return None
            try:
                result = self._run_body(node.body.body, scope, record)
            except _LoopExit as exit:
                if exit.breaks:
                    return None
                continue
            if result is not None:
                return result
        raise _Unknown(f"line {self._line(node)}: a while loop of more than {WHILE_LIMIT} steps")

    def _run_steps(self, node: cst.For, items, scope: dict, record: bool) -> object | None:
        """The loop's body run once per item, bound to its target, honouring `continue` and `break`; what a
        `return` in it returns."""
        for item in items:
            self._assign(node.target, item, scope)
            try:
                result = self._run_body(node.body.body, scope, record)
            except _LoopExit as exit:
                if exit.breaks:
                    return None
                continue
            if result is not None:
                return result
        return None

    def _run_for(self, node: cst.For, scope: dict, record: bool) -> object | None:
        """Runs a loop's body as the table can: item by item where its items are known and few (or a
        host search, below), else once, timed by its trip count. What a `return` in it returns, if run."""
        if not record and self._walks_own_modules(node.iter):
            return None  # `for m in self.modules(): nn.init...(m.weight)`: initial values, no sizes and no work timed
        items = _layers_of(self._eval_or_none(node.iter, scope, record=False))
        if not record:
            # __init__ (nothing timed): run the body once per item, bound, so the layers it builds have sizes.
            if isinstance(items, (list, tuple)) and len(items) <= LOOP_LIMIT:
                return self._run_steps(node, items, scope, record)
        elif (
            # `for layer in self.layers: x = layer(x)`: each step a module of its own, run in turn (not a data loop).
            isinstance(items, list)
            and items
            and all(_holds_module(item) for item in items)
            # `for s in shape[:dim]: outer *= s`: host arithmetic over a few sizes, run item by item so the sizes
            # it computes are known (a loop over range(), or one that calls anything, is a data loop timed by its
            # trip count).
            or not _is_range(node.iter)
            and isinstance(items, (list, tuple))
            and len(items) <= HOST_UNROLL
            and all(isinstance(item, int) for item in items)
            and not _launches_in(node)
            # `for d, sfx in enumerate(["", "_reverse"])`: a few items carrying names (strings) the body builds
            # attribute names from (`getattr(self.lstm, f"weight_ih_l{layer}{sfx}")`), launches or not.
            or isinstance(items, (list, tuple))
            and 0 < len(items) <= HOST_UNROLL
            and all(_carries_name(item) for item in items)
        ):
            return self._run_steps(node, items, scope, record)
        count = self._trip_count(node.iter, scope)
        if count is not None and count <= HOST_SEARCH and _searches(node):
            # `for b in range(min(cap, n), 0, -1): if n % b == 0: return b`: a helper searching for a size,
            # plain arithmetic and a return: run step by step, so the size it returns is known.
            assert isinstance(node.iter, cst.Call)
            bounds = [self._eval(a.value, scope, record=False) for a in node.iter.args]
            return self._run_steps(node, range(*(int(b) for b in bounds if isinstance(b, int))), scope, record)
        if count is None:
            raise _Unknown(f"line {self._line(node)}: a loop whose trip count is not static")
        if count == 0:
            return None
        outer = self.loop
        self.loop = (outer[0] * count, self._line(node))
        first = len(self.ops)
        entering = {name: value.origin for name, value in scope.items() if isinstance(value, Tensor)}
        indexed = isinstance(node.target, cst.Name)
        before = dict(scope)
        try:
            if isinstance(node.target, cst.Name):
                scope[node.target.value] = None  # the loop index: unknown, sizes do not depend on it
                self.loop_indices.append((node.target.value, count))
            elif isinstance(node.target, (cst.Tuple, cst.List)):
                # `for kd, kh, kw in itertools.product(...)`: the indices unknown too.
                for element in node.target.elements:
                    if isinstance(element.value, cst.Name):
                        scope[element.value.value] = None
            try:
                self._run_body(node.body.body, scope, record)
            except _LoopExit as exit:
                # Run once for all its steps, the body cannot say which steps skip its rest or end the loop.
                why = f"line {self._line(node)}: a loop whose steps {exit} at steps the table cannot know"
                raise _Unknown(why) from None
        except _Unknown:
            if not (indexed and count <= HOST_UNROLL and isinstance(items, (list, tuple)) and len(items) == count):
                raise
            # A few steps whose body needs the index's value (a layer's parameters by name, `getattr(self.rnn,
            # f"weight_hh_l{layer}")`): run step by step, each with its index, instead of once.
            del self.ops[first:]
            scope.clear()
            scope.update(before)
            self.loop = outer
            self.loop_indices.pop()
            indexed = False
            return self._run_steps(node, items, scope, record)
        finally:
            self.loop = outer
            if indexed:
                self.loop_indices.pop()
        if self._through_product(scope, entering, first):
            self.ops[first:] = [replace(op, recurrent=True) for op in self.ops[first:]]
        return None

    @staticmethod
    def _walks_own_modules(node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and isinstance(node.func.value, cst.Name)
            and node.func.value.value == "self"
            and node.func.attr.value in ("modules", "named_modules", "parameters", "named_parameters", "children")
        )

    def _through_product(self, scope: dict, entering: dict[str, int], first: int) -> bool:
        """Whether the loop just run carries a tensor from one step to the
        next (`h = f(h)`) through a matrix product: its steps cannot become
        one batched launch (an RNN cell), where a running sum can (a scan)."""
        carried = {
            origin
            for name, origin in entering.items()
            if isinstance(scope.get(name), Tensor) and scope[name].origin != origin
        }
        for i in range(first, len(self.ops)):
            op = self.ops[i]
            if carried & set(op.inputs):
                if op.kind == "gemm" or op.kind == "triton" and op.flops:
                    return True
                carried.add(i)
        return False

    def _trip_count(self, node: cst.BaseExpression, scope: dict) -> int | None:
        if _is_range(node):
            assert isinstance(node, cst.Call)
            try:
                bounds = [self._eval(a.value, scope, record=False) for a in node.args]
            except _Unknown:
                return None
            if not all(isinstance(b, int) for b in bounds) or not 1 <= len(bounds) <= 3:
                return None
            count = len(range(*bounds))  # type: ignore[call-overload]
            return count if count <= LOOP_LIMIT else None
        try:
            value = self._eval(node, scope, record=False)
        except _Unknown:
            return None
        if isinstance(value, (list, tuple)):
            return len(value)
        return None

    def _assign(self, target: cst.BaseExpression, value: object, scope: dict) -> None:
        if isinstance(target, cst.Name):
            scope[target.value] = value
        elif isinstance(target, (cst.Tuple, cst.List)):
            value = _layers_of(value)  # `conv1, bn1, relu = stage` of an nn.Sequential: its layers
            values = list(value) if isinstance(value, (list, tuple)) else [None] * len(target.elements)
            if len(values) != len(target.elements):
                values = [None] * len(target.elements)
            for element, item in zip(target.elements, values):
                self._assign(element.value, item, scope)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self":
            self.self_attrs[target.attr.value] = value
            if self._recording:
                self._effect(f"line {self._line(target)}: forward keeps state on self")
        elif isinstance(target, cst.Subscript) and self._list_item(target, value, scope):
            pass  # `out_shape[dim] = 1` on a host list of sizes
        elif isinstance(target, cst.Subscript) and self._recording:
            self._effect(f"line {self._line(target)}: an item assignment")
        if isinstance(target, cst.Subscript) and isinstance(value, Tensor) and self._recording:
            # `out[:, t] = value` copies value into the slice: a kernel of its own
            self._record(
                True,
                Op("copy", self._line(target), bytes=2 * value.nbytes, inputs=(value.origin,), note="setitem"),
            )

    def _list_item(self, target: cst.Subscript, value: object, scope: dict) -> bool:
        """`sizes[i] = v` on a host list the table holds, at an index it knows: the list updated."""
        if not isinstance(target.value, cst.Name) or len(target.slice) != 1:
            return False
        held = scope.get(target.value.value)
        index = target.slice[0].slice
        if not isinstance(held, list) or not isinstance(index, cst.Index) or isinstance(value, Tensor):
            return False
        position = self._eval_or_none(index.value, scope, False)
        if not isinstance(position, int) or isinstance(position, bool) or not -len(held) <= position < len(held):
            return False
        held[position] = value
        return True

    # -- expressions ---------------------------------------------------------

    def _eval_or_none(self, node, scope, record):
        try:
            return self._eval(node, scope, record)
        except _Unknown:
            return None

    def _line(self, node: cst.CSTNode) -> int:
        return self.model.line_of(node)

    def _record(self, record: bool, op: Op) -> int:
        if not record:
            return -1
        if self._call_line:
            # Inside a helper: the op belongs to forward's line that called it.
            op = replace(op, line=self._call_line, site_line=op.site_line or op.line)
        count, loop_line = self.loop
        self.ops.append(replace(op, repeat=op.repeat * count, loop_line=loop_line, layer=self._layers > 0))
        self.nodes.append(self._call_node if self._call_line else self._stack[-1] if self._stack else None)
        return len(self.ops) - 1

    def _effect(self, why: str) -> None:
        if self._recording:
            self.side_effects.append(why)

    def _holds_input_data(self, tensor: Tensor) -> bool:
        """Whether `tensor`'s values are computed from forward's inputs: a value of it read on the host may
        steer what the call does with them, so def-use is not the whole story. A fresh random seed
        (`torch.randint(...).item()`) or a parameter's value does not."""
        return from_inputs(self.ops, tensor.origin)

    def _constant_made(self, index: int, why: str, value: float, shape: tuple[int, ...]) -> None:
        if index >= 0:
            self.constant_reasons.append((index, why, value, shape))

    def _eval(self, node: cst.BaseExpression, scope: dict, record: bool) -> object:
        if isinstance(node, (cst.Call, cst.BinaryOperation, cst.UnaryOperation, cst.Subscript, cst.Comparison)):
            # The innermost expression evaluated names the op it records.
            self._stack.append(node)
            try:
                return self._eval_node(node, scope, record)
            finally:
                self._stack.pop()
        return self._eval_node(node, scope, record)

    def _eval_node(self, node: cst.BaseExpression, scope: dict, record: bool) -> object:  # noqa: C901
        number = _number(node)
        if number is not None:
            return number
        if isinstance(node, cst.Name):
            if node.value in scope:
                if isinstance(scope[node.value], _Opaque):
                    raise _Unknown(scope[node.value].why)
                return scope[node.value]
            if node.value in ("True", "False", "None"):
                return {"True": True, "False": False, "None": None}[node.value]
            if node.value == "self" and self._self_class is not None:
                # `self` handed to a helper of the file (`_launch(self, x)`): the module, its attributes as
                # __init__ set them (`m.gemm.weight` in the helper reads this instance's).
                return _Module("user", {"class": self._self_class, "self": self.self_attrs})
            raise _Unknown(f"`{node.value}` has no static value")
        if isinstance(node, cst.SimpleString):
            return node.evaluated_value
        if isinstance(node, cst.FormattedString) and not any(
            isinstance(p, cst.FormattedStringExpression) and (p.format_spec or p.conversion) for p in node.parts
        ):
            # f"_l{layer}": the text of each static int or str part (a parameter's name built in a loop).
            text = []
            for part in node.parts:
                if isinstance(part, cst.FormattedStringText):
                    text.append(part.value)
                    continue
                assert isinstance(part, cst.FormattedStringExpression)
                value = self._eval(part.expression, scope, record=False)
                if not isinstance(value, (int, str)) or isinstance(value, bool):
                    raise _Unknown(f"line {self._line(node)}: an f-string of a value that is not static")
                text.append(str(value))
            return "".join(text)
        if isinstance(node, cst.Lambda):
            return _Lambda(node, dict(scope))
        if isinstance(node, (cst.Tuple, cst.List)):
            return [self._eval(e.value, scope, record) for e in node.elements]
        if isinstance(node, cst.ListComp) and node.for_in.inner_for_in is None:
            items = _layers_of(self._eval_or_none(node.for_in.iter, scope, record=False))
            if isinstance(items, (list, tuple)) and len(items) <= COMPREHENSION_LIMIT:
                # `[m for m in self.network if isinstance(m, nn.Linear)]`: each item bound, filtered, evaluated.
                out = []
                for item in items:
                    inner = dict(scope)
                    self._assign(node.for_in.target, item, inner)
                    tests = [self._eval(c.test, inner, record=False) for c in node.for_in.ifs]
                    if any(isinstance(t, (Tensor, _HostNumber)) or t is None for t in tests):
                        raise _Unknown(f"line {self._line(node)}: a comprehension filter that is not static")
                    if all(tests):
                        out.append(self._eval(node.elt, inner, record))
                return out
            count = self._trip_count(node.for_in.iter, scope)
            if node.for_in.ifs or count is None or count > COMPREHENSION_LIMIT:
                raise _Unknown(f"line {self._line(node)}: a comprehension whose length is not static")
            return [self._eval(node.elt, scope, record) for _ in range(count)]
        if isinstance(node, cst.BooleanOperation):
            left = self._eval(node.left, scope, record)
            if isinstance(left, Tensor):
                raise _Unknown(f"line {self._line(node)}: `and`/`or` of a tensor")
            if isinstance(node.operator, cst.And):
                return self._eval(node.right, scope, record) if left else left
            return left if left else self._eval(node.right, scope, record)
        if isinstance(node, cst.IfExp):
            test = self._eval(node.test, scope, record)
            if isinstance(test, (Tensor, _HostNumber)) or test is None and not isinstance(node.test, cst.Comparison):
                raise _Unknown(f"line {self._line(node)}: a conditional expression on a value that is not static")
            return self._eval(node.body if test else node.orelse, scope, record)
        if isinstance(node, cst.UnaryOperation):
            value = self._eval(node.expression, scope, record)
            if isinstance(value, _HostNumber):
                return None if isinstance(node.operator, cst.Not) else value
            if type(node.operator).__name__ == "Minus":
                if isinstance(value, (int, float)):
                    return -value
                return self._elementwise([value], node, record, fn="neg")
            if isinstance(node.operator, cst.Not):
                if isinstance(value, Tensor):
                    return self._elementwise([value], node, record, dtype="bool")
                return None if value is None else not value
            return value
        if isinstance(node, cst.BinaryOperation):
            left = self._eval(node.left, scope, record)
            right = self._eval(node.right, scope, record)
            return self._binary(type(node.operator).__name__, left, right, node, record)
        if isinstance(node, cst.Attribute):
            return self._attribute(node, scope, record)
        if isinstance(node, cst.Subscript):
            return self._subscript(node, scope, record)
        if isinstance(node, cst.Call):
            return self._call(node, scope, record)
        if isinstance(node, cst.Comparison):
            if all(isinstance(c.operator, (cst.Is, cst.IsNot)) for c in node.comparisons):
                # `t is not None`: a Python identity check, no kernel and no sync.
                left = self._eval_or_none(node.left, scope, record=False)
                right = [self._eval_or_none(c.comparator, scope, record=False) for c in node.comparisons]
                same = all(left is r for r in right)
                return same if isinstance(node.comparisons[0].operator, cst.Is) else not same
            left = self._eval(node.left, scope, record)
            if isinstance(left, Tensor):
                return self._elementwise([left], node, record, dtype="bool")
            return self._python_comparison(left, node, scope)
        raise _Unknown(f"line {self._line(node)}: {type(node).__name__} is not evaluated")

    def _python_comparison(self, left: object, node: cst.Comparison, scope: dict) -> bool | None:
        """`i != len(blocks) - 1`, `stride == 1`: decided where both sides are static numbers or strings."""
        tests = COMPARISONS
        for comparison in node.comparisons:
            right = self._eval_or_none(comparison.comparator, scope, record=False)
            test = tests.get(type(comparison.operator))
            static = (int, float, str, bool)
            if isinstance(comparison.operator, (cst.In, cst.NotIn)) and isinstance(right, (list, tuple)):
                # `self.dim not in (1, -1)`: membership in a static tuple or list.
                if not isinstance(left, static) or not all(isinstance(item, static) for item in right):
                    return None
                found = left in right
                if found != isinstance(comparison.operator, cst.In):
                    return False
                left = right
                continue
            if isinstance(comparison.operator, (cst.Equal, cst.NotEqual)) and _static_sequence(left, right):
                # `conv.stride != (1, 1, 1)`: a module's tuple against a literal one (a list or tuple alike).
                assert test is not None
                if not test(tuple(left), tuple(right)):  # type: ignore[arg-type]
                    return False
                left = right
                continue
            if test is None or not isinstance(left, static) or not isinstance(right, static):
                return None
            try:
                if not test(left, right):
                    return False
            except TypeError:
                return None
            left = right
        return True

    def _reads_step(self, node) -> bool:
        """Whether `node` reads the index of a data loop the table runs once for all its steps."""
        steps = {name for name, _ in self.loop_indices}
        return bool(steps) and any(isinstance(n, cst.Name) and n.value in steps for n in walk(node))

    def _binary(self, op: str, left, right, node, record: bool):
        if isinstance(left, Tensor) or isinstance(right, Tensor):
            if op == "MatrixMultiply":
                return self._matmul(left, right, node, record)
            if (
                op == "Subtract"
                and isinstance(left, Tensor)
                and isinstance(right, Tensor)
                and left.shape == right.shape
                and _token(left) is not None
                and _token(left) == _token(right)
                and (left.value is None or right.value is None)
            ):
                # `x - x.mean(dim=1, keepdim=True)` with dimension 1 of size 1: zero.
                same = self.identities.get(right.origin) or self.identities.get(left.origin)
                why = "subtracts two tensors that hold the same values" + (f" ({same})" if same else "")
                return self._elementwise([left, right], node, record, value=0.0, why=why)
            return self._elementwise([left, right], node, record, fn=op)
        if (
            isinstance(left, (int, float, _HostNumber))
            and isinstance(right, (int, float, _HostNumber))
            and (isinstance(left, _HostNumber) or isinstance(right, _HostNumber))
        ):
            return _HostNumber()  # `total / batch` with total read from the device: a number, not its value
        if (left is None or isinstance(left, _StepIndex)) and isinstance(right, int) and self._reads_step(node.left):
            # `hbuf[t % 2]`, `(t + 1) % 2`: a data loop's index cycling through a few buffers (ping-pong).
            if op == "Modulo":
                return _StepIndex(right)
            if op in ("Add", "Subtract"):
                return _StepIndex(None)
        if not isinstance(left, (int, float)) or not isinstance(right, (int, float)):
            if op == "Multiply" and isinstance(left, list) and isinstance(right, int):
                return left * right
            if op == "Add" and isinstance(left, list) and isinstance(right, list):
                return left + right
            if op == "Add" and isinstance(left, str) and isinstance(right, str):
                return left + right  # a parameter's name put together (`"weight_ih" + sfx`)
            if op == "Modulo" and isinstance(left, str) and _formats_name(left, right):
                return left % right  # the same, printf-style (`"_l%d" % layer`)
            raise _Unknown(f"line {self._line(node)}: arithmetic on non-static values")
        if op in ("BitAnd", "BitOr", "BitXor"):
            # `n & (n - 1)`: a power-of-two test on a size. Integers only.
            if not isinstance(left, int) or not isinstance(right, int):
                raise _Unknown(f"line {self._line(node)}: {op} of non-integers")
            return {"BitAnd": left & right, "BitOr": left | right, "BitXor": left ^ right}[op]
        if op in ("LeftShift", "RightShift"):
            # `1 << 22` in a size: integers only.
            if not isinstance(left, int) or not isinstance(right, int) or isinstance(left, bool) or right < 0:
                raise _Unknown(f"line {self._line(node)}: {op} of non-integers")
            return left << right if op == "LeftShift" else left >> right
        try:
            return {
                "Add": lambda: left + right,
                "Subtract": lambda: left - right,
                "Multiply": lambda: left * right,
                "Divide": lambda: left / right,
                "FloorDivide": lambda: left // right,
                "Modulo": lambda: left % right,
                "Power": lambda: left**right,
            }[op]()
        except (KeyError, ZeroDivisionError, OverflowError) as error:
            raise _Unknown(f"line {self._line(node)}: {op}") from error

    def _attribute(self, node: cst.Attribute, scope: dict, record: bool):
        if isinstance(node.value, cst.Name) and node.value.value == "self":
            if node.attr.value in self.self_attrs:
                return self.self_attrs[node.attr.value]
            raise _Unknown(f"`self.{node.attr.value}` was not set statically in __init__")
        qualname = self.model.qualname(node)
        if qualname and qualname.startswith("torch.") and qualname.removeprefix("torch.") in DTYPE_BYTES:
            return qualname.removeprefix("torch.")
        if qualname and qualname.removeprefix("torch.") in DTYPE_ALIASES:
            return DTYPE_ALIASES[qualname.removeprefix("torch.")]
        if qualname in ("math.pi", "math.e", "math.tau"):
            return getattr(math, qualname.removeprefix("math."))
        if qualname and qualname.startswith("torch.nn.") and qualname.rsplit(".", 1)[-1][:1].isupper():
            return _TorchModuleClass(qualname.rsplit(".", 1)[-1])  # `norm_layer=nn.LayerNorm`, built later
        base = self._eval(node.value, scope, record)
        attr = node.attr.value
        if isinstance(base, _DeviceProperties) and attr == "multi_processor_count":
            if self.model.sm_count is None:
                raise _Unknown(f"line {self._line(node)}: the GPU's SM count (no calibration names it)")
            return self.model.sm_count
        if isinstance(base, _Class) and attr in base.constants:
            return base.constants[attr]  # `block.expansion`
        if isinstance(base, Tensor):
            if attr == "shape":
                return list(base.shape)
            if attr == "ndim":
                return len(base.shape)
            if attr == "T" or attr == "mT":
                self._view(node, record, f".{attr}")
                return _transposed(base, -2, -1)
            if attr == "dtype":
                return base.dtype
            if attr == "device":
                return "device"
        if isinstance(base, _Module) and attr == "bias" and "bias_tensor" in base.attrs:
            return base.attrs["bias_tensor"]  # a convolution's: its tensor or None
        if isinstance(base, _Module) and attr in base.attrs:
            return base.attrs[attr]
        if isinstance(base, _Module) and base.kind == "user" and attr in base.attrs["self"]:
            return base.attrs["self"][attr]  # `block.layers` of a module class of the file, as its __init__ set it
        if isinstance(base, _Module) and isinstance(base.attrs.get("spec"), dict) and attr in base.attrs["spec"]:
            return base.attrs["spec"][attr]  # `self.pool.kernel_size`: what the module was built with
        if isinstance(base, _Module) and base.kind != "user" and attr == "training":
            return True  # a module is built in training mode, and a KernelBench harness never calls .eval()
        if isinstance(base, _ValuesIndices) and attr in ("values", "indices"):
            return base[0] if attr == "values" else base[1]
        raise _Unknown(f"line {self._line(node)}: attribute `{attr}`")

    def _subscript(self, node: cst.Subscript, scope: dict, record: bool):
        base = self._eval(node.value, scope, record)
        if isinstance(base, _Module) and base.kind in ("Sequential", "ModuleList"):
            base = base.attrs["layers"]  # `self.layers[0]`
        if isinstance(base, dict) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = self._eval(node.slice[0].slice.value, scope, record)
            if key in base:
                return base[key]
            raise _Unknown(f"line {self._line(node)}: `{key}` is not a static launch argument")
        if isinstance(base, (list, tuple)) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            index = self._eval(node.slice[0].slice.value, scope, record)
            if isinstance(index, int):
                return base[index]
            if isinstance(index, _StepIndex) and index.cycle == len(base) and _alike(base):
                return base[0]  # one of a data loop's ping-pong buffers: all the same size
            raise _Unknown(f"line {self._line(node)}: index is not static")
        if isinstance(base, (list, tuple)) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
            # `shape[:dim]`, `shape[dim + 1:]`: a slice of a static list of sizes.
            part = node.slice[0].slice
            bounds = [None if b is None else self._eval(b, scope, record) for b in (part.lower, part.upper, part.step)]
            low, high, every = (b if isinstance(b, int) else None for b in bounds)
            if all(b is None or isinstance(b, int) for b in bounds):
                return base[low:high:every]
            raise _Unknown(f"line {self._line(node)}: slice bounds are not static")
        if isinstance(base, Tensor):
            shape = list(base.shape)
            out: list[int] = []
            dim = 0
            unit_steps = True
            for element in node.slice:
                s = element.slice
                if isinstance(s, cst.Index):
                    if isinstance(s.value, cst.Name) and s.value.value == "None":
                        out.append(1)
                        continue
                    if isinstance(s.value, cst.Ellipsis):
                        keep = len(shape) - (len(node.slice) - 1 - len([e for e in node.slice if _is_none(e)]))
                        out.extend(shape[dim : dim + keep])
                        dim += keep
                        continue
                    dim += 1  # an integer index drops the dimension
                    continue
                if not isinstance(s, cst.Slice):
                    raise _Unknown(f"line {self._line(node)}: a subscript this table does not read")
                lower = self._eval(s.lower, scope, record) if s.lower is not None else 0
                upper = self._eval(s.upper, scope, record) if s.upper is not None else shape[dim]
                step = self._eval(s.step, scope, record) if s.step is not None else 1
                if not all(isinstance(v, int) for v in (lower, upper, step)):
                    raise _Unknown(f"line {self._line(node)}: slice bounds are not static")
                out.append(len(range(*slice(lower, upper, step).indices(shape[dim]))))
                unit_steps = unit_steps and step == 1
                dim += 1
            out.extend(shape[dim:])
            self._view(node, record, "indexing")
            return Tensor(
                tuple(out),
                base.dtype,
                contiguous=False,
                origin=base.origin,
                value=base.value,
                exact=False,
                runs_contiguous=base.contiguous and unit_steps,
            )
        raise _Unknown(f"line {self._line(node)}: subscript of a non-static value")

    # -- calls ---------------------------------------------------------------

    def _call(self, node: cst.Call, scope: dict, record: bool):  # noqa: C901
        func = node.func
        qualname = self.model.qualname(func) or ""
        positional = [a for a in node.args if a.keyword is None and a.star != "**"]
        keywords = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        line = self._line(node)

        def args(values=positional):
            out: list = []
            for a in values:
                value = self._eval(a.value, scope, record)
                if a.star == "*":
                    # `torch.rand(batch_size, *input_shape)`: the sequence's items are arguments.
                    if not isinstance(value, (list, tuple)):
                        raise _Unknown(f"line {line}: a starred argument that is not a static sequence")
                    out.extend(value)
                else:
                    out.append(value)
            return out

        def kw(name, default=None):
            return self._eval(keywords[name], scope, record) if name in keywords else default

        if self.model.qualname(func) == "itertools.product":
            # `itertools.product(range(k), range(k), range(k))`: the taps of a window, as a static list.
            factors: list[Sequence[object]] = []
            for value in args():
                value = _layers_of(value)
                if not isinstance(value, (list, tuple)):
                    raise _Unknown(f"line {line}: itertools.product of a sequence that is not static")
                factors.append(value)
            if not factors:
                raise _Unknown(f"line {line}: itertools.product of no sequence")
            if math.prod(len(f) for f in factors) > LOOP_LIMIT:
                raise _Unknown(f"line {line}: itertools.product of more than {LOOP_LIMIT} items")
            return [list(items) for items in itertools.product(*factors)]
        if isinstance(func, cst.Name) and func.value in (
            "int",
            "float",
            "len",
            "min",
            "max",
            "abs",
            "range",
            "list",
            "tuple",
            "enumerate",
            "zip",
            "round",
            "bool",
            "set",
        ):
            values: list[Any] = [_layers_of(v) for v in args()]
            if func.value == "enumerate" and len(values) == 1 and isinstance(values[0], (list, tuple)):
                return [[i, item] for i, item in enumerate(values[0])]
            if func.value == "zip" and all(isinstance(v, (list, tuple)) for v in values):
                return [list(items) for items in zip(*values)]
            if func.value in ("enumerate", "zip"):
                raise _Unknown(f"line {line}: {func.value} of a sequence that is not static")
            if func.value == "range":
                return list(range(*values))
            if func.value in ("list", "tuple"):
                items = _layers_of(values[0]) if values else []  # `list(self.features)`: its layers
                if not isinstance(items, Iterable):
                    raise _Unknown(f"line {line}: {func.value}() of a value that is not a sequence")
                return list(items)
            if func.value == "len":
                return len(values[0]) if not isinstance(values[0], Tensor) else values[0].shape[0]
            if func.value in ("int", "float", "bool") and len(values) == 1 and isinstance(values[0], Tensor):
                # `int(t.max())`: the tensor's value read on the host, as `.item()` reads it (a sync).
                if self._holds_input_data(values[0]):
                    self._effect(f"line {line}: {func.value}() of a tensor reads a value on the host")
                self._record(record, Op("sync", line, inputs=(values[0].origin,), note=f"{func.value}()"))
                return _HostNumber()
            if func.value in ("int", "float", "min", "max", "abs", "round") and any(
                isinstance(v, _HostNumber) or v is None for v in values
            ):
                return _HostNumber()  # a number whose value the table does not have (None: an unknown attribute)
            builtin: Any = {
                "int": int,
                "float": float,
                "min": min,
                "max": max,
                "abs": abs,
                "round": round,
                "bool": bool,
                "set": set,  # `len(set(conv.stride)) == 1`: sizes compared on the host
            }[func.value]
            return builtin(*values)
        if isinstance(func, cst.Name) and func.value == "dict" and not positional:
            # `dict(c_fc=nn.Linear(...), act=...)`: the layers of an nn.ModuleDict, by name.
            return {name: kw(name) for name in keywords}
        if isinstance(func, cst.Name) and func.value == "isinstance" and len(positional) == 2:
            builtin_kinds = _builtin_types(positional[1].value)
            if builtin_kinds is not None:
                # `isinstance(k, int)`, `isinstance(k, (tuple, list))` of a size: Python's answer for a static
                # value (the table holds tuples as lists, so the two are one kind here).
                value = self._eval(positional[0].value, scope, False)
                if value is None or not isinstance(value, (int, float, str, list, tuple, dict)):
                    raise _Unknown(f"line {self._line(node)}: isinstance of a value that is not static")
                return isinstance(value, builtin_kinds)
            # `isinstance(m, nn.Linear)` of a module built in __init__ (a layer of an nn.Sequential).
            value, kind = (self._eval(a.value, scope, False) for a in positional)
            kinds = kind if isinstance(kind, (list, tuple)) else [kind]
            classes = [k for k in kinds if isinstance(k, _TorchModuleClass)]
            if isinstance(value, _Module) and value.kind != "user" and len(classes) == len(kinds):
                return any(value.kind == k.name for k in classes)
            if isinstance(value, Tensor) and all(
                self.model.qualname(a.value) == "torch.Tensor" for a in positional[1:]
            ):
                return True
            raise _Unknown(f"line {self._line(node)}: isinstance of a value the table cannot classify")
        if qualname == "torch.cuda.get_device_properties":
            return _DeviceProperties()  # `.multi_processor_count`: the calibrated GPU's SM count
        if isinstance(func, cst.Name) and func.value == "super":
            return _Module("super", {})
        if isinstance(func, cst.Name) and func.value == "getattr" and len(positional) in (2, 3):
            # `getattr(self.lstm, f"weight_ih_l{layer}")`: a module's parameter by a name computed here.
            owner, attr = self._eval(positional[0].value, scope, record), self._eval(positional[1].value, scope, False)
            if isinstance(owner, _Module) and isinstance(attr, str):
                if attr == "bias" and "bias_tensor" in owner.attrs:
                    return owner.attrs["bias_tensor"]
                if attr in owner.attrs:
                    return owner.attrs[attr]
                if len(positional) == 3:
                    return self._eval(positional[2].value, scope, record)
            raise _Unknown(f"line {self._line(node)}: getattr of a name that is not static")
        if isinstance(func, cst.Name) and func.value == "setattr" and len(positional) == 3:
            # `for name, mod in ref.named_children(): setattr(self, name, mod)`: a ModelNew taking its reference's
            # layers.
            owner, attr = positional[0].value, self._eval(positional[1].value, scope, record=False)
            if isinstance(owner, cst.Name) and owner.value == "self" and isinstance(attr, str):
                self.self_attrs[attr] = self._eval(positional[2].value, scope, record)
                return None
            raise _Unknown(f"line {self._line(node)}: setattr of a name that is not static")
        if isinstance(func, cst.Name) and func.value == "hasattr" and len(positional) == 2:
            owner, attr = positional[0].value, self._eval(positional[1].value, scope, record=False)
            if isinstance(owner, cst.Name) and owner.value == "self" and isinstance(attr, str):
                return attr in self.self_attrs or attr in self.methods
        if isinstance(func, cst.Name) and isinstance(scope.get(func.value), _Module):
            return self._module_call(scope[func.value], args(), node, record)  # `layer(x)` in a loop over layers
        if isinstance(func, cst.Name) and isinstance(scope.get(func.value), _TorchModuleClass):
            return self._nn_module(scope[func.value].name, args(), kw, node)  # `norm_layer(dim)`
        if isinstance(func, cst.Name) and isinstance(scope.get(func.value), _Class):
            return self._instantiate(scope[func.value], node, scope)
        if isinstance(func, cst.Name) and isinstance(scope.get(func.value), cst.FunctionDef):
            # Defined in the body: a closure over the names of the scope that defined it (`def out_dim(L):`
            # reading forward's `k`, `s`, `p`).
            return self._inline(scope[func.value], node, scope, record, skip_self=False, enclosing=scope)
        if isinstance(func, cst.Name) and func.value in self.functions and func.value not in scope:
            return self._inline(self.functions[func.value], node, scope, record, skip_self=False)
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
            and func.attr.value in self.methods
        ):
            return self._inline(self.methods[func.attr.value], node, scope, record, skip_self=True)
        if isinstance(func, cst.Subscript):
            layer = self._eval_or_none(func, scope, record=False)
            if isinstance(layer, _Module):
                return self._module_call(layer, args(), node, record)  # `self.transitions[i](x)`
            return self._triton_launch(node, scope, record)
        name = qualname.rsplit(".", 1)[-1] if qualname else (func.attr.value if isinstance(func, cst.Attribute) else "")
        if qualname in ("torch.cuda.synchronize", "torch.cuda.current_stream.synchronize"):
            # The host waits for every launch so far: a round trip the call cannot overlap.
            self._record(record, Op("sync", line, note="torch.cuda.synchronize"))
            return None
        if qualname == "torch.set_float32_matmul_precision":
            return None  # a process-wide setting, read before the file is run (`_turns_on_tf32`)
        # torch.* factories and functional ops
        if qualname.startswith("torch.nn.functional.") or qualname.startswith("torch.") and "." not in qualname[6:]:
            return self._torch_function(name, qualname, node, args, kw, keywords, scope, record)
        if qualname.startswith("torch.nn.") and name[:1].isupper():
            return self._nn_module(name, args(), kw, node)
        if qualname.startswith("math."):
            values = args()
            fn = getattr(math, name, None)
            if fn is not None and any(isinstance(v, _HostNumber) for v in values):
                if all(isinstance(v, (int, float, _HostNumber)) for v in values):
                    return _HostNumber()  # math.sqrt(total.item()): a number the host has, its value unknown
            if fn is None or not all(isinstance(v, (int, float)) for v in values):
                raise _Unknown(f"line {line}: math.{name}")
            return fn(*values)
        if qualname == "triton.jit" and len(positional) == 1 and not keywords:
            # `kernel = triton.jit(fn)` in the timed call: a new kernel object on every call, reloaded before it
            # launches (KL017's form without the decorator), as a `@triton.jit` def in the body is.
            self._record(
                record, Op("jit", line, launches=False, site_line=line, note=self.model.code(positional[0].value))
            )
            return None
        if qualname.startswith("triton.") and name in ("cdiv", "next_power_of_2"):
            values = args()
            if not all(isinstance(v, int) for v in values):
                raise _Unknown(f"line {line}: triton.{name} of non-static values")
            return -(-values[0] // values[1]) if name == "cdiv" else 1 << max(0, values[0] - 1).bit_length()
        if isinstance(func, cst.Attribute):
            # self.module(x), self.register_buffer(...), x.method(...)
            if isinstance(func.value, cst.Name) and func.value.value == "self":
                if func.attr.value == "register_buffer" and len(positional) >= 2:
                    key, value = args(positional[:2])
                    self.self_attrs[str(key)] = value
                    return None
                if func.attr.value in MODULE_MOVES and func.attr.value not in self.self_attrs:
                    # `self.half()` in __init__: every parameter built so far, in the new dtype.
                    values = args()
                    for key, value in list(self.self_attrs.items()):
                        self.self_attrs[key] = _moved(value, func.attr.value, values, kw)
                    return None
                target = self.self_attrs.get(func.attr.value)
                if isinstance(target, _Module):
                    return self._module_call(target, args(), node, record)
                raise _Unknown(f"line {line}: `self.{func.attr.value}(...)`")
            base = self._eval(func.value, scope, record)
            if isinstance(base, Tensor):
                return self._tensor_method(base, func.attr.value, node, args(), kw, record)
            if isinstance(base, _Module) and base.kind == "super":
                return self._super_call(func.attr.value, node, scope, record)
            if isinstance(base, _Module) and func.attr.value in MODULE_MOVES:
                # `nn.Linear(i, o).half()`: the module with its weights in that dtype.
                return _moved_module(base, func.attr.value, args(), kw)
            if (
                isinstance(base, _Module)
                and base.kind == "user"
                and isinstance(base.attrs["self"].get(func.attr.value), _Module)
            ):
                # `m.branch1x1(x)` in a helper handed a submodule of the file's own class: that layer's call.
                return self._module_call(base.attrs["self"][func.attr.value], args(), node, record)
            if (
                isinstance(base, _Module)
                and base.kind == "ModuleDict"
                and isinstance(base.attrs.get(func.attr.value), _Module)
            ):
                return self._module_call(base.attrs[func.attr.value], args(), node, record)  # `self.mlp.c_fc(x)`
            if isinstance(base, _Module) and base.kind in ("Sequential", "ModuleList"):
                base = base.attrs["layers"]  # `self.layers.append(Block(...))` in __init__
            if isinstance(base, list) and func.attr.value in ("append", "extend"):
                # __init__ building its layers: `layers.append(nn.Linear(...))`, then nn.Sequential(*layers);
                # forward collecting tensors to concatenate: `features.append(y)`, then torch.cat(features).
                values = args()
                if func.attr.value == "append" and len(values) == 1:
                    base.append(values[0])
                    return None
                if func.attr.value == "extend" and len(values) == 1 and isinstance(values[0], (list, tuple)):
                    base.extend(values[0])
                    return None
            if (
                isinstance(base, _Module)
                and base.kind == "user"
                and func.attr.value == "named_children"
                and not node.args
            ):
                # A module of the file's own class: its submodules in the order its __init__ set them.
                return [(name, value) for name, value in base.attrs["self"].items() if isinstance(value, _Module)]
            if isinstance(base, list) and func.attr.value == "copy" and not node.args:
                return list(base)  # `out_shape = shape.copy()`, then `out_shape[dim] = 1`
        if qualname == "torch.nn.Module.__init__":
            return None  # `nn.Module.__init__(self)`: a ModelNew skipping its base's __init__; no work, no layers
            if isinstance(base, (list, tuple)) and func.attr.value in ("append", "extend"):
                if not record:
                    raise _Unknown(f"line {line}: a list the table does not follow")
                self._effect(f"line {line}: a list the table does not follow")
                return None
        raise _Unknown(f"line {line}: call to `{qualname or self.model.code(func)}`")

    def _call_values(
        self, node: cst.Call, scope: dict, record: bool, attributes_may_be_unknown: bool = False
    ) -> tuple[list, dict[str, object]]:
        """The call's arguments' values. With `attributes_may_be_unknown` (a helper of the file called), an
        attribute of a module the table has no value for (`self.act.negative_slope`, a number the kernel
        takes) is passed as unknown, None, as a loop index is: reading it does no work, and a size computed
        from it in the helper is still unknown there."""
        if any(a.star for a in node.args):
            raise _Unknown(f"line {self._line(node)}: a call with *args or **kwargs")

        def value(expression: cst.BaseExpression) -> object:
            if attributes_may_be_unknown and isinstance(expression, cst.Attribute):
                # A torch layer's (`self.act`), not the model's own: `self.weight_int8` unset keeps its reason.
                owner = self._eval_or_none(expression.value, scope, record=False)
                if isinstance(owner, _Module) and owner.kind != "user":
                    return self._eval_or_none(expression, scope, record)
            return self._eval(expression, scope, record)

        values = [value(a.value) for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: value(a.value) for a in node.args if a.keyword is not None}
        return values, keywords

    def _inline(
        self,
        function: cst.FunctionDef,
        node: cst.Call,
        scope: dict,
        record: bool,
        skip_self: bool,
        enclosing: dict | None = None,
    ):
        """A helper's result, its ops recorded on the calling line of forward (a closure sees `enclosing`)."""
        if self._depth >= INLINE_DEPTH:
            raise _Unknown(f"line {self._line(node)}: helpers nested deeper than {INLINE_DEPTH}")
        values, keywords = self._call_values(node, scope, record, attributes_may_be_unknown=True)
        params = [p.name.value for p in _params(function, skip_self)]
        given = [a.value for a in node.args if a.keyword is None]
        aliases = {params[i]: v.value for i, v in enumerate(given[: len(params)]) if isinstance(v, cst.Name)}
        aliases |= {a.keyword.value: a.value.value for a in node.args if a.keyword and isinstance(a.value, cst.Name)}
        return self._inline_values(function, values, keywords, node, record, skip_self, enclosing, (scope, aliases))

    def _instantiate(self, cls: _Class, node: cst.Call, scope: dict) -> _Module:
        """`Bottleneck(64, 256)`: its __init__ run on an instance of its own
        (nothing recorded: building a module launches no work)."""
        if self._depth >= INLINE_DEPTH:
            raise _Unknown(f"line {self._line(node)}: modules nested deeper than {INLINE_DEPTH}")
        values, keywords = self._call_values(node, scope, record=False)
        instance: dict[str, object] = dict(cls.constants)
        init = cls.methods.get("__init__")
        if init is not None:
            self._as_instance(cls, instance, init, values, keywords, node, record=False)
        return _Module("user", {"class": cls, "self": instance})

    def _as_instance(self, cls: _Class, instance: dict, method, values, keywords, node, record: bool):
        """`method` of `cls` run with `self` the instance whose attributes are `instance`."""
        outer = self.self_attrs, self.methods, self._layers, self._supers, self._self_class
        self.self_attrs = instance
        self._self_class = cls
        self.methods = {name: f for name, f in cls.methods.items() if name not in ("forward", "__init__")}
        self._layers = 0  # its forward's ops are spelled there (KL004 reads them in the class)
        # `super()` in `method` reaches the file's bases after the class that defines it (`class BlockNew(Block)`
        # runs Block's __init__, whose own super() is nn.Module's: no work).
        owners = (cls.node, *cls.bases)
        defined = next((i for i, owner in enumerate(owners) if method in _methods_of(owner).values()), 0)
        self._supers = [_methods_of(base) for base in owners[defined + 1 :]]
        try:
            return self._inline_values(method, values, keywords, node, record, skip_self=True)
        finally:
            self.self_attrs, self.methods, self._layers, self._supers, self._self_class = outer

    def _super_call(self, name: str, node: cst.Call, scope: dict, record: bool) -> object:
        """`super().name(...)` in the entry class: the nearest base of the file that defines `name`, run on the
        same instance (its own `super()` reaching the bases after it); nn.Module's own (`__init__`) does no work."""
        for i, found in enumerate(self._supers):
            if name in found:
                values, keywords = self._call_values(node, scope, record)
                outer = self._supers
                self._supers = self._supers[i + 1 :]
                try:
                    return self._inline_values(found[name], values, keywords, node, record, skip_self=True)
                finally:
                    self._supers = outer
        if name == "__init__":
            return None
        raise _Unknown(f"line {self._line(node)}: `super().{name}(...)`")

    def _inline_values(
        self,
        function: cst.FunctionDef,
        values: list,
        keywords: dict,
        node,
        record,
        skip_self,
        enclosing=None,
        caller: tuple[dict, dict[str, str]] | None = None,
    ):
        inner = {**(enclosing or {}), **self._bind_params(function, values, skip_self=skip_self)}
        inner.update(keywords)
        outer_line, outer_recording = self._call_line, self._recording
        outer_node, outer_start = self._call_node, self._body_start
        self._aliases.append((*(caller or ({}, {})), outer_start))
        self._body_start = len(self.ops)
        self._depth += 1
        self._call_line = outer_line or self._line(node)
        self._call_node = outer_node if outer_line else node
        try:
            return self._run_body(function.body.body, inner, record)
        finally:
            self._aliases.pop()
            self._depth -= 1
            self._call_line = outer_line
            self._call_node = outer_node
            self._body_start = outer_start
            self._recording = outer_recording

    def _torch_function(self, name, qualname, node, args, kw, keywords, scope, record):
        line = self._line(node)
        if name[:-2] in ("max_pool", "avg_pool") and name[-2:] in ("1d", "2d", "3d"):
            values = args()
            if values and isinstance(values[0], Tensor):
                kind = ("MaxPool" if name.startswith("max") else "AvgPool") + name[-2:]
                pool = _Module(kind, {"spec": _spec(values[1:], kw, POOL_ARGUMENTS[kind[:3]])})
                return self._pool(pool, values[0], node, record)
        if name.startswith("adaptive_") and name[-2:] in ("1d", "2d", "3d"):
            values = args()
            if values and isinstance(values[0], Tensor):
                size = kw("output_size", values[1] if len(values) > 1 else None)
                return self._adaptive_pool(values[0], size, int(name[-2]), f"F.{name}", node, record)
        if name in FUNCTIONAL_CONVS:
            values = args()
            if len(values) >= 2 and isinstance(values[0], Tensor) and isinstance(values[1], Tensor):
                return self._conv(_functional_conv(name, values, kw), values[0], node, record)
        if name == "broadcast_shapes":
            # `torch.broadcast_shapes(a.shape, b.shape)`: host arithmetic on sizes, no kernel.
            values = args()
            if not all(isinstance(v, (list, tuple)) and all(isinstance(d, int) for d in v) for v in values):
                raise _Unknown(f"line {line}: torch.broadcast_shapes of sizes that are not static")
            return list(_broadcast([tuple(v) for v in values]))
        dtype = kw("dtype")
        if "out" in keywords or kw("inplace", False) is True:
            self._effect(f"line {line}: torch.{name} writes a tensor in place")
        if name in CREATORS or name in FILLING_ALLOCATORS or name == "arange":
            values = args()
            if name.endswith("_like"):
                like = values[0]
                shape = like.shape
                dtype = dtype or like.dtype
            elif name == "randint":
                size = kw("size") if "size" in keywords else values[-1] if len(values) >= 2 else None
                shape = tuple(size) if isinstance(size, (list, tuple)) else None
                dtype = dtype or "int64"
            elif name == "arange":
                bounds = [v for v in values if isinstance(v, (int, float))]
                shape = (len(range(*[int(b) for b in bounds])),) if bounds else None
                dtype = dtype or ("float32" if any(isinstance(b, float) for b in bounds) else "int64")
            elif name in ("tensor", "as_tensor"):
                data = values[0] if values else None
                shape = _nested_shape(data)
                dtype = dtype or ("float32" if _has_float(data) else "int64")
            elif name == "full":
                shape = tuple(values[0]) if isinstance(values[0], (list, tuple)) else None
            elif name == "linspace":
                steps = kw("steps", values[2] if len(values) > 2 else None)
                shape = (steps,) if isinstance(steps, int) else None
            else:
                dims = values[0] if len(values) == 1 and isinstance(values[0], (list, tuple)) else values
                shape = tuple(dims) if all(isinstance(d, int) for d in dims) else None
            if shape is None or not all(isinstance(d, int) for d in shape):
                raise _Unknown(f"line {line}: torch.{name} with a size that is not static")
            on_host = record and "device" not in keywords and not name.endswith("_like")
            fill = {"zeros": 0.0, "zeros_like": 0.0, "ones": 1.0, "ones_like": 1.0}.get(name)
            if name == "full" and len(values) > 1 and isinstance(values[1], (int, float)):
                fill = float(values[1])
            tensor = Tensor(tuple(shape), dtype or "float32", on_host=on_host, value=fill)
            if not record:
                return tensor
            fills = (name in FILLING_ALLOCATORS or name.startswith("rand")) and not on_host
            index = self._record(
                record,
                Op(
                    "alloc",
                    line,
                    bytes=tensor.nbytes if fills else 0,
                    launches=fills,
                    note=f"torch.{name}",
                    out_bytes=tensor.nbytes,
                    elem_bytes=DTYPE_BYTES.get(tensor.dtype, 4),
                ),
            )
            return replace(tensor, origin=index)
        values = args()
        tensors = [v for v in values if isinstance(v, Tensor)]
        if name in ("matmul", "mm", "bmm"):
            return self._matmul(values[0], values[1], node, record)
        if name == "addmm" or name == "baddbmm":
            out = self._matmul(values[1], values[2], node, record)
            return out
        if name == "linear":
            weight = values[1]
            out = self._matmul(values[0], _transposed(weight, -2, -1), node, record)
            return out
        if name == "_int_mm":
            return self._matmul(values[0], values[1], node, record, out_dtype="int32")
        if name == "scaled_dot_product_attention":
            q, k, v = values[:3]
            *batch, s_q, d = q.shape
            s_k = k.shape[-2]
            flops = 4 * math.prod(batch) * s_q * s_k * d
            index = self._record(
                record,
                Op(
                    "attention",
                    line,
                    bytes=q.nbytes + k.nbytes + v.nbytes + q.nbytes,
                    flops=flops,
                    path=_gemm_path(q.dtype),
                    inputs=(q.origin, k.origin, v.origin),
                ),
            )
            return replace(q, origin=index)
        if name in SOFTMAX:
            return self._softmax(name, tensors[0], kw("dim", values[1] if len(values) > 1 else None), node, record)
        if name in ("max", "min") and len(values) > 1 and isinstance(values[1], Tensor):
            return self._elementwise(values[:2], node, record, fn="maximum" if name == "max" else "minimum")
        if name in REDUCTIONS or name in ("var_mean", "std_mean"):
            # torch.var(x, dim, unbiased, keepdim): a positional `unbiased` comes before keepdim.
            at = 3 if name in DEVIATIONS else 2
            out = self._reduce(
                tensors[0],
                kw("dim", values[1] if len(values) > 1 else None),
                kw("keepdim", values[at] if len(values) > at else False),
                node,
                record,
                fn=name.removesuffix("_mean"),
            )
            if name.endswith("_mean"):
                # (var or std, mean): ATen computes both in one pass over x (Welford), one kernel.
                return (out, replace(out, value=None, same=None, exact=False))
            return out
        if name in SCANS:
            return self._scan(tensors[0], kw("dim", values[1] if len(values) > 1 else None), name, node, record)
        if qualname == "torch.nn.functional.batch_norm" and tensors and len(tensors[0].shape) >= 2:
            # F.batch_norm(x, running_mean, running_var, weight, bias, training, ...): in training, the batch's
            # statistics as nn.BatchNorm computes them (the module's passes); else one affine pass per channel.
            training = kw("training", values[5] if len(values) > 5 else False)
            if not isinstance(training, bool):
                raise _Unknown(f"line {line}: F.batch_norm with a training flag that is not static")
            if not training:
                return self._elementwise(tensors[:1], node, record, note="batch_norm (running statistics)")
            rank = len(tensors[0].shape)
            module = _Module(f"BatchNorm{max(1, rank - 2)}d", {})
            return self._module_call(module, [tensors[0]], node, record)
        if name in SAME_SHAPE or name in ROW_NORMS:
            kind = "elementwise" if name in SAME_SHAPE else "reduction"
            return self._elementwise(tensors[:1], node, record, kind=kind, note=name)
        if name == "diag" and tensors and len(tensors[0].shape) == 1:
            return self._diag(tensors[0], node, record)
        if name == "gather":
            return self._gather(tensors[0], tensors[-1], node, record)
        if name in LOSSES:
            return self._loss(tensors, node, record, name, kw("reduction", "mean"))
        if name in ("split", "chunk"):
            return self._split(tensors[0], name, values[1:], kw, node)
        if qualname == "torch.nn.functional.unfold" and tensors and len(tensors[0].shape) == 4:
            return self._im2col(tensors[0], values[1:], kw, node, record)
        if name in ("cat", "stack"):
            parts = values[0]
            dim = kw("dim", values[1] if len(values) > 1 else 0)
            if not isinstance(parts, list) or not all(isinstance(p, Tensor) for p in parts) or not isinstance(dim, int):
                raise _Unknown(f"line {line}: torch.{name} of non-static parts")
            first = parts[0]
            if name == "stack":
                shape = list(first.shape)
                shape.insert(dim % (len(shape) + 1), len(parts))
            else:
                shape = list(first.shape)
                shape[dim] = sum(p.shape[dim] for p in parts)
            out = Tensor(tuple(shape), first.dtype)
            index = self._record(
                record,
                Op("copy", line, bytes=2 * out.nbytes, inputs=tuple(p.origin for p in parts), note=f"torch.{name}"),
            )
            return replace(out, origin=index)
        if name in ("transpose", "permute", "t"):
            return self._tensor_method(tensors[0], name, node, values[1:], kw, record)
        if qualname == "torch.nn.functional.pad" and tensors and values[0] is tensors[0]:
            return self._pad(tensors[0], kw("pad", values[1] if len(values) > 1 else None), node, record)
        if name == "dropout" and tensors and values[0] is tensors[0]:
            # F.dropout(x, p=0.5, training=True) and torch.dropout(x, p, train): ATen returns the input itself,
            # no kernel, when p is 0 or not training.
            p = kw("p", values[1] if len(values) > 1 else 0.5)
            training = kw("training", kw("train", values[2] if len(values) > 2 else True))
            if p == 0 or training is False:
                return tensors[0]
        if name in UNARY or name in BINARY or name in ("clamp", "where", "lerp", "addcmul", "addcdiv"):
            return self._elementwise(values, node, record, fn=name, parametrized=bool(keywords))
        if name.endswith("_") and (name[:-1] in UNARY or name[:-1] in BINARY) and tensors and values[0] is tensors[0]:
            # torch.relu_(x): the op written into its first argument, one kernel as the out-of-place op.
            self._effect(f"line {line}: torch.{name} writes a tensor in place")
            self._elementwise(values, node, record, fn=name[:-1], parametrized=bool(keywords))
            return tensors[0]
        if name in VIEWS or name in ("flatten",):
            return self._tensor_method(tensors[0], name, node, values[1:], kw, record)
        if name == "broadcast_to" and tensors and values[0] is tensors[0]:
            return self._tensor_method(tensors[0], "expand", node, values[1:], kw, record)
        if name == "result_type" and len(values) == 2:
            return _promoted(*(v.dtype if isinstance(v, Tensor) else v for v in values))
        if name in ("is_inference_mode_enabled", "is_grad_enabled", "no_grad", "inference_mode"):
            return None
        raise _Unknown(f"line {line}: `{qualname}` is not in the cost table")

    def _im2col(self, x: Tensor, values: list, kw, node, record) -> Tensor:
        """F.unfold of [B, C, H, W]: every kernel window's C*kh*kw values as a column, [B, C*kh*kw, L]: a copy
        that reads x and writes kh*kw times its size (at stride 1), one kernel."""
        spec = _spec(values, kw, ("kernel_size", "dilation", "padding", "stride"))
        sizes = []
        for key, default in (("kernel_size", None), ("dilation", 1), ("padding", 0), ("stride", 1)):
            value = spec.get(key) if spec.get(key) is not None else default
            if value is None:
                raise _Unknown(f"line {self._line(node)}: F.unfold without a static kernel_size")
            sizes.append(_tuple(value, 2))
        (kh, kw_), (dh, dw), (ph, pw), (sh, sw) = sizes
        if not all(isinstance(v, int) for pair in sizes for v in pair):
            raise _Unknown(f"line {self._line(node)}: F.unfold with sizes that are not static")
        B, C, H, W = x.shape
        oh = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
        ow = (W + 2 * pw - dw * (kw_ - 1) - 1) // sw + 1
        out = Tensor((B, C * kh * kw_, oh * ow), x.dtype)
        return replace(out, origin=self._record(record, _one_pass("copy", self._line(node), x, out, note=IM2COL)))

    def _nn_module(self, name: str, values: list, kw, node) -> _Module:
        attrs: dict[str, object] = {}
        if name == "Linear":
            spec = _spec(values, kw, ("in_features", "out_features"))
            in_f, out_f = spec["in_features"], spec["out_features"]
            if not isinstance(in_f, int) or not isinstance(out_f, int):
                raise _Unknown(f"line {self._line(node)}: nn.Linear with sizes that are not static")
            attrs["weight"] = Tensor((out_f, in_f), "float32")
            attrs.update(in_features=in_f, out_features=out_f)  # `N = self.gemm.out_features` in a solution
            if kw("bias", True):
                attrs["bias"] = Tensor((out_f,), "float32")
        elif name == "Parameter":
            value = values[0]
            return value
        elif name in CONV_DIMS:
            names = ("in_channels", "out_channels", "kernel_size", "stride", "padding")
            spec = _spec(values, kw, names)
            extra = {key: kw(key) for key in ("output_padding", "groups", "dilation")}
            spec.update({k: v for k, v in extra.items() if v is not None})
            dims = CONV_DIMS[name]
            kernel = _tuple(spec["kernel_size"], dims)
            c_in, c_out, groups = spec["in_channels"], spec["out_channels"], spec.get("groups") or 1
            shape = (
                (c_in, c_out // groups, *kernel)
                if name.startswith("ConvTranspose")
                else (c_out, c_in // groups, *kernel)
            )
            attrs["weight"] = Tensor(tuple(shape), "float32")
            attrs["spec"] = spec
            # What a solution reads back from the module (`self.conv.out_channels`), as torch stores it.
            attrs.update(in_channels=c_in, out_channels=c_out, groups=groups, kernel_size=kernel)
            for key, default in (("stride", 1), ("padding", 0), ("dilation", 1), ("output_padding", 0)):
                value = spec.get(key) if spec.get(key) is not None else default
                if isinstance(value, int) or (isinstance(value, (list, tuple)) and len(value) == dims):
                    attrs[key] = _tuple(
                        value, dims
                    )  # `self.conv.stride` handed to F.conv2d: a tuple, as torch keeps it
            attrs["bias"] = kw("bias", True) is not False
            # What `self.conv.bias` reads: the bias tensor, or None without one (a solution's `if ... is not None`).
            attrs["bias_tensor"] = Tensor((c_out,), "float32") if attrs["bias"] else None
        elif name in ADAPTIVE_POOL_DIMS:
            attrs["output_size"] = kw("output_size", values[0] if values else None)
        elif name in POOL_DIMS:
            attrs["spec"] = _spec(values, kw, POOL_ARGUMENTS[name[:3]])
        elif name in RNN_GATES:
            rnn_args = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout", "bidirectional")
            spec = _spec(values, kw, rnn_args)
            defaults = {"num_layers": 1, "bias": True, "batch_first": False, "dropout": 0.0, "bidirectional": False}
            spec = {k: defaults[k] if v is None and k in defaults else v for k, v in spec.items()}
            if not isinstance(spec["input_size"], int) or not isinstance(spec["hidden_size"], int):
                raise _Unknown(f"line {self._line(node)}: nn.{name} with sizes that are not static")
            attrs["spec"] = spec
            # As torch keeps them (`self.gru.bias`, `self.lstm.bidirectional` read by a solution's own loop).
            attrs.update(
                {
                    k: spec[k]
                    for k in ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "bidirectional")
                }
            )
            attrs.update(_rnn_parameters(RNN_GATES[name], spec))
        elif name == "Sequential":
            attrs["layers"] = values
        elif name == "MultiheadAttention":
            spec = _spec(values, kw, ("embed_dim", "num_heads"))
            if not isinstance(spec["embed_dim"], int) or not isinstance(spec["num_heads"], int):
                raise _Unknown(f"line {self._line(node)}: nn.MultiheadAttention with sizes that are not static")
            attrs.update(spec)
            attrs["batch_first"] = kw("batch_first", False) is True
            # Its parameters as torch names them, for a solution that runs them itself (`self.attn.in_proj_weight`
            # handed to its own GEMM kernel): the packed q/k/v projection and out_proj, an nn.Linear.
            embed = spec["embed_dim"]
            attrs["in_proj_weight"] = Tensor((3 * embed, embed), "float32")
            attrs["head_dim"] = embed // spec["num_heads"]
            out_proj = self._nn_module("Linear", [embed, embed], _no_keywords, node)
            if kw("bias", True):
                attrs["in_proj_bias"] = Tensor((3 * embed,), "float32")
            else:
                out_proj.attrs.pop("bias")
            attrs["out_proj"] = out_proj
        elif name == "TransformerEncoderLayer":
            spec = _spec(values, kw, ("d_model", "nhead", "dim_feedforward"))
            d_model, heads = spec["d_model"], spec["nhead"]
            ff = spec["dim_feedforward"] if spec["dim_feedforward"] is not None else 2048
            if not all(isinstance(v, int) for v in (d_model, heads, ff)):
                raise _Unknown(f"line {self._line(node)}: nn.TransformerEncoderLayer with sizes that are not static")
            activation = kw("activation", "relu")
            first = kw("batch_first", False) is True
            eps = kw("layer_norm_eps", 1e-5)
            attrs.update(
                # Its submodules as torch builds them (`layer.self_attn.in_proj_weight`, `layer.norm1.eps`
                # handed to a solution's own kernels).
                self_attn=self._nn_module(
                    "MultiheadAttention",
                    [d_model, heads],
                    lambda key, default=None: first if key == "batch_first" else default,
                    node,
                ),
                norm1=self._nn_module("LayerNorm", [d_model, eps], _no_keywords, node),
                norm2=self._nn_module("LayerNorm", [d_model, eps], _no_keywords, node),
                linear1=self._nn_module("Linear", [d_model, ff], _no_keywords, node),
                linear2=self._nn_module("Linear", [ff, d_model], _no_keywords, node),
                norm_first=kw("norm_first", False) is True,
                activation=activation if activation in ("relu", "gelu") else "relu",
            )
        elif name == "TransformerEncoder":
            layer = values[0] if values else kw("encoder_layer")
            count = values[1] if len(values) > 1 else kw("num_layers")
            if not isinstance(layer, _Module) or not isinstance(count, int):
                raise _Unknown(f"line {self._line(node)}: nn.TransformerEncoder with layers that are not static")
            attrs["layers"] = [layer] * count  # deep copies of one layer: the same sizes
        elif name == "ModuleList":
            attrs["layers"] = list(values[0]) if values and isinstance(values[0], (list, tuple)) else []
        elif name == "ModuleDict" and values and isinstance(values[0], dict):
            attrs.update(values[0])  # its layers, read as attributes (`self.mlp.c_fc`)
        elif name in NORMS:
            attrs.update(_norm_parameters(name, values, kw))
        elif name in ("Softmax", "LogSoftmax"):
            attrs["dim"] = kw("dim", values[0] if values else None)
        elif name in LOSS_MODULES:
            attrs["reduction"] = kw("reduction", "mean")
        elif name == "Dropout":
            attrs["p"] = kw("p", values[0] if values else 0.5)
        attrs["inplace"] = kw("inplace", False) is True
        attrs["parametrized"] = bool(node.args)
        return _Module(name, attrs)

    def _conv(self, module: _Module, x: Tensor, node, record: bool) -> Tensor:
        spec = module.attrs["spec"]
        weight = module.attrs["weight"]
        assert isinstance(spec, dict) and isinstance(weight, Tensor)
        dims = CONV_DIMS[module.kind]
        kernel = _tuple(spec["kernel_size"], dims)
        stride = _tuple(spec.get("stride") or 1, dims)
        dilation = _tuple(spec.get("dilation") or 1, dims)
        padding_spec = spec.get("padding") or 0
        if padding_spec == "same":
            padding = tuple((d * (k - 1)) // 2 for d, k in zip(dilation, kernel))
        else:
            padding = _tuple(0 if padding_spec == "valid" else padding_spec, dims)
        out_pad = _tuple(spec.get("output_padding") or 0, dims)
        spatial = x.shape[-dims:]
        if module.kind.startswith("ConvTranspose"):
            out = tuple(
                (i - 1) * s - 2 * p + d * (k - 1) + o + 1
                for i, s, p, d, k, o in zip(spatial, stride, padding, dilation, kernel, out_pad)
            )
        else:
            out = tuple(
                (i + 2 * p - d * (k - 1) - 1) // s + 1
                for i, s, p, d, k in zip(spatial, stride, padding, dilation, kernel)
            )
        c_out = spec["out_channels"]
        result = Tensor((*x.shape[: -dims - 1], c_out, *out), x.dtype)
        groups = spec.get("groups") or 1
        # A convolution is a GEMM over (output positions) x (output channels)
        # x (input channels per group * kernel); a transposed one the same over
        # the input positions.
        positions = math.prod(x.shape[-dims:]) if module.kind.startswith("ConvTranspose") else math.prod(out)
        batch = math.prod(x.shape[: -dims - 1])
        reduction = (spec["in_channels"] // groups) * math.prod(kernel)
        flops = 2 * batch * positions * c_out * reduction
        # A depthwise convolution (one input channel per group) is a window reduction per channel, which
        # PyTorch runs in a depthwise kernel of its own, not as a GEMM (KL029 prices it).
        depthwise = (
            not module.kind.startswith("ConvTranspose") and 1 < groups == spec["in_channels"] and c_out % groups == 0
        )
        op = Op(
            "gemm",
            self._line(node),
            bytes=x.nbytes + weight.nbytes + result.nbytes,
            flops=flops,
            # cuDNN runs fp32 convolutions on TF32 tensor cores by default
            # (torch.backends.cudnn.allow_tf32 is True), unlike matmul.
            path="tf32" if x.dtype == "float32" else _gemm_path(x.dtype),
            inputs=(x.origin,),
            in_bytes=(x.nbytes, weight.nbytes),
            out_bytes=result.nbytes,
            conv_bias=module.attrs.get("bias", True) is not False,
            elem_bytes=DTYPE_BYTES.get(result.dtype, 4),
            reduction=reduction,
            note=f"nn.{module.kind}",
            kernel=f"depthwise_conv{dims}d" if depthwise else "",
            conv_window=(*kernel, *stride, *dilation),
            conv_groups=groups,
        )
        return replace(result, origin=self._record(record, op))

    def _rnn(self, module: _Module, x: Tensor, node, record: bool):
        """nn.GRU/LSTM/RNN as cuDNN runs it: per layer and direction, one GEMM
        for the input projection of every step, then the recurrence, a
        [B, H] x [H, gates*H] product and the gate math per step, `T`
        sequential steps (an "rnn" op: kernlint.cost times it per step)."""
        spec = module.attrs["spec"]
        assert isinstance(spec, dict)
        gates = RNN_GATES[module.kind]
        hidden, layers = spec["hidden_size"], spec["num_layers"]
        directions = 2 if spec["bidirectional"] else 1
        if len(x.shape) == 2:
            steps, batch = x.shape[0], 1
        elif spec["batch_first"]:
            batch, steps = x.shape[0], x.shape[1]
        else:
            steps, batch = x.shape[0], x.shape[1]
        elem = DTYPE_BYTES.get(x.dtype, 4)
        line = self._line(node)
        layer_in, width = x.origin, x.shape[-1]
        first = True
        for _ in range(layers):
            outputs = []
            for _ in range(directions):
                projected = Tensor((steps * batch, gates * hidden), x.dtype)
                gemm = Op(
                    "gemm",
                    line,
                    bytes=elem * (steps * batch * width + width * gates * hidden) + projected.nbytes,
                    flops=2 * steps * batch * width * gates * hidden,
                    path="tf32" if x.dtype == "float32" else _gemm_path(x.dtype),
                    inputs=(layer_in,),
                    in_bytes=(elem * steps * batch * width, elem * width * gates * hidden),
                    out_bytes=projected.nbytes,
                    elem_bytes=elem,
                    note=f"nn.{module.kind} input projection",
                    library=not first,  # the module call's own host cost is carried once
                )
                first = False
                projection = self._record(record, gemm)
                out_bytes = elem * steps * batch * hidden
                recurrence = Op(
                    "rnn",
                    line,
                    bytes=projected.nbytes + elem * gates * hidden * hidden + out_bytes,
                    flops=2 * steps * batch * hidden * gates * hidden,
                    path="tf32" if x.dtype == "float32" else _gemm_path(x.dtype),
                    inputs=(projection,),
                    in_bytes=(projected.nbytes,),
                    out_bytes=out_bytes,
                    elem_bytes=elem,
                    note=f"nn.{module.kind} recurrence",
                    steps=steps,
                    library=True,
                )
                outputs.append(self._record(record, recurrence))
            layer_in, width = outputs[-1], hidden * directions
        shape: tuple[int, ...] = (
            (batch, steps, hidden * directions) if spec["batch_first"] else (steps, batch, hidden * directions)
        )
        if len(x.shape) == 2:
            shape = (steps, hidden * directions)
        out = Tensor(shape, x.dtype, origin=layer_in, exact=False)
        state = Tensor((layers * directions, batch, hidden), x.dtype, origin=layer_in, exact=False)
        return [out, [state, state] if module.kind == "LSTM" else state]

    def _encoder_layer(self, layer: _Module, x: Tensor, node, record: bool) -> Tensor:
        """nn.TransformerEncoderLayer as PyTorch's Python path runs it (training: no fused fast path):
        self-attention without weights, then the feed-forward block, each with its residual add and
        LayerNorm (after each block, or before with norm_first)."""
        a = layer.attrs

        def norm(t: Tensor) -> Tensor:
            return self._elementwise([t], node, record, kind="reduction", note="nn.LayerNorm")

        def attention(t: Tensor) -> Tensor:
            return self._multihead_attention(a["self_attn"], [t, t, t], node, record, need=False)[0]

        def feed_forward(t: Tensor) -> Tensor:
            hidden = self._module_call(a["linear1"], [t], node, record)
            hidden = self._elementwise([hidden], node, record, fn=str(a["activation"]))
            return self._module_call(a["linear2"], [hidden], node, record)

        if a["norm_first"]:
            x = self._binary("Add", x, attention(norm(x)), node, record)
            return self._binary("Add", x, feed_forward(norm(x)), node, record)
        x = norm(self._binary("Add", x, attention(x), node, record))
        return norm(self._binary("Add", x, feed_forward(x), node, record))

    def _multihead_attention(self, module: _Module, values: list, node, record: bool, need: object = None) -> list:
        """nn.MultiheadAttention's forward as PyTorch runs it outside its inference fast path: the
        packed input projection, the [B*H, L, L] scores, their softmax, the product with the values,
        the output projection, and with need_weights (the default) the weights averaged over the
        heads. Self-attention (query, key and value one tensor) as KernelBench's problems call it."""
        q = values[0]
        if len(q.shape) != 3 or any(isinstance(v, Tensor) and v.shape != q.shape for v in values[1:3]):
            raise _Unknown(f"line {self._line(node)}: nn.MultiheadAttention on inputs of different shapes")
        E, heads = module.attrs["embed_dim"], module.attrs["num_heads"]
        assert isinstance(E, int) and isinstance(heads, int)
        B, L = (q.shape[0], q.shape[1]) if module.attrs["batch_first"] else (q.shape[1], q.shape[0])
        d = E // heads
        need = _keyword(node, "need_weights", True) if need is None else need
        flat = Tensor((L * B, E), q.dtype, origin=q.origin)
        packed = self._matmul(flat, Tensor((E, 3 * E), q.dtype), node, record, note="nn.MultiheadAttention")
        per_head = Tensor((B * heads, L, d), q.dtype, origin=packed.origin)
        if need is False:
            # need_weights=False: PyTorch runs scaled_dot_product_attention (a fused kernel).
            fused = Op(
                "attention",
                self._line(node),
                bytes=4 * per_head.nbytes,
                flops=4 * B * heads * L * L * d,
                path=_gemm_path(q.dtype),
                inputs=(packed.origin,),
            )
            out = replace(per_head, origin=self._record(record, fused))
        else:
            keys = Tensor((B * heads, d, L), q.dtype, origin=packed.origin, contiguous=False)
            scores = self._matmul(per_head, keys, node, record)
            probs = self._softmax("softmax", scores, -1, node, record)
            out = self._matmul(probs, per_head, node, record)
        merged = Tensor((L * B, E), q.dtype, origin=out.origin)
        projected = self._matmul(merged, Tensor((E, E), q.dtype), node, record, note="nn.MultiheadAttention")
        shape = (B, L, E) if module.attrs["batch_first"] else (L, B, E)
        result = replace(projected, shape=shape)
        if need is not True:
            return [result, None]
        weights = self._reduce(replace(probs, shape=(B, heads, L, L)), 1, False, node, record, fn="mean")
        return [result, weights]

    def _adaptive_pool(self, x: Tensor, size: object, dims: int, note: str, node, record: bool) -> Tensor:
        """AdaptiveAvgPool2d((1, 1)) and F.adaptive_avg_pool2d: the last `dims` sizes become `size` (None keeps one)."""
        sizes = list(size) if isinstance(size, (list, tuple)) else [size] * dims
        if len(sizes) != dims or len(x.shape) < dims or not all(s is None or isinstance(s, int) for s in sizes):
            raise _Unknown(f"line {self._line(node)}: {note} with an output size that is not static")
        out = tuple(i if s is None else int(s) for i, s in zip(x.shape[-dims:], sizes))  # type: ignore[call-overload]
        return self._pooled(x, out, note, node, record)

    def _pooled(
        self, x: Tensor, out: tuple[int, ...], note: str, node, record: bool, kernel: str = "", taps: int = 0
    ) -> Tensor:
        """A pooling op: x read once, its last len(out) sizes become `out`, the result written once;
        `kernel` and `taps`: a fixed window's library kernel (max_pool2d, ...) and its taps."""
        result = Tensor((*x.shape[: -len(out)], *out), x.dtype)
        op = Op(
            "reduction",
            self._line(node),
            bytes=x.nbytes + result.nbytes,
            inputs=(x.origin,),
            out_bytes=result.nbytes,
            elem_bytes=DTYPE_BYTES.get(x.dtype, 4),
            note=note,
            kernel=kernel,
            reduction=taps,
        )
        return replace(result, origin=self._record(record, op))

    def _pool(self, module: _Module, x: Tensor, node, record: bool) -> Tensor:
        dims = POOL_DIMS[module.kind]
        spec = module.attrs["spec"]
        assert isinstance(spec, dict)
        kernel = _tuple(spec["kernel_size"], dims)
        stride = _tuple(spec["stride"] if spec["stride"] is not None else spec["kernel_size"], dims)
        padding = _tuple(spec["padding"] or 0, dims)
        dilation = _tuple(spec.get("dilation") or 1, dims)
        out = tuple(
            (i + 2 * p - d * (k - 1) - 1) // s + 1
            for i, k, s, p, d in zip(x.shape[-dims:], kernel, stride, padding, dilation)
        )
        library = ("max_pool" if module.kind.startswith("Max") else "avg_pool") + f"{dims}d"
        return self._pooled(x, out, f"nn.{module.kind}", node, record, kernel=library, taps=math.prod(kernel))

    def _module_call(self, module: _Module, values: list, node, record: bool):
        line = self._line(node)
        if module.kind == "Linear":
            weight = module.attrs["weight"]
            assert isinstance(weight, Tensor)
            return self._matmul(values[0], _transposed(weight, -2, -1), node, record, note="nn.Linear")
        if module.kind in {
            "ReLU",
            "GELU",
            "SiLU",
            "Sigmoid",
            "Tanh",
            "Dropout",
            "LeakyReLU",
            "Mish",
            "Softplus",
            "Hardtanh",
            "ELU",
            "Hardswish",
            "Hardsigmoid",
            "ReLU6",
            "SELU",
            "CELU",
            "Softsign",
            "Tanhshrink",
        }:
            if module.kind == "Dropout" and module.attrs.get("p") == 0:
                return values[0]  # ATen's dropout returns its input when p is 0: no kernel runs
            if module.attrs.get("inplace"):
                self._effect(f"line {line}: nn.{module.kind}(inplace=True)")
            fn = MODULE_FUNCTIONS.get(module.kind, "")
            return self._elementwise(
                values[:1],
                node,
                record,
                fn=fn,
                parametrized=bool(module.attrs.get("parametrized")),
                note=f"nn.{module.kind}",
            )
        if module.kind in LOSS_MODULES and all(isinstance(v, Tensor) for v in values):
            return self._loss(values, node, record, LOSS_MODULES[module.kind], module.attrs["reduction"])
        if module.kind in ("Softmax", "LogSoftmax") and isinstance(values[0], Tensor):
            name = "softmax" if module.kind == "Softmax" else "log_softmax"
            return self._softmax(name, values[0], module.attrs.get("dim"), node, record)
        if module.kind in NORMS:
            # A normalization reads its input and writes its output; a row's
            # statistics (LayerNorm, GroupNorm, InstanceNorm) come from the same
            # read, within one program's rows.
            out = self._elementwise(values[:1], node, record, kind="reduction", note=f"nn.{module.kind}")
            if module.kind.startswith("BatchNorm") and isinstance(values[0], Tensor) and out.origin >= 0:
                # Train mode (a module's default, KernelBench's too): the batch's statistics are one pass over
                # the input and normalizing a second, as ATen and cuDNN run it (three passes in all).
                stats = self.ops[out.origin]
                self.ops[out.origin] = replace(stats, bytes=stats.bytes + values[0].nbytes)
            normalized, groups, x = module.attrs.get("normalized"), module.attrs.get("groups"), values[0]
            rows = 0  # what one block normalizes: a LayerNorm's row, an InstanceNorm's plane, a GroupNorm's group
            if module.kind == "LayerNorm" and isinstance(normalized, int):
                rows = out.numel // normalized
            elif module.kind.startswith("InstanceNorm") and isinstance(x, Tensor) and len(x.shape) > 2:
                rows = x.shape[0] * x.shape[1]
            elif module.kind == "GroupNorm" and isinstance(groups, int) and isinstance(x, Tensor) and x.shape:
                rows = x.shape[0] * groups
            return self._library_kernel(out, NORM_KERNELS.get(module.kind.rstrip("123d"), ""), rows)
        if module.kind in CONV_DIMS and isinstance(values[0], Tensor):
            return self._conv(module, values[0], node, record)
        if module.kind in RNN_GATES and isinstance(values[0], Tensor):
            return self._rnn(module, values[0], node, record)
        if module.kind in ADAPTIVE_POOL_DIMS and isinstance(values[0], Tensor):
            dims = ADAPTIVE_POOL_DIMS[module.kind]
            return self._adaptive_pool(values[0], module.attrs["output_size"], dims, f"nn.{module.kind}", node, record)
        if module.kind in POOL_DIMS and isinstance(values[0], Tensor):
            return self._pool(module, values[0], node, record)
        if module.kind == "user":
            cls, instance = module.attrs["class"], module.attrs["self"]
            assert isinstance(cls, _Class) and isinstance(instance, dict)
            forward = cls.methods.get("forward")
            if forward is None:
                raise _Unknown(f"line {line}: `{cls.node.name.value}` has no forward")
            if self._depth >= INLINE_DEPTH:
                raise _Unknown(f"line {line}: modules nested deeper than {INLINE_DEPTH}")
            return self._as_instance(cls, instance, forward, values, {}, node, record)
        if module.kind == "MultiheadAttention" and values and isinstance(values[0], Tensor):
            return self._multihead_attention(module, values, node, record)
        if module.kind == "TransformerEncoderLayer" and values and isinstance(values[0], Tensor):
            return self._encoder_layer(module, values[0], node, record)
        if module.kind == "TransformerEncoder" and values and isinstance(values[0], Tensor):
            x = values[0]
            for layer in module.attrs["layers"]:
                x = self._encoder_layer(layer, x, node, record)
            return x
        if module.kind == "Sequential":
            x = values[0]
            self._layers += 1
            try:
                for layer in module.attrs["layers"]:
                    if not isinstance(layer, _Module):
                        raise _Unknown(f"line {line}: a layer of nn.Sequential that is not a module")
                    x = self._module_call(layer, [x], node, record)
            finally:
                self._layers -= 1
            return x
        if module.kind in ("Identity", "Flatten") and values:
            x = values[0]
            if module.kind == "Flatten" and isinstance(x, Tensor):
                return replace(x, shape=(x.shape[0], math.prod(x.shape[1:])))
            return x
        raise _Unknown(f"line {line}: module nn.{module.kind} is not in the cost table")

    def _tensor_method(self, base: Tensor, method: str, node, values: list, kw, record: bool):  # noqa: C901
        line = self._line(node)
        if method.endswith("_") and not method.startswith("_"):
            self._effect(f"line {line}: .{method}() writes a tensor in place")
        if method in SYNCS:
            if self._holds_input_data(base):
                self._effect(f"line {line}: .{method}() reads a value on the host")
            index = self._record(
                record,
                Op(
                    "sync",
                    line,
                    bytes=base.nbytes if method != "item" else 0,
                    inputs=(base.origin,),
                    note=f".{method}()",
                ),
            )
            return _HostNumber() if method == "item" else replace(base, origin=index)
        if base.on_host and (method in ("cuda", "to")):
            # A pageable host-to-device copy: the host waits for it (a sync), then the GPU has the tensor.
            index = self._record(
                record,
                Op("sync", line, bytes=base.nbytes, inputs=(base.origin,), note="host-to-device copy"),
            )
            moved = replace(base, on_host=False, origin=index)
            dtype = next((v for v in values if isinstance(v, str) and v in DTYPE_BYTES), None) or kw("dtype")
            return (
                moved if dtype is None or dtype == base.dtype else self._elementwise([moved], node, record, dtype=dtype)
            )
        if base.on_host and method in CASTS:
            return replace(base, dtype=CASTS[method])  # converted on the CPU: no kernel
        if method in CASTS or method == "to" or method == "type":
            dtype = CASTS.get(method)
            if method in ("to", "type"):
                dtype = next((v for v in values if isinstance(v, str) and v in DTYPE_BYTES), None) or kw("dtype")
                if dtype is None:
                    return base  # a move to the same device
            if dtype == base.dtype:
                return base  # `x.float()` of an fp32 x is x itself: no kernel, no copy
            return self._elementwise([base], node, record, dtype=dtype)
        if method in VIEW_METHODS:
            self._view(node, record, f".{method}()")
        if method in ("t", "transpose", "swapaxes"):
            if method == "t" or not values:
                return _transposed(base, -2, -1)
            return _transposed(base, int(values[0]), int(values[1]))
        if method in ("movedim", "moveaxis") and len(values) == 2 and all(isinstance(v, int) for v in values):
            # `x.movedim(dim, -1)`: one dimension moved, the others in order: a permutation.
            rank = len(base.shape)
            source, destination = values[0] % rank, values[1] % rank
            rest = [i for i in range(rank) if i != source]
            rest.insert(destination, source)
            method, values = "permute", [rest]
        if method == "permute":
            order = values[0] if len(values) == 1 and isinstance(values[0], (list, tuple)) else values
            shape = tuple(base.shape[i] for i in order)
            last = list(order)[-1] % len(order) == len(order) - 1 if order else False
            strides = base.strides
            return Tensor(
                shape,
                base.dtype,
                contiguous=list(order) == sorted(order),
                origin=base.origin,
                value=base.value,
                exact=False,
                runs_contiguous=_long_runs(base, last),
                layout=(shape, tuple(strides[i] for i in order)) if strides is not None else None,
            )
        if method in ("contiguous", "clone"):
            if method == "contiguous" and base.contiguous:
                return base
            kind = "transpose_copy" if not base.contiguous and not base.runs_contiguous else "copy"
            op = Op(
                kind,
                line,
                bytes=2 * base.nbytes,
                inputs=(base.origin,),
                note=f".{method}()",
                in_bytes=(base.nbytes,),
                out_bytes=base.nbytes,
                elem_bytes=DTYPE_BYTES.get(base.dtype, 4),
                matrix_transpose=kind == "transpose_copy" and len(base.shape) == 2,
            )
            index = self._record(record, op)
            same = _token(base) if base.contiguous else None
            return Tensor(base.shape, base.dtype, origin=index, value=base.value, same=same)
        if method in (
            "view",
            "reshape",
            "view_as",
            "reshape_as",
            "flatten",
            "unsqueeze",
            "squeeze",
            "expand",
            "expand_as",
            "detach",
            "unflatten",
        ):
            if method == "view" and len(values) == 1 and isinstance(values[0], str) and values[0] in DTYPE_BYTES:
                # `mask.view(torch.uint8)`: the same bytes read as another dtype (the last dimension scaled by the
                # ratio of the element sizes), no kernel.
                old, new = DTYPE_BYTES.get(base.dtype, 4), DTYPE_BYTES[values[0]]
                if not base.shape or base.shape[-1] * old % new:
                    raise _Unknown(f"line {self._line(node)}: .view({values[0]}) of a shape it does not divide")
                return replace(base, shape=(*base.shape[:-1], base.shape[-1] * old // new), dtype=values[0])
            if method == "flatten":
                # start_dim / end_dim by keyword (`x.flatten(start_dim=1)`, `torch.flatten(x, start_dim=1)`).
                values = [
                    kw("start_dim", values[0] if values else 0),
                    kw("end_dim", values[1] if len(values) > 1 else -1),
                ]
            return self._reshape(base, method, values, node)
        if method == "unfold" and len(values) == 3 and all(isinstance(v, int) for v in values):
            # A sliding-window view (patches): `dim` becomes the window count, a last dimension of `size`.
            dim, size, step = values
            windows = list(base.shape)
            dim %= len(windows)
            windows[dim] = (windows[dim] - size) // step + 1
            return replace(base, shape=(*windows, size), contiguous=False, exact=False)
        if method in ("size",):
            return list(base.shape) if not values else base.shape[int(values[0])]
        if method == "stride" and base.strides is not None and len(values) == 1 and isinstance(values[0], int):
            # A contiguous tensor's row-major strides (what a launch hands a kernel to index it), or a transposed
            # view's of one.
            return base.strides[values[0] % len(base.shape)] if base.shape else 1
        if method == "stride" and base.strides is not None and not values:
            return base.strides
        if method in ("dim", "ndimension"):
            return len(base.shape)
        if method == "numel":
            return base.numel
        if method in SOFTMAX:
            return self._softmax(method, base, kw("dim", values[0] if values else None), node, record)
        if method in SCANS:
            return self._scan(base, kw("dim", values[0] if values else None), method, node, record)
        if method in SAME_SHAPE and method != "masked_fill":
            return self._elementwise([base], node, record, note=method)
        if method == "gather":
            return self._gather(base, values[-1], node, record)
        if method == "copy_" and values and isinstance(values[0], Tensor):
            source = values[0]
            if source.contiguous:
                self._elementwise([source], node, record, note="copy_")
                return base
            # A transposed view copied into the buffer: the strided copy at its own rate.
            op = Op(
                "transpose_copy",
                line,
                bytes=2 * source.nbytes,
                inputs=(source.origin,),
                note=".copy_()",
                in_bytes=(source.nbytes,),
                out_bytes=source.nbytes,
                elem_bytes=DTYPE_BYTES.get(source.dtype, 4),
            )
            return replace(base, origin=self._record(record, op))
        if method in ("split", "chunk"):
            return self._split(base, method, values, kw, node)
        if method in ("narrow", "select"):
            return self._slice_view(base, method, values, kw, node)
        if method in ("max", "min") and values and isinstance(values[0], Tensor):
            return self._elementwise([base, values[0]], node, record, fn="maximum" if method == "max" else "minimum")
        if method in REDUCTIONS:
            dim = kw("dim", values[0] if values else None)
            at = 2 if method in DEVIATIONS else 1  # x.var(dim, unbiased, keepdim)
            keepdim = kw("keepdim", values[at] if len(values) > at else False)
            return self._reduce(base, dim, keepdim, node, record, fn=method)
        if (
            method in UNARY
            or method in BINARY
            or method in ("masked_fill", "clamp_", "add_", "mul_", "div_", "sub_", "relu_", "pow", "fill_", "zero_")
            or method in ("lerp", "lerp_")
        ):
            keywords = bool(node.args) and any(a.keyword is not None for a in node.args)
            out = self._elementwise([base, *values], node, record, fn=method, parametrized=keywords)
            if method == "masked_fill" and not base.on_host and out.origin >= 0:
                self.ops[out.origin] = replace(self.ops[out.origin], cloned=True)
            return out
        if method in ("matmul", "mm", "bmm"):
            return self._matmul(base, values[0], node, record)
        raise _Unknown(f"line {line}: tensor method `.{method}()` is not in the cost table")

    def _view(self, node, record: bool, note: str) -> None:
        """A view of a tensor (indexing, .view(), .transpose(), ...): no kernel, but a dispatched op whose
        host time a step loop or a host-bound call pays."""
        self._record(record, Op("view", self._line(node), launches=False, note=note))

    def _reshape(self, base: Tensor, method: str, values: list, node) -> Tensor:
        line = self._line(node)
        if method in ("detach",):
            return base
        if method in ("view_as", "reshape_as", "expand_as"):
            return replace(base, shape=values[0].shape)
        if method == "flatten":
            start = values[0] if values else 0
            end = values[1] if len(values) > 1 else -1
            start %= len(base.shape)
            end %= len(base.shape)
            shape = base.shape[:start] + (math.prod(base.shape[start : end + 1]),) + base.shape[end + 1 :]
            return replace(base, shape=shape)
        if method == "unsqueeze":
            grown = list(base.shape)
            grown.insert(values[0] % (len(grown) + 1), 1)
            return replace(base, shape=tuple(grown))
        if method == "squeeze":
            if values:
                kept = list(base.shape)
                if kept[values[0]] == 1:
                    del kept[values[0]]
                return replace(base, shape=tuple(kept))
            return replace(base, shape=tuple(d for d in base.shape if d != 1))
        dims = values[0] if len(values) == 1 and isinstance(values[0], (list, tuple)) else values
        if not all(isinstance(d, int) for d in dims):
            raise _Unknown(f"line {line}: .{method}() with sizes that are not static")
        dims = list(dims)
        if method == "expand":
            dims = [b if d == -1 else d for d, b in zip(dims, (1,) * (len(dims) - len(base.shape)) + base.shape)]
            return Tensor(tuple(dims), base.dtype, contiguous=False, origin=base.origin, value=base.value, exact=False)
        if -1 in dims:
            known = math.prod(d for d in dims if d != -1)
            dims[dims.index(-1)] = base.numel // max(known, 1)
        return replace(base, shape=tuple(dims))

    # -- the work ------------------------------------------------------------

    def _pad(self, x: Tensor, pad: object, node, record: bool) -> Tensor:
        """F.pad(x, (left, right, top, bottom, ...)): the last dimensions grown (or cut, for negative pads) by
        each pair, written whole by a pass over the input, whatever the mode."""
        if (
            not isinstance(pad, (list, tuple))
            or len(pad) % 2
            or len(pad) // 2 > len(x.shape)
            or not all(isinstance(p, int) for p in pad)
        ):
            raise _Unknown(f"line {self._line(node)}: F.pad with pads that are not static")
        shape = list(x.shape)
        for axis in range(len(pad) // 2):
            shape[-1 - axis] += pad[2 * axis] + pad[2 * axis + 1]
        out = Tensor(tuple(shape), x.dtype)
        return replace(
            out, origin=self._record(record, _one_pass("elementwise", self._line(node), x, out, note="F.pad"))
        )

    def _elementwise(
        self,
        values: list,
        node,
        record: bool,
        dtype: str | None = None,
        kind: str = "elementwise",
        note: str = "",
        fn: str = "",
        parametrized: bool = False,
        value: float | None = None,
        why: str = "",
    ) -> Tensor:
        """`fn` names the function, so that an op of constants has a known
        value (`torch.gelu` of zeros is zeros); `value` and `why`: a constant
        the caller proved from the inputs' shapes."""
        tensors = [v for v in values if isinstance(v, Tensor)]
        if not tensors:
            raise _Unknown(f"line {self._line(node)}: an op with no tensor operand")
        shape = _broadcast([t.shape for t in tensors])
        if value is None:
            value = _constant("cast" if not fn and dtype and len(values) == 1 else fn, values, parametrized)
        if all(t.on_host for t in tensors):
            # Arithmetic on CPU tensors runs on the CPU: a torch call's host
            # cost and no kernel; the result stays on the host (its later
            # .to(device) is the copy).
            host = Tensor(shape, dtype or _promote([t.dtype for t in tensors]), on_host=True, value=value)
            op = Op(kind, self._line(node), launches=False, inputs=tuple(t.origin for t in tensors), note="on the host")
            return replace(host, origin=self._record(record, op))
        out = Tensor(shape, dtype or _promote([t.dtype for t in tensors]), value=value)
        nbytes = sum(t.nbytes for t in tensors) + out.nbytes
        if dtype and dtype != tensors[0].dtype and len(tensors) == 1:
            note = f"cast from {tensors[0].dtype}"
        op = Op(
            kind,
            self._line(node),
            bytes=nbytes,
            inputs=tuple(t.origin for t in tensors),
            in_bytes=tuple(t.nbytes for t in tensors),
            out_bytes=out.nbytes,
            elem_bytes=DTYPE_BYTES.get(out.dtype, 4),
            note=note,
            value=value,
            broadcast=any(t.numel not in (1, out.numel) for t in tensors),
        )
        index = self._record(record, op)
        if why and value is not None and any(t.value is None for t in tensors):
            self._constant_made(index, why, value, shape)
        return replace(out, origin=index)

    def _softmax(self, name: str, base: Tensor, dim, node, record: bool) -> Tensor:
        """A softmax normalizes over `dim`: over a dimension of size 1 every
        element is 1 (a log-softmax's 0), whatever the input's values."""
        if isinstance(dim, int) and base.shape and -len(base.shape) <= dim < len(base.shape) and base.shape[dim] == 1:
            value = 1.0 if name == "softmax" else 0.0
            why = f"a {name} over dimension {dim}, of size 1 (its input is [{', '.join(map(str, base.shape))}])"
            return self._elementwise([base], node, record, kind="reduction", value=value, why=why)
        out = self._elementwise([base], node, record, kind="reduction", fn="softmax" if name == "softmax" else "")
        if isinstance(dim, int) and base.shape and -len(base.shape) <= dim < len(base.shape):
            out = self._library_kernel(out, name, base.numel // base.shape[dim])
        return out

    def _scan(self, base: Tensor, dim, name: str, node, record: bool) -> Tensor:
        """A cumulative sum or product: one kernel, one pass; along the last
        dimension, PyTorch's row scan kernel (KL029 prices it)."""
        out = self._elementwise([base], node, record, kind="reduction", note=name)
        if isinstance(dim, int) and base.shape and dim in (-1, len(base.shape) - 1):
            out = self._library_kernel(out, "scan", base.numel // base.shape[-1])
        return out

    def _library_kernel(self, out: Tensor, kernel: str, rows: int = 0) -> Tensor:
        """Name the library kernel that ran the op which made `out` (the cost
        model prices it at that kernel's measured rate: KL029) and, for a
        row-wise kernel, its rows."""
        if kernel and 0 <= out.origin < len(self.ops):
            self.ops[out.origin] = replace(self.ops[out.origin], kernel=kernel, rows=rows)
        return out

    def _reduce(self, base: Tensor, dim, keepdim, node, record: bool, fn: str = ""):
        if dim is None:
            shape: tuple[int, ...] = ()
            dims = set(range(len(base.shape)))
        else:
            if not isinstance(dim, (int, list, tuple)):
                raise _Unknown(f"line {self._line(node)}: a reduction over a dimension that is not static")
            dims = {d % len(base.shape) for d in (dim if isinstance(dim, (list, tuple)) else [dim])}
            shape = tuple(1 if i in dims else s for i, s in enumerate(base.shape) if keepdim or i not in dims)
        count = math.prod(base.shape[i] for i in dims)
        value = _reduced_value(fn, base.value, count)
        # A sum, mean, max... over dimensions of size 1 returns its input's values.
        identity = dim is not None and count == 1 and fn in IDENTITY_WHEN_ONE
        out = Tensor(shape, base.dtype, value=value, same=_token(base) if identity and keepdim else None)
        index = self._record(record, _one_pass("reduction", self._line(node), base, out, value=value))
        if identity and index >= 0:
            sizes = ", ".join(str(d) for d in sorted(dims))
            self.identities[index] = f"a {fn} over dimension {sizes}, of size 1, is its input"
        out = replace(out, origin=index)
        if fn in ("max", "min") and dim is not None:
            # torch.max(x, dim) returns (values, indices).
            return _ValuesIndices([out, replace(out, dtype="int64", value=None, same=None, exact=False)])
        return out

    def _diag(self, vector: Tensor, node, record: bool) -> Tensor:
        """torch.diag of a vector, as torch runs it: an N x N matrix of zeros
        allocated and filled (a kernel writing all of it), then the vector
        copied onto its diagonal (a second, small kernel)."""
        out = Tensor((vector.shape[0], vector.shape[0]), vector.dtype)
        line, elem = self._line(node), DTYPE_BYTES.get(out.dtype, 4)
        zeros = self._record(
            record,
            Op("alloc", line, bytes=out.nbytes, out_bytes=out.nbytes, elem_bytes=elem, note="torch.diag zeros"),
        )
        op = Op(
            "elementwise",
            line,
            bytes=2 * vector.nbytes,  # the vector read, the diagonal written
            inputs=(vector.origin, zeros),
            in_bytes=(vector.nbytes, 0),
            out_bytes=out.nbytes,
            elem_bytes=elem,
            note="diag",
        )
        return replace(out, origin=self._record(record, op))

    def _gather(self, base: Tensor, index, node, record: bool) -> Tensor:
        if not isinstance(index, Tensor):
            raise _Unknown(f"line {self._line(node)}: a gather with an index that is not static")
        out = Tensor(index.shape, base.dtype)
        op = Op(
            "elementwise",
            self._line(node),
            bytes=index.nbytes + 2 * out.nbytes,  # the index and the gathered elements read, the output written
            inputs=(base.origin, index.origin),
            in_bytes=(out.nbytes, index.nbytes),
            out_bytes=out.nbytes,
            elem_bytes=DTYPE_BYTES.get(out.dtype, 4),
            note="gather",
        )
        return replace(out, origin=self._record(record, op))

    def _loss(self, tensors: list, node, record: bool, name: str, reduction="mean") -> Tensor:
        if not tensors:
            raise _Unknown(f"line {self._line(node)}: a loss with no tensor operand")
        if name in POINTWISE_LOSSES or name == "triplet_margin_loss":
            return self._composite_loss(tensors, node, record, name, reduction)
        if name in ("cross_entropy", "nll_loss") and len(tensors[0].shape) >= 2:
            # torch computes cross_entropy as two kernels: log_softmax over the
            # classes, its log-probabilities written in full, then nll_loss
            # reading one of them per row (its target) into the mean.
            logits, rest = tensors[0], tensors[1:]
            logp = self._softmax("log_softmax", logits, 1, node, record) if name == "cross_entropy" else logits
            picked = Tensor((logits.shape[0], *logits.shape[2:]), logp.dtype, origin=logp.origin, exact=False)
            tensors = [picked, *rest]
            name = "nll_loss"
        out = Tensor((), tensors[0].dtype)
        op = Op(
            "reduction",
            self._line(node),
            bytes=sum(t.nbytes for t in tensors) + out.nbytes,
            inputs=tuple(t.origin for t in tensors),
            in_bytes=tuple(t.nbytes for t in tensors),
            out_bytes=out.nbytes,
            elem_bytes=DTYPE_BYTES.get(out.dtype, 4),
            note=name,
        )
        return replace(out, origin=self._record(record, op))

    def _composite_loss(self, tensors: list, node, record: bool, name: str, reduction) -> Tensor:
        """A loss torch runs as several kernels, as ATen writes it: a pointwise
        loss into a tensor of the inputs' size, then its mean or sum (none:
        the tensor itself); a triplet margin loss as two pairwise distances
        (x1 - x2, + eps, a norm over the last dimension: three kernels each),
        then the margin, clamp and mean on the per-row distances."""
        if name != "triplet_margin_loss":
            loss = self._elementwise(tensors, node, record, kind="elementwise", note=name)
            return loss if reduction == "none" else self._reduce(loss, None, False, node, record, fn="mean")
        if len(tensors) < 3:
            raise _Unknown(f"line {self._line(node)}: a triplet margin loss without three tensors")
        anchor, positive, negative = tensors[:3]
        distances = []
        for other in (positive, negative):
            diff = self._elementwise([anchor, other], node, record, fn="sub", note="pairwise_distance")
            diff = self._elementwise([diff], node, record, note="pairwise_distance")  # + eps
            distances.append(self._reduce(diff, -1, False, node, record, fn="norm"))
        margin = self._elementwise(distances, node, record, fn="sub", note=name)  # margin + d(a, p) - d(a, n)
        loss = self._elementwise([margin], node, record, fn="clamp_min", note=name)
        return loss if reduction == "none" else self._reduce(loss, None, False, node, record, fn="mean")

    def _slice_view(self, base: Tensor, method: str, values: list, kw, node) -> Tensor:
        """Views that copy nothing: `x.narrow(dim, start, length)` keeps
        `length` of dimension `dim`; `x.select(dim, index)` drops it."""
        dim = kw("dim", values[0] if values else None)
        length = kw("length", values[2] if len(values) > 2 else None)
        if not isinstance(dim, int) or not base.shape or method == "narrow" and not isinstance(length, int):
            raise _Unknown(f"line {self._line(node)}: .{method}() with sizes that are not static")
        shape = list(base.shape)
        if method == "narrow":
            shape[dim] = length
        else:
            del shape[dim]
        return Tensor(tuple(shape), base.dtype, contiguous=False, origin=base.origin, exact=False)

    def _split(self, base: Tensor, method: str, values: list, kw, node) -> list:
        """Views: `x.split(size, dim)` and `x.chunk(n, dim)` copy nothing."""
        amount = values[0] if values else kw("split_size_or_sections", kw("chunks"))
        dim = kw("dim", values[1] if len(values) > 1 else 0)
        if not isinstance(amount, int) or not isinstance(dim, int) or amount <= 0:
            raise _Unknown(f"line {self._line(node)}: .{method}() with sizes that are not static")
        length = base.shape[dim]
        size = amount if method == "split" else -(-length // amount)
        parts = []
        for start in range(0, length, size):
            shape = list(base.shape)
            shape[dim] = min(size, length - start)
            parts.append(Tensor(tuple(shape), base.dtype, contiguous=False, origin=base.origin, exact=False))
        return parts

    def _matmul(self, a, b, node, record: bool, out_dtype: str | None = None, note: str = "") -> Tensor:
        if not isinstance(a, Tensor) or not isinstance(b, Tensor):
            raise _Unknown(f"line {self._line(node)}: a matmul of non-static operands")
        a_shape = a.shape if len(a.shape) > 1 else (1, *a.shape)
        b_shape = b.shape if len(b.shape) > 1 else (*b.shape, 1)
        m, k = a_shape[-2], a_shape[-1]
        n = b_shape[-1]
        batch = _broadcast([a_shape[:-2], b_shape[:-2]])
        out = Tensor((*batch, m, n), out_dtype or _promote([a.dtype, b.dtype]))
        flops = 2 * math.prod(batch) * m * n * k
        index = self._record(
            record,
            Op(
                "gemm",
                self._line(node),
                bytes=a.nbytes + b.nbytes + out.nbytes,
                flops=flops,
                path="int8" if out_dtype == "int32" else _gemm_path(_promote([a.dtype, b.dtype]), self.tf32_matmul),
                inputs=(a.origin, b.origin),
                in_bytes=(a.nbytes, b.nbytes),
                out_bytes=out.nbytes,
                elem_bytes=DTYPE_BYTES.get(out.dtype, 4),
                note=note,
            ),
        )
        return replace(out, origin=index)

    def _dot_path(self, kernel, elem: int) -> str:
        """The tensor-core path of a kernel's tl.dot: the type its operands
        are converted to in the kernel (int8 tiles upcast to fp32 run as
        TF32, KL001), else the launch's operand element size; fp32 without
        TF32 (input_precision="ieee", allow_tf32=False) on the CUDA cores."""
        model = self.model
        converted: set[str] = set()
        ieee = False
        if not isinstance(model, DtypeFacts):
            return {1: "int8", 2: "fp16"}.get(elem, "tf32")
        for call in kernel.function.calls:
            if not model.is_tl(call.func, "dot"):
                continue
            ieee = ieee or isinstance(model, KernelFacts) and model.dot_tf32_off(kernel, call) is not None
            for operand in positional(call)[:2]:
                fact = model.kernel_value_dtype(kernel, operand)
                if fact is not None and fact.source == "cast":
                    converted.add(fact.dtype)
        if "float32" in converted or not converted and elem == 4:
            return "fp32" if ieee else "tf32"
        if converted & {"float16", "bfloat16"} or not converted and elem == 2:
            return "bf16" if converted == {"bfloat16"} else "fp16"
        return "int8" if elem == 1 else "tf32"

    def _parity_waste(self, kernel, node: cst.Call, values: dict[int, object]) -> int:
        """The taps a tl.dot kernel computes per tap that lands, where stride-parity tests mask its taps
        (`KernelTileFacts.parity_masks`): the product of their moduli at the launch's values; 1 where there are
        none or a modulus is not known."""
        model = self.model
        masks = model.parity_masks(kernel) if isinstance(model, KernelTileFacts) else ()
        if not masks:
            return 1
        given = self._launch_values(kernel, node, values)
        waste = 1
        for _, modulus in masks:
            stride = self._kernel_number(kernel, modulus, given)
            if stride is None or stride < 1:
                return 1
            waste *= stride
        return waste

    def _tf32x3(self, kernel) -> bool:
        """Whether every tl.dot of the kernel (or of the jit functions it calls) asks for tf32x3."""
        model = self.model
        assert isinstance(model, KernelFacts)
        dots = [call for call in kernel.function.calls if model.is_tl(call.func, "dot")]
        return bool(dots) and all(model.dot_tf32x3(kernel, call) for call in dots)

    def _triton_launch(self, node: cst.Call, scope: dict, record: bool):
        func = node.func
        assert isinstance(func, cst.Subscript)
        line = self._line(node)
        grid_node = func.slice[0].slice
        launched = self.model.kernels.get(self.model.code(func.value).strip())
        programs = 0
        axes: tuple[int, ...] = ()  # the grid's axes, where it is a static tuple (a program id's range)
        if isinstance(grid_node, cst.Index):
            try:
                grid = self._eval(grid_node.value, scope, record=False)
                if isinstance(grid, _Lambda):
                    # An autotuned kernel's grid is one config's: the most programs any of them gives (the
                    # autotuner picks among them), so a grid too small under every config is one.
                    configs = launched.autotune.configs if launched is not None and launched.autotune else None
                    grids = [self._call_lambda(grid, node, scope, c) for c in configs or [{}]]
                    programs = max(_programs(g) for g in grids)
                    if len(grids) == 1 and programs:
                        # One grid, its sizes read from the launch's own arguments (`meta["BLOCK_M"]`).
                        only = grids[0]
                        axes = tuple(int(d) for d in (only if isinstance(only, (list, tuple)) else (only,)))
                else:
                    programs = _programs(grid)
                    if programs:
                        axes = tuple(int(d) for d in (grid if isinstance(grid, (list, tuple)) else (grid,)))
            except _Unknown:
                programs = 0
        tensors = []
        int_keywords = []
        values: dict[int, object] = {}  # id of an argument's expression -> its value
        for arg in node.args:
            # Recorded: what an argument's expression does on the call (a view, a copy) is the call's work.
            values[id(arg.value)] = self._eval_or_none(arg.value, scope, record)
        # A tensor handed to a pointer the kernel never touches at this launch (a dummy for `bias_ptr` with
        # HAS_BIAS=False) moves no bytes.
        untouched = self._untouched_arguments(launched, node, values)
        for arg in node.args:
            value = values[id(arg.value)]
            if isinstance(value, Tensor):
                if id(arg.value) not in untouched:
                    tensors.append(value)
            elif arg.keyword is not None and isinstance(value, int) and not isinstance(value, bool):
                int_keywords.append((arg.keyword.value, value))
        row_passes = self._row_passes(launched, node, values)
        reduced_product: tuple[int, ...] = ()
        reduced_window = 0
        nbytes = sum(t.nbytes for t in tensors) + sum((passes - 1) * size for _, passes, size in row_passes)
        # A launch in a data loop that is handed the loop's index (`for c in range(C): stats[(N,)](y, c, ...)`)
        # works on that step's share of its tensors: the steps together move them once.
        share = 1  # the steps of the data loops whose index the launch is handed
        if self.loop_indices:  # most launches: not in a data loop, no walk of their arguments
            # (Not an index that only cycles through a few buffers: `bufs[t % 2]` is a whole buffer.)
            cycling = {
                id(n)
                for arg in node.args
                for m in walk(arg.value)
                if isinstance(m, cst.BinaryOperation) and isinstance(m.operator, cst.Modulo)
                for n in walk(m.left)
            }
            read = {
                n.value
                for arg in node.args
                for n in walk(arg.value)
                if isinstance(n, cst.Name) and id(n) not in cycling
            }
            indices = read | {index for name in read for index in self.from_index.get(name, ())}
            share = max(1, math.prod(count for name, count in self.loop_indices if name in indices))
            nbytes //= share
        flops, path = 0, ""
        conv_product: ConvProduct | None = None
        dot_tile: tuple[int, ...] = ()
        dot_configs: tuple[tuple[int, ...], ...] = ()
        dot_mn: tuple[int, ...] = ()
        dot_k_extent = 0
        dot_b_kmajor = dot_a_mmajor = dot_b_off_kmajor = False
        dot_relayout_bytes = (0, 0)
        dot_gather_bytes = (0, 0)
        dot_passes = 1
        parity_waste = 1
        # Bytes per element of the largest tensor: what one program's loads move per element.
        elem = DTYPE_BYTES.get(max(tensors, key=lambda t: t.nbytes).dtype, 4) if tensors else 4
        kernel = launched
        kernel_lines = (0, 0)
        if kernel is not None and (kernel.function.node is None or self.model.home_of(kernel) is not self.model):
            kernel = None  # imported from another module: its body is that module's model's to read
        if kernel is not None and kernel.function.node is not None:
            # Where the kernel is written: a finding inside it names its launches.
            span = self.model.span(kernel.function.node)
            kernel_lines = (span.line, span.end_line)
        # A product's output is looked for first among the tensors allocated for the launch, so an operand is
        # not taken for it (a transposed convolution's zero-inserted input against its output would pass for a
        # convolution the other way round).
        allocated = [t for t in tensors if 0 <= t.origin < len(self.ops) and self.ops[t.origin].kind == "alloc"]
        if kernel is not None and isinstance(self.model, KernelTileFacts) and multiply_add_products(self.model, kernel):
            # A GEMM or convolution written as multiply-adds without tl.dot
            # (KL020) runs on the CUDA cores: its flops, when the launch's
            # tensors say which product it computes, time it.
            flops, elem = _product_work(allocated + [t for t in tensors if t not in allocated])
            conv_product = _conv_product(allocated + [t for t in tensors if t not in allocated]) if flops else None
            if not flops:
                # A product the launch's tensors do not name (a convolution fused with the pool and the
                # reduction over its channels that follow it): its tile, once per trip of the loops around it.
                flops = self._fma_tile_flops(kernel, node, values, programs)
                if flops and tensors:
                    elem = DTYPE_BYTES.get(tensors[0].dtype, 4)
            path = "fma" if flops else ""
        elif kernel is not None and isinstance(self.model, KernelTileFacts) and self.model.kernel_uses(kernel, "dot"):
            # A tl.dot kernel runs its product on the tensor cores of its
            # operands' type (fp32 as TF32, tl.dot's default), when the
            # launch's tensors say which product it computes.
            flops, elem = _product_work(allocated + [t for t in tensors if t not in allocated])
            if flops:
                dot_mn = _product_rows_columns(allocated + [t for t in tensors if t not in allocated])
            else:
                reduced_product = _reduced_product(allocated + [t for t in tensors if t not in allocated])
                if reduced_product:
                    m, n, k = reduced_product
                    flops, elem = 2 * m * n * k, DTYPE_BYTES.get(tensors[0].dtype, 4)
                    dot_mn = (m, n)
                    reduced_window = self._tile_window(kernel, node, values, n)
            if not flops and not reduced_product:
                # Operands read out of one tensor by offsets (attention's q and k from a fused qkv
                # projection), which no shape match names: the products its fixed tiles compute per program.
                flops = self._tile_flops(kernel, node, values, programs, axes)
                share = 1  # from the launch's own tiles and grid: one step's work already
                if flops:
                    parity_waste = self._parity_waste(kernel, node, values)
                if flops and tensors:
                    elem = DTYPE_BYTES.get(tensors[0].dtype, 4)
            if flops:
                dot_tile, dot_configs = self._dot_configs(kernel, node, values)
                dot_k_extent = self._dot_k_extent(kernel, node, values)
                (a_m, a_k), (b_k, b_n) = (self._operand_steps(kernel, node, values, which) for which in (0, 1))
                # B K-major: unit stride along K, another along N; A M-major: unit along M, another along K; B off
                # K-major: a known stride other than 1 along K, a known one along N (B [K, N] read as it lies, or
                # a weight (C_out, C_in, kh, kw) gathered tap by tap).
                dot_b_kmajor = b_k == 1 and b_n is not None and b_n != 1
                dot_a_mmajor = a_m == 1 and a_k is not None and a_k != 1
                if not dot_a_mmajor and a_k in (None, 1):
                    dot_a_mmajor = self._gathered_m_major(kernel, node, values)
                dot_b_off_kmajor = b_k is not None and b_k != 1 and b_n is not None
                dot_gather_bytes = self._gather_bytes(
                    kernel, node, values, flops // share, dot_tile, ((a_m, a_k), (b_k, b_n))
                )
                # A gathered with no unit stride is off K-major too: a per-call tensor so is copied by KL031's fix.
                dot_relayout_bytes = self._relayout_bytes(
                    kernel, node, values, dot_a_mmajor or bool(dot_gather_bytes[0]), dot_b_off_kmajor
                )
            path = self._dot_path(kernel, elem) if flops else ""
            if path == "tf32" and isinstance(self.model, KernelFacts) and self._tf32x3(kernel):
                dot_passes = TF32X3_PASSES
        # A product sized from whole tensors that a step of a data loop works on a slice of (an RNN cell's
        # launch handed `t`, reading step t's gates): that step's share of it, as for its bytes.
        flops //= share
        # A program that loops over its data with loads and stores only (no product: a GEMM's
        # program moves whole A and B tiles per step, not one block of elements).
        streams = bool(
            kernel is not None
            and kernel.function.loops
            and not flops
            and isinstance(self.model, KernelTileFacts)
            and not self.model.kernel_uses(kernel, "dot")
        )
        scalar_loop = bool(
            streams
            and kernel is not None
            and isinstance(self.model, OffsetFacts)
            and self.model.scalar_addresses(kernel)
        )
        strided_bytes, lane_stride, strided_lanes = (
            self._strided_accesses(kernel, node, values) if kernel is not None else (0, 0, 0)
        )
        loaded_elements = (
            programs * self._loaded_per_program(kernel, node, values)
            if kernel is not None and path in ("", "fma") and programs
            else 0
        )
        reduces = bool(
            kernel is not None
            and isinstance(self.model, KernelTileFacts)
            and self.model.kernel_uses(kernel, "sum", "max", "min", "reduce", "argmax", "argmin")
        )
        # The argument expressions bound to pointers the kernel stores to: what it expands into, whether def-use
        # follows its writes, and which names hold its output afterwards.
        written = self._written_arguments(kernel, node)
        write_only = self._write_only_inputs(kernel, node, values)
        stored = [v for a in node.args if id(a.value) in written and isinstance(v := values[id(a.value)], Tensor)]
        stored_bytes = sum(t.nbytes for t in stored) // share
        stored_elem = DTYPE_BYTES.get(max(stored, key=lambda t: t.nbytes).dtype, 4) if stored else 0
        expands: tuple[int, ...] = ()
        if kernel is not None and not flops and not reduces and share == 1:
            loaded_bytes = stored_bytes = 0
            # A tensor the kernel updates in place (`y = tl.load(y_ptr + offs) + b; tl.store(y_ptr + offs, y)`) is
            # read as well as written: it expands nothing.
            updated = (
                self._written_arguments(kernel, node, self.model.pointers_loaded(kernel))
                if isinstance(self.model, HostValueFacts)
                else set()
            )
            for arg in node.args:
                value = values[id(arg.value)]
                if isinstance(value, Tensor):
                    if id(arg.value) in written:
                        stored_bytes += value.nbytes
                    if id(arg.value) not in written or id(arg.value) in updated:
                        loaded_bytes += value.nbytes
            if 0 < loaded_bytes and stored_bytes >= EXPANSION * loaded_bytes:
                expands = (loaded_bytes, stored_bytes)
        own_buffers = self._writes_only_its_buffers(kernel, written, node, scope, values)
        # A kernel whose loaded data cancels before its stores (`v - v`) writes one number (KL027).
        constant = None
        if own_buffers and kernel is not None and isinstance(self.model, KernelFacts):
            # The launch's numbers and flags (a constexpr `TRAINING=False` decides the kernel's branch on it).
            scalars = {
                name: float(value)
                for name, value in self._arguments(kernel, node, values).items()
                if isinstance(value, (int, float))
            }
            constant = self.model.stored_constant(kernel, scalars)
        index = self._record(
            record,
            Op(
                "triton",
                line,
                value=constant.value if constant is not None else None,
                out_bytes=stored_bytes if constant is not None else 0,
                reduces=reduces,
                triangle=bool(
                    flops
                    and kernel is not None
                    and isinstance(self.model, KernelTileFacts)
                    and self.model.triangle_mask(kernel)
                ),
                bytes=nbytes,
                flops=flops,
                path=path,
                elem_bytes=elem,
                programs=programs,
                site_line=line,
                kernel_lines=kernel_lines,
                streams=streams,
                scalar_loop=scalar_loop,
                int_keywords=tuple(int_keywords),
                autotuned=kernel is not None and kernel.autotune is not None,
                arguments=len(node.args),
                row_passes=row_passes,
                reduced_product=reduced_product,
                reduced_window=reduced_window,
                write_only=write_only,
                stored_bytes=stored_bytes,
                stored_elem=stored_elem,
                dot_tile=dot_tile,
                dot_configs=dot_configs,
                dot_mn=dot_mn,
                dot_k_extent=dot_k_extent,
                dot_b_kmajor=dot_b_kmajor,
                dot_a_mmajor=dot_a_mmajor,
                dot_b_off_kmajor=dot_b_off_kmajor,
                dot_relayout_bytes=dot_relayout_bytes,
                dot_gather_bytes=dot_gather_bytes,
                dot_passes=dot_passes,
                parity_waste=parity_waste,
                summed_input=self._summed_input(kernel, node, values),
                per_program_reads=self._per_program_reads(kernel, node, values),
                strided_bytes=strided_bytes,
                lane_stride=lane_stride,
                strided_lanes=strided_lanes,
                loaded_elements=loaded_elements,
                conv_product=conv_product,
                expands=expands,
                inputs=tuple(t.origin for t in tensors),
                in_bytes=tuple(t.nbytes for t in tensors),
                note=self.model.code(func.value),
            ),
        )
        if not own_buffers:
            self._effect(f"line {line}: a Triton launch writes its arguments")
        explained = False  # one reason per launch, however many buffers it fills
        if index >= 0:
            # A tensor allocated for the launch (torch.empty...) holds what the
            # kernel wrote: what reads it afterwards reads the kernel's output. So
            # does a tensor the kernel stores into in place (`mish[grid](x, x, n)`).
            for arg in node.args:
                value = arg.value
                if isinstance(value, cst.Name) and isinstance(scope.get(value.value), Tensor):
                    tensor = scope[value.value]
                    producer = self.ops[tensor.origin] if 0 <= tensor.origin < len(self.ops) else None
                    if producer is not None and (producer.kind == "alloc" or id(value) in written):
                        filled = constant.value if constant is not None and id(value) in written else None
                        rebound = replace(tensor, origin=index, value=filled, same=None, exact=False)
                        for held in [held for held, other in scope.items() if other is tensor]:
                            scope[held] = rebound  # the name passed and any other name for the same tensor
                        self._rebind_in_callers(scope, tensor, rebound)
                        if filled is not None and constant is not None and not explained:
                            explained = True
                            why = (
                                f"`{self.model.code(func.value)}` stores only values computed from "
                                f"`{self.model.code(constant.cancelled)}` (line {self._line(constant.cancelled)}), "
                                f"{constant.how}"
                            )
                            self._constant_made(index, why, filled, tensor.shape)
        return None

    def _writes_only_its_buffers(
        self, kernel, written: set[int], node: cst.Call, scope: dict, values: dict[int, object]
    ) -> bool:
        """The launch writes only tensors forward allocated, each passed by its name (`out`, not `stats[0]`):
        what reads them next reads the launch (the rebinding below), so def-use tells whether its work is
        needed. A write into an input, a parameter or a view of a buffer is a side effect the table does not
        follow."""
        model = self.model
        if kernel is None or not isinstance(model, HostValueFacts) or not model.writes_resolved(kernel):
            return False
        if not written:
            return False
        buffers = 0
        for arg in node.args:
            if id(arg.value) not in written or not isinstance(values.get(id(arg.value)), Tensor):
                continue  # a size the kernel's addresses read (stored_pointers names every parameter in them)
            if not isinstance(arg.value, cst.Name):
                return False
            name = arg.value.value
            tensor = scope.get(name)
            # Allocated in this function's own body, or in a caller's that handed it to this helper by name
            # (the rebinding below reaches it there), and no other name holds a view of it (`o_bh = o.view()`
            # written, `o` read). Another name for the tensor itself (`init = out`) is rebound with it.
            if not (
                isinstance(tensor, Tensor) and tensor.origin < len(self.ops) and self._allocated_here(name, tensor)
            ):
                return False
            if self.ops[tensor.origin].kind != "alloc":
                return False
            if any(
                isinstance(other, Tensor) and other.origin == tensor.origin and held != name and other is not tensor
                for held, other in scope.items()
            ):
                return False
            buffers += 1
        return buffers > 0

    def _allocated_here(self, name: str, tensor: Tensor) -> bool:
        """`tensor`, held by `name`, was made in the body being run, or in a caller's body that handed it down
        through the helpers' parameters by name."""
        start, names = self._body_start, [name]
        for caller_scope, aliases, caller_start in reversed(self._aliases):
            if start <= tensor.origin:
                return True
            names = [aliases[n] for n in names if n in aliases and caller_scope.get(aliases[n]) is tensor]
            if not names:
                return False
            start = caller_start
        return start <= tensor.origin

    def _rebind_in_callers(self, scope: dict, tensor: Tensor, rebound: Tensor) -> None:
        """The names of the callers' scopes that handed `tensor` to this helper (and its callers') by name now
        hold what a launch here wrote into it."""
        names = [held for held, other in scope.items() if other is rebound]
        for caller_scope, aliases, _ in reversed(self._aliases):
            names = [aliases[n] for n in names if n in aliases and caller_scope.get(aliases[n]) is tensor]
            if not names:
                return
            for held in [held for held, other in caller_scope.items() if other is tensor]:
                caller_scope[held] = rebound
            names = [held for held, other in caller_scope.items() if other is rebound]

    def _write_only_inputs(self, kernel, node: cst.Call, values: dict[int, object]) -> tuple[int, ...]:
        """The origins of the launch's tensors bound to pointers the kernel stores to and never loads."""
        model = self.model
        if kernel is None or not isinstance(model, HostValueFacts) or model.home_of(kernel) is not model:
            return ()
        only = model.write_only_pointers(kernel)
        found = [value for name, value in self._arguments(kernel, node, values).items() if name in only] if only else []
        return tuple(sorted({t.origin for t in found if isinstance(t, Tensor)}))

    def _written_arguments(self, kernel, node: cst.Call, among: frozenset[str] | None = None) -> set[int]:
        """The ids of the launch's argument expressions bound to pointer parameters the kernel stores to
        (the model's Launch.arguments), of those named in `among` where it is given."""
        model = self.model
        if kernel is None or not isinstance(model, HostValueFacts):
            return set()
        launch = self._launch_at(kernel, node)
        if launch is None:
            return set()
        stored = model.stored_pointers(kernel)
        return {
            id(argument)
            for name, argument in launch.arguments.items()
            if name in stored and (among is None or name in among)
        }

    def _dot_configs(
        self, kernel, node: cst.Call, values: dict[int, object]
    ) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
        """The launch's tl.dot tile config (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages), where its
        tile sizes are known here (the launch's arguments, the constexprs' defaults, the only values the
        kernel's launches give them), and an @triton.autotune kernel's configs; () for what is unknown.
        num_warps and num_stages are Triton's defaults where nothing names them."""
        model = self.model
        if not isinstance(model, OffsetFacts):
            return (), ()
        sizes = model.dot_tile(kernel)
        if sizes is None:
            return (), ()
        given: dict[str, object] = {}
        names = [p.name for p in kernel.params]
        position = 0
        for arg in node.args:
            if arg.keyword is not None:
                given[arg.keyword.value] = values.get(id(arg.value))
            elif not arg.star:
                if position < len(names):
                    given[names[position]] = values.get(id(arg.value))
                position += 1

        def value(size: cst.BaseExpression, config: dict[str, object]) -> int | None:
            if isinstance(size, cst.Name):
                for source in (config, given):
                    found = source.get(size.value)
                    if isinstance(found, int) and not isinstance(found, bool):
                        return found
                param = kernel.param(size.value)
                if param is not None and isinstance(param.default, cst.Integer):
                    return int(param.default.value, 0)
            known = model.int_values(kernel, size)
            return next(iter(known)) if known is not None and len(known) == 1 else None

        def config_of(config: dict[str, object]) -> tuple[int, ...]:
            tile = [v for v in (value(size, config) for size in sizes) if v is not None]
            options = [config.get(k, given.get(k)) for k in ("num_warps", "num_stages")]
            warps, stages = (o if isinstance(o, int) and not isinstance(o, bool) else None for o in options)
            if len(tile) != len(sizes):
                return ()
            return (*tile, warps or DEFAULT_NUM_WARPS, stages or DEFAULT_NUM_STAGES)

        if kernel.autotune is not None:
            configs = tuple(c for c in (config_of(dict(cfg)) for cfg in kernel.autotune.configs or ()) if c)
            return (), configs
        return config_of({}), ()

    def _dot_k_extent(self, kernel, node: cst.Call, values: dict[int, object]) -> int:
        """The extent of the loop around the kernel's tl.dot that steps by its K tile (`range(0, C_in, BLOCK_IC)`:
        stop less start at the launch's values), where every product has one such loop and they agree; 0
        otherwise."""
        model = self.model
        if not isinstance(model, OffsetFacts) or not isinstance(model, KernelTileFacts):
            return 0
        sizes = model.dot_tile(kernel)
        loops = model.dot_loops(kernel)
        if sizes is None or not loops:
            return 0
        given = self._launch_values(kernel, node, values)
        found = set()
        for loop in loops:
            call = loop.loop.node.iter
            if not isinstance(call, cst.Call) or len(call.args) != 3 or any(a.keyword for a in call.args):
                return 0
            if model.code(call.args[2].value) != model.code(sizes[2]):
                return 0
            extent = self._loop_extent(kernel, call, given)
            if not extent or extent <= 0:
                return 0
            found.add(extent)
        return found.pop() if len(found) == 1 else 0

    def _tile_flops(
        self, kernel, node: cst.Call, values: dict[int, object], programs: int, axes: tuple[int, ...] = ()
    ) -> int:
        """The flops of a tl.dot launch from its fixed tile and its grid: each program runs each `tl.dot`
        (BLOCK_M x BLOCK_N x BLOCK_K) once per trip of the loops around it, the trips counted from each loop's
        `range` at the launch's values; a bound read from the program id (a causal `hi = (pid_m + 1) *
        BLOCK_M`) is averaged over the grid's axis. 0 where any of them is unknown (an autotuned tile)."""
        model = self.model
        if programs <= 0 or kernel.autotune is not None or not isinstance(model, KernelTileFacts):
            return 0
        tile, _ = self._dot_configs(kernel, node, values)
        given = self._launch_values(kernel, node, values)
        # One tile for every product, or each product's own (attention's two products differ).
        tiles: list[tuple[int, ...]] = []
        if len(tile) < 3:
            for sizes in (model.dot_tiles(kernel) if isinstance(model, OffsetFacts) else None) or ():
                numbers = [self._kernel_number(kernel, size, given) for size in sizes]
                if any(number is None for number in numbers):
                    return 0
                tiles.append(tuple(n for n in numbers if n is not None))
            if not tiles:
                return 0
        loop_of = {id(dot): loop.loop.node for loop in model.dot_loops(kernel) for dot in loop.dots}
        # The loops around each dot beyond its own (an implicit-GEMM convolution's `tl.static_range` over the
        # kernel's taps around its loop over input channels): each runs the inner loop once per trip.
        outer: dict[int, list[cst.For]] = {}
        for enclosing in model.kernel_loops(kernel):
            for inner in walk(enclosing.node.body):
                if isinstance(inner, cst.Call):
                    outer.setdefault(id(inner), []).append(enclosing.node)
        total = 0.0
        dots = [call for call in kernel.function.calls if model.is_tl(call.func, "dot")]
        for i, call in enumerate(dots):
            loop = loop_of.get(id(call))
            trips: float | int | None = 1 if loop is None else _range_trips(loop, given)
            if trips is None and loop is not None:
                trips = self._mean_trips(kernel, loop, given, axes)
            for around in outer.get(id(call), ()):
                if around is loop or trips is None:
                    continue
                count = _range_trips(around, given)
                trips = None if count is None else trips * count
            if trips is None:
                return 0
            m, n, k = tiles[i][:3] if tiles else tile[:3]
            total += 2 * m * n * k * trips
        return round(programs * total)

    def _fma_tile_flops(self, kernel, node: cst.Call, values: dict[int, object], programs: int) -> int:
        """The flops of a multiply-add product without tl.dot (KL020's) from the kernel's own tiles: each
        program adds its product tile (`acc += wv[:, None] * xv[None, :]`: [C_PAD, BLOCK_S] multiply-adds) once
        per trip of every loop around the addition, the trips counted from each loop's `range` at the launch's
        values. 0 where any of them is unknown."""
        model = self.model
        if programs <= 0 or kernel.autotune is not None or not isinstance(model, KernelTileFacts):
            return 0
        products = multiply_add_products(model, kernel)
        if not products:
            return 0
        given = self._launch_values(kernel, node, values)
        statement = products[0].statement
        added = statement.value if isinstance(statement, (cst.AugAssign, cst.Assign)) else None
        if added is None:
            return 0
        extents = model.tile_extents(kernel, added, lambda size: _whole_number(size, given))
        if not extents:
            return 0
        trips = 1
        for loop in model.kernel_loops(kernel):
            if any(inner is statement for inner in walk(loop.node.body)):
                count = _range_trips(loop.node, given)
                if count is None:
                    return 0
                trips *= count
        return 2 * programs * math.prod(extents) * trips

    def _mean_trips(self, kernel, loop: cst.For, given: dict[str, int], axes: tuple[int, ...]) -> float | None:
        """The trips of a `range` loop whose bounds read the program id through the kernel's names bound once
        (`pid_m = tl.program_id(0)`, `hi = tl.minimum((pid_m + 1) * BLOCK_M, T)`), averaged over the
        programs of the grid's axes (each program id from 0 to its axis's size); None where a bound is not
        such a whole number."""
        call = loop.iter
        if not isinstance(call, cst.Call) or not 1 <= len(call.args) <= 3 or any(a.keyword for a in call.args):
            return None
        name = call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", "")
        if name not in ("range", "static_range") or not axes:
            return None
        counts, total = 0, 0
        # The axes whose id the kernel reads, at most PID_SAMPLES ids each, evenly spread: the mean of a bound
        # that grows with the id. The other axes stay at 0.
        read = set()
        for found in self.model.kernel_uses(kernel, "program_id") if isinstance(self.model, KernelTileFacts) else ():
            axis = _whole_number(found.args[0].value, {}) if found.args else 0
            read.add(axis)
        samples = [
            [0]
            if a not in read
            else list(range(size))
            if size <= PID_SAMPLES
            else [i * (size - 1) // (PID_SAMPLES - 1) for i in range(PID_SAMPLES)]
            for a, size in enumerate(axes)
        ]
        for ids in itertools.product(*samples):
            at = dict(given, **{f"program_id({a})": pid for a, pid in enumerate(ids)})
            bounds = [self._kernel_number(kernel, a.value, at) for a in call.args]
            if any(b is None for b in bounds):
                return None
            start, stop, step = (0, bounds[0], 1) if len(bounds) == 1 else (*bounds, 1)[:3]
            assert start is not None and stop is not None and step is not None
            if step <= 0:
                return None
            total += max(0, -(-(stop - start) // step))
            counts += 1
        return total / counts if counts else None

    def _operand_steps(self, kernel, node: cst.Call, values: dict[int, object], which: int) -> tuple[int | None, ...]:
        """The two axis multipliers of the launch's tl.dot A (`which` 0: M, K) or B (1: K, N) operand
        (`OffsetFacts.dot_a_strides` / `dot_b_strides`) at the launch's values, through the kernel's names bound
        once (`row_stride = 3 * C`): 1 for an axis added without one; None where not known."""
        model = self.model
        if not isinstance(model, OffsetFacts):
            return (None, None)
        strides = model.dot_a_strides(kernel) if which == 0 else model.dot_b_strides(kernel)
        if strides is None:
            return (None, None)
        given = self._launch_values(kernel, node, values)
        return tuple(1 if s is None else self._kernel_number(kernel, s, given) for s in strides)

    def _gathered_m_major(self, kernel, node: cst.Call, values: dict[int, object]) -> bool:
        """The launch's tl.dot A is gathered as an NCHW implicit-GEMM convolution gathers it
        (`OffsetFacts.dot_a_gather_strides`): every term stepping its K axis over a plain range has a known
        stride other than 1 at the launch's values, so no unit stride runs along K."""
        model = self.model
        if not isinstance(model, OffsetFacts):
            return False
        strides = model.dot_a_gather_strides(kernel)
        if strides is None:
            return False
        given = self._launch_values(kernel, node, values)
        numbers = [1 if s is None else self._kernel_number(kernel, s, given) for s in strides]
        return all(n is not None and n != 1 for n in numbers)

    def _relayout_bytes(
        self, kernel, node: cst.Call, values: dict[int, object], a_mmajor: bool, b_off_kmajor: bool
    ) -> tuple[int, int]:
        """For A and for B, the bytes of the per-call tensors the launch's off-K-major operand is loaded from
        (`Op.dot_relayout_bytes`): not a parameter or buffer, nor what forward computes from those alone."""
        model = self.model
        if not (a_mmajor or b_off_kmajor) or not isinstance(model, OffsetFacts):
            return (0, 0)
        tensors = self._launch_tensors(kernel, node, values)

        def per_call(which: int) -> int:
            pointers = model.dot_operand_pointers(kernel, which)
            return sum(
                tensors[p].nbytes for p in pointers if p in tensors and not self._from_parameters(tensors[p].origin)
            )

        return (per_call(0) if a_mmajor else 0, per_call(1) if b_off_kmajor else 0)

    def _gather_bytes(
        self,
        kernel,
        node: cst.Call,
        values: dict[int, object],
        flops: int,
        tile: tuple[int, ...],
        steps: tuple[tuple[int | None, ...], tuple[int | None, ...]],
    ) -> tuple[int, int]:
        """For A and for B, the bytes the launch's tl.dot tiles load with each lane in a 32-byte sector of its own
        (`Op.dot_gather_bytes`): an operand whose address has no unit stride along either of its axes at the
        launch's values, each stride a sector or more (a transposed convolution's weight (C_in, C_out, kh, kw)
        gathered tap by tap: K a C_out x kh x kw apart, N a kh x kw apart). Whichever axis Triton runs the
        lanes along, they are a sector apart. A tile [BM, BK] of A is loaded once per program and K step, so
        the grid loads flops / (2 BN) of its elements (B: flops / (2 BM)). `steps`: A's (M, K) and B's (K, N)
        strides at the launch (`_operand_steps`)."""
        if not flops or len(tile) < 2:
            return (0, 0)
        tensors = self._launch_tensors(kernel, node, values)
        model = self.model
        found = [0, 0]
        for which in (0, 1):
            pointers = model.dot_operand_pointers(kernel, which) if isinstance(model, OffsetFacts) else ()
            read = [tensors[p] for p in pointers if p in tensors]
            strides = [s for s in steps[which] if s is not None]
            if not read or len(strides) != len(steps[which]):
                continue
            elem = DTYPE_BYTES.get(read[0].dtype, 4)
            if all(s * elem >= SECTOR_BYTES for s in strides):
                found[which] = flops // (2 * tile[1 - which]) * elem
        return (found[0], found[1])

    def _from_parameters(self, origin: int, depth: int = 0) -> bool:
        """Whether a tensor is a parameter or buffer (origin -1), or computed by forward from those alone (a
        weight flipped and permuted on every call): the same values at every call."""
        if origin == -1:
            return True
        if origin < 0 or origin >= len(self.ops) or depth > 16:
            return False
        op = self.ops[origin]
        return (
            op.kind in ("view", "copy", "transpose_copy", "elementwise")
            and bool(op.inputs)
            and all(self._from_parameters(i, depth + 1) for i in op.inputs)
        )

    def _strided_accesses(self, kernel, node: cst.Call, values: dict[int, object]) -> tuple[int, int, int]:
        """(bytes, smallest lane stride, fewest lanes) of the tensors the launch's kernel loads or stores with
        all its lanes a stride apart that puts each lane in a 32-byte sector of its own, at the launch's values
        (the lanes: the elements one such load reads, 0 where its tile's size is not known); (0, 0, 0) where
        none is, or a stride is unknown. A store so is priced as such a load: the kl030_rmsnorm validation
        file's before (64 lanes 1 MB apart, loaded and stored) measured 5.79 ms on an H200 against 2.53
        estimated from its loads alone, 3.75 with its stores."""
        model = self.model
        loads = (
            (*model.strided_lane_loads(kernel), *model.strided_lane_stores(kernel))
            if isinstance(model, OffsetFacts)
            else ()
        )
        if not loads:
            return 0, 0, 0
        given = self._launch_values(kernel, node, values)
        tensors = self._launch_tensors(kernel, node, values)
        total, smallest, fewest, seen = 0, 0, 0, set()
        for address, multipliers, windows in loads:
            steps = [self._kernel_number(kernel, m, given) for m in multipliers]
            if any(step is None or step < 2 for step in steps):
                continue
            least = min(step for step in steps if step is not None)
            if any(
                (extent := self._loop_extent(kernel, window, given)) is not None and extent >= least
                for window in windows
            ):
                # A loop adds consecutive offsets spanning the lanes' stride (a pool whose window is as wide as
                # its stride): over its taps the lanes read every element between them, each sector from L1
                # after its first tap. Measured on an H200: fixtures/fresh4's fd01, an 11 x 11 average pool of
                # stride 11 over 17 GB, ran at 3.3 TB/s (5,271 us; checks/h200/fresh4_h200.jsonl).
                continue
            for pointer in address.pointers:
                tensor = tensors.get(pointer)
                if tensor is not None and least * DTYPE_BYTES.get(tensor.dtype, 4) < SECTOR_BYTES:
                    # Lanes a few elements apart (a stride-2 pool's window) still share a 32-byte sector,
                    # and the window's next tap reads the rest of it from L1: no sector per lane.
                    continue
                # A tensor both loaded and stored so (in place) moves its bytes both ways.
                access = (pointer, model.is_tl(address.call.func, "store"))
                if tensor is not None and access not in seen:
                    seen.add(access)
                    total += tensor.nbytes
                    smallest = least if not smallest else min(smallest, least)
                    # (A store's tile is its value's, which is not read back to a load here: a load's lanes count.)
                    if lanes := self._load_lanes(kernel, address.call, given):
                        fewest = lanes if not fewest else min(fewest, lanes)
        return total, smallest, fewest

    def _loaded_per_program(self, kernel, node: cst.Call, values: dict[int, object]) -> int:
        """The elements one program's tile loads read, each load's tile times the trips of the loops around
        it (0 where a trip count or a tile size is not known, or the kernel has a tl.dot)."""
        model = self.model
        if not isinstance(model, OffsetFacts) or not isinstance(model, KernelLoopFacts):
            return 0
        if model.kernel_uses(kernel, "dot"):
            return 0
        given = self._launch_values(kernel, node, values)
        loops = model.kernel_loops(kernel)
        by_index = {loop.index: loop for loop in loops}
        trips: dict[int, int] = {}
        for loop in loops:  # source order: a loop's parent comes first
            own = _range_trips(loop.node, given, lambda n: self._kernel_number(kernel, n, given))
            if own is None:
                return 0
            trips[loop.index] = own * (trips[loop.parent] if loop.parent is not None else 1)
        total = 0
        for call in kernel.function.calls:
            if not model.is_tl(call.func, "load"):
                continue
            holding = [loop for loop in loops if any(c is call for c in loop.calls)]
            innermost = max(holding, key=lambda loop: _depth(loop, by_index), default=None)
            ranges = model.tile_ranges(kernel, call)
            if ranges == ():
                continue  # a scalar load (a weight tap, a bias): one element, not a tile
            # One size per axis: a name bound once in each of several loops (`offs = start + tl.arange(0, B)`)
            # gives the same axis's range once per binding.
            sizes: dict[int | None, int] = {}
            for r in ranges or ():
                size = self._kernel_number(kernel, r.size, given)
                if not size:
                    return 0
                sizes[r.axis] = max(size, sizes.get(r.axis, 0))
            lanes = math.prod(sizes.values())
            if not lanes:
                return 0
            total += lanes * (trips[innermost.index] if innermost is not None else 1)
        return total

    def _loop_extent(self, kernel, call: cst.Call, given: dict[str, int]) -> int | None:
        """The number of values a unit-step `range(stop)` / `range(start, stop)` walks, at the launch's values."""
        args = positional(call)
        bounds = [self._kernel_number(kernel, a, given) for a in args[:2]]
        if any(b is None for b in bounds):
            return None
        return bounds[0] if len(bounds) == 1 else bounds[1] - bounds[0]  # type: ignore[operator]

    def _load_lanes(self, kernel, call: cst.Call, given: dict[str, int]) -> int:
        """The elements one load reads: the product of its tile's dimensions at the launch's values (0 where one
        is not known)."""
        model = self.model
        ranges = model.tile_ranges(kernel, call) if isinstance(model, OffsetFacts) else None
        if not ranges:
            return 0
        sizes = [self._kernel_number(kernel, r.size, given) for r in ranges]
        known = [size for size in sizes if size]
        return math.prod(known) if len(known) == len(sizes) else 0

    def _kernel_number(self, kernel, node: cst.BaseExpression, given: dict[str, int], depth: int = 0) -> int | None:
        """`node`'s whole-number value at the launch's values, through the kernel's names bound once to such
        an expression (`DHW = D * H * W`, then `offs_c * DHW`)."""
        value = _whole_number(node, given)
        if value is not None or depth >= 3 or not isinstance(self.model, KernelTileFacts):
            return value
        local = {
            n.value
            for n in names_in(node)
            if n.value not in given and kernel.param(n.value) is None and n.value not in ("tl", "triton", "min", "max")
        }
        if not local:
            return None
        bound = dict(given)
        for name in local:
            values = self.model.kernel_values(kernel, frozenset({name}))
            if len(values) != 1:
                return None
            found = self._kernel_number(kernel, values[0], given, depth + 1)
            if found is None:
                return None
            bound[name] = found
        return _whole_number(node, bound)

    def _launch_at(self, kernel, node: cst.Call):
        """The model's Launch of `kernel` at the call `node`, or None."""
        return next((launch for launch in self.model.launches_of(kernel) if launch.node is node), None)

    def _arguments(self, kernel, node: cst.Call, values: dict[int, object]) -> dict[str, object]:
        """The value of each kernel parameter the launch binds (the model's Launch.arguments), by name."""
        launch = self._launch_at(kernel, node)
        if launch is None:
            return {}
        bound = {name: values.get(id(argument)) for name, argument in launch.arguments.items()}
        if launch.has_star_args:
            # `kernel[grid](a, b, *strides_a, *strides_b, ...)`: the parameters after a star bound from the
            # tuple's values where the launch evaluated it (a tuple of sizes), in order.
            names = [p.name for p in kernel.params]
            at = 0
            for arg in node.args:
                if arg.keyword is not None:
                    break
                if arg.star == "*":
                    items = values.get(id(arg.value))
                    if not isinstance(items, (list, tuple)):
                        break
                    for item in items:
                        if at < len(names):
                            bound.setdefault(names[at], item)
                        at += 1
                elif arg.star:
                    break
                else:
                    if at < len(names):
                        bound.setdefault(names[at], values.get(id(arg.value)))
                    at += 1
        return bound

    def _untouched_arguments(self, kernel, node: cst.Call, values: dict[int, object]) -> set[int]:
        """The ids of the launch's tensor arguments whose parameter no statement of the kernel that runs at this
        launch uses: every use of it sits under an `if FLAG:` (or `if not FLAG:`) that the launch's value of
        the constexpr FLAG (or its default) rules out, or the body never names it."""
        model = self.model
        if kernel is None or not isinstance(model, GuardFacts):
            return set()
        launch = self._launch_at(kernel, node)
        if launch is None:
            return set()
        given: dict[str, object] = {
            p.name: literal_value(p.default) if p.default is not None else None for p in kernel.params
        }
        given.update({name: values.get(id(argument)) for name, argument in launch.arguments.items()})
        uses = model.pointers_used_under(kernel)

        def ruled_out(conditions: tuple[tuple[str, bool], ...]) -> bool:
            return any(
                isinstance(given.get(flag), (bool, int)) and bool(given[flag]) != wanted for flag, wanted in conditions
            )

        return {
            id(argument)
            for name, argument in launch.arguments.items()
            if isinstance(values.get(id(argument)), Tensor) and all(ruled_out(c) for c in uses.get(name, ()))
        }

    def _launch_tensors(self, kernel, node: cst.Call, values: dict[int, object]) -> dict[str, Tensor]:
        """The kernel's pointer parameters the launch hands a tensor, by name."""
        return {k: v for k, v in self._arguments(kernel, node, values).items() if isinstance(v, Tensor)}

    def _tile_window(self, kernel, node: cst.Call, values: dict[int, object], n: int) -> int:
        """The window, in columns, of a tl.dot kernel's tile summed in windows (`KernelTileFacts.tile_window`)
        at this launch: a literal or a parameter the launch gives a whole number that divides N; 0 otherwise."""
        found = self.model.tile_window(kernel) if isinstance(self.model, KernelTileFacts) else None
        if found is None:
            return 0
        extent = found.extent
        if isinstance(extent, cst.Integer):
            window = int(extent.value, 0)
        elif isinstance(extent, cst.Name):
            window = self._launch_values(kernel, node, values).get(extent.value, 0)
        else:
            return 0
        return window if window > 1 and n % window == 0 else 0

    def _per_program_reads(self, kernel, node: cst.Call, values: dict[int, object]) -> tuple[int, ...]:
        """The ops of the tensors this launch's kernel loads one element of per program (OffsetFacts:
        every load through that pointer is `one_element_per_program`)."""
        if kernel is None or not isinstance(self.model, OffsetFacts):
            return ()
        loads: dict[str, bool] = {}
        for address in self.model.addresses(kernel):
            if not self.model.is_tl(address.call.func, "load") or len(address.pointers) != 1:
                continue
            pointer = address.pointers[0]
            single = self.model.one_element_per_program(kernel, address)
            loads[pointer] = loads.get(pointer, True) and single
        if not any(loads.values()):
            return ()
        bound = self._arguments(kernel, node, values)
        return tuple(
            value.origin
            for pointer, single in loads.items()
            if single and isinstance(value := bound.get(pointer), Tensor) and value.origin >= 0
        )

    def _summed_input(self, kernel, node: cst.Call, values: dict[int, object]) -> tuple[int, ...]:
        """The op of the tensor this launch's kernel sums first (SummedLoadFacts.summed_loads) and its window's
        taps at the launch's values (0: not a fixed window); () if none."""
        if kernel is None or not isinstance(self.model, SummedLoadFacts):
            return ()
        for summed in self.model.summed_loads(kernel):
            tensor = self._arguments(kernel, node, values).get(summed.param)
            if not isinstance(tensor, Tensor) or tensor.origin < 0:
                continue
            taps = 0 if summed.trips is None else -1
            if summed.trips:
                given = self._launch_values(kernel, node, values)
                counts = [
                    int(t.value, 0) if isinstance(t, cst.Integer) else given.get(t.value, 0)  # type: ignore[attr-defined]
                    for t in summed.trips
                ]
                taps = math.prod(counts) if all(counts) else -1
            return (tensor.origin, taps)
        return ()

    def _launch_values(self, kernel, node: cst.Call, values: dict[int, object]) -> dict[str, int]:
        """The kernel's parameters the launch gives a whole number, by name (constexpr defaults included)."""
        given = {p.name: int(p.default.value, 0) for p in kernel.params if isinstance(p.default, cst.Integer)}
        for name, value in self._arguments(kernel, node, values).items():
            if isinstance(value, int) and not isinstance(value, bool):
                given[name] = value
        return given

    def _row_passes(self, kernel, node: cst.Call, values: dict[int, object]) -> tuple[tuple[int, int, int], ...]:
        """The tensors this launch's kernel reads in two or more full passes (KernelTileFacts.row_passes,
        counting the loops that start at the row's beginning: a main loop's tail is not a pass of its own),
        with their bytes; where the loops are alternatives in different blocks, the most of any block."""
        if (
            kernel is None
            or not isinstance(self.model, KernelTileFacts)
            or self.model.home_of(kernel) is not self.model
        ):
            return ()
        passes = self.model.row_passes(kernel)
        if not passes:
            return ()
        launch = self._launch_at(kernel, node)
        if launch is None:
            return ()
        found: dict[str, tuple[int, int, int]] = {}
        for group in passes:
            full = [loop for loop in group.loops if from_row_start(loop.node)]
            argument = launch.arguments.get(group.pointer)
            value = values.get(id(argument)) if argument is not None else None
            if len(full) < 2 or not isinstance(value, Tensor):
                continue
            entry = (self._line(full[0].node), len(full), value.nbytes)
            if group.pointer not in found or found[group.pointer][1] < len(full):
                found[group.pointer] = entry
        return tuple(sorted(found.values()))

    def _call_lambda(self, grid: _Lambda, node: cst.Call, scope: dict, config: dict | None = None):
        """A grid lambda's value: its one parameter is the launch's keyword arguments (`meta["BLOCK"]`),
        and an autotune config's values."""
        meta = {k: v for k, v in (config or {}).items() if v is not None}
        for arg in node.args:
            if arg.keyword is not None:
                value = self._eval_or_none(arg.value, scope, record=False)
                if value is not None:
                    meta[arg.keyword.value] = value
        params = grid.node.params.params
        inner = dict(grid.scope)
        if params:
            inner[params[0].name.value] = meta
        return self._eval(grid.node.body, inner, record=False)


def from_row_start(loop: cst.For) -> bool:
    """A loop over range(N), range(0, N, step) (or tl.range, tl.static_range): it starts at the row's
    beginning, so each one walks the whole row."""
    call = loop.iter
    if not isinstance(call, cst.Call) or not call.args:
        return False
    name = call.func.attr.value if isinstance(call.func, cst.Attribute) else getattr(call.func, "value", "")
    if name not in ("range", "static_range"):
        return False
    return len(call.args) == 1 or literal_value(call.args[0].value) == 0


def _programs(grid: object) -> int:
    """The programs of an evaluated grid (a tuple of axes or one number); 0 where not all static."""
    dims: list[Any] = list(grid) if isinstance(grid, (list, tuple)) else [grid]
    if not all(isinstance(d, int) for d in dims):
        return 0
    return math.prod(dims)


def _is_range(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "range"


def _searches(node: cst.For) -> bool:
    """A loop over range() whose body returns and calls nothing: a host search for a size."""
    return _is_range(node.iter) and not _launches_in(node) and any(isinstance(n, cst.Return) for n in walk(node.body))


def _launches_in(node: cst.For) -> bool:
    """Whether a loop's body calls anything but plain arithmetic: a call may launch work."""
    return any(isinstance(n, cst.Call) for n in walk(node.body))


@dataclass(frozen=True)
class _StepIndex:
    """A data loop's index, or a number computed from it: not static, but `t % 2` is known to cycle through 2
    values (`cycle`), which picks one of as many same-sized buffers."""

    cycle: int | None


def _alike(items) -> bool:
    """Tensors of one shape and dtype (a loop's ping-pong buffers)."""
    first = items[0] if items else None
    return isinstance(first, Tensor) and all(
        isinstance(t, Tensor) and t.shape == first.shape and t.dtype == first.dtype for t in items
    )


class _ValuesIndices(list):
    """What torch.max(x, dim) and torch.min(x, dim) return: (values, indices)."""


def _tensors_in(value: object) -> list[Tensor]:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors_in(item)]
    if isinstance(value, dict):
        return [t for item in value.values() for t in _tensors_in(item)]
    return []


def _token(t: Tensor) -> int | None:
    """Tensors with the same token hold the same values (in the same order)."""
    if not t.exact:
        return None
    if t.same is not None:
        return t.same
    return t.origin if t.origin != -1 else None


def live_ops(ops: tuple[Op, ...], through_constants: bool = False) -> set[int]:
    """The ops forward's returned tensors depend on: from the returned ops
    back through their inputs, except that a constant needs none of its
    inputs (ones from a softmax over a dimension of size 1 need no GEMM);
    `through_constants`: every op a returned tensor is computed from."""
    live: set[int] = set()
    stack = [i for i, op in enumerate(ops) if op.returned]
    while stack:
        i = stack.pop()
        if i in live:
            continue
        live.add(i)
        if ops[i].value is None or through_constants:
            stack.extend(j for j in ops[i].inputs if 0 <= j < len(ops))
    return live


# Functions of one number, for an op whose inputs are all constants.
_UNARY_VALUES: dict[str, Any] = {
    "cast": lambda c: c,
    "relu": lambda c: max(c, 0.0),
    "relu6": lambda c: min(max(c, 0.0), 6.0),
    "sigmoid": lambda c: 1 / (1 + math.exp(-c)),
    "tanh": math.tanh,
    "exp": math.exp,
    "log": math.log,
    "abs": abs,
    "neg": lambda c: -c,
    "sqrt": math.sqrt,
    "rsqrt": lambda c: 1 / math.sqrt(c),
    "gelu": lambda c: 0.5 * c * (1 + math.erf(c / math.sqrt(2))),
    "silu": lambda c: c / (1 + math.exp(-c)),
    "swish": lambda c: c / (1 + math.exp(-c)),
    "mish": lambda c: c * math.tanh(math.log1p(math.exp(c))),
    "softplus": lambda c: math.log1p(math.exp(c)),
    "hardswish": lambda c: c * min(max(c + 3, 0.0), 6.0) / 6,
    "hardsigmoid": lambda c: min(max(c / 6 + 0.5, 0.0), 1.0),
    "hardtanh": lambda c: min(max(c, -1.0), 1.0),
    "elu": lambda c: c if c > 0 else math.expm1(c),
    "celu": lambda c: c if c > 0 else math.expm1(c),
    "leaky_relu": lambda c: c if c >= 0 else 0.01 * c,
    "logsigmoid": lambda c: -math.log1p(math.exp(-c)),
    "tanhshrink": lambda c: c - math.tanh(c),
    "softsign": lambda c: c / (1 + abs(c)),
    "sin": math.sin,
    "cos": math.cos,
    "erf": math.erf,
    "log1p": math.log1p,
    "expm1": math.expm1,
    "reciprocal": lambda c: 1 / c,
    "square": lambda c: c * c,
    "sign": lambda c: float((c > 0) - (c < 0)),
    "floor": math.floor,
    "ceil": math.ceil,
    # Dropout in training mode zeroes elements at random: only zeros stay one number.
    "dropout": lambda c: c if c == 0 else None,
}
# Zero at zero whatever their parameters (a slope, an approximation, a probability).
_ZERO_AT_ZERO = frozenset(
    {
        "relu", "relu6", "gelu", "leaky_relu", "elu", "celu", "selu", "silu", "swish", "mish", "tanh", "hardswish",
        "tanhshrink", "softsign", "dropout", "sin", "neg", "abs", "square", "sign", "erf", "expm1", "log1p", "sqrt",
        "floor", "ceil", "cast",
    }
)  # fmt: skip
_BINARY_VALUES: dict[str, Any] = {
    "add": lambda a, b: a + b,
    "Add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "subtract": lambda a, b: a - b,
    "Subtract": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "multiply": lambda a, b: a * b,
    "Multiply": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "true_divide": lambda a, b: a / b,
    "Divide": lambda a, b: a / b,
    "pow": lambda a, b: a**b,
    "Power": lambda a, b: a**b,
    "maximum": max,
    "minimum": min,
}
IDENTITY_WHEN_ONE = frozenset({"sum", "mean", "amax", "amin", "max", "min", "logsumexp", "prod"})
MODULE_FUNCTIONS = {
    "ReLU": "relu", "GELU": "gelu", "SiLU": "silu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Dropout": "dropout",
    "LeakyReLU": "leaky_relu", "Mish": "mish", "Softplus": "softplus", "Hardtanh": "hardtanh", "ELU": "elu",
    "Hardswish": "hardswish", "Hardsigmoid": "hardsigmoid", "ReLU6": "relu6", "SELU": "selu", "CELU": "celu",
    "Softsign": "softsign", "Tanhshrink": "tanhshrink",
}  # fmt: skip


def _constant(fn: str, values: list, parametrized: bool) -> float | None:
    """The one number an op's result holds when every operand is one number
    (a constant tensor or a Python number), None when it is not known."""
    if not fn:
        return None
    numbers: list[float] = []
    for v in values:
        if isinstance(v, Tensor):
            if v.value is None:
                return None
            numbers.append(v.value)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            numbers.append(float(v))
        else:
            return None
    if not numbers or not any(isinstance(v, Tensor) for v in values):
        return None
    try:
        if fn in _BINARY_VALUES and len(numbers) == 2 and not parametrized:
            result = _BINARY_VALUES[fn](numbers[0], numbers[1])
        elif len(numbers) == 1 and not parametrized and fn in _UNARY_VALUES:
            result = _UNARY_VALUES[fn](numbers[0])
        elif numbers[0] == 0 and fn in _ZERO_AT_ZERO:
            result = 0.0
        else:
            return None
    except (ValueError, OverflowError, ZeroDivisionError, TypeError):
        return None
    if result is None or isinstance(result, complex) or not math.isfinite(result):
        return None
    return float(result)


def _promoted(a: object, b: object) -> str:
    """torch.result_type of two tensors' dtypes (or a tensor and a Python number), as torch promotes them."""
    if isinstance(a, bool) or isinstance(b, bool):
        return str(b if isinstance(a, bool) else a)
    if isinstance(a, (int, float)) or isinstance(b, (int, float)):
        dtype, number = (b, a) if isinstance(a, (int, float)) else (a, b)
        floating = str(dtype).startswith(("float", "bfloat"))
        return "float32" if isinstance(number, float) and not floating else str(dtype)
    if a == b:
        return str(a)
    if {a, b} == {"float16", "bfloat16"}:
        return "float32"
    floats = [d for d in (a, b) if str(d).startswith(("float", "bfloat"))]
    if len(floats) == 1:
        return str(floats[0])
    return str(max(a, b, key=lambda d: DTYPE_BYTES.get(str(d), 4)))


def _reduced_value(fn: str, value: float | None, count: int) -> float | None:
    """A reduction of `count` equal numbers."""
    if value is None or count < 1:
        return None
    if fn in ("mean", "amax", "amin", "max", "min"):
        return value
    if fn == "sum":
        return value * count
    if fn == "logsumexp":
        return value + math.log(count)
    return None


@dataclass(frozen=True)
class _HostNumber:
    """A number the host read from the device (`.item()`) or computed from one: its value is not static,
    but it is a scalar (`torch.tensor(total / n)` is a scalar tensor)."""


@dataclass(frozen=True)
class _Opaque:
    """A host value the table cannot compute, bound to a name: reading it is unknown (`why`)."""

    why: str


@dataclass(frozen=True, eq=False)
class _Lambda:
    """A lambda (a launch grid): evaluated when a launch calls it, in the scope it was written in."""

    node: cst.Lambda
    scope: dict


@dataclass(frozen=True, eq=False)
class _Module:
    """An nn.Module built in __init__: its class name and what its cost needs (weights, sizes, layers)."""

    kind: str
    attrs: dict


@dataclass(frozen=True)
class _DeviceProperties:
    """`torch.cuda.get_device_properties(...)`: of it, the table knows the calibrated GPU's SM count."""


@dataclass(frozen=True)
class _TorchModuleClass:
    """A torch.nn module class passed as a value (`norm_layer=nn.LayerNorm`), built where it is called."""

    name: str


@dataclass(frozen=True, eq=False)
class _Class:
    """A module class the file defines (`class Bottleneck(nn.Module)`), as a
    value: built in __init__ (`Bottleneck(64, 256)`, or passed along as
    `block` and built there), its class-level constants (`expansion = 4`)
    read as attributes."""

    node: cst.ClassDef
    constants: dict
    # The classes of the file it derives from, nearest first (`class BlockNew(Block)` keeps Block's __init__).
    bases: tuple[cst.ClassDef, ...] = ()
    borrowed: dict = field(default_factory=dict)  # `_make_layer = Model._make_layer` in its body

    @property
    def methods(self) -> dict[str, cst.FunctionDef]:
        """Its own methods, those it inherits from the file's classes it derives from, and those its body
        takes from another class of the file."""
        found = {name: f for base in reversed(self.bases) for name, f in _methods_of(base).items()}
        found.update(self.borrowed)
        found.update(_methods_of(self.node))
        return found


def _no_keywords(name: str, default: object = None) -> object:
    """The `kw` of a module built by the table itself (a layer's own Linear): no keyword arguments."""
    return default


def _keyword(node: object, name: str, default: object) -> object:
    """A literal keyword argument of a call node (`need_weights=False`), else `default`."""
    value = keyword(node, name) if isinstance(node, cst.Call) else None
    literal = literal_value(value) if value is not None else None
    return default if literal is None else literal


def _moved(value: object, method: str, values: list, kw) -> object:
    """A module's attribute after `self.half()`/`.to(dtype)`: modules, their layers and instances, and
    parameters moved; anything else as it was."""
    if isinstance(value, Tensor):
        return _moved_module(_Module("", {"t": value}), method, values, kw).attrs["t"]
    if isinstance(value, _Module) and value.kind == "user":
        instance = value.attrs["self"]
        assert isinstance(instance, dict)
        return _Module("user", {**value.attrs, "self": {k: _moved(v, method, values, kw) for k, v in instance.items()}})
    if isinstance(value, _Module) and value.kind in ("Sequential", "ModuleList"):
        layers = value.attrs["layers"]
        assert isinstance(layers, list)
        return _Module(value.kind, {**value.attrs, "layers": [_moved(v, method, values, kw) for v in layers]})
    if isinstance(value, _Module):
        return _moved_module(value, method, values, kw)
    return value


def _params(function: cst.FunctionDef, skip_self: bool) -> list[cst.Param]:
    """A function's positional parameters as a call binds them: without `self` for a method called on one."""
    params = list(function.params.params)
    return params[1:] if skip_self and params and params[0].name.value == "self" else params


BUILTIN_TYPES: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "float": (float,),
    "bool": (bool,),
    "str": (str,),
    "dict": (dict,),
    "list": (list, tuple),
    "tuple": (list, tuple),
}


def _builtin_types(node: cst.BaseExpression) -> tuple[type, ...] | None:
    """The Python types an isinstance's second argument names when it names builtins only (`int`,
    `(tuple, list)`); None otherwise."""
    names = [e.value for e in node.elements] if isinstance(node, cst.Tuple) else [node]
    if not names or not all(isinstance(n, cst.Name) and n.value in BUILTIN_TYPES for n in names):
        return None
    return tuple(t for n in names for t in BUILTIN_TYPES[n.value])  # type: ignore[attr-defined]


def _layers_of(value: object) -> object:
    """An nn.Sequential or nn.ModuleList as the list of its layers (to iterate, index or count); else the value."""
    if isinstance(value, _Module) and value.kind in ("Sequential", "ModuleList"):
        return value.attrs["layers"]
    return value


def _carries_name(item: object) -> bool:
    """A string, or a tuple or list holding one (an `enumerate` pair)."""
    return isinstance(item, str) or isinstance(item, (list, tuple)) and any(isinstance(i, str) for i in item)


def _formats_name(template: str, values: object) -> bool:
    """`template % values` is a name built printf-style from integers and strings (`"_l%d" % layer`): only
    `%d`, `%i` and `%s` conversions, as many as the values, none of them a tensor or a float."""
    items = values if isinstance(values, tuple) else (values,)
    conversions = re.findall(r"%(.)", template.replace("%%", ""))
    return (
        len(template) <= 64
        and all(c in "dis" for c in conversions)
        and len(conversions) == len(items)
        and all(isinstance(v, (int, str)) and not isinstance(v, bool) for v in items)
    )


def _holds_module(item: object) -> bool:
    return isinstance(item, _Module) or isinstance(item, (list, tuple)) and any(isinstance(i, _Module) for i in item)


def _moved_module(module: _Module, method: str, values: list, kw) -> _Module:
    """The module after `.half()`, `.to(dtype)`, `.cuda()`...: its parameters in the new dtype, if any."""
    dtype = CASTS.get(method) if method != "float" else "float32"
    if method == "to":
        dtype = next((v for v in values if isinstance(v, str) and v in DTYPE_BYTES), None) or kw("dtype")
    if dtype not in DTYPE_BYTES:
        return module
    return _Module(
        module.kind, {k: replace(v, dtype=dtype) if isinstance(v, Tensor) else v for k, v in module.attrs.items()}
    )


def _product_work(tensors: list[Tensor]) -> tuple[int, int]:
    """(flops, operand bytes per element) of the product a launch's tensors
    describe: an output [.., M, N] beside operands [.., M, K] and [K, N] (or
    a weight [N, K]), or a convolution's output [B, OC, ..] beside an input
    [B, C, ..] and a weight [OC, C, kernel..]; (0, 4) when they describe none."""
    for out in tensors:
        for a in tensors:
            if a is not out and len(a.shape) == 2 and len(out.shape) == 3:
                # One weight [M, K] against each batch's [K, N] (a convolution's im2col columns per image):
                # out [B, M, N].
                for w in tensors:
                    if w is not out and w is not a and len(w.shape) == 3 and w.shape[1] == a.shape[1]:
                        if out.shape == (w.shape[0], a.shape[0], w.shape[2]):
                            return 2 * out.numel * a.shape[1], DTYPE_BYTES.get(a.dtype, 4)
            if a is out or len(a.shape) < 2 or len(out.shape) != len(a.shape):
                continue
            for w in tensors:
                if w is out or w is a:
                    continue
                size = DTYPE_BYTES.get(a.dtype, 4)
                if len(w.shape) == len(a.shape) >= 3 and w.shape[:-2] == a.shape[:-2] == out.shape[:-2]:
                    # A batched product per batch and head (attention's Q K^T and P V), B as [.., K, N] or as
                    # [.., N, K] (read transposed). Looked for before a convolution's: with as many heads as
                    # batches, [B, H, L, D] operands would pass for a convolution's input and weight.
                    k = a.shape[-1]
                    if out.shape[-2] == a.shape[-2] and (
                        (w.shape[-2] == k and out.shape[-1] == w.shape[-1])
                        or (w.shape[-1] == k and out.shape[-1] == w.shape[-2])
                    ):
                        return 2 * out.numel * k, size
                if len(a.shape) >= 3 and len(w.shape) == len(a.shape):
                    if w.shape[1] == a.shape[1] and out.shape[:2] == (a.shape[0], w.shape[0]):
                        return 2 * out.numel * w.shape[1] * math.prod(w.shape[2:]), size
                    if w.shape[-1] == a.shape[1] and out.shape[:2] == (a.shape[0], w.shape[0]):
                        # The weight laid out (C_out, kernel.., C_in), as an implicit-GEMM kernel reads it K-major.
                        return 2 * out.numel * w.shape[-1] * math.prod(w.shape[1:-1]), size
                    if _transposed_conv(out, a, w):
                        # A transposed convolution's weight [C_in, C_out / groups, kernel..] (nn.ConvTranspose's
                        # layout): each output sums C_in / groups channels over the kernel's taps.
                        per_group = a.shape[1] * w.shape[1] // out.shape[1]
                        return 2 * out.numel * per_group * math.prod(w.shape[2:]), size
                    if (
                        len(a.shape) >= 4
                        and w.shape[1] == a.shape[1]
                        and out.shape[0] == a.shape[0]
                        and out.shape[1] > w.shape[0]
                        and out.shape[2:] == a.shape[2:]
                    ):
                        # A convolution that keeps the input's size and writes its C_out channels into a slice of
                        # a wider output (an Inception or Fire module's branches into one concatenated tensor).
                        outputs = out.numel // out.shape[1] * w.shape[0]
                        return 2 * outputs * w.shape[1] * math.prod(w.shape[2:]), size
                if _pointwise_conv(out, a, w):
                    # A 1x1 convolution whose weight is viewed as [C_out, C_in]: each output pixel's channels are
                    # a row of the weight against that pixel's input channels.
                    return 2 * out.numel * w.shape[1], size
                if len(w.shape) == 2 and out.shape[:-1] == a.shape[:-1]:
                    k = a.shape[-1]
                    if (w.shape[0] == k and w.shape[1] == out.shape[-1]) or (
                        w.shape[1] == k and w.shape[0] == out.shape[-1]
                    ):
                        return 2 * out.numel * k, size
        # This output, its A read transposed (the caller puts the launch's allocated output first, so an
        # operand is not taken for the output of a plain product over the others).
        transposed = _transposed_product(tensors, out)
        if transposed is not None:
            m, n, k, size = transposed
            return 2 * m * n * k, size
    return 0, 4


def im2col_readers(ops: tuple[Op, ...], unfold: int) -> tuple[list[int], set[int]]:
    """The ops that read F.unfold's column matrix (op `unfold`), directly or through views and copies of it
    (`.transpose(1, 2).contiguous()`), and those copies."""
    chain, readers, copies = {unfold}, [], set()
    for j in range(unfold + 1, len(ops)):
        if chain & (set(ops[j].inputs) - set(ops[j].write_only)):
            if ops[j].kind in ("view", "copy", "transpose_copy"):
                chain.add(j)
                if ops[j].kind != "view":
                    copies.add(j)
            else:
                readers.append(j)
    return readers, copies


def _transposed_product(tensors: list[Tensor], only: Tensor | None = None) -> tuple[int, int, int, int] | None:
    """(M, N, K, operand bytes per element) of a 2-D product whose A the kernel reads transposed out of a
    [K, M] tensor (`A.T @ B`, `A.T @ B.T` through strides): an output [M, N] (`only`, where given) beside
    operands holding M and K, and K and N, in either order; None. Looked for after the plain forms."""
    for out in tensors:
        if len(out.shape) != 2 or only is not None and out is not only:
            continue
        m, n = out.shape
        for a in tensors:
            if a is out or len(a.shape) != 2 or a.shape[1] != m:
                continue
            k = a.shape[0]
            for w in tensors:
                if w is not out and w is not a and len(w.shape) == 2 and sorted(w.shape) == sorted((k, n)):
                    return m, n, k, DTYPE_BYTES.get(a.dtype, 4)
    return None


def _pointwise_conv(out: Tensor, a: Tensor, w: Tensor) -> bool:
    """Whether `out` [B, C_out, spatial..] is a 1x1 convolution of an input `a` [B, C_in, spatial..] (the same
    spatial size) by a weight `w` viewed as [C_out, C_in]."""
    return (
        out is not a
        and w is not out
        and w is not a
        and len(w.shape) == 2
        and len(a.shape) == len(out.shape) >= 3
        and a.shape[0] == out.shape[0]
        and a.shape[2:] == out.shape[2:]
        and w.shape == (out.shape[1], a.shape[1])
    )


def _conv_product(tensors: list[Tensor]) -> ConvProduct | None:
    """The convolution `_product_work` finds among a launch's tensors (an output [B, C_out, ..] beside an input
    [B, C_in, ..] and a weight [C_out, C_in / groups, k..], or a transposed one's [C_in, C_out / groups, k..]),
    as PyTorch's module would run it; None for a GEMM or none."""
    for out in tensors:
        for a in tensors:
            if a is out or len(a.shape) < 3 or len(out.shape) != len(a.shape):
                continue
            dims = len(a.shape) - 2
            for w in tensors:
                if w is out or w is a or len(w.shape) != len(a.shape):
                    continue
                taps = math.prod(w.shape[2:])
                nbytes = a.nbytes + w.nbytes + out.nbytes
                if a.shape[1] % w.shape[1] == 0 and out.shape[:2] == (a.shape[0], w.shape[0]):
                    strides = tuple(max(1, round(i / o)) for i, o in zip(a.shape[2:], out.shape[2:]))
                    depth = w.shape[1] * taps
                    return ConvProduct(
                        f"nn.Conv{dims}d",
                        depth,
                        2 * out.numel * depth,
                        a.shape[1] // w.shape[1],
                        (*w.shape[2:], *strides, *([1] * dims)),
                        nbytes,
                    )
                if _transposed_conv(out, a, w):
                    groups = out.shape[1] // w.shape[1]
                    strides = tuple(max(1, round(o / i)) for i, o in zip(a.shape[2:], out.shape[2:]))
                    depth = a.shape[1] // groups * taps
                    return ConvProduct(
                        f"nn.ConvTranspose{dims}d",
                        depth,
                        2 * (a.numel // a.shape[1]) * out.shape[1] * depth,
                        groups,
                        (*w.shape[2:], *strides, *([1] * dims)),
                        nbytes,
                    )
    return None


def _transposed_conv(out: Tensor, a: Tensor, w: Tensor) -> bool:
    """Whether `w` is a transposed convolution's weight [C_in, C_out / groups, kernel..] between an input `a`
    [B, C_in, ..] and an output `out` [B, C_out, ..] (nn.ConvTranspose's layout)."""
    return (
        out is not a
        and w is not out
        and w is not a
        and len(w.shape) == len(a.shape) == len(out.shape) >= 3
        and a.shape[0] == out.shape[0]
        and w.shape[0] == a.shape[1]
        and out.shape[1] % w.shape[1] == 0
        and a.shape[1] * w.shape[1] % out.shape[1] == 0
    )


def _product_rows_columns(tensors: list[Tensor]) -> tuple[int, ...]:
    """(M, N) of the GEMM output `_product_work` finds among a launch's tensors (its rows, batch included,
    and its columns; a convolution's output pixels and its channels, as an implicit GEMM tiles them); () for
    none."""
    flops, _ = _product_work(tensors)
    for out in tensors:
        if flops and len(out.shape) >= 2:
            for a in tensors:
                if a is not out and len(a.shape) == len(out.shape) and a.shape[:-1] == out.shape[:-1]:
                    k = a.shape[-1]
                    if 2 * out.numel * k == flops:
                        return (out.numel // out.shape[-1], out.shape[-1])
            transposed = _transposed_product(tensors, out)
            if transposed is not None and 2 * transposed[0] * transposed[1] * transposed[2] == flops:
                return transposed[:2]
    for out in tensors:
        # A convolution's output [B, C_out, spatial..] beside an input [B, C_in, ..] and a weight whose first
        # dimension is C_out, both laid out (C_out, C_in, kernel..) and (C_out, kernel.., C_in).
        if flops and len(out.shape) >= 3:
            for a in tensors:
                if a is out or len(a.shape) != len(out.shape) or a.shape[0] != out.shape[0]:
                    continue
                for w in tensors:
                    if _pointwise_conv(out, a, w) and flops == 2 * out.numel * w.shape[1]:
                        return (out.numel // out.shape[1], out.shape[1])
                    if _transposed_conv(out, a, w) and flops == 2 * out.numel * w.numel // out.shape[1]:
                        # A transposed convolution's weight [C_in, C_out / groups, kernel..]: each output sums
                        # C_in / groups channels over the taps, as `_product_work` counts it.
                        return (out.numel // out.shape[1], out.shape[1])
                    if w is out or w is a or len(w.shape) != len(a.shape) or w.shape[0] != out.shape[1]:
                        continue
                    if a.shape[1] in (w.shape[1], w.shape[-1]) and flops == 2 * out.numel * w.numel // w.shape[0]:
                        return (out.numel // out.shape[1], out.shape[1])
    return ()


def _reduced_product(tensors: list[Tensor]) -> tuple[int, ...]:
    """(M, N, K) where a tl.dot launch's tensors describe a product reduced over N in the kernel: an output
    of one column ([M] or [M, 1]) beside operands [M, K] and a weight [N, K] (or [K, N]) with N > 1; ()."""
    for out in tensors:
        if out.shape not in ((out.shape[0],), (out.shape[0], 1)) if out.shape else True:
            continue
        for a in tensors:
            if a is out or len(a.shape) != 2 or a.shape[0] != out.shape[0]:
                continue
            k = a.shape[1]
            for w in tensors:
                if w is out or w is a or len(w.shape) != 2 or k not in w.shape:
                    continue
                n = w.shape[0] if w.shape[1] == k else w.shape[1]
                if n > 1:
                    return (a.shape[0], n, k)
    return ()


def _norm_parameters(name: str, values: list, kw) -> dict[str, object]:
    """A normalization module's `eps` and its affine `weight`/`bias` (what a
    solution's kernel is handed: `self.ln.weight`, `self.bn.eps`), with
    torch's defaults; nothing where the sizes are not static."""
    groups = None
    if name in ("LayerNorm", "RMSNorm"):
        spec = _spec(values, kw, ("normalized_shape", "eps", "elementwise_affine"))
        shape = spec["normalized_shape"]
        shape = (shape,) if isinstance(shape, int) else shape
        affine, bias = spec["elementwise_affine"] is not False, name == "LayerNorm" and kw("bias", True) is not False
    elif name == "GroupNorm":
        spec = _spec(values, kw, ("num_groups", "num_channels", "eps", "affine"))
        shape, affine, bias = (spec["num_channels"],), spec["affine"] is not False, True
        groups = spec["num_groups"]
    else:  # BatchNorm*d, InstanceNorm*d (affine off by default)
        spec = _spec(values, kw, ("num_features", "eps", "momentum", "affine"))
        default = name.startswith("BatchNorm")
        shape = (spec["num_features"],)
        affine = spec["affine"] if isinstance(spec["affine"], bool) else default
        bias = True
    out: dict[str, object] = {"eps": spec["eps"] if isinstance(spec["eps"], float) else 1e-5}
    static = isinstance(shape, (list, tuple)) and shape and all(isinstance(d, int) for d in shape)
    if static and name in ("LayerNorm", "RMSNorm"):
        out["normalized"] = math.prod(shape)  # elements per normalized row
        out["normalized_shape"] = tuple(shape)  # as torch stores it (`self.ln.normalized_shape` in a solution)
    elif static and name != "GroupNorm":
        out["num_features"] = shape[0]
    elif static:
        out["num_channels"] = shape[0]
    if name == "GroupNorm" and isinstance(groups, int):
        out["groups"] = groups
        out["num_groups"] = groups  # as torch stores it (`self.gn.num_groups` handed to F.group_norm)
    if name.startswith(("BatchNorm", "InstanceNorm")):
        out["momentum"] = spec["momentum"] if isinstance(spec["momentum"], float) else 0.1
        if static and name.startswith("BatchNorm"):
            # The running statistics a training-mode solution updates (`self.bn.running_mean.mul_(...)`).
            out["running_mean"] = Tensor(tuple(shape), "float32")
            out["running_var"] = Tensor(tuple(shape), "float32")
            out["num_batches_tracked"] = Tensor((), "int64")
    if static and affine:
        out["weight"] = Tensor(tuple(shape), "float32")
        if bias:
            out["bias"] = Tensor(tuple(shape), "float32")
    return out


def _rnn_parameters(gates: int, spec: dict) -> dict[str, Tensor]:
    """nn.GRU/LSTM/RNN's parameters by torch's names (`weight_ih_l0`,
    `bias_hh_l1_reverse`, ...): what a hand-written recurrence reads from the module."""
    hidden, layers = spec["hidden_size"], spec["num_layers"]
    if not isinstance(layers, int):
        return {}
    out: dict[str, Tensor] = {}
    for layer in range(layers):
        width = spec["input_size"] if layer == 0 else hidden * (2 if spec["bidirectional"] else 1)
        for suffix in ("", "_reverse") if spec["bidirectional"] else ("",):
            out[f"weight_ih_l{layer}{suffix}"] = Tensor((gates * hidden, width), "float32")
            out[f"weight_hh_l{layer}{suffix}"] = Tensor((gates * hidden, hidden), "float32")
            if spec["bias"] is not False:
                out[f"bias_ih_l{layer}{suffix}"] = Tensor((gates * hidden,), "float32")
                out[f"bias_hh_l{layer}{suffix}"] = Tensor((gates * hidden,), "float32")
    return out


# F.conv*d / F.conv_transpose*d: the module each one is the forward of (its arguments after input, weight, bias).
FUNCTIONAL_CONVS = {
    **{f"conv{d}d": (f"Conv{d}d", ("stride", "padding", "dilation", "groups")) for d in (1, 2, 3)},
    **{
        f"conv_transpose{d}d": (f"ConvTranspose{d}d", ("stride", "padding", "output_padding", "groups", "dilation"))
        for d in (1, 2, 3)
    },
}


def _functional_conv(name: str, values: list, kw) -> _Module:
    """`F.conv2d(x, weight, bias, ...)` as the nn.Conv2d whose forward it is: its sizes read off the weight
    ([C_out, C_in / groups, k..], a transposed one's [C_in, C_out / groups, k..]), a bias where one is passed."""
    kind, names = FUNCTIONAL_CONVS[name]
    weight = values[1]
    spec = _spec(values[3:], kw, names)
    groups = spec.get("groups") if isinstance(spec.get("groups"), int) else 1
    dims = CONV_DIMS[kind]
    if kind.startswith("ConvTranspose"):
        c_in, c_out = weight.shape[0], weight.shape[1] * groups
    else:
        c_out, c_in = weight.shape[0], weight.shape[1] * groups
    spec.update(in_channels=c_in, out_channels=c_out, kernel_size=tuple(weight.shape[-dims:]), groups=groups)
    bias = kw("bias", values[2] if len(values) > 2 else None)
    return _Module(kind, {"spec": spec, "weight": weight, "bias": isinstance(bias, Tensor)})


def _spec(values: list, kw, names: tuple[str, ...]) -> dict[str, Any]:
    """A module's constructor arguments by name, positional or keyword."""
    return {key: values[i] if i < len(values) else kw(key) for i, key in enumerate(names)}


def _static_sequence(*values: object) -> bool:
    """Each value a list or tuple of numbers, strings or booleans."""
    return all(
        isinstance(v, (list, tuple)) and all(isinstance(item, (int, float, str, bool)) for item in v) for v in values
    )


def _tuple(value, dims: int) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * dims
    if isinstance(value, (list, tuple)) and len(value) == dims and all(isinstance(v, int) for v in value):
        return tuple(value)
    raise _Unknown("a convolution or pooling size that is not static")


def _is_none(element: cst.SubscriptElement) -> bool:
    s = element.slice
    return isinstance(s, cst.Index) and isinstance(s.value, cst.Name) and s.value.value == "None"


def _one_pass(kind: str, line: int, x: Tensor, out: Tensor, **fields) -> Op:
    """An op that reads `x` once and writes `out` once (an im2col, a pad, a reduction)."""
    return Op(
        kind,
        line,
        bytes=x.nbytes + out.nbytes,
        inputs=(x.origin,),
        in_bytes=(x.nbytes,),
        out_bytes=out.nbytes,
        elem_bytes=DTYPE_BYTES.get(out.dtype, 4),
        **fields,
    )


def _transposed(t, i: int, j: int):
    if not isinstance(t, Tensor):
        raise _Unknown("a transpose of a non-static value")
    shape = list(t.shape)
    if len(shape) < 2:
        return t
    shape[i], shape[j] = shape[j], shape[i]
    rank = len(shape)
    keeps_last = rank - 1 not in (i % rank, j % rank)
    strides = list(t.strides) if t.strides is not None else None
    if strides is not None:
        strides[i], strides[j] = strides[j], strides[i]
    return Tensor(
        tuple(shape),
        t.dtype,
        contiguous=False,
        origin=t.origin,
        value=t.value,
        exact=False,
        runs_contiguous=_long_runs(t, keeps_last),
        layout=(tuple(shape), tuple(strides)) if strides is not None else None,
    )


def _long_runs(t: Tensor, keeps_last: bool) -> bool:
    """A contiguous tensor's permuted view that keeps its last axis, whose rows are whole lines or more: a
    copy of it moves contiguous runs (`Tensor.runs_contiguous`)."""
    return bool(
        t.contiguous and keeps_last and t.shape and t.shape[-1] * DTYPE_BYTES.get(t.dtype, 4) >= COALESCED_RUN_BYTES
    )


def _broadcast(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:
    width = max((len(s) for s in shapes), default=0)
    out = []
    for i in range(width):
        dims = {s[len(s) - width + i] for s in shapes if len(s) - width + i >= 0}
        dims.discard(1)
        out.append(max(dims) if dims else 1)
    return tuple(out)


def _promote(dtypes: list[str]) -> str:
    order = (
        "bool",
        "uint8",
        "int8",
        "int32",
        "int64",
        "float8_e5m2",
        "float8_e4m3fn",
        "bfloat16",
        "float16",
        "float32",
        "float64",
    )
    return max(dtypes, key=lambda d: order.index(d) if d in order else len(order) - 2)


def _gemm_path(dtype: str, tf32: bool = False) -> str:
    # torch.backends.cuda.matmul.allow_tf32 is False by default: fp32 GEMMs run on the FMA units, unless the
    # file turns TF32 on (`tf32`, see `_turns_on_tf32`).
    if dtype == "float32" and tf32:
        return "tf32"
    return {"float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64"}.get(dtype, "fp32")


# What turns TF32 on for torch's fp32 matmuls, process-wide: `torch.backends.cuda.matmul.allow_tf32 = True`,
# `torch.backends.cuda.matmul.fp32_precision = "tf32"` (and `torch.backends.fp32_precision`), or
# `torch.set_float32_matmul_precision("high")` ("medium" too).
_TF32_FLAGS = ("torch.backends.cuda.matmul.allow_tf32",)
_TF32_PRECISIONS = ("torch.backends.cuda.matmul.fp32_precision", "torch.backends.fp32_precision")


def _nested_shape(data) -> tuple[int, ...] | None:
    if isinstance(data, (int, float, _HostNumber)):
        return ()
    if isinstance(data, (list, tuple)):
        if not data:
            return (0,)
        inner = _nested_shape(data[0])
        return None if inner is None else (len(data), *inner)
    return None


def _has_float(data) -> bool:
    if isinstance(data, (float, _HostNumber)):
        return True
    if isinstance(data, (list, tuple)):
        return any(_has_float(d) for d in data)
    return False


def _describe(t: Tensor) -> str:
    return f"{t.dtype}[{', '.join(map(str, t.shape))}]"


def _depth(loop, by_index: dict) -> int:
    """How many loops hold `loop` (0: a loop of the kernel's body)."""
    depth = 0
    while loop.parent is not None:
        loop, depth = by_index[loop.parent], depth + 1
    return depth
