from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, FunctionInfo
from kernlint.model.epilogues import ELEMENTWISE_FUNCTIONS
from kernlint.model.host_flow import HANDFUL, Loop
from kernlint.model.syntax import walk
from kernlint.registry import Invalid, Report, Rule, Valid

# torch calls that allocate or describe rather than compute.
NOT_COMPUTE = frozenset(
    {
        f"torch.{n}"
        for n in (
            "empty",
            "empty_like",
            "zeros",
            "zeros_like",
            "ones",
            "ones_like",
            "full",
            "full_like",
            "tensor",
            "as_tensor",
            "arange",
            "randn",
            "rand",
            "randint",
            "from_numpy",
            "is_tensor",
            "no_grad",
            "device",
            "Size",
        )
    }
)
# nn modules whose call runs tensor compute (`self.cell(x[t], h)`).
COMPUTE_MODULE_PREFIX = "torch.nn."


class PerStepLaunchLoop(Rule):
    """
    ## What it does
    Finds a Python loop in a hot path that walks a data dimension (time
    steps, sequence positions, tokens, rows: `for t in range(seq_len)`,
    `range(x.size(1))`, `range(T)` where `T, B, _ = x.shape`, a bound of more
    than 16 fixed steps, `for x_t in x.unbind(0)`) and, on every iteration,
    launches a Triton kernel, runs torch compute (a matmul, an elementwise op
    on tensors, an `nn` module such as `nn.GRUCell`), or calls a function of
    the same file that launches one. One finding per loop nest, at the
    outermost such loop.

    It stays silent on loops over a handful of constant items (`range(3)`,
    `for stream in (s0, s1)`), on loops whose count is not known to be a
    data dimension (a plain parameter `n`), on loops that only build Python
    lists or configs, and on loops over layers: `for layer in self.layers`
    over an `nn.ModuleList`, `nn.Sequential`, `nn.ModuleDict` or a list of
    modules built in `__init__`, or `range(len(self.layers))` (each layer is
    usually a large amount of work per launch; the time loop inside one is
    reported).

    ## Why is this bad?
    A GPU kernel launch costs about 3 to 10 us of CPU time in PyTorch and
    Triton. A recurrent cell of a few hundred hidden units does far less
    work than that per step, so a loop of 512 steps with two launches each
    runs at launch rate, with the GPU mostly idle; the same time loop inside
    one kernel runs at the speed of the math.

    ## Example
    ```python
    def forward(self, x, h):
        seq_len, batch, _ = x.shape
        for t in range(seq_len):
            gates = torch.addmm(self.b_hh, h, self.w_hh.t())
            gru_cell_kernel[(batch,)](x_proj[t], gates, h, H=self.hidden)
        return h
    ```

    ## Use instead
    ```python
    def forward(self, x, h):
        # all input projections at once: one GEMM
        x_proj = torch.addmm(self.b_ih, x.flatten(0, 1), self.w_ih.t())
        # one persistent kernel, the time loop inside it
        gru_persistent_kernel[(batch,)](x_proj, self.w_hh, self.b_hh, h, out, seq_len, H=self.hidden)
        return out
    ```
    When the loop must stay in Python, capture it in a CUDA graph
    (`torch.cuda.graphs`) to remove the per-launch CPU cost.

    ## Fix safety
    No automatic fix: moving the loop into a kernel changes how the
    recurrent state is carried between steps.
    """

    code = "KL005"
    name = "per-step-launch-loop"
    category = Category.LAUNCH_REDUCTION
    severity = Severity.WARNING
    summary = "A Python loop over a data dimension launches kernels or runs torch ops once per step."
    bottleneck = (
        "Kernel launch latency: a Python loop over time steps launches small kernels once per step, so the "
        "GPU waits on the CPU and runs far below its compute and memory rates."
    )
    method = (
        "Move the loop into one persistent Triton kernel launched once (for recurrent cells, precompute the "
        "input-side projection of all steps with one GEMM outside it), or capture the loop in a CUDA graph."
    )
    priority = 5
    fix_effect = "batch_loop"

    VALID = [
        # A handful of constant items.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    for i in range(3):
                        x = torch.relu(x @ self.w)
                    for scale in (0.5, 1.0):
                        x = x * scale
                    return x
            """
        ),
        # A loop that only builds Python configs.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x):
                    seq_len = x.shape[0]
                    offsets = []
                    for t in range(seq_len):
                        offsets.append(t * 128)
                    return x, offsets
            """
        ),
        # The loop count is a plain parameter, not known to be a data dimension.
        Valid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, n=2):
                    for _ in range(n):
                        x = torch.matmul(x, self.w)
                    return x
            """
        ),
        # Not a hot path.
        Valid(
            """
            import torch
            def unroll(cell, x, h):
                for t in range(x.size(0)):
                    h = cell(x[t], h)
                return h
            """
        ),
        # A loop over layers: each layer is a large launch.
        Valid(
            """
            import torch.nn as nn
            class Net(nn.Module):
                def forward(self, x):
                    for layer in self.layers:
                        x = layer(x)
                    return x
            """
        ),
        # The persistent form: one launch, the time loop inside the kernel.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def rnn_kernel(x_ptr, h_ptr, T, H: tl.constexpr):
                for t in range(T):
                    h = tl.load(h_ptr + tl.arange(0, H))
                    tl.store(h_ptr + tl.arange(0, H), tl.load(x_ptr + t * H + tl.arange(0, H)) + h)
            def rnn(x, h):
                T = x.shape[0]
                rnn_kernel[(1,)](x, h, T, H=h.shape[-1])
                return h
            """
        ),
        # Walking the layers of a stack (an nn.ModuleList, a list of modules) is not a data loop.
        Valid(
            """
            import torch.nn as nn
            import torch.nn.functional as F
            class Stack(nn.Module):
                def __init__(self, d, depth):
                    super().__init__()
                    self.layers = nn.ModuleList([nn.Linear(d, d) for _ in range(depth)])
                    self.heads = [nn.Linear(d, 4), nn.Linear(d, 2)]
                def forward(self, x):
                    for layer in self.layers:
                        x = F.gelu(layer(x))
                    for i in range(len(self.layers)):
                        x = x + self.layers[i](x)
                    return [head(x).relu() for head in self.heads]
            """
        ),
        # A count from the module that the file's shapes make a handful of steps.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def group_scale(x_ptr, y_ptr, start, stride, G: tl.constexpr):
                row = tl.program_id(0)
                cols = start + tl.arange(0, G)
                v = tl.load(x_ptr + row * stride + cols)
                tl.store(y_ptr + row * stride + cols, v - tl.sum(v, axis=0) / G)
            class ModelNew(torch.nn.Module):
                def __init__(self, groups):
                    super().__init__()
                    self.groups = groups
                    self.scales = torch.nn.Parameter(torch.ones(groups))
                def forward(self, x):
                    y = torch.empty_like(x)
                    gs = x.shape[1] // self.groups
                    for g in range(self.groups):
                        group_scale[(x.shape[0],)](x, y, g * gs, x.stride(0), G=gs)
                    return y
            def get_inputs():
                return [torch.randn(1024, 8192)]
            def get_init_inputs():
                return [4]
            """
        ),
        # A parameter picked per step (`self.scales[g]`): a loop over per-group weights, not a data dimension.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def group_scale(x_ptr, y_ptr, start, stride, G: tl.constexpr):
                row = tl.program_id(0)
                cols = start + tl.arange(0, G)
                v = tl.load(x_ptr + row * stride + cols)
                tl.store(y_ptr + row * stride + cols, v - tl.sum(v, axis=0) / G)
            class ModelNew(torch.nn.Module):
                def __init__(self, groups):
                    super().__init__()
                    self.groups = groups
                    self.scales = torch.nn.Parameter(torch.ones(groups))
                def forward(self, x):
                    y = torch.empty_like(x)
                    gs = x.shape[1] // self.groups
                    for g in range(self.groups):
                        group_scale[(x.shape[0],)](x * self.scales[g], y, g * gs, x.stride(0), G=gs)
                    return y
            def get_inputs():
                return [torch.randn(1024, 8192)]
            def get_init_inputs():
                return [256]
            """
        ),
    ]
    INVALID = [
        # A loop over a name bound to a range (forward or reversed steps): the file's shapes count 512 steps.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def step(x_ptr, h_ptr, t, H: tl.constexpr):
                offs = tl.arange(0, H)
                h = tl.load(h_ptr + offs)
                tl.store(h_ptr + offs, tl.tanh(h + tl.load(x_ptr + t * H + offs)))
            class ModelNew(torch.nn.Module):
                def __init__(self, reverse):
                    super().__init__()
                    self.reverse = reverse
                def forward(self, x):
                    T, H = x.shape
                    h = torch.zeros(H, device=x.device)
                    steps = range(T - 1, -1, -1) if self.reverse else range(T)
                    for t in steps:
                        step[(1,)](x, h, t, H=H)
                    return h
            def get_inputs():
                return [torch.randn(512, 256)]
            def get_init_inputs():
                return [True]
            """,
            line=18,
            column=9,
        ),
        # A count from the module (`range(self.groups)`) that the file's shapes make 256 launches over slices.
        Invalid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def group_scale(x_ptr, y_ptr, start, stride, G: tl.constexpr):
                row = tl.program_id(0)
                cols = start + tl.arange(0, G)
                v = tl.load(x_ptr + row * stride + cols)
                tl.store(y_ptr + row * stride + cols, v - tl.sum(v, axis=0) / G)
            class ModelNew(torch.nn.Module):
                def __init__(self, groups):
                    super().__init__()
                    self.groups = groups
                    self.scales = torch.nn.Parameter(torch.ones(groups))
                def forward(self, x):
                    y = torch.empty_like(x)
                    gs = x.shape[1] // self.groups
                    for g in range(self.groups):
                        group_scale[(x.shape[0],)](x, y, g * gs, x.stride(0), G=gs)
                    return y
            def get_inputs():
                return [torch.randn(1024, 8192)]
            def get_init_inputs():
                return [256]
            """,
            line=19,
            column=9,
        ),
        # A KernelBench-style GRU: torch ops per time step, T from a shape.
        Invalid(
            """
            import torch
            import torch.nn as nn
            class Model(nn.Module):
                def forward(self, x, h):
                    seq_len, batch, _ = x.shape
                    outputs = []
                    for t in range(seq_len):
                        gi = torch.mm(x[t], self.w_ih.t())
                        gh = h @ self.w_hh.t()
                        h = torch.tanh(gi + gh)
                        outputs.append(h)
                    return torch.stack(outputs)
            """,
            line=8,
            column=9,
        ),
        # A Triton launch per step, the count from `x.size(1)`.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def cell(x_ptr, h_ptr, t, H: tl.constexpr):
                pass
            def run(x, h):
                for t in range(x.size(1)):
                    cell[(x.shape[0],)](x, h, t, H=64)
                return h
            """,
            line=8,
            column=5,
        ),
        # An nn.GRUCell called per step over the tensor's slices.
        Invalid(
            """
            import torch.nn as nn
            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.cell = nn.GRUCell(128, 256)
                def forward(self, x, h):
                    for x_t in x.unbind(0):
                        h = self.cell(x_t, h)
                    return h
            """,
            line=8,
            column=9,
        ),
        # A step count named for time, `from torch import matmul`, and a helper that launches.
        Invalid(
            """
            import torch
            from torch import matmul
            import triton
            from triton import language as tl
            @triton.jit
            def act(x_ptr, n, B: tl.constexpr):
                pass
            def apply_act(y):
                act[(1,)](y, y.numel(), B=128)
            class Decoder(torch.nn.Module):
                def forward(self, h, max_new_tokens: int):
                    for step in range(max_new_tokens):
                        h = matmul(h, self.w)
                        apply_act(h)
                    return h
            """,
            line=13,
            column=9,
        ),
        # A comprehension is a loop too; more than 16 fixed steps is a data dimension.
        Invalid(
            """
            import torch
            import torch.nn.functional as F
            SEQ = 512
            class M(torch.nn.Module):
                def forward(self, x):
                    return torch.stack([F.relu(x[t].mm(self.w)) for t in range(SEQ)])
            """,
            line=7,
            column=52,
        ),
        # A name assigned from a shape, with a nested loop reported once.
        Invalid(
            """
            import torch
            class M(torch.nn.Module):
                def forward(self, x, h):
                    T = x.size(0)
                    for t in range(T):
                        for k in range(2):
                            h = torch.sigmoid(x[t] + h * k)
                    return h
            """,
            line=6,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        hot = model.hot_functions
        launchers = {id(launch.caller): launch for launch in model.launches}
        for function in model.functions:
            if function not in hot or model.kernel_of(function) is not None or model.is_test_or_benchmark(function):
                continue
            reported: list[cst.CSTNode] = []
            for found in model.loops(function):
                loop = found if found.over_data else _long_at_file_shapes(model, function, found)
                if loop is None:
                    continue
                if any(model.inside(loop.node, outer, function) for outer in reported):
                    continue
                work = self._work(model, function, loop, launchers)
                if work:
                    reported.append(loop.node)
                    yield self._report(model, function, loop, work)

    def _work(self, model: FileModel, function: FunctionInfo, loop: Loop, launchers: dict) -> list[str]:
        """What the loop body runs on the device each step, as short spellings."""
        body: cst.CSTNode = (
            loop.node.body if isinstance(loop.node, cst.For) else model.parent(loop.node, function) or loop.node
        )
        if isinstance(loop.node, cst.CompFor):
            body = getattr(body, "elt", None) or getattr(body, "value", None) or body
        work: list[str] = []
        cls = model.class_of(function)
        for node in walk(body):
            if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            text = self._device_work(model, function, node, cls, launchers)
            if text is not None and text not in work:
                work.append(text)
        return work

    def _device_work(
        self, model: FileModel, function: FunctionInfo, node: cst.CSTNode, cls, launchers: dict
    ) -> str | None:
        if isinstance(node, cst.BinaryOperation):
            if model.matmul_call(node):
                return "`@`"
            if model.is_tensor(node, function):
                return f"`{model.code(node.operator).strip()}` on tensors"
            return None
        if not isinstance(node, cst.Call):
            return None
        if isinstance(node.func, cst.Subscript):
            launch = next((la for la in model.launches if la.node is node), None)
            return f"the `{launch.kernel.name}` kernel" if launch is not None else None
        spelled = model.matmul_call(node)
        if spelled is not None:
            return f"`{spelled}`"
        name = model.qualname(node.func) or ""
        if name in ELEMENTWISE_FUNCTIONS or (
            name.startswith("torch.") and name not in NOT_COMPUTE and model.is_tensor(node, function)
        ):
            return f"`{model.code(node.func)}`"
        target = model.resolve_callee(node, cls)
        if target is not None and id(target) in launchers:
            return f"`{model.code(node.func)}` (launches `{launchers[id(target)].kernel.name}`)"
        func = node.func
        if (
            cls is not None
            and isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value == "self"
        ):
            kind = model.module_attribute_kind(cls, func.attr.value)
            if kind and kind.startswith(COMPUTE_MODULE_PREFIX):
                return f"`{model.code(func)}` ({kind.split('.')[-1]})"
        return None

    def _report(self, model: FileModel, function: FunctionInfo, loop: Loop, work: list[str]) -> Report:
        head = f"for {model.code(loop.node.target)} in {loop.bound}"
        listed = ", ".join(work[:4]) + (", ..." if len(work) > 4 else "")
        message = (
            f"`{head}` in `{function.qualname}` walks a data dimension ({loop.why}) and runs {listed} once per "
            "step: the loop runs at kernel-launch rate, not at the GPU's speed"
        )
        plan = (
            f"Launch once instead of once per step: move the `{head}` loop into a persistent Triton kernel "
            "that keeps the carried state on chip; compute everything that does not depend on the previous step "
            "(for a recurrent cell, the input projection of all steps) with one batched GEMM before it. If the "
            "loop must stay in Python, capture it in a CUDA graph."
        )
        if _independent_slices(model, function, loop):
            plan = (
                f"Launch once instead of once per step: the steps of `{head}` work on separate slices, so make the "
                "loop index a grid axis (`tl.program_id(1)`), compute each step's offsets from it inside the kernel, "
                "and launch the kernel once over all steps (torch ops per step become one op over the whole tensor)."
            )
        return Report(node=loop.node, message=message, plan=plan)


def _long_at_file_shapes(model: FileModel, function: FunctionInfo, loop: Loop) -> Loop | None:
    """`for g in range(self.num_groups)`: a count the syntax does not tie to a data dimension, that the file's
    own shapes (a KernelBench-style forward) make more than a handful of steps, each launching work on a slice
    (no `self.layers[g]`: a loop over layers picks a module per step), as a data loop."""
    if loop.kind != "unknown" or not isinstance(loop.node, cst.For):
        return None
    iterable = loop.node.iter
    # `range(...)`, or a name bound to one (`steps = range(T) if d == 0 else range(T - 1, -1, -1)`): the file's
    # shapes give its count either way.
    if not (
        isinstance(iterable, cst.Call) and model.qualname(iterable.func) == "range" or isinstance(iterable, cst.Name)
    ):
        return None
    entry = model.sized_forward(function)
    if entry is None:
        return None
    line = model.line_of(loop.node)
    steps = max((op.repeat for op in entry.ops if op.loop_line == line), default=0)
    if steps <= HANDFUL:
        return None
    target = loop.node.target
    indices = {target.value} if isinstance(target, cst.Name) else set()
    for node in walk(loop.node.body):
        if isinstance(node, cst.Subscript) and model.code(node.value).startswith("self."):
            if any(isinstance(n, cst.Name) and n.value in indices for n in walk(node.slice[0])):
                return None  # a module or parameter picked per step: layers, not a data dimension
    return Loop(loop.node, "data", loop.bound, f"{steps} steps at the file's shapes")


def _independent_slices(model: FileModel, function: FunctionInfo, loop: Loop) -> bool:
    """At the file's shapes, the loop's ops are known and none carries a step's result into the next one's
    matrix product (`recurrent`): its steps are independent slices of the data."""
    entry = model.sized_forward(function)
    if entry is None:
        return False
    line = model.line_of(loop.node)
    inside = [op for op in entry.ops if op.loop_line == line]
    return (
        bool(inside)
        and not any(op.recurrent for op in inside)
        and all(op.kind == "triton" for op in inside if op.launches)
    )
