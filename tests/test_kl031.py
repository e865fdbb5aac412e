"""KL031 tf32-operand-layout: a TF32 tl.dot that reads an operand off K-major at the file's shapes, the
copy its fix makes per call (an input) or not (a parameter), and KL002's silence on such a copy."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

from kernlint import cost
from kernlint.engine import Settings, lint_source
from kernlint.model import build_model
from kernlint.source import parse

ROOT = Path(__file__).resolve().parent.parent

GEMM = """
import torch
import triton
import triton.language as tl
@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, sbk, sbn, EVEN_K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
       BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        if EVEN_K:
            b = tl.load(b_ptrs)
        else:
            b = tl.load(b_ptrs, mask=(k + rk)[:, None] < K, other=0.0)
        acc = tl.dot(tl.load(a_ptrs), b, acc)
        a_ptrs += BK
        b_ptrs += BK * sbk
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty(M, N, device=a.device)
        mm[(M // 128, N // 128)](a, b, c, M, N, K, b.stride(0), b.stride(1), EVEN_K=True, BM=128, BN=128, BK=32)
        return c
def get_inputs():
    return [torch.randn(4096, 4096), torch.randn(4096, 4096)]
def get_init_inputs():
    return []
"""
# The same kernel handed B's transpose, copied K-major in the call (the pair's after).
FIXED = GEMM.replace(
    "        mm[(M // 128, N // 128)](a, b, c, M, N, K, b.stride(0), b.stride(1),",
    "        bt = b.t().contiguous()\n        mm[(M // 128, N // 128)](a, bt, c, M, N, K, bt.stride(1), bt.stride(0),",
)


def lint(source: str, code: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({code})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == code]


def launch_op(source: str):
    model = build_model("k.py", source, parse(source))
    (op,) = [op for op in model.entry_point.ops if op.kind == "triton"]
    return op


def test_b_read_n_major_through_both_branches_of_its_load_is_found_with_the_inputs_bytes() -> None:
    op = launch_op(GEMM)
    assert (op.path, op.dot_b_off_kmajor, op.dot_b_kmajor, op.dot_a_mmajor) == ("tf32", True, False, False)
    assert op.dot_relayout_bytes == (0, 4096 * 4096 * 4)  # B, an input: copied K-major on every call
    fixed = launch_op(FIXED)
    assert (fixed.dot_b_off_kmajor, fixed.dot_b_kmajor, fixed.dot_relayout_bytes) == (False, True, (0, 0))


def test_the_finding_is_at_the_launch_with_the_products_times_and_the_copy() -> None:
    (found,) = lint(GEMM, "KL031")
    assert (found.span.line, found.category.value, found.severity.value) == (28, "memory-layout", "warning")
    assert "reading B with a stride along K other than 1" in found.message
    assert "137 GFLOP product" in found.message and "(a 64 MiB K-major copy per call included)" in found.message
    assert "`b.t().contiguous()`" in found.plan
    assert lint(FIXED, "KL031") == []


def test_the_fix_reads_both_operands_k_major_and_appends_the_inputs_copy() -> None:
    op = launch_op(GEMM)
    fixed = cost.kmajor_operands((op,), op.site_line, op.site_line)
    assert fixed is not None and len(fixed) == 2
    gemm, copy = fixed
    assert (gemm.dot_b_kmajor, gemm.dot_b_off_kmajor, gemm.dot_relayout_bytes) == (True, False, (0, 0))
    assert (copy.kind, copy.bytes) == ("transpose_copy", 2 * 4096 * 4096 * 4)
    # A parameter is laid out once, at load time: no copy per call.
    assert cost.kmajor_operands((replace(op, dot_relayout_bytes=(0, 0)),), op.site_line, op.site_line) == (gemm,)
    # Another launch's lines: nothing to fix.
    assert cost.kmajor_operands((op,), 1, 2) is None


def test_a_weight_parameter_read_n_major_costs_no_copy() -> None:
    source = GEMM.replace(
        "    def forward(self, a, b):",
        "    def __init__(self):\n        super().__init__()\n"
        "        self.b = torch.nn.Parameter(torch.randn(4096, 4096))\n    def forward(self, a):\n"
        "        b = self.b",
    ).replace("    return [torch.randn(4096, 4096), torch.randn(4096, 4096)]", "    return [torch.randn(4096, 4096)]")
    op = launch_op(source)
    assert (op.dot_b_off_kmajor, op.dot_relayout_bytes) == (True, (0, 0))
    (found,) = lint(source, "KL031")
    assert "copy per call" not in found.message


def test_fp16_ieee_tf32x3_and_a_few_rows_are_silent() -> None:
    assert (
        lint(
            GEMM.replace(
                "acc = tl.dot(tl.load(a_ptrs), b, acc)", 'acc = tl.dot(tl.load(a_ptrs), b, acc, input_precision="ieee")'
            ),
            "KL031",
        )
        == []
    )
    assert (
        lint(
            GEMM.replace(
                "acc = tl.dot(tl.load(a_ptrs), b, acc)",
                'acc = tl.dot(tl.load(a_ptrs), b, acc, input_precision="tf32x3")',
            ),
            "KL031",
        )
        == []
    )
    fp16 = GEMM.replace(
        "torch.randn(4096, 4096), torch.randn(4096, 4096)",
        "torch.randn(4096, 4096, dtype=torch.float16), torch.randn(4096, 4096, dtype=torch.float16)",
    )
    assert lint(fp16, "KL031") == []
    # 16 rows against an input B: the copy costs more than the layout saves.
    few = GEMM.replace(
        "torch.randn(4096, 4096), torch.randn(4096, 4096)", "torch.randn(128, 4096), torch.randn(4096, 4096)"
    )
    assert launch_op(few).dot_b_off_kmajor and lint(few, "KL031") == []


def test_a_product_whose_k_is_not_a_multiple_of_16_gains_nothing_from_k_major_operands() -> None:
    # Measured on an H200: KernelBench's 8205 x 2949 x 5921 product ran its K-major fix at 1.0x (Triton loads
    # tiles element by element along a K it cannot prove 16-aligned, in either layout).
    ragged = GEMM.replace(
        "torch.randn(4096, 4096), torch.randn(4096, 4096)", "torch.randn(4096, 4100), torch.randn(4100, 4096)"
    )
    assert launch_op(ragged).dot_b_off_kmajor and lint(ragged, "KL031") == []
    aligned = GEMM.replace(
        "torch.randn(4096, 4096), torch.randn(4096, 4096)", "torch.randn(4096, 4112), torch.randn(4112, 4096)"
    )
    assert [f.span.line for f in lint(aligned, "KL031")] == [28]


def test_tf32x3_prices_a_read_m_major_as_k_major_and_plain_tf32_does_not() -> None:
    # bench/conv_layout_h200.md: A gathered M-major cost tf32x3 1.13x, plain TF32 3.7x.
    c = cost.calibration().constants
    op = launch_op(GEMM)
    k_major = replace(op, dot_b_off_kmajor=False, dot_b_kmajor=True)
    m_major = replace(k_major, dot_a_mmajor=True)
    assert cost.gpu_us(m_major, c) > 2 * cost.gpu_us(k_major, c)
    assert cost.gpu_us(replace(m_major, dot_passes=3), c) == cost.gpu_us(replace(k_major, dot_passes=3), c)


def test_kl002_leaves_a_copy_that_makes_an_fp32_dot_operand_k_major_and_reports_the_others() -> None:
    assert lint(FIXED, "KL002") == []
    fp16 = FIXED.replace(
        "torch.randn(4096, 4096), torch.randn(4096, 4096)",
        "torch.randn(4096, 4096, dtype=torch.float16), torch.randn(4096, 4096, dtype=torch.float16)",
    )
    assert [f.span.line for f in lint(fp16, "KL002")] == [28]
    # The copy of a parameter is still KL002's: it belongs in __init__ whatever layout the kernel wants.
    parameter = FIXED.replace(
        "    def forward(self, a, b):",
        "    def __init__(self):\n        super().__init__()\n"
        "        self.b = torch.nn.Parameter(torch.randn(4096, 4096))\n    def forward(self, a):\n"
        "        b = self.b",
    )
    assert [f.span.line for f in lint(parameter, "KL002")] == [32]


def test_the_fix_relays_out_only_the_operand_whose_copy_pays() -> None:
    # A M-major from a large per-call activation, B N-major from a weight: on the H200's record (which has the
    # A-M-major probes), reading B K-major alone is the fastest fix; copying A too costs more than it saves.
    h200 = cost.load_calibration(str(ROOT / "kernels/kernlint/kernels/measurements/checks/h200/calibration_h200.json"))
    assert h200 is not None
    c = h200.constants
    op = replace(launch_op(GEMM), dot_a_mmajor=True, dot_b_off_kmajor=True, dot_relayout_bytes=(8 << 30, 0))
    (fixed,) = cost.kmajor_operands((op,), op.site_line, op.site_line, c)
    assert (fixed.dot_a_mmajor, fixed.dot_b_kmajor, fixed.dot_relayout_bytes) == (True, True, (8 << 30, 0))
    assert cost.gpu_us(fixed, c) < cost.gpu_us(op, c)
    # A small activation: both are read K-major, its copy appended.
    small = replace(op, dot_relayout_bytes=(64 << 20, 0))
    both, copy = cost.kmajor_operands((small,), op.site_line, op.site_line, c)
    assert (both.dot_a_mmajor, both.dot_b_kmajor, copy.bytes) == (False, True, 2 * (64 << 20))


def test_a_weight_computed_from_parameters_in_forward_is_laid_out_once() -> None:
    # `w = self.w.flip(0).contiguous()` on every call is the same values every call: KL031's fix lays it out once.
    source = GEMM.replace(
        "    def forward(self, a, b):",
        "    def __init__(self):\n        super().__init__()\n"
        "        self.w = torch.nn.Parameter(torch.randn(4096, 4096))\n    def forward(self, a):\n"
        "        b = self.w.flip(0).contiguous()",
    ).replace("    return [torch.randn(4096, 4096), torch.randn(4096, 4096)]", "    return [torch.randn(4096, 4096)]")
    op = launch_op(source)
    assert (op.dot_b_off_kmajor, op.dot_relayout_bytes) == (True, (0, 0))


def test_a_weights_per_call_transposed_copy_is_kl002s_and_a_weight_gathered_by_tap_is_off_k_major() -> None:
    # `self.w.t().contiguous()` handed as B [K, N]: KL002 reports the copy, whose fix reads the weight K-major.
    copied = GEMM.replace(
        "    def forward(self, a, b):",
        "    def __init__(self):\n        super().__init__()\n"
        "        self.w = torch.nn.Parameter(torch.randn(4096, 4096))\n    def forward(self, a):\n"
        "        b = self.w.t().contiguous()",
    ).replace("    return [torch.randn(4096, 4096), torch.randn(4096, 4096)]", "    return [torch.randn(4096, 4096)]")
    assert launch_op(copied).dot_b_off_kmajor
    assert lint(copied, "KL031") == [] and [f.span.line for f in lint(copied, "KL002")] == [28]
    # A B tile whose K and N strides are both other than 1 (a weight (C_out, C_in, kh, kw) read tap by tap).
    gathered = GEMM.replace("b.stride(0), b.stride(1)", "9 * b.stride(1), b.stride(0)")
    assert launch_op(gathered).dot_b_off_kmajor


def test_a_weight_read_through_its_transposed_view_is_k_major() -> None:
    # `w = self.lin.weight.t()` handed with `w.stride(0), w.stride(1)`: B [K, N] with unit stride along K, no copy.
    source = GEMM.replace(
        "    def forward(self, a, b):",
        "    def __init__(self):\n        super().__init__()\n"
        "        self.lin = torch.nn.Linear(4096, 4096)\n    def forward(self, a):\n"
        "        b = self.lin.weight.t()",
    ).replace("    return [torch.randn(4096, 4096), torch.randn(4096, 4096)]", "    return [torch.randn(4096, 4096)]")
    op = launch_op(source)
    assert (op.dot_b_kmajor, op.dot_b_off_kmajor) == (True, False)
    assert lint(source, "KL031") == []
    permuted = launch_op(source.replace("self.lin.weight.t()", "self.lin.weight.permute(1, 0)"))
    assert (permuted.dot_b_kmajor, permuted.dot_b_off_kmajor) == (True, False)


def test_a_permuted_views_strides_are_its_bases_permuted_and_a_reshape_forgets_them() -> None:
    from kernlint.model.shapes import Tensor

    x = Tensor((2, 3, 4, 5), "float32")
    assert x.strides == (60, 20, 5, 1)
    view = Tensor((2, 4, 5, 3), "float32", contiguous=False, layout=((2, 4, 5, 3), (60, 5, 1, 20)))
    assert view.strides == (60, 5, 1, 20)
    assert replace(view, shape=(8, 15)).strides is None


# An NCHW transposed-convolution gather the way generated kernels write it: A's rows summed from a base split
# out of the pixel index and a spatial offset behind a tl.where, its channels a plain range times H * W.
GATHER = """
import torch
import triton
import triton.language as tl
@triton.jit
def convt(x_ptr, w_ptr, y_ptr, N, C, H, W, CO, OH, OW, sh, sw, ph, pw, BM: tl.constexpr, BN: tl.constexpr,
          BK: tl.constexpr):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    mask_m = offs_m < N * OH * OW
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    n_idx = offs_m // (OH * OW)
    rem = offs_m % (OH * OW)
    oh = rem // OW
    ow = rem % OW
    row_base = n_idx.to(tl.int64) * C * H * W
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kh in tl.static_range(3):
        ih_num = oh + ph - kh
        ih = ih_num // sh
        vh = (ih_num >= 0) & (ih_num % sh == 0) & (ih < H)
        for kw in tl.static_range(3):
            iw_num = ow + pw - kw
            iw = iw_num // sw
            valid = vh & (iw_num >= 0) & (iw_num % sw == 0) & (iw < W) & mask_m
            sp = tl.where(valid, ih * W + iw, 0)
            for c0 in range(0, C, BK):
                offs_k = c0 + tl.arange(0, BK)
                a_ptrs = x_ptr + row_base[:, None] + offs_k[None, :] * (H * W) + sp[:, None]
                a = tl.load(a_ptrs, mask=valid[:, None] & (offs_k < C)[None, :], other=0.0)
                b = tl.load(w_ptr + offs_k[:, None] * (CO * 9) + offs_n[None, :] * 9 + (kh * 3 + kw))
                acc += tl.dot(a, b)
    tl.store(y_ptr + offs_m[:, None] * CO + offs_n[None, :], acc)
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.ConvTranspose2d(64, 64, 3, stride=2, padding=1)
    def forward(self, x):
        N, C, H, W = x.shape
        OH, OW = 2 * H - 1, 2 * W - 1
        y = torch.empty(N, OH, OW, 64, device=x.device)
        convt[(triton.cdiv(N * OH * OW, 128), 1)](
            x, self.conv.weight, y, N, C, H, W, 64, OH, OW, 2, 2, 1, 1, BM=128, BN=64, BK=32
        )
        return y
def get_inputs():
    return [torch.randn(16, 64, 256, 256)]
def get_init_inputs():
    return []
"""


def _launch(source: str):
    text = textwrap.dedent(source)
    entry = build_model("example.py", text, parse(text)).entry_point
    assert entry is not None and not entry.unknown
    (op,) = [op for op in entry.ops if op.kind == "triton"]
    return op


def test_a_gathered_from_nchw_pixels_reads_m_major_with_its_tile_known() -> None:
    op = _launch(GATHER)
    # The tile's M is found through the row base, whose arange a longer path (behind tl.where) reached first.
    assert op.dot_tile == (128, 64, 32, 4, 3)
    assert op.dot_a_mmajor and op.dot_b_off_kmajor


def test_a_gathered_from_channels_last_pixels_is_k_major() -> None:
    nhwc = GATHER.replace("offs_k[None, :] * (H * W) + sp[:, None]", "offs_k[None, :] + sp[:, None] * C").replace(
        "row_base = n_idx.to(tl.int64) * C * H * W", "row_base = n_idx.to(tl.int64) * H * W * C"
    )
    op = _launch(nhwc)
    assert not op.dot_a_mmajor


def test_a_weight_with_no_unit_stride_is_loaded_a_sector_per_lane_and_priced_so() -> None:
    op = _launch(GATHER)
    # The transposed convolution's weight (C_in, C_out, 3, 3) read tap by tap: K a C_out x 9 apart, N 9 apart.
    # Whichever axis Triton runs the lanes along, each lane reads a 32-byte sector of its own: every program's
    # B tiles, K x N x (M / BM) elements. (The grid's tiles cover M rounded up to BM: its flops count so.)
    m, k = -(-16 * 511 * 511 // 128) * 128, 64 * 9
    assert op.dot_gather_bytes == (0, m // 128 * k * 64 * 4)
    c = cost.calibration().constants
    assert cost.gpu_us(op, c) >= op.dot_gather_bytes[1] / c["bw_strided_lanes"]
    # Laid out K-major (the fix), its tiles load contiguous runs again.
    fixed = cost.kmajor_operands((op,), op.site_line, op.site_line, c)
    assert fixed is not None and fixed[0].dot_gather_bytes == (0, 0)


def test_a_weight_with_a_unit_stride_axis_or_lanes_within_a_sector_is_not_gathered() -> None:
    # Laid out (taps, C_out, C_in) once: K contiguous.
    kmajor = GATHER.replace(
        "w_ptr + offs_k[:, None] * (CO * 9) + offs_n[None, :] * 9 + (kh * 3 + kw)",
        "w_ptr + ((kh * 3 + kw) * CO + offs_n[None, :]) * C + offs_k[:, None]",
    )
    assert _launch(kmajor).dot_gather_bytes == (0, 0)
    # A 1-D convolution's weight (C_out, C_in, 3) read with K 3 apart: lanes 12 bytes apart share sectors.
    close = GATHER.replace(
        "w_ptr + offs_k[:, None] * (CO * 9) + offs_n[None, :] * 9 + (kh * 3 + kw)",
        "w_ptr + offs_k[:, None] * 3 + offs_n[None, :] * (C * 3) + kw",
    )
    assert _launch(close).dot_gather_bytes == (0, 0)


def test_a_3d_convolutions_tile_is_found_through_a_dozen_names() -> None:
    # The channels-last fix of a generated 3-D transposed convolution: A's rows reach their tl.arange through
    # `sp` behind tl.where, `iw = wn // stride`, `wn = ow + ...`, `ow = offs_m % OW`: past the old depth bound.
    path = ROOT / "fixtures/fresh/fixed/cg05_convT3d_dilated_strided.py"
    op = _launch(path.read_text(encoding="utf-8"))
    assert op.dot_tile == (64, 64, 32, 4, 3)
    assert op.flops == 2 * 34857 * 64 * 64 * 32 * 27  # programs x tile x taps: one channel block of 32


NCHW_CONV = """
import torch
import triton
import triton.language as tl
@triton.jit
def conv(x_ptr, w_ptr, y_ptr, C_in, H, W, C_out, BLOCK_OC: tl.constexpr, BLOCK_P: tl.constexpr,
         BLOCK_IC: tl.constexpr, KH: tl.constexpr, KW: tl.constexpr):
    pid = tl.program_id(0)
    blocks = tl.cdiv(H * W, BLOCK_P)
    n = pid // blocks
    p = (pid % blocks) * BLOCK_P + tl.arange(0, BLOCK_P)
    oc = tl.program_id(1) * BLOCK_OC + tl.arange(0, BLOCK_OC)
    oh = p // W
    ow = p % W
    acc = tl.zeros((BLOCK_OC, BLOCK_P), dtype=tl.float32)
    for kh in tl.static_range(KH):
        for kw in tl.static_range(KW):
            ih = oh + kh - 1
            iw = ow + kw - 1
            ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            for ic0 in range(0, C_in, BLOCK_IC):
                ic = ic0 + tl.arange(0, BLOCK_IC)
                x = tl.load(x_ptr + ((n * C_in + ic[:, None]) * H + ih[None, :]) * W + iw[None, :],
                            mask=ok[None, :], other=0.0)
                w = tl.load(w_ptr + ((oc[:, None] * C_in + ic[None, :]) * KH + kh) * KW + kw)
                acc += tl.dot(w, x)
    tl.store(y_ptr + (n * C_out + oc[:, None]) * (H * W) + p[None, :], acc)
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(128, 16, 3, 3))
    def forward(self, x):
        N, C_in, H, W = x.shape
        y = torch.empty(N, 128, H, W, device=x.device)
        conv[(N * triton.cdiv(H * W, 128), 2)](x, self.weight, y, C_in, H, W, 128,
                                               BLOCK_OC=64, BLOCK_P=128, BLOCK_IC=16, KH=3, KW=3)
        return y
def get_inputs():
    return [torch.randn(16, 16, 1024, 1024)]
def get_init_inputs():
    return []
"""


def test_an_nchw_convolutions_pixels_split_by_row_and_column_are_b_read_off_k_major() -> None:
    """B's address `((n * C_in + ic[:, None]) * H + ih[None, :]) * W + iw[None, :]`, iw from `p % W`: K (the
    channels) steps by H * W, the pixels run along the row; A, the weight (C_out, C_in, kh, kw) read as
    [C_out, C_in] per tap, has no unit stride. The fix reads both K-major (the input copied channels-last per
    call, the weight laid out once): measured on an H200 on fresh3's eg02, 5.21x."""
    op = launch_op(NCHW_CONV)
    assert op.dot_b_off_kmajor and not op.dot_a_mmajor and op.dot_gather_bytes[0] > 0
    assert op.dot_relayout_bytes == (0, 16 * 16 * 1024 * 1024 * 4)  # the input; the weight is a parameter
    (found,) = lint(NCHW_CONV, "KL031")
    assert "reading A (no unit stride on either axis" in found.message and "Read both of `conv`" in found.plan
    assert found.expected_speedup["for_this_file"]["kernelbench"] > 2
