from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint import cost
from kernlint.findings import Category, Severity
from kernlint.model import FileModel
from kernlint.model.shapes import Op, dead_with, live_ops
from kernlint.registry import Invalid, Report, Rule, Valid

# The whole call must take this much longer with the file's fp32 torch GEMMs on cuBLAS's fp32 path than with
# them on TF32 in a Triton kernel (the verdict's own bar for "worth optimizing").
MIN_GAIN = 1.2
# ... and a GEMM call is named only where it holds this share of the call's time (a small projection beside a
# large one is fixed with it, by the same plan, but is not worth a finding of its own).
MIN_SHARE = 0.05


def _example(forward: str, init: str = "", inputs: str = "torch.randn(4096, 4096)", head: str = "") -> str:
    """A KernelBench-style example: a model whose forward is `forward`, built by `init`, called on `inputs`."""
    lines = ["import torch", "import torch.nn as nn", "import torch.nn.functional as F", *head.splitlines()]
    lines += ["", "", "class ModelNew(nn.Module):", "    def __init__(self):", "        super().__init__()"]
    lines += [f"        {line}" for line in init.splitlines()]
    lines += ["", "    def forward(self, x):", *(f"        {line}" for line in forward.splitlines())]
    lines += ["", "", "def get_inputs():", f"    return [{inputs}]", "", "", "def get_init_inputs():", "    return []"]
    return "\n".join(lines) + "\n"


class Fp32TorchGemm(Rule):
    """
    ## What it does
    Finds the torch GEMMs of a KernelBench-style file's `forward` (`nn.Linear`,
    `F.linear`, `torch.matmul`/`mm`/`bmm`/`addmm`, `@`) that run on fp32
    operands without TF32 (torch's default: `torch.backends.cuda.matmul.allow_tf32`
    is off unless the file turns it on), where the file's own shapes make them
    matter: at the file's shapes, the whole call is estimated at least 1.2x
    faster with those products computed by a Triton `tl.dot` kernel on TF32,
    and the GEMM named holds at least 5% of the call. Generated solutions
    often keep such a GEMM in cuBLAS and move only the cheap elementwise tail
    into Triton: the GEMM's fp32 path is then most of the time left.

    It stays silent outside KernelBench-style files (a library or a model
    keeps torch's fp32 numerics unless its user asks), where the file
    switches TF32 on (`allow_tf32 = True`, `set_float32_matmul_precision("high")`:
    that holds for the reference `Model` too, so it gains nothing against it),
    on fp16, bf16 and int8 operands (and fp32 copies of them: KL016's
    finding, whose fix multiplies them in their own dtype), on convolutions (cuDNN runs fp32
    convolutions on TF32 by default), on GEMMs already written with tl.dot, on
    GEMMs the result does not need (KL027's) or that a sum over their outputs
    collapses to a GEMV (KL026's), and
    where the product's multiply-adds do not set its time (a GEMV, a product
    of a few rows: reading the weight does). At 16 rows the pair still
    measured 1.53x in a graph on an H200, from cuBLAS's fp32 kernel for so
    few rows reading its weight slowly, not from TF32: that is not this
    rule's claim, and it stays silent there.

    ## Why is this bad?
    On an H100, cuBLAS runs an fp32 GEMM on the CUDA cores at about 52
    TFLOPS (calibration probe `gemm_fp32`); a Triton tl.dot on fp32 tiles runs
    on the TF32 tensor cores, 278 TFLOPS at 128x128x32 with B read K-major
    (`triton_dot_tile_tf32k_*`): about 5x on the product. On an H200 the
    pair measured 5.45x in a graph at 4096^3, and four generated files
    (`fixtures/fresh3/fixed/`) fixed as the plan says measured 4.90-5.80x,
    where the rule estimates 5.16x for each with the H100 record; four held-out
    files their author called finished measured 3.95-5.37x (run `s55e`-`s55f`
    of `checks/h200/fixed_plans_h200.jsonl`). A B that forward copies from a
    parameter on every call (`w.t().contiguous()`) is that parameter: the plan
    reads it K-major as it lies and the copy goes (held-out level2_41: 4.53x
    measured, 4.05x estimated). TF32 rounds each
    product's inputs to a 10-bit mantissa, so the result moves by about 1e-3
    relative: inside KernelBench's 1e-2 tolerance (its v0 and v0.1 checks;
    `kernlint verify FILE --tolerance 1e-2`), outside the fp32 tolerance of
    1e-4 that its newer versions apply, and not a bit-exact match with fp32.

    ## Example
    ```python
    def forward(self, x):
        y = self.fc(x)  # nn.Linear(4096, 4096) on fp32 x [4096, 4096]: cuBLAS's fp32 path
        return fused_tail[grid](y, ...)
    ```

    ## Use instead
    ```python
    def forward(self, x):
        # one Triton kernel: tl.dot(x_tile, w_tile) on TF32, the weight [N, K] read K-major, the tail in the epilogue
        return linear_tail[grid](x, self.fc.weight, self.fc.bias, ...)
    ```

    ## Fix safety
    No automatic fix: the product moves into a Triton kernel, and its results
    move by TF32's rounding (about 1e-3 relative). Where the output must match
    fp32 to 1e-4 or better, keep the GEMM and suppress the finding.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl032_fp32_torch_gemm/` (`kernlint rule KL032` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL032"
    name = "fp32-torch-gemm"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.WARNING
    summary = "A large torch GEMM on fp32 operands runs on cuBLAS's fp32 path (no TF32): the tensor cores stay idle."
    bottleneck = (
        "Compute-bound on the CUDA cores: an fp32 torch GEMM without TF32 runs cuBLAS's fp32 kernels, about a "
        "fifth of what the TF32 tensor cores do on the same operands."
    )
    method = (
        "Compute the GEMM in a Triton kernel with tl.dot on the fp32 tiles (TF32, its default), the weight read "
        "K-major, and its elementwise tail in the kernel's epilogue."
    )
    priority = 14
    fix_effect = "tf32_gemm"

    VALID = [
        # The file turns TF32 on: the reference runs on it as well.
        Valid(
            _example(
                "return torch.relu(self.fc(x))",
                "self.fc = nn.Linear(4096, 4096)",
                head="torch.backends.cuda.matmul.allow_tf32 = True",
            )
        ),
        # fp16 operands: cuBLAS runs them on the tensor cores already.
        Valid(
            _example(
                "return torch.relu(self.fc(x))",
                "self.fc = nn.Linear(4096, 4096).half()",
                inputs="torch.randn(4096, 4096, dtype=torch.float16)",
            )
        ),
        # A GEMV: reading the weight is its time, on either path.
        Valid(
            _example("return torch.relu(self.fc(x))", "self.fc = nn.Linear(4096, 4096)", inputs="torch.randn(1, 4096)")
        ),
        # A small product: the launch, not the path, is its time.
        Valid(_example("return torch.relu(self.fc(x))", "self.fc = nn.Linear(64, 64)", inputs="torch.randn(32, 64)")),
        # A convolution: cuDNN runs fp32 convolutions on TF32 by default.
        Valid(
            _example(
                "return torch.relu(self.conv(x))",
                "self.conv = nn.Conv2d(64, 64, 3, padding=1)",
                inputs="torch.randn(32, 64, 128, 128)",
            )
        ),
        # fp32 copies of int8 operands: KL016's finding (an int8 GEMM), not a TF32 one.
        Valid(
            _example(
                "return torch.matmul(x.float(), self.weight.float().t())",
                "self.weight = nn.Parameter(torch.randint(-8, 8, (4096, 4096), dtype=torch.int8), requires_grad=False)",
                inputs="torch.randint(-8, 8, (4096, 4096), dtype=torch.int8)",
            )
        ),
        # Not a KernelBench-style file: torch's fp32 numerics are the library's to keep.
        Valid(
            """
            import torch

            def project(x, w):
                return torch.matmul(x, w)
            """
        ),
    ]
    INVALID = [
        # nn.Linear's cuBLAS fp32 GEMM, its tail elsewhere.
        Invalid(_example("y = self.fc(x)\nreturn torch.relu(y)", "self.fc = nn.Linear(4096, 4096)"), line=12),
        # F.linear on the module's own parameters.
        Invalid(
            _example(
                "return F.linear(x, self.weight, self.bias)",
                "self.weight = nn.Parameter(torch.randn(4096, 4096))\nself.bias = nn.Parameter(torch.zeros(4096))",
            ),
            line=13,
        ),
        # torch.matmul on a weight read transposed.
        Invalid(
            _example("return torch.matmul(x, self.weight.t())", "self.weight = nn.Parameter(torch.randn(4096, 4096))"),
            line=12,
        ),
        # The @ operator against an input-sized activation.
        Invalid(_example("return x @ x.t()"), line=11),
        # A batched product.
        Invalid(_example("return torch.bmm(x, x)", inputs="torch.randn(32, 1024, 1024)"), line=11),
        # The Linear inside an nn.Sequential, reported at the container's call.
        Invalid(_example("return self.net(x)", "self.net = nn.Sequential(nn.Linear(4096, 4096), nn.ReLU())"), line=12),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        entry = model.entry_point
        calibration = cost.calibration()
        if entry is None or entry.unknown or calibration is None:
            return
        c = calibration.constants
        # Work the result does not need (a GEMM feeding only a constant, or nothing): KL027's to delete.
        live = live_ops(entry.ops)
        seeds = {i for i, op in enumerate(entry.ops) if op.value is not None or i not in live}
        unneeded = dead_with(entry.ops, seeds, live) if seeds else set()
        # Products whose fp32 multiply-adds, not their bytes, set their time (a GEMV reads its weight at the same
        # rate on either path).
        gemms = [
            i
            for i, op in enumerate(entry.ops)
            if op.kind == "gemm"
            and op.path == "fp32"
            and op.flops / c["flops_fp32"] > op.bytes / c["bw_stream"]
            and not _upcast(entry.ops, op)
            and i not in unneeded
        ]
        if not gemms:
            return
        fixed = tuple(
            cost.on_tf32(op, weight=cost.parameter_copy(entry.ops, i) is not None) if i in gemms else op
            for i, op in enumerate(entry.ops)
        )
        before, after = cost.entry_time(entry.ops, c).kernelbench, cost.entry_time(fixed, c).kernelbench
        if before < MIN_GAIN * after:
            return
        calls: dict[int, tuple[cst.CSTNode, list[int]]] = {}
        for i in gemms:
            node = entry.nodes[i] if i < len(entry.nodes) else None
            if node is not None:
                calls.setdefault(id(node), (node, []))[1].append(i)
        forward = next((f for f in model.functions if f.qualname == f"{entry.model_class}.forward"), None)
        for node, indices in calls.values():
            if forward is not None and model.collapsible_reduction(node, forward) is not None:
                continue  # a GEMM summed over its outputs: KL026's, whose fix leaves no GEMM to speed up
            own = sum(entry.ops[i].repeat * cost.gpu_us(entry.ops[i], c) for i in indices)
            if own < MIN_SHARE * before:
                continue
            on_tf32 = sum(fixed[i].repeat * cost.gpu_us(fixed[i], c) for i in indices)
            flops = sum(entry.ops[i].repeat * entry.ops[i].flops for i in indices)
            copies = [cost.parameter_copy(entry.ops, i) for i in indices]
            weight = all(copy is not None for copy in copies)
            spelled = _spelled(model, node)
            message = (
                f"`{spelled}` in `{entry.model_class}.forward` runs a {flops / 1e9:,.0f} GFLOP GEMM on fp32 "
                f"operands without TF32 (cuBLAS's fp32 kernels, the CUDA cores): about {own:,.0f} us of the call's "
                f"{before:,.0f} here, against {on_tf32:,.0f} us for a Triton tl.dot on TF32"
            )
            operand = (
                "the weight read K-major as it lies ([N, K], an nn.Linear's layout; a [K, N] parameter laid out "
                "`w.t().contiguous()` once, in __init__)"
                if weight
                else "B read as it lies (an activation; a parameter would be laid out [N, K] once, in __init__)"
            )
            if weight and any(copy is not None and copy >= 0 for copy in copies):
                # B is a transposed copy of a parameter made on every call: the kernel reads the parameter itself.
                operand = (
                    "the weight read K-major as it lies ([N, K]) in place of its transposed copy made on every call, "
                    "which goes"
                )
            plan = (
                f"Compute `{spelled}`'s product in a Triton kernel with `tl.dot` on the fp32 tiles (TF32, "
                f"tl.dot's default), {operand}, and move the elementwise ops that follow it into that kernel's "
                "epilogue, so its output is written once. TF32 moves the result by about 1e-3 relative: inside "
                "KernelBench v0/v0.1's 1e-2 check (`kernlint verify FILE --tolerance 1e-2`), outside its newer "
                "fp32 tolerance of 1e-4. Turning TF32 on for the whole process "
                "(`torch.backends.cuda.matmul.allow_tf32 = True`) speeds the reference `Model` up as well."
            )
            yield Report(node=node, message=message, plan=plan)


def _upcast(ops: tuple[Op, ...], op: Op) -> bool:
    """A GEMM on operands converted to fp32 from narrower ones (KL016's finding: its fix multiplies them in their
    own dtype, on the tensor cores of that dtype)."""
    return any(
        0 <= i < len(ops) and ops[i].kind == "elementwise" and ops[i].note.startswith("cast from") for i in op.inputs
    )


def _spelled(model: FileModel, node: cst.CSTNode) -> str:
    """The call as a message names it: whole where it is one line, else its function (or its first line)."""
    text = model.code(node)
    if "\n" not in text:
        return text
    return model.code(node.func) if isinstance(node, cst.Call) else text.splitlines()[0]
