"""KL020 gemm-without-dot, KL021 too-few-programs, KL022 torch-after-kernel
(issue 26 classes 2, 3, 7): what each reports, the estimate the cost model
gives its fix at the file's shapes, and the shape-table facts they rest on
(helpers read through, grid lambdas, a launch's output, a product's flops)."""

from __future__ import annotations

import textwrap

from kernlint import cost
from kernlint.engine import Settings, lint_source
from kernlint.model import build_model
from kernlint.source import parse


def lint(source: str, code: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({code})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == code]


def entry(source: str):
    source = textwrap.dedent(source)
    return build_model("k.py", source, parse(source)).entry_point


GEMM_FMA = """
import torch, triton
import triton.language as tl
@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(K):
        a = tl.load(a_ptr + rm * K + k)
        b = tl.load(b_ptr + k * N + rn)
        acc += a[:, None] * b[None, :]
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
def triton_mm(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=DTYPE)
    mm[(triton.cdiv(M, 64), triton.cdiv(N, 64))](a, b, c, M, N, K, BM=64, BN=64)
    return c
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        return triton_mm(a, b)
def get_inputs():
    return [torch.rand(2048, 2048, dtype=DTYPE), torch.rand(2048, 2048, dtype=DTYPE)]
def get_init_inputs():
    return []
"""


def test_kl020_reports_the_accumulation_and_estimates_tensor_cores_at_the_files_dtype() -> None:
    fp32 = lint(GEMM_FMA.replace("DTYPE", "torch.float32"), "KL020")
    fp16 = lint(GEMM_FMA.replace("DTYPE", "torch.float16"), "KL020")
    assert [(f.span.line, f.category.value) for f in fp32] == [(12, "algorithm-replacement")]
    assert "broadcast product of loads from `a_ptr` and `b_ptr`" in fp32[0].message
    assert "tl.dot(a, b, acc)" in fp32[0].plan
    c = cost.calibration().constants
    est32 = fp32[0].expected_speedup["for_this_file"]
    est16 = fp16[0].expected_speedup["for_this_file"]
    assert est32["status"] == est16["status"] == "estimated"
    # The fix moves 2*2048**3 flops from the CUDA cores (the calibration's Triton multiply-add product,
    # triton_fma_gemm) to a Triton tl.dot on TF32 (fp32 operands; triton_dot_tf32) or fp16 tensor cores: the estimate follows the
    # calibrated rates, not a typed number.
    assert abs(est32["graph"] - c["flops_triton_tf32"] / c["flops_fma"]) / est32["graph"] < 0.05
    assert est16["graph"] > est32["graph"]


def test_the_shape_table_reads_helpers_and_gives_a_product_its_flops() -> None:
    ep = entry(GEMM_FMA.replace("DTYPE", "torch.float16"))
    assert not ep.unknown
    launch = next(op for op in ep.ops if op.kind == "triton")
    assert launch.line == 22 and launch.site_line == 18  # forward's line, and the launch's own
    assert launch.flops == 2 * 2048**3 and launch.path == "fma" and launch.elem_bytes == 2
    assert launch.programs == 32 * 32
    assert launch.kernel_lines == (5, 13)  # the def through the kernel's last line


LAYERNORM = """
import torch, triton
import triton.language as tl
@triton.jit
def ln(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        tl.store(y_ptr + row * N + offs, tl.load(x_ptr + row * N + offs, mask=offs < N), mask=offs < N)
class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        B = x.shape[0]
        ln[GRID](x, y, x.numel() // B, BLOCK=1024)
        return y
def get_inputs():
    return [torch.rand(ROWS, 64, 256, 256)]
def get_init_inputs():
    return []
"""


def test_kl021_counts_programs_at_the_files_shapes_and_estimates_filling_the_gpu() -> None:
    found = lint(LAYERNORM.replace("GRID", "(B,)").replace("ROWS", "16"), "KL021")
    assert [(f.span.line, f.category.value) for f in found] == [(14, "algorithm-replacement")]
    assert "16 programs" in found[0].message and "132 SMs" in found[0].message
    estimate = found[0].expected_speedup["for_this_file"]
    c = cost.calibration().constants
    # 16 looping programs stream at 16 times one program's measured rate (the calibration's
    # triton_stream_programs probe), well under 16/132 of the bandwidth: the fix's gain is the whole
    # GPU's rate over theirs.
    rate = c["bw_program"]
    assert rate < c["bw_stream"] / c["sm_count"]
    assert abs(estimate["graph"] - c["bw_stream"] / (16 * rate)) / estimate["graph"] < 0.05
    # Enough rows, or a lambda grid over the same rows, or a small tensor: silent or counted the same.
    assert lint(LAYERNORM.replace("GRID", "(B,)").replace("ROWS", "256"), "KL021") == []
    lam = LAYERNORM.replace("GRID", 'lambda meta: (B * meta["BLOCK"] // 1024,)').replace("ROWS", "16")
    assert [f.span.line for f in lint(lam, "KL021")] == [14]
    small = LAYERNORM.replace("GRID", "(B,)").replace("ROWS", "16").replace("64, 256, 256", "1, 4, 256")
    assert lint(small, "KL021") == []


def test_fill_the_gpu_keeps_the_bytes_and_drops_the_grid_limit() -> None:
    ep = entry(LAYERNORM.replace("GRID", "(B,)").replace("ROWS", "16"))
    fixed = cost.fill_the_gpu(ep.ops, 14, 14)
    launch = next(op for op in fixed if op.kind == "triton")
    assert launch.programs == 0 and launch.bytes == next(op for op in ep.ops if op.kind == "triton").bytes
    assert cost.fill_the_gpu(ep.ops, 1, 2) is None


TAIL = """
import torch, triton
import triton.language as tl
@triton.jit
def act(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)
def launch(x):
    y = torch.empty_like(x)
    act[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y
class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = launch(x)
        y = torch.sigmoid(y)
        return y * 3.0
def get_inputs():
    return [torch.rand(8192, 8192)]
def get_init_inputs():
    return []
"""


def test_kl022_follows_the_helpers_output_and_removes_the_torch_passes() -> None:
    found = lint(TAIL, "KL022")
    assert [(f.span.line, f.category.value) for f in found] == [(14, "operator-fusion")]
    assert "`torch.sigmoid`, `* 3.0`" in found[0].message
    ep = entry(TAIL)
    launch = next(i for i, op in enumerate(ep.ops) if op.kind == "triton")
    tail = [op for op in ep.ops if op.kind == "elementwise"]
    assert len(tail) == 2 and launch in tail[0].inputs  # the kernel's output is what sigmoid reads
    fixed = cost.fuse_into_kernel(ep.ops, 14, 14)
    assert [op.kind for op in fixed] == [op.kind for op in ep.ops if op.kind != "elementwise"]
    estimate = found[0].expected_speedup["for_this_file"]
    c = cost.calibration().constants
    # Three passes of the same bytes (kernel, sigmoid, scale) become one.
    expected = (c["graph_base_us"] + 3 * ep.ops[launch].bytes / c["bw_stream"]) / (
        c["graph_base_us"] + ep.ops[launch].bytes / c["bw_stream"]
    )
    assert abs(estimate["graph"] - expected) / expected < 0.05


def test_kl022_leaves_a_returned_cast_output_alone() -> None:
    assert lint(TAIL.replace("y = torch.sigmoid(y)\n        return y * 3.0", "return y.half()"), "KL022") == []


def test_kl022_folds_a_sum_of_the_whole_output_into_the_kernel() -> None:
    """The sum is the only reader of the kernel's full-size output: reduced in the kernel, the
    output is neither written nor read back, so the kernel moves only its input."""
    source = TAIL.replace("y = torch.sigmoid(y)\n        return y * 3.0", "return y.sum(dim=0)")
    found = lint(source, "KL022")
    assert [f.span.line for f in found] == [14] and "only for `.sum()`" in found[0].message
    ep = entry(source)
    launch = next(i for i, op in enumerate(ep.ops) if op.kind == "triton")
    fixed = cost.fuse_into_kernel(ep.ops, 14, 14)
    assert [op.kind for op in fixed] == [op.kind for op in ep.ops if op.kind != "reduction"]
    kernel = next(op for op in fixed if op.kind == "triton")
    out = 8192 * 8192 * 4
    # Reads x and writes the column sums; the output and its read back are gone.
    assert kernel.bytes == ep.ops[launch].bytes - out + 8192 * 4


def test_the_reference_model_beside_modelnew_is_not_a_hot_path() -> None:
    source = TAIL.replace(
        "class ModelNew",
        "class Model(torch.nn.Module):\n    def forward(self, x):\n        return torch.relu(x @ x) * 2\nclass ModelNew",
    )
    result = lint_source("example.py", source, Settings())
    assert "KL004" not in {f.code for f in result.findings}
    alone = source.replace("class ModelNew", "class Other")
    assert "KL004" in {f.code for f in lint_source("example.py", alone, Settings()).findings}


def test_an_effect_changes_nothing_it_was_not_asked_about() -> None:
    ep = entry(TAIL)
    assert cost.tensor_cores(ep.ops, 1, 30) is None  # no product without tl.dot here
    assert cost.fuse_into_kernel(ep.ops, 15, 16) is None  # the torch ops' own lines hold no launch


def test_an_elementwise_kernel_over_square_tensors_has_no_product_flops() -> None:
    source = """
    import torch, triton
    import triton.language as tl
    @triton.jit
    def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
    class ModelNew(torch.nn.Module):
        def forward(self, x, y):
            out = torch.empty_like(x)
            add[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
            return out
    def get_inputs():
        return [torch.rand(4096, 4096), torch.rand(4096, 4096)]
    def get_init_inputs():
        return []
    """
    launch = next(op for op in entry(source).ops if op.kind == "triton")
    # Shapes alone read like [M, K] @ [K, N] -> [M, N]; the kernel has no multiply-add loop.
    assert launch.flops == 0 and launch.path == ""


def test_a_norm_after_the_kernel_costs_one_more_read_when_fused() -> None:
    source = TAIL.replace(
        "class ModelNew(torch.nn.Module):\n    def forward(self, x):",
        "class ModelNew(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.gn = torch.nn.GroupNorm(8, 64)\n    def forward(self, x):",
    )
    source = source.replace("y = torch.sigmoid(y)\n        return y * 3.0", "return self.gn(y)")
    source = source.replace("torch.rand(8192, 8192)", "torch.rand(16, 64, 1024, 1024)")
    ep = entry(source)
    assert not ep.unknown
    launch = next(i for i, op in enumerate(ep.ops) if op.kind == "triton")
    norm = next(op for op in ep.ops if op.kind == "reduction")
    fixed = cost.fuse_into_kernel(ep.ops, 17, 17)
    assert [op.kind for op in fixed] == ["alloc", "triton"]
    # The norm's read and write go; the kernel reads a tensor of its size once more for the statistics.
    assert fixed[launch].bytes == ep.ops[launch].bytes + norm.out_bytes
    found = lint(source, "KL022")
    assert [f.span.line for f in found] == [17] and "statistics" in found[0].plan


def test_kl022_puts_a_group_norm_whose_groups_fit_the_gemm_tile_in_its_epilogue() -> None:
    """A program per 64-column group of a row, after a GEMM of 128-column tiles: the norm belongs in the GEMM's
    epilogue (Operator Fusion, the launches merged in the estimate); groups of a whole 4,096-column row do not
    fit a tile."""
    from kernlint.findings import Category
    from kernlint.rules.kl022_torch_after_kernel import TorchAfterKernel

    invalid = next(e.code for e in TorchAfterKernel.INVALID if "def group_norm" in e.code)
    (found,) = lint(invalid, "KL022")
    assert found.span.line == 32 and found.category is Category.OPERATOR_FUSION
    assert "groups of 64 adjacent columns" in found.message and "128-column tiles" in found.message
    claim = found.expected_speedup["for_this_file"]
    assert claim["status"] == "estimated" and claim["graph"] > 1.2
    assert lint(invalid.replace("GROUP=64", "GROUP=4096").replace("4096 // 64", "4096 // 4096"), "KL022") == []
