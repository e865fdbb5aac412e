"""The cost model (issue 25): static shapes of a KernelBench entry point,
constants derived from the committed calibration record, and estimates
checked against the validation pairs measured on the H100."""

from __future__ import annotations

import copy
import json
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest
from kernlint import cost
from kernlint.engine import lint_source
from kernlint.model import build_model
from kernlint.model.shapes import ConvProduct, Op
from kernlint.source import parse

ROOT = Path(__file__).resolve().parent.parent
CALIBRATION = ROOT / "kernels/kernlint/kernels/measurements/calibration_h100.json"

KERNELBENCH = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        w = self.linear.weight.t().contiguous()
        y = x @ w
        y = torch.relu(y) * 2.0
        s = y.sum().item()
        return y


batch_size = 16
in_features, out_features = 256, 512


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, out_features]
"""


def entry(source: str):
    return build_model("k.py", source, parse(source)).entry_point


def test_forward_is_read_at_the_files_own_shapes() -> None:
    e = entry(KERNELBENCH)
    assert e.model_class == "Model"
    assert e.inputs == (("x", "float32[16, 256]"),)
    assert e.sources == ("module constants", "get_inputs()", "get_init_inputs()")
    assert e.unknown == ()
    assert [(op.kind, op.line, op.bytes, op.flops) for op in e.ops] == [
        ("view", 11, 0, 0),  # .t(): no kernel, a dispatched op's host time
        ("transpose_copy", 11, 2 * 512 * 256 * 4, 0),
        ("gemm", 12, (16 * 256 + 256 * 512 + 16 * 512) * 4, 2 * 16 * 512 * 256),
        ("elementwise", 13, 2 * 16 * 512 * 4, 0),
        ("elementwise", 13, 2 * 16 * 512 * 4, 0),
        ("reduction", 14, 16 * 512 * 4 + 4, 0),
        ("sync", 14, 0, 0),
    ]
    assert e.ops[2].path == "fp32"  # torch's default: no TF32 for matmul


NORM_PARAMETERS = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, shape, channels):
        super().__init__()
        self.ln = nn.LayerNorm(normalized_shape=shape)
        self.bn = nn.BatchNorm2d(channels, eps=1e-3)

    def forward(self, x, y):
        n = self.ln.weight.numel()
        scale = self.bn.weight * self.bn.eps
        return x.view(-1, n) * 2, y * scale[None, :, None, None]


def get_inputs():
    return [torch.randn(8, 32, 64), torch.randn(4, 16, 8, 8)]


def get_init_inputs():
    return [(32, 64), 16]
"""


def test_a_normalization_modules_weight_bias_and_eps_are_known() -> None:
    e = entry(NORM_PARAMETERS)
    assert e.unknown == ()
    ops = [op for op in e.ops if op.kind != "view"]  # the .view() calls: host time only
    assert [op.kind for op in ops] == ["elementwise", "elementwise", "elementwise"]
    assert ops[0].bytes == 2 * 16 * 4  # the BatchNorm weight times its eps
    assert ops[1].bytes == 2 * 8 * 32 * 64 * 4  # x viewed as [8, 2048] (n = 32 * 64), read and written


DIAG_AND_BIAS = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b, bias):
        return torch.diag(a) @ b + bias


def get_inputs():
    return [torch.randn(64), torch.randn(64, 32), torch.randn(32)]


def get_init_inputs():
    return []
"""


def test_torch_diag_is_a_filled_matrix_then_a_diagonal_copy_and_a_bias_add_is_broadcast() -> None:
    e = entry(DIAG_AND_BIAS)
    assert [(op.kind, op.note, op.bytes, op.inputs) for op in e.ops] == [
        ("alloc", "torch.diag zeros", 64 * 64 * 4, ()),  # the N x N zeros, filled by a kernel
        ("elementwise", "diag", 2 * 64 * 4, (-2, 0)),  # the vector read, the diagonal written
        ("gemm", "", (64 * 64 + 64 * 32 + 64 * 32) * 4, (1, -3)),
        ("elementwise", "", (64 * 32 + 32 + 64 * 32) * 4, (2, -4)),
    ]
    assert [op.broadcast for op in e.ops] == [False, False, False, True]


def test_the_row_scaling_fix_drops_the_diagonal_and_its_zeros() -> None:
    ops = entry(DIAG_AND_BIAS).ops
    fixed = cost.structured_gemm(ops, 8, 8)
    assert [(op.kind, op.note, op.inputs, op.broadcast) for op in fixed] == [
        ("elementwise", "row scaling", (-2, -3), True),
        ("elementwise", "", (0, -4), True),
    ]


def test_a_loop_records_its_body_once_with_its_trip_count() -> None:
    source = KERNELBENCH.replace(
        "        w = self.linear.weight.t().contiguous()\n",
        "        w = self.linear.weight.t()\n        for step in range(7):\n            x = x + 1.0\n",
    )
    ops = entry(source).ops
    assert [(op.kind, op.repeat, op.loop_line) for op in ops[:2]] == [("view", 1, 0), ("elementwise", 7, 12)]


def test_what_cannot_be_evaluated_stays_unknown_and_says_why() -> None:
    source = KERNELBENCH.replace("torch.randn(batch_size, in_features)", "torch.randn(batch_size, load_size())")
    e = entry(source)
    assert e is None or e.unknown
    found = [f for f in lint_source("k.py", KERNELBENCH.replace("batch_size = 16", "batch_size = n()")).findings]
    estimates = [(f.expected_speedup or {}).get("for_this_file") for f in found if f.code == "KL002"]
    assert estimates and estimates[0]["status"] == "unknown"
    assert estimates[0]["reason"].startswith("shapes not static: get_inputs(): ")


def test_a_file_without_get_inputs_is_not_estimated() -> None:
    assert entry("import torch\nclass Model:\n    def forward(self, x):\n        return x\n") is None


def test_every_constant_is_derived_from_the_records_probe_times() -> None:
    record = json.loads(CALIBRATION.read_text())
    constants = cost.derive_constants(record)
    probe = record["probes"]["copy_fp32_1g"]
    best = min(probe["modes"][m]["median_us"] for m in ("graph", "kernelbench"))
    assert constants["bw_stream"] == float(f"{probe['bytes'] / best:.4g}")
    # Each constant moves with the times it comes from: none is typed.
    slower = copy.deepcopy(record)
    for p in slower["probes"].values():
        for mode in p["modes"].values():
            mode["median_us"] *= 2
    halved = cost.derive_constants(slower)
    for key in ("bw_stream", "bw_transpose_2byte", "flops_fp16", "flops_int8", "flops_attention"):
        assert halved[key] == pytest.approx(constants[key] / 2, rel=1e-3), key
    for key in ("gpu_floor_us", "eager_host_op_us", "kb_host_op_us", "eager_sync_us", "kb_sync_us"):
        assert halved[key] == pytest.approx(constants[key] * 2, rel=1e-3), key


def test_a_finding_carries_the_estimate_for_this_file_and_the_pairs_measurement() -> None:
    found = {f.code: f for f in lint_source("k.py", KERNELBENCH).findings}
    speedup = found["KL002"].expected_speedup
    estimate = speedup["for_this_file"]
    assert estimate["status"] == "estimated"
    assert estimate["calibration"] == "kernels/measurements/calibration_h100.json"
    assert estimate["entry_point"] == "Model.forward"
    assert estimate["graph"] is None  # the .item() makes the call impossible to capture
    assert estimate["kernelbench"] > 1.0 and estimate["eager"] > 1.0
    assert estimate["before_us"]["kernelbench"] > estimate["after_us"]["kernelbench"]
    assert speedup["pair"] == "kl002_per_call_relayout"  # the pair's measurement stays, named as the pair's


def test_the_estimate_is_within_the_bars_on_the_measured_validation_pairs() -> None:
    """Issue 25's validation: before/after files measured on the H100 with
    `kernlint verify AFTER --reference BEFORE` (fixtures/costmodel/): six
    rules at two shapes each, KL003 at three (a small fixed tile, a square
    shape where its tile is already the set's best, a decode shape), KL021 at one shape, KL022 at three (two
    elementwise kernels, a conv's tail of two kernels, a reduction folded
    into its kernel), six convolution tails of KL004, a ResNet-18-style
    network at batch 2 and 12 for KL028 and a depthwise convolution at two
    shapes for KL029, and KL026's collapse inside a Triton kernel; and, in a later H100 lease, KL022's
    statistics pass (an RMS norm's), KL007 over Triton launches reading a fused qkv tensor and KL002 on a
    weight's column slices. The files
    whose gain is host time were measured in the newest calibration's own
    lease (kl002_decode, kl003_*, kl004_convbn/convbnstem, kl005_scan, kl006_*,
    kl007_gemm, kl011_*, kl026_kernelsum, kl028_*, kl029_dwsmall); the others, GPU-bound
    files of a millisecond or more a call, in earlier leases. The bar is within 1.5x on 10 of 12 (83%)
    in each mode, and worth_optimizing right on all; the misses are listed
    exactly, so a change to the model or the record shows here."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import costmodel

    rows = costmodel.rows()
    assert len(rows) == 33 and len({r["rule"] for r in rows}) == 12
    names = {r["name"] for r in rows}
    missed = {mode: names - set(costmodel.close(rows, mode)) for mode in ("kernelbench", "eager", "graph")}
    # A graph cannot capture the files that synchronize: they are not close in graph mode either.
    no_graph = {r["name"] for r in rows if r["measured"].get("graph") is None}
    # In the newest calibration's lease (the first with the tile-config probes):
    # - kl003_decode: 16 rows against an 8192^2 fp16 weight, 128 programs of a 64x64x32 tile (4 warps, 3
    #   stages) measure 90.7 us in a graph, 1.5 TB/s; the autotuned set's 16x64x128 tile (4 stages) 45.9, at
    #   the DRAM's rate. The model streams both at the full rate (1.00x estimated; 1.98x graph, 1.43x
    #   KernelBench measured): a grid of about one program per SM is bound by each program's loads in flight
    #   (its tile's bytes times its stages), which no probe measures for a tl.dot kernel yet. Its worth is
    #   wrong (1.43x measured, "no" estimated).
    # - kl004_convbn: its fix's three Triton launches, a zeroed buffer and the views and module lookups around
    #   them: the after measures 260 us a call in KernelBench mode where its graph takes 105 and eager 160
    #   (0.67x KernelBench measured, 1.08x eager, 1.56x graph; 1.57x estimated). It measured between 0.50x
    #   and 2.07x KernelBench across leases; its worth is wrong in this one.
    # - kl005_scan: its 4,096 strided per-step kernels run at 1.8 us each in a graph, above the probes' 1.2
    #   us floor (554x measured, 317x estimated), and eager 1,709x against 937x in this lease's host costs.
    # - kl002_slice (a later lease): its after, two GEMVs on strided views and a tanh, is host-bound, and that
    #   lease's host spent 17-26 us on one small torch matmul (bench/strided_host_h100.md), above the
    #   calibration lease's per-op cost: 1.54x KernelBench measured (0.94x in a first run), 2.58x estimated;
    #   its graph time is within 1.21x. Its worth agrees (over 1.2x both).
    # - kl029_dwsmall: KL029 stays silent at 1x32x28x28 (both kernels at the GPU's floor in the model: it
    #   claims 1.0x); the Triton kernel measured 1.12x KernelBench, 0.58x eager and 1.26x in a graph.
    assert missed == {
        "kernelbench": {"kl002_slice", "kl004_convbn", "kl029_dwsmall"},
        "eager": {"kl005_scan", "kl029_dwsmall"},
        "graph": {"kl003_decode", "kl005_scan", "kl029_dwsmall"} | no_graph,
    }, missed
    # The issue's bar, 10 of 12 (83%), in each mode: KernelBench mode at 30 of 33 (91%), eager mode at 31 of
    # 33 (94%), graph mode at 26 of 29 (90%).
    assert len(names - missed["kernelbench"]) == 30 and len(names - missed["eager"]) == 31
    for mode in ("kernelbench", "eager"):
        assert len(names - missed[mode]) * 12 >= 10 * len(names)
    assert (len(names - missed["graph"])) * 12 >= 10 * len(names - no_graph)
    # worth_optimizing: right on 31 of 33; kl003_decode and kl004_convbn (above) are not.
    assert [r["name"] for r in rows if not costmodel.verdict_agrees(r)] == ["kl003_decode", "kl004_convbn"]
    # A CUDA graph captures exactly the files the model says it can (the others synchronize), among the files
    # with a finding.
    estimated = [r for r in rows if r["estimate"].get("status") == "estimated"]
    assert [r["name"] for r in estimated if r["measured"].get("graph") is None] == [
        r["name"] for r in estimated if r["estimate"].get("graph") is None
    ]
    # Each rule at one shape where its fix measured under 1.1x and one over 3x (KernelBench mode).
    # KL028's second shape (batch 12) was to pay little: it measured 1.47x-2.70x across leases (the host's
    # speed sets it); its pair's batch-128 shape is the one under 1.1x. KL029's two files (a depthwise
    # convolution) measured 1.12x and 2.51x: neither bar; its pair's 3x3 max pool measured 4.35x (KernelBench
    # mean) at 16x64x512x512. KL026's one file (the collapse inside a Triton kernel, 7.15x) pays over 3x; its
    # pair's m128 shape measured 0.85x.
    measured = {
        rule: sorted(r["measured"]["kernelbench"] for r in rows if r["rule"] == rule)
        for rule in {r["rule"] for r in rows} - {"KL021", "KL022", "KL026", "KL028", "KL029"}
    }
    assert len(measured) == 7
    assert all(values[-1] > 3 for values in measured.values()), measured
    # KL011's small-gain shape (a per-call host-built bias beside an fp16 GEMM) measured 1.08x and 1.18x in
    # KernelBench mode in two leases at 8192x4096x4096, where the synchronizing copy's wait is a larger share;
    # at 8192^3 it measured 1.07x. Every rule's low shape is under 1.1x.
    assert [rule for rule, values in sorted(measured.items()) if values[0] >= 1.1] == [], measured


def test_recalibrated_on_an_h200_the_model_predicts_the_h200s_measurements() -> None:
    """The model's structure on a GPU it was not built on: every constant re-measured by the same probes on an
    H200 (kernels/kernlint/kernels/measurements/checks/h200/), none fitted to that GPU's validation
    measurements, against the 43 validation files measured there. The misses are listed exactly."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import costmodel

    check = ROOT / "kernels/kernlint/kernels/measurements/checks/h200"
    h200 = cost.load_calibration(str(check / "calibration_h200.json"))
    assert h200 is not None and h200.gpu == "NVIDIA H200"
    original = cost.calibration
    cost.calibration = lambda target_gpu=None: h200  # type: ignore[assignment]
    try:
        rows = costmodel.rows(str(check / "costmodel"))
    finally:
        cost.calibration = original  # type: ignore[assignment]
    assert len(rows) == 43
    names = {r["name"] for r in rows}
    missed = {mode: names - set(costmodel.close(rows, mode)) for mode in ("kernelbench", "eager", "graph")}
    no_graph = {r["name"] for r in rows if r["measured"].get("graph") is None}
    # Host time (a lease's launches and ops against the probes'); kl004_skinnyk, whose small-K fp16 GEMM and
    # epilogue the fix runs slower on the H200 than estimated; kl029_dwsmall, where kernlint rightly reports
    # nothing (its fix measures slower), which the comparison counts as no estimate; kl017_smallconv, whose
    # kernel took longer to reload in that lease (about 3.5 ms a call) than the probe's (1.6 ms);
    # kl026_kernelsum, whose before is now right (477 us estimated at the K-major probe's rate, 484 measured)
    # but whose after (the weight's column sum and a GEMV) measured 52.5 us against 36.6 estimated.
    # Of the four pairs added for this stop's rules: kl022_dwsep, where kernlint reports nothing (the fused
    # depthwise-separable kernel measured 0.80x); kl027_clamp, whose before (a 3-channel conv3d, GroupNorm and
    # the kernel) is within the bar since its conv3d runs at the conv3d probe's rate (20.2x estimated, 29.6x
    # measured; it was 12.2x at the 2-D probes'), except in graph mode, which has no estimate (the seed's
    # .item() is a sync). kl030_rmsnorm (one warp per pixel, 64 lanes 1 MB apart) is within the bar since its
    # stores are priced as its loads are, each lane a sector of its own: 3.75 ms estimated for the before, 5.79
    # measured (2.53 with the loads alone); 7.3x estimated, 10.5x measured.
    # kl031_conv (a later stop): an implicit-GEMM convolution on tf32x3 gathering A from NCHW, against the same
    # kernel gathering from a channels-last copy: KL031 rightly reports nothing (tf32x3 is not its case: A's
    # layout measured 1.13x there, bench/conv_layout_h200.md) and the fix measured 0.98x-1.02x.
    added = {"kl022_dwsep", "kl031_conv"}
    assert missed == {
        "kernelbench": {
            "kl004_convbn",
            "kl004_skinnyk",
            "kl011_tiny",
            "kl017_smallconv",
            "kl026_kernelsum",
            "kl028_resnet2",
            "kl029_dwsmall",
        }
        | added,
        "eager": {"kl004_skinnyk", "kl005_scan", "kl006_small", "kl011_tiny", "kl028_resnet2", "kl029_dwsmall"} | added,
        "graph": no_graph | {"kl004_skinnyk", "kl029_dwsmall", "kl027_clamp"} | added,
    }, missed
    # kl003_decode, wrong on the H100 whose record lacks the per-program tl.dot probes, is right here; the
    # verdicts that are wrong: kl004_convbn's (host time: 0.67x KernelBench measured), and kl004_convbiask's,
    # on the bar: 1.198x measured (median; 1.201x mean), 1.29x estimated with the bias's pass at the broadcast
    # probe's rate (1.17x at the streaming rate, which put eight of ten fresh files' KL004 fixes under).
    assert [r["name"] for r in rows if not costmodel.verdict_agrees(r)] == ["kl004_convbiask", "kl004_convbn"]


def test_a_file_that_is_not_a_calibration_record_loads_as_none(tmp_path: Path) -> None:
    path = tmp_path / "calibration_x.json"
    path.write_text('{"environment": {}}')
    assert cost.load_calibration(str(path)) is None
    assert cost.load_calibration(str(tmp_path / "missing.json")) is None


TUNED_AND_IEEE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


class ModelNew(nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty(M, N, device=a.device, dtype=a.dtype)
        mm_kernel[(M // 64, N // 64)](a, b, c, M, N, K, BM=64, BN=64, BK=32, num_warps=4)
        return c
"""


def test_a_tuning_finding_ranks_after_a_structural_one(tmp_path: Path) -> None:
    """KL003's pair measures more than KL018's, but a fixed config's cost at the
    file's shapes is unknown: the verdict names the tensor cores left idle."""
    from kernlint.runner import run

    path = tmp_path / "tuned_and_ieee.py"
    path.write_text(TUNED_AND_IEEE)
    outcome = run([str(path)])
    assert {"KL003", "KL018"} <= {f.code for f in outcome.report.findings}
    (verdict,) = outcome.report.advice
    assert verdict["worth_optimizing"] == "yes"
    assert verdict["optimisation method"].startswith("Algorithm Replacement: Let tl.dot use TF32")


def test_verdict_says_marginal_between_ten_and_twenty_percent(tmp_path: Path) -> None:
    from kernlint.runner import run

    # The prefill file at a quarter of its rows: the per-call weight copy is a
    # larger share of the GEMM, and the estimate lands between 1.1x and 1.2x.
    source = (ROOT / "fixtures/costmodel/kl002_prefill_before.py").read_text()
    assert "batch_size = 65536" in source
    marginal = tmp_path / "kl002_prefill_quarter.py"
    marginal.write_text(source.replace("batch_size = 65536", "batch_size = 16384"))
    outcome = run([str(marginal)])
    (verdict,) = outcome.report.advice
    assert verdict["worth_optimizing"] == "no"
    assert "marginal (10-20%)" in verdict["reason"]


def test_json_with_an_estimate_is_schema_valid() -> None:
    from conftest import run_kernlint
    from kernlint import schemas

    proc = run_kernlint("--format", "json", "fixtures/costmodel/kl002_decode_before.py")
    document = json.loads(proc.stdout)
    schemas.validate("json", document)
    (finding,) = [f for f in document["findings"] if f["code"] == "KL002"]
    assert finding["expected_speedup"]["for_this_file"]["status"] == "estimated"


CONV = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, c_in, c_out, k):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, k, stride=2, padding=1)
        self.pool = nn.MaxPool2d(kernel_size=2)
        self.norm = nn.GroupNorm(8, c_out)

    def forward(self, x):
        return self.pool(torch.relu(self.norm(self.conv(x))))


def get_inputs():
    return [torch.randn(8, 3, 64, 64)]


def get_init_inputs():
    return [3, 32, 3]
"""


def test_a_convolution_is_a_gemm_at_its_output_size_on_tf32() -> None:
    ops = entry(CONV).ops
    assert [(op.kind, op.note) for op in ops] == [
        ("gemm", "nn.Conv2d"),
        ("reduction", "nn.GroupNorm"),
        ("elementwise", ""),
        ("reduction", "nn.MaxPool2d"),
    ]
    conv = ops[0]
    out = 8 * 32 * 32 * 32  # (64 + 2 - 3) // 2 + 1 = 32
    assert conv.flops == 2 * out * 3 * 3 * 3 and conv.path == "tf32"
    assert conv.bytes == (8 * 3 * 64 * 64 + 32 * 3 * 3 * 3 + out) * 4
    assert ops[3].out_bytes == out // 4 * 4


@pytest.mark.parametrize(
    ("setting", "path"),
    [
        ("", "fp32"),
        ("torch.backends.cuda.matmul.allow_tf32 = True", "tf32"),
        ("torch.backends.cuda.matmul.allow_tf32 = False", "fp32"),
        ('torch.set_float32_matmul_precision("high")', "tf32"),
        ('torch.set_float32_matmul_precision("highest")', "fp32"),
        ('torch.backends.cuda.matmul.fp32_precision = "tf32"', "tf32"),
    ],
)
def test_an_fp32_torch_gemm_runs_as_tf32_only_where_the_file_switches_tf32_on(setting: str, path: str) -> None:
    source = KERNELBENCH.replace("import torch.nn as nn\n", f"import torch.nn as nn\n{setting}\n", 1)
    assert setting in source or not setting
    (gemm,) = [op for op in entry(source).ops if op.kind == "gemm"]
    assert gemm.path == path
    # Switched on in the model's __init__: the harness builds the model before it times either.
    moved = KERNELBENCH.replace("super().__init__()\n", f"super().__init__()\n        {setting}\n", 1)
    assert setting in moved or not setting
    (gemm,) = [op for op in entry(moved).ops if op.kind == "gemm"]
    assert gemm.path == path


HOST_TABLE = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        inv_freq = (1.0 / 10000 ** (torch.arange(0, self.dim).float() / self.dim)).to(x.device)
        return x * inv_freq


def get_inputs():
    return [torch.randn(16, 4096)]


def get_init_inputs():
    return [4096]
"""


def test_arithmetic_on_a_host_tensor_runs_on_the_host_and_its_move_waits() -> None:
    """A table built on the CPU (no device=) is computed there: torch calls
    with a host cost and no kernel; its .to(device) is a pageable copy the
    host waits for, so the call cannot be captured in a CUDA graph (the KL011
    pair's before measured so: no graph time)."""
    e = entry(HOST_TABLE)
    assert [(op.kind, op.launches) for op in e.ops] == [
        ("alloc", False),
        ("elementwise", False),
        ("elementwise", False),
        ("elementwise", False),
        ("sync", True),
        ("elementwise", True),
    ]
    assert all(op.note == "on the host" for op in e.ops[1:4])
    times = cost.entry_time(e.ops, cost.calibration().constants)
    assert times.graph is None


def test_a_module_converted_with_half_keeps_its_shapes() -> None:
    """`nn.GRU(...).half()` (the KL024 pair's before) is the module in fp16, not an unknown call."""
    source = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(128, 256, num_layers=2).half()
        self.fc = nn.Linear(256, 64).to(torch.float16)

    def forward(self, x, h0):
        out, _ = self.gru(x, h0)
        return self.fc(out)


def get_inputs():
    return [torch.randn(64, 8, 128).half(), torch.randn(2, 8, 256).half()]


def get_init_inputs():
    return []
"""
    e = entry(source)
    assert e.unknown == ()
    assert [op.kind for op in e.ops] == ["gemm", "rnn", "gemm", "rnn", "gemm"]
    assert e.ops[-1].path == "fp16" and e.ops[-1].in_bytes[1] == 64 * 256 * 2  # the Linear's weight in fp16


TRITON_GEMM_EPILOGUE = """\
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


def matmul(a, b):
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, device=a.device, dtype=torch.float32)
    mm_kernel[(M // 64, N // 64)](a, b, c, M, N, K, BM=64, BN=64, BK=32)
    return c


class ModelNew(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(n))

    def forward(self, a, b):
        c = matmul(a, b)
        c = c + self.bias[None, :]
        return torch.relu(c) * 2.0


def get_inputs():
    return [torch.randn(512, 1024, dtype=torch.float16), torch.randn(1024, 2048, dtype=torch.float16)]


def get_init_inputs():
    return [2048]
"""


def test_a_triton_gemm_carries_its_flops_and_takes_its_epilogue() -> None:
    """A tl.dot kernel's launch is timed with its product's flops on its
    operands' tensor cores (fp16 here), and KL004's fix folds the torch ops
    after it into its store, as after a torch GEMM (the KL004 pair's before
    was "not found" when its GEMM was a Triton kernel)."""
    e = entry(TRITON_GEMM_EPILOGUE)
    (launch,) = [op for op in e.ops if op.kind == "triton"]
    assert launch.flops == 2 * 512 * 2048 * 1024 and launch.path == "fp16"
    found = [f for f in lint_source("k.py", TRITON_GEMM_EPILOGUE).findings if f.code == "KL004"]
    assert found, "KL004 reports the epilogue"
    estimate = found[0].expected_speedup["for_this_file"]
    assert estimate["status"] == "estimated" and estimate["kernelbench"] > 1.0
    assert estimate["after_us"]["graph"] < estimate["before_us"]["graph"]


def test_a_tl_dot_path_follows_the_operands_conversion_and_precision() -> None:
    """fp16 operands upcast to fp32 in the kernel run as TF32 (KL001's
    defect); fp32 with input_precision="ieee" runs without tensor cores."""
    upcast = TRITON_GEMM_EPILOGUE.replace("acc += tl.dot(a, b)", "acc += tl.dot(a.to(tl.float32), b.to(tl.float32))")
    ieee = upcast.replace("b.to(tl.float32))", 'b.to(tl.float32), input_precision="ieee")')
    paths = [[op.path for op in entry(s).ops if op.kind == "triton"] for s in (TRITON_GEMM_EPILOGUE, upcast, ieee)]
    assert paths == [["fp16"], ["tf32"], ["fp32"]]


ATTENTION = """
import math
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, q, k, v):
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = torch.softmax(att, dim=-1)
        return att @ v


def get_inputs():
    return [torch.rand(16, 8, 1024, 64, dtype=DTYPE) for _ in range(3)]


def get_init_inputs():
    return []
"""


def test_a_fused_attention_runs_no_faster_than_its_gemms_path() -> None:
    """flash_attention keeps the scores GEMM's path; an fp32 attention fused is not an fp16 SDPA."""
    c = cost.calibration().constants
    for dtype, path in (("torch.float32", "fp32"), ("torch.float16", "fp16")):
        ops = entry(ATTENTION.replace("DTYPE", dtype)).ops
        first = min(op.line for op in ops if op.kind == "gemm")
        fused = next(op for op in cost.flash_attention(ops, first, first + 2) if op.kind == "attention")
        assert fused.path == path
        rate = min(c["flops_attention"], c[f"flops_{path}"])
        assert cost.gpu_us(fused, c) >= fused.flops / rate * 0.999
    assert c["flops_fp32"] < c["flops_attention"] < c["flops_fp16"]


CHAIN = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def act(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, v * tl.sigmoid(v), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        n = x.numel()
        y = torch.empty_like(x)
        act[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        z = torch.empty_like(x)
        act[(triton.cdiv(n, 1024),)](y, z, n, BLOCK=1024)
        return z


def get_inputs():
    return [torch.rand(4096, 8192)]


def get_init_inputs():
    return []
"""


def test_a_second_elementwise_kernel_merges_into_the_first() -> None:
    """KL022's effect on two launches in a row: one launch, x read and z written, y never stored."""
    ops = entry(CHAIN).ops
    launches = [op for op in ops if op.kind == "triton"]
    assert [op.in_bytes for op in launches] == [(4096 * 8192 * 4,) * 2] * 2
    fixed = cost.fuse_into_kernel(ops, launches[1].line, launches[1].line)
    assert fixed is not None
    merged = [op for op in fixed if op.kind == "triton"]
    assert len(merged) == 1 and merged[0].bytes == 2 * 4096 * 8192 * 4
    found = [f for f in lint_source("k.py", CHAIN).findings if f.code == "KL022"]
    assert [f.span.line for f in found] == [21]
    estimate = found[0].expected_speedup["for_this_file"]
    assert estimate["status"] == "estimated" and 1.8 < estimate["graph"] < 2.1


def test_a_small_grid_of_looping_programs_streams_at_one_programs_measured_rate() -> None:
    """KL021's pair: 16 programs each loop over a row; each streams at the
    calibration's one-program rate (triton_stream_programs_16), not 1/132
    of the GPU's bandwidth. A kernel without a loop does its share at once,
    at a full grid's measured rate (triton_stream_fp32)."""
    c = cost.calibration().constants
    pair = ROOT / "kernels/kernlint/kernels/kl021_too_few_programs/before.py"
    source = pair.read_text()
    launch = next(op for op in build_model(str(pair), source, parse(source)).entry_point.ops if op.kind == "triton")
    assert launch.streams and launch.programs == 16
    assert c["bw_program"] < c["bw_stream"] / c["sm_count"]
    assert cost.gpu_us(launch, c) == pytest.approx(launch.bytes / (16 * c["bw_program"]), rel=1e-6)
    one_shot = cost.Op("triton", 1, bytes=10**9, programs=100, elem_bytes=4)
    assert cost.gpu_us(one_shot, c) == pytest.approx(10**9 / (c["bw_triton_4byte"] * 100 / c["sm_count"]))


LAYERS_BUILT_IN_A_LOOP = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, layer_sizes, output_size):
        super().__init__()
        layers = []
        current = input_size
        for size in layer_sizes:
            layers.append(nn.Linear(current, size))
            layers.append(nn.ReLU())
            current = size
        layers.append(nn.Linear(current, output_size))
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


def get_inputs():
    return [torch.rand(128, 256)]


def get_init_inputs():
    return [256, [512, 1024], 64]
"""


def test_layers_appended_in_a_loop_in_init_are_the_sequentials_layers() -> None:
    """KernelBench level3/1_MLP: __init__ builds its layers with a loop of
    list.append; each Linear is sized by the item the loop is at (an entry
    point of no ops, as before, hides the work)."""
    ep = entry(LAYERS_BUILT_IN_A_LOOP)
    assert not ep.unknown
    gemms = [op for op in ep.ops if op.kind == "gemm"]
    assert [op.flops for op in gemms] == [2 * 128 * 256 * 512, 2 * 128 * 512 * 1024, 2 * 128 * 1024 * 64]
    assert [op.kind for op in ep.ops] == ["gemm", "elementwise", "gemm", "elementwise", "gemm"]


NETWORK = """\
import torch
import torch.nn as nn


class Block(nn.Module):
    expansion = 2

    def __init__(self, c, norm_layer=nn.BatchNorm2d, shortcut=False):
        super().__init__()
        self.conv = nn.Conv2d(c, c * self.expansion, 3, padding=1, bias=False)
        self.norm = norm_layer(c * self.expansion)
        if shortcut:
            self.down = nn.Conv2d(c, c * self.expansion, 1, bias=False)

    def forward(self, x):
        y = torch.relu(self.norm(self.conv(x)))
        if hasattr(self, "down"):
            y = y + self.down(x)
        return y


class Model(nn.Module):
    def __init__(self, block, widths):
        super().__init__()
        self.blocks = nn.ModuleList()
        for i, c in enumerate(widths):
            self.blocks.append(block(c, shortcut=i == 0))
        self.head = nn.Linear(in_features=widths[-1] * block.expansion, out_features=10)
        self.half()

    def forward(self, x):
        for i, layer in enumerate(self.blocks):
            x = layer(x) if i == 0 else x
        x = nn.functional.adaptive_avg_pool2d(x, (1, 1)).flatten(1)
        return self.head(x)


def get_inputs():
    return [torch.randn(2, 16, 8, 8, dtype=torch.float16)]


def get_init_inputs():
    return [Block, [16, 32]]
"""


def test_module_classes_of_the_file_are_built_and_run_at_their_shapes() -> None:
    """A module class the file defines, passed as a value and built in a loop
    over enumerate() into a ModuleList (its class constant, a torch module class
    as a default argument, a branch on hasattr(self, ...)), `self.half()` in
    __init__, a loop over the layers in forward, an adaptive pool and a Linear
    built by keyword."""
    ops = [op for op in entry(NETWORK).ops if op.kind != "view"]
    assert [(op.kind, op.note, op.path) for op in ops] == [
        ("gemm", "nn.Conv2d", "fp16"),
        ("reduction", "nn.BatchNorm2d", ""),
        ("elementwise", "", ""),
        ("gemm", "nn.Conv2d", "fp16"),
        ("elementwise", "", ""),
        ("reduction", "F.adaptive_avg_pool2d", ""),
        ("gemm", "nn.Linear", "fp16"),
    ]
    # The first block's conv: 16 -> 32 channels over 2 x 8 x 8, fp16.
    assert ops[0].flops == 2 * (2 * 32 * 8 * 8) * 16 * 9
    assert ops[6].flops == 2 * 2 * 32 * 10
    # Train-mode BatchNorm: statistics, then normalize (its input read twice).
    assert ops[1].bytes == 3 * 2 * 32 * 8 * 8 * 2


TRANSFORMER = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.embed = nn.Linear(3 * 4 * 4, dim)
        layer = nn.TransformerEncoderLayer(d_model=dim, nhead=heads, dim_feedforward=4 * dim, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)

    def forward(self, img):
        patches = img.unfold(2, 4, 4).unfold(3, 4, 4).reshape(img.shape[0], -1, 3 * 4 * 4)
        return self.encoder(self.embed(patches))


def get_inputs():
    return [torch.randn(2, 3, 16, 16)]


def get_init_inputs():
    return [32, 4]
"""


def test_a_transformer_encoder_runs_its_layers_and_attention_as_pytorch_does() -> None:
    """unfold as a view of patches; nn.TransformerEncoder's layers each as
    self-attention without weights (one fused attention op: PyTorch's SDPA)
    between the packed input and the output projections, residual adds and
    LayerNorms, and the ReLU feed-forward block."""
    ops = [op for op in entry(TRANSFORMER).ops if op.kind != "view"]
    layer = [
        ("gemm", "nn.MultiheadAttention"),
        ("attention", ""),
        ("gemm", "nn.MultiheadAttention"),
        ("elementwise", ""),
        ("reduction", "nn.LayerNorm"),
        ("gemm", "nn.Linear"),
        ("elementwise", ""),
        ("gemm", "nn.Linear"),
        ("elementwise", ""),
        ("reduction", "nn.LayerNorm"),
    ]
    assert [(op.kind, op.note) for op in ops] == [("gemm", "nn.Linear"), *layer, *layer]
    # 16 patches of 48 values; batch_first=False: the 2 images are the sequence, the 16 patches the batch.
    assert ops[0].flops == 2 * 2 * 16 * 48 * 32
    assert ops[2].flops == 4 * 16 * 4 * 2 * 2 * 8


def test_the_eager_calls_own_cost_is_no_more_than_the_one_op_call_leaves() -> None:
    """One noisy count can lift the least-squares line's intercept far above
    the measured one-op call; the call's own cost is held to what that call
    leaves beside its op."""
    record = json.loads(CALIBRATION.read_text())
    counts = sorted(int(n.rsplit("_", 1)[1]) for n in record["probes"] if n.startswith("module_ops_"))
    for n in counts:
        # 2 us of the call's own plus 8 us per op, the middle count 100 us slow.
        slow = 100.0 if n == counts[len(counts) // 2] else 0.0
        record["probes"][f"module_ops_{n}"]["modes"]["eager"]["median_us"] = 2.0 + 8.0 * n + slow
    c = cost.derive_constants(record)
    one_op_leaves = 2.0 + 8.0 * counts[0] - counts[0] * c["eager_host_op_us"]
    assert c["eager_base_us"] == pytest.approx(max(0.0, one_op_leaves), abs=0.01)


def test_library_kernels_are_priced_from_their_probes_per_output_tap_and_row() -> None:
    """calibrate's library_* probes: a pool's time per output and per tap from
    its two windows, LayerNorm's one-row rate from its fewest rows, a
    softmax's ratio interpolated in log row length."""
    record = json.loads(CALIBRATION.read_text())
    c = cost.derive_constants(record)
    p = record["probes"]

    def best(name: str) -> float:
        return min(p[name]["modes"][m]["median_us"] for m in ("graph", "kernelbench"))

    small, large = p["library_max_pool2d_k2_s2"], p["library_max_pool2d_k3_s1"]
    u0, u1 = best("library_max_pool2d_k2_s2") / small["outputs"], best("library_max_pool2d_k3_s1") / large["outputs"]
    assert c["lib_max_pool2d_tap_us"] == pytest.approx((u1 - u0) / (9 - 4), rel=1e-3)
    pool = Op("reduction", 1, bytes=4 * (large["outputs"] + large["outputs"]), out_bytes=4 * large["outputs"])
    pool = replace(pool, kernel="max_pool2d", reduction=9, elem_bytes=4)
    assert cost.library_us(pool, c) == pytest.approx(best("library_max_pool2d_k3_s1"), rel=1e-2)
    rows8 = p["library_layer_norm_rows_8"]
    norm = Op("reduction", 1, bytes=rows8["bytes"], kernel="layer_norm", rows=8)
    assert cost.library_us(norm, c) == pytest.approx(best("library_layer_norm_rows_8"), rel=1e-2)
    wide = Op("reduction", 1, bytes=8 << 20, out_bytes=4 << 20, kernel="softmax", rows=16)  # rows of 65536
    low, high = c["lib_softmax_cols_4096_x"], c["lib_softmax_cols_262144_x"]
    assert low < cost.library_us(wide, c) / ((8 << 20) / c["bw_stream"]) < high


SYNC_AND_CONV_BIAS = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, bias=False)

    def forward(self, x):
        y = self.conv(x)
        if self.conv.bias is not None:
            y = y + self.conv.bias.view(1, -1, 1, 1)
        torch.cuda.synchronize()
        return y


def get_inputs():
    return [torch.randn(2, 3, 16, 16)]


def get_init_inputs():
    return []
"""


def test_a_synchronize_call_is_a_sync_and_a_conv_without_bias_reads_none() -> None:
    e = entry(SYNC_AND_CONV_BIAS)
    assert e.unknown == ()
    # The branch on the absent bias is not taken; torch.cuda.synchronize() waits for the GPU.
    assert [(op.kind, op.line, op.note) for op in e.ops] == [
        ("gemm", 12, "nn.Conv2d"),
        ("sync", 15, "torch.cuda.synchronize"),
    ]
    fixed = cost.estimate("remove_sync", e, [(15, 15)])
    # Not capturable in a CUDA graph with the sync, capturable once it goes.
    assert fixed["before_us"]["graph"] is None and fixed["after_us"]["graph"] is not None


HOST_SIZES_LOOP = """
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        shape = list(x.shape)
        outer = 1
        for s in shape[: self.dim]:
            outer *= s
        inner = 1
        for s in shape[self.dim + 1 :]:
            inner *= s
        return x.view(outer, shape[self.dim], inner).sum(dim=1)


def get_inputs():
    return [torch.randn(4, 8, 16, 32)]


def get_init_inputs():
    return [1]
"""


def test_a_host_loop_over_a_few_sizes_runs_item_by_item_and_a_list_slices() -> None:
    e = entry(HOST_SIZES_LOOP)
    assert e.unknown == ()
    # outer = 4, inner = 16 * 32: the view [4, 8, 512] summed over its middle dimension.
    assert [(op.kind, op.bytes, op.repeat) for op in e.ops] == [
        ("view", 0, 1),
        ("reduction", 4 * (4 * 8 * 512 + 4 * 512), 1),
    ]


MULTIPASS_SOFTMAX = """
import torch
import torch.nn as nn
import triton
import triton.language as tl
from somewhere import interpreting


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = x_ptr + tl.program_id(0) * n_cols
    cols = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    for off in range(0, n_cols, BLOCK):
        m = tl.maximum(m, tl.load(row + off + cols, mask=off + cols < n_cols, other=-float("inf")))
    m_row = tl.max(m, 0)
    s = tl.zeros((BLOCK,), tl.float32)
    for off in range(0, n_cols, BLOCK):
        s += tl.exp(tl.load(row + off + cols, mask=off + cols < n_cols, other=-float("inf")) - m_row)
    s_row = tl.sum(s, 0)
    for off in range(0, n_cols, BLOCK):
        x = tl.load(row + off + cols, mask=off + cols < n_cols)
        tl.store(y_ptr + tl.program_id(0) * n_cols + off + cols, tl.exp(x - m_row) / s_row, mask=off + cols < n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        block = 1024 if interpreting() else 4096
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=block)
        return y


def get_inputs():
    return [torch.randn(4096, 32768)]


def get_init_inputs():
    return []
"""


def test_a_kernel_reading_a_row_in_three_passes_moves_it_three_times_and_the_online_fix_two() -> None:
    e = entry(MULTIPASS_SOFTMAX)
    # `block` comes from another module's helper given no tensor: opaque, and nothing sized reads it.
    assert e.unknown == ()
    launch = next(op for op in e.ops if op.kind == "triton")
    row = 4096 * 32768 * 4
    assert launch.row_passes == ((14, 3, row),)
    assert launch.bytes == 3 * row + row  # three reads of x, one write of y
    assert launch.int_keywords == ()  # BLOCK has no static value
    fixed = cost.online_passes(e.ops, 14, 14)
    assert fixed is not None
    assert [op.bytes for op in fixed if op.kind == "triton"] == [2 * row + row]
    assert cost.online_passes(e.ops, 20, 20) is None  # not a pass's line
    finding = next(f for f in lint_source("k.py", MULTIPASS_SOFTMAX).findings if f.code == "KL008")
    estimate = finding.expected_speedup["for_this_file"]
    assert estimate["status"] == "estimated"
    assert 1.25 <= estimate["graph"] <= 1.34  # 4 row transfers become 3


def test_a_pass_from_the_middle_of_the_row_is_a_tail_not_a_pass_and_a_host_value_read_for_a_size_is_unknown() -> None:
    tail = MULTIPASS_SOFTMAX.replace(
        "    for off in range(0, n_cols, BLOCK):\n        s +=",
        "    for off in range(BLOCK, n_cols, BLOCK):\n        s +=",
    )
    launch = next(op for op in entry(tail).ops if op.kind == "triton")
    assert launch.row_passes == ((14, 2, 4096 * 32768 * 4),)
    sized = MULTIPASS_SOFTMAX.replace("(x.shape[0],)](x", "(triton.cdiv(x.numel(), block),)](x").replace(
        "block = 1024 if interpreting() else 4096", "block = x.shape[1] if interpreting() else 4096"
    )
    # A tensor is read in the expression: not a host value of its own, so the file is not sized.
    assert entry(sized).unknown


def test_a_step_loops_view_and_item_assignment_cost_the_host_their_probes_time() -> None:
    """`acc = torch.maximum(acc, x[:, t]); out[:, t] = acc`: the indexing is a view (no kernel) and the
    assignment a copy, each at its own probe's host cost; a record without the probes prices the view at 0."""
    source = KERNELBENCH.replace(
        "        w = self.linear.weight.t().contiguous()\n",
        "        w = self.linear.weight.t().contiguous()\n        y = x[:, 0]\n        x[:, 1] = y\n",
    )
    ops = entry(source).ops
    view = next(op for op in ops if op.kind == "view" and op.note == "indexing")
    setitem = next(op for op in ops if op.note == "setitem")
    assert (view.launches, setitem.kind, setitem.bytes) == (False, "copy", 2 * 16 * 4)
    c = cost.calibration().constants
    assert cost.host_us(view, c, "eager") == c["eager_host_view_us"] > 0
    assert cost.host_us(setitem, c, "kernelbench") == c["kb_host_setitem_us"]
    assert cost.gpu_us(view, c) == 0.0
    without = {k: v for k, v in c.items() if "_view_" not in k and "_setitem_" not in k}
    assert cost.host_us(view, without, "eager") == 0.0
    assert cost.host_us(setitem, without, "eager") == c["eager_host_op_us"]


ITEM_SCALE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, inv, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * inv, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        peak = x.abs().max().item()
        inv = 1.0 / (peak + 1e-6)
        y = torch.empty_like(x)
        scale_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, inv, x.numel(), BLOCK=1024)
        return y


def get_inputs():
    return [torch.randn(16, 4096)]


def get_init_inputs():
    return []
"""


def test_a_number_read_with_item_keeps_the_file_sized_and_its_fix_keeps_the_reduction_that_computes_it() -> None:
    e = entry(ITEM_SCALE)
    assert e.unknown == ()  # `1.0 / (peak + 1e-6)`: a number read from the device, not a size
    assert [(op.kind, op.value_read) for op in e.ops if op.kind in ("reduction", "sync")] == [
        ("reduction", False),
        ("sync", True),  # `inv`, computed from it, goes to the kernel
    ]
    fixed = cost.remove_sync(e.ops, 17, 17)
    assert [op.kind for op in fixed if op.line == 17] == ["elementwise", "reduction"]  # only the sync goes
    # A value nothing reads afterwards: the reduction that fed only the sync goes with it.
    unread = ITEM_SCALE.replace("inv = 1.0 / (peak + 1e-6)", "inv = 0.5")
    ops = entry(unread).ops
    assert [op.kind for op in cost.remove_sync(ops, 17, 17) if op.line == 17] == []
    # A size computed from it is unknown.
    sized = ITEM_SCALE.replace("y = torch.empty_like(x)", "y = torch.empty(int(peak), 4096)")
    assert entry(sized).unknown


GEMM_ROWSUM_KERNEL = """
import torch
import torch.nn as nn
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
    acc = acc / 2.0
    tl.atomic_add(out_ptr + rm, tl.sum(acc, axis=1) * scale)


class ModelNew(nn.Module):
    def __init__(self, k, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, k))

    def forward(self, x):
        M, K = x.shape
        N = self.weight.shape[0]
        out = torch.zeros((M, 1), device=x.device)
        gemm_rowsum[(M // 64, N // 64)](x, self.weight, out, M, N, K, 1.5, BM=64, BN=64, BK=32)
        return out


def get_inputs():
    return [torch.randn(1024, 8192)]


def get_init_inputs():
    return [8192, 8192]
"""


def test_a_triton_gemm_reduced_over_its_columns_in_the_kernel_collapses_to_a_summed_weight_and_a_gemv() -> None:
    e = entry(GEMM_ROWSUM_KERNEL)
    launch = next(op for op in e.ops if op.kind == "triton")
    # The output is one column, the work the whole 1024 x 8192 x 8192 product on TF32.
    assert (launch.reduced_product, launch.flops, launch.path) == ((1024, 8192, 8192), 2 * 1024 * 8192 * 8192, "tf32")
    fixed = cost.collapse_gemm(e.ops, 19, 19)
    assert [(op.kind, op.bytes, op.flops) for op in fixed if op.line == launch.line] == [
        ("reduction", (8192 * 8192 + 8192) * 4, 0),  # the weight summed once
        ("triton", (1024 * 8192 + 8192 + 1024) * 4, 2 * 1024 * 8192),  # x streamed once against the vector
    ]
    finding = next(f for f in lint_source("k.py", GEMM_ROWSUM_KERNEL).findings if f.code == "KL026")
    assert finding.span.line == 19
    assert finding.expected_speedup["for_this_file"]["graph"] > 3


CONV_THEN_POOL = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 64, 3)
        self.pool = nn.AvgPool2d(4)

    def forward(self, x):
        y = self.pool(self.conv(x))
        return torch.sigmoid(y).sum(dim=[1, 2, 3])


def get_inputs():
    return [torch.rand(16, 8, 130, 130)]


def get_init_inputs():
    return []
"""


def test_an_average_pool_after_a_convolution_folds_into_one_wider_strided_convolution() -> None:
    e = entry(CONV_THEN_POOL)
    conv, pool = e.ops[:2]
    assert (conv.note, conv.conv_window, conv.reduction) == ("nn.Conv2d", (3, 3, 1, 1, 1, 1), 8 * 9)
    assert conv.out_bytes == 16 * 64 * 128 * 128 * 4 and pool.out_bytes == 16 * 64 * 32 * 32 * 4
    fixed = cost.collapse_gemm(e.ops, 12, 12)
    folded = fixed[0]
    # A 6 x 6 kernel (3 + 1 * (4 - 1)) at stride 4 over the 32 x 32 pooled positions: a sixteenth of the
    # positions at four times the taps; the pool is gone and the sigmoid reads the pooled output.
    assert (folded.kind, folded.conv_window, folded.reduction) == ("gemm", (6, 6, 4, 4, 1, 1), 8 * 36)
    assert folded.flops == 2 * 16 * 64 * 32 * 32 * 8 * 36
    assert folded.out_bytes == pool.out_bytes and [op.kind for op in fixed[1:]] == ["elementwise", "reduction"]
    finding = next(f for f in lint_source("k.py", CONV_THEN_POOL).findings if f.code == "KL026")
    assert finding.span.line == 12
    assert finding.expected_speedup["for_this_file"]["graph"] > 3


def test_a_mean_over_a_transposed_convolutions_positions_is_a_read_of_its_input_and_a_gemv() -> None:
    source = CONV_THEN_POOL.replace("nn.Conv2d(8, 64, 3)", "nn.ConvTranspose2d(8, 64, 3)").replace(
        "y = self.pool(self.conv(x))", "y = torch.mean(self.conv(x) * 2.0, dim=(2, 3))"
    )
    e = entry(source)
    conv = e.ops[0]
    fixed = cost.collapse_gemm(e.ops, 12, 12)
    reduced, gemv = fixed[:2]
    assert (reduced.note, gemv.note) == ("weight reduced", "collapsed GEMV")
    # The input read once; the product's flops divided by the positions it averaged.
    assert gemv.flops == conv.flops // (132 * 132) and gemv.in_bytes[0] == 16 * 8 * 130 * 130 * 4
    # An average pool after a transposed convolution does not fold: no finding.
    pooled = CONV_THEN_POOL.replace("nn.Conv2d(8, 64, 3)", "nn.ConvTranspose2d(8, 64, 3)")
    assert not [f for f in lint_source("k.py", pooled).findings if f.code == "KL026"]


CONV_THEN_TRITON_POOL = """\
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


@triton.jit
def plane_mean(y_ptr, out_ptr, S, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, S, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(y_ptr + row * S + cols, mask=cols < S, other=0.0)
    tl.store(out_ptr + row, tl.sigmoid(tl.sum(acc, axis=0) / S))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 64, 3)

    def forward(self, x):
        y = self.conv(x)
        y = y.contiguous()
        out = torch.empty(16, 64, 32, 32, device=x.device)
        pool_sigmoid[(16 * 64 * 32,)](y, out, 128, 32, POOL=4, BLOCK=32)
        return out


def get_inputs():
    return [torch.rand(16, 8, 130, 130)]


def get_init_inputs():
    return []
"""


def test_a_triton_kernel_that_sums_a_convolutions_output_first_is_told_apart_by_how_it_sums() -> None:
    model = build_model("k.py", CONV_THEN_TRITON_POOL, parse(CONV_THEN_TRITON_POOL))
    window, plane = model.kernel_list
    ((pooled,),) = [model.summed_loads(window)]
    assert (pooled.param, pooled.accumulator, [model.code(t) for t in pooled.trips]) == ("y_ptr", "acc", ["POOL"] * 2)
    ((summed,),) = [model.summed_loads(plane)]
    assert (summed.param, summed.trips) == ("y_ptr", None)  # a runtime loop over the plane: no fixed window
    # The launch reads the window's taps at its values.
    e = model.entry_point
    launch = next(op for op in e.ops if op.kind == "triton")
    assert launch.summed_input == (0, 16)
    # Applied to each value before the sum, a sigmoid makes the kernel nonlinear in the conv's output.
    nonlinear = CONV_THEN_TRITON_POOL.replace(
        "acc += tl.load(y_ptr + row * S", "acc += tl.sigmoid(tl.load(y_ptr + row * S"
    )
    nonlinear = nonlinear.replace("other=0.0)\n    tl.store(out_ptr + row,", "other=0.0))\n    tl.store(out_ptr + row,")
    model = build_model("k.py", nonlinear, parse(nonlinear))
    assert model.summed_loads(model.kernel_list[1]) == ()


def test_a_window_summed_with_tl_sum_inside_a_static_loop_has_both_extents_for_its_taps() -> None:
    source = """\
import triton
import triton.language as tl


@triton.jit
def pool(y_ptr, out_ptr, W, PW, POOL: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pw = tl.arange(0, BLOCK)
    jj = tl.arange(0, POOL)
    col = pw[:, None] * POOL + jj[None, :]
    acc = tl.zeros((1, BLOCK), dtype=tl.float32)
    for i in tl.static_range(POOL):
        v = tl.load(y_ptr + (row * POOL + i) * W + col[None, :, :], mask=col[None, :, :] < W, other=0.0)
        acc += tl.sum(v, axis=2)
    tl.store(out_ptr + row * PW + pw[None, :], tl.sigmoid(acc / (POOL * POOL)))
"""
    model = build_model("k.py", source, parse(source))
    ((summed,),) = [model.summed_loads(model.kernel_list[0])]
    # The static loop's POOL rows, and the POOL columns the sum adds along axis 2 (col's axis 1, jj's).
    assert [model.code(t) for t in summed.trips] == ["POOL", "POOL"]


def test_a_convolution_whose_output_a_triton_kernel_pools_first_folds_the_window_into_the_convolution() -> None:
    e = entry(CONV_THEN_TRITON_POOL)
    conv = e.ops[0]
    fixed = cost.collapse_gemm(e.ops, conv.line, conv.line)
    folded, launch = fixed[0], next(op for op in fixed if op.kind == "triton")
    assert (folded.conv_window, folded.flops) == ((6, 6, 4, 4, 1, 1), 2 * 16 * 64 * 32 * 32 * 8 * 36)
    # The kernel reads the pooled output, a sixteenth of the convolution's.
    assert launch.in_bytes[0] == conv.out_bytes // 16 and launch.summed_input == ()
    finding = next(f for f in lint_source("k.py", CONV_THEN_TRITON_POOL).findings if f.code == "KL026")
    assert finding.span.line == conv.line and "pool_sigmoid" in finding.message
    assert finding.expected_speedup["for_this_file"]["graph"] > 3
    # Summed over the whole plane instead (the mean kernel): the input read once and a GEMV.
    source = CONV_THEN_TRITON_POOL.replace(
        "out = torch.empty(16, 64, 32, 32, device=x.device)\n        pool_sigmoid[(16 * 64 * 32,)](y, out, 128, 32, POOL=4, BLOCK=32)",
        "out = torch.empty(16 * 64, device=x.device)\n        plane_mean[(16 * 64,)](y, out, 128 * 128, BLOCK=1024)",
    )
    e = entry(source)
    fixed = cost.collapse_gemm(e.ops, conv.line, conv.line)
    reduced, gemv, launch = fixed[0], fixed[1], next(op for op in fixed if op.kind == "triton")
    assert (reduced.note, reduced.bytes) == ("weight reduced", conv.in_bytes[1] + conv.in_bytes[1] // (128 * 128))
    assert gemv.note == "collapsed GEMV" and gemv.flops == conv.flops // (128 * 128)
    assert launch.inputs[0] == 1  # the kernel reads the GEMV's result, renumbered past the inserted pass


def test_a_wide_kernel_over_few_input_channels_and_a_dense_1x1_run_at_their_channels_probe_rate() -> None:
    c = cost.calibration().constants
    points = [(depth, rate) for depth, rate in cost._numbered(c, "flops_conv_k")]
    # A 3x3 conv: its depth and its channels read the same probe.
    assert cost._conv_rate(c, 8 * 9, "nn.Conv2d", (3, 3, 1, 1, 1, 1)) == cost._interpolated(points, 8 * 9)
    # A 6x6 stride-4 conv over 8 channels (KL026's folded pool): the 8-channel reading, well below its depth's.
    wide = cost._conv_rate(c, 8 * 36, "nn.Conv2d", (6, 6, 4, 4, 1, 1))
    assert wide == cost._interpolated(points, 8 * 9) < cost._interpolated(points, 8 * 36)
    # A dense 1x1 conv is a GEMM over its channels: the probe of its 64 input channels (depth 576), not the
    # slower probe of depth 64 (a 3x3 kernel over 7 channels).
    by_channels = cost._interpolated(points, 64 * 9)
    assert cost._conv_rate(c, 64, "nn.Conv2d", (1, 1, 1, 1, 1, 1)) == by_channels > cost._interpolated(points, 64)
    # A grouped one (ShuffleNet's) keeps its depth's reading, the smaller one.
    assert cost._conv_rate(c, 64, "nn.Conv2d", (1, 1, 1, 1, 1, 1), 3) == cost._interpolated(points, 64)


LINEAR_THEN_TRITON_POOL = """\
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def pool_gelu_max(y_ptr, out_ptr, N, PW, POOL: tl.constexpr, BLOCK_P: tl.constexpr):
    row = tl.program_id(0)
    p = tl.arange(0, BLOCK_P)
    k = tl.arange(0, POOL)
    cols = p[:, None] * POOL + k[None, :]
    v = tl.load(y_ptr + row * N + cols, mask=p[:, None] < PW, other=0.0)
    avg = tl.sum(v, axis=1) / POOL
    g = 0.5 * avg * (1.0 + tl.math.erf(avg * 0.7071067811865476))
    tl.store(out_ptr + row, tl.max(tl.where(p < PW, g, float("-inf")), axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.matmul = nn.Linear(8192, 8192)

    def forward(self, x):
        y = self.matmul(x)
        out = torch.empty(x.shape[0], device=x.device)
        pool_gelu_max[(x.shape[0],)](y, out, 8192, 512, POOL=16, BLOCK_P=512)
        return out


def get_inputs():
    return [torch.rand(1024, 8192)]


def get_init_inputs():
    return []
"""


def test_a_linear_whose_output_a_triton_kernel_averages_in_windows_narrows_by_the_window() -> None:
    e = entry(LINEAR_THEN_TRITON_POOL)
    gemm, launch = e.ops[0], next(op for op in e.ops if op.kind == "triton")
    # The window is the summed axis's tl.arange(0, POOL), at the launch's POOL.
    assert launch.summed_input == (0, 16)
    fixed = cost.collapse_gemm(e.ops, gemm.line, gemm.line)
    averaged, narrowed = fixed[:2]
    # The weight's rows averaged in the windows once per call, then a GEMM with N / 16 columns.
    assert (averaged.note, averaged.in_bytes) == ("weight reduced", (8192 * 8192 * 4,))
    assert (narrowed.flops, narrowed.out_bytes) == (gemm.flops // 16, gemm.out_bytes // 16)
    assert next(op for op in fixed if op.kind == "triton").in_bytes[0] == gemm.out_bytes // 16
    finding = next(f for f in lint_source("k.py", LINEAR_THEN_TRITON_POOL).findings if f.code == "KL026")
    assert finding.span.line == gemm.line and "pool_gelu_max" in finding.message
    assert finding.expected_speedup["for_this_file"]["graph"] > 3


GEMM_THEN_TORCH_SUM = (
    GEMM_ROWSUM_KERNEL.replace(
        "    acc = acc / 2.0\n    tl.atomic_add(out_ptr + rm, tl.sum(acc, axis=1) * scale)",
        "    tl.store(out_ptr + rm[:, None] * N + rn[None, :], acc / 2.0)",
    )
    .replace("out = torch.zeros((M, 1), device=x.device)", "out = torch.empty((M, N), device=x.device)")
    .replace("        return out\n", "        return torch.sum(out, dim=1, keepdim=True) * 1.5\n")
)


def test_a_triton_gemm_stored_whole_then_summed_in_torch_collapses_like_a_torch_gemm() -> None:
    e = entry(GEMM_THEN_TORCH_SUM)
    launch = next(op for op in e.ops if op.kind == "triton")
    assert (launch.dot_mn, launch.flops, launch.path) == ((1024, 8192), 2 * 1024 * 8192 * 8192, "tf32")
    fixed = cost.collapse_gemm(e.ops, launch.line, launch.line)
    assert [(op.kind, op.bytes, op.flops) for op in fixed if op.line == launch.line] == [
        ("reduction", (8192 * 8192 + 8192) * 4, 0),  # the weight summed once
        ("gemm", (1024 * 8192 + 8192 + 1024) * 4, 2 * 1024 * 8192),  # the GEMV, straight to the M sums
    ]
    assert not [op for op in fixed if op.kind == "reduction" and op.line != launch.line]  # torch.sum is gone
    finding = next(f for f in lint_source("k.py", GEMM_THEN_TORCH_SUM).findings if f.code == "KL026")
    assert finding.span.line == launch.line
    assert finding.expected_speedup["for_this_file"]["kernelbench"] > 3


FIXED_TILE = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr = 32):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16))


class ModelNew(nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty(M, N, device=a.device, dtype=a.dtype)
        mm_kernel[(M // 32, N // 32)](a, b, c, M, N, K, 32, BLOCK_N=32, num_stages=3)
        return c


def get_inputs():
    return [torch.randn(4096, 4096, dtype=torch.float16), torch.randn(4096, 4096, dtype=torch.float16)]


def get_init_inputs():
    return []
"""


def test_a_tl_dot_launch_carries_its_tile_config_read_from_the_launch_and_the_kernel() -> None:
    """BLOCK_M positional, BLOCK_N by keyword, BLOCK_K from the signature's default, num_warps Triton's
    default (4), num_stages from the launch; the output's rows and columns for another tile's grid."""
    (launch,) = [op for op in entry(FIXED_TILE).ops if op.kind == "triton"]
    assert (launch.dot_tile, launch.dot_configs, launch.dot_mn, launch.programs) == (
        (32, 32, 32, 4, 3),
        (),
        (4096, 4096),
        16384,
    )
    autotuned = FIXED_TILE.replace(
        "@triton.jit",
        '@triton.autotune(configs=[triton.Config({"BLOCK_M": 64, "BLOCK_N": 128}, num_warps=8), '
        'triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=4)], key=["M"])\n@triton.jit',
    ).replace(
        "mm_kernel[(M // 32, N // 32)](a, b, c, M, N, K, 32, BLOCK_N=32, num_stages=3)",
        "mm_kernel[(1,)](a, b, c, M, N, K)",
    )
    (launch,) = [op for op in entry(autotuned).ops if op.kind == "triton"]
    assert (launch.dot_tile, launch.dot_configs) == ((), ((64, 128, 32, 8, 3), (128, 128, 64, 4, 4)))


def test_kl003s_fix_is_the_best_of_its_autotuning_set_at_the_files_shapes() -> None:
    """A fixed 32x32x32 tile at 4096^3 fp16 runs at its own probe's rate; the fix at the best config of
    AUTOTUNE_CONFIGS there (every one of them a calibration probe), plus the autotuner's host work."""
    import kernlint.kernels.calibrate as calibrate
    from kernlint.model.tuning import AUTOTUNE_CONFIGS

    assert set(AUTOTUNE_CONFIGS) <= set(calibrate.DOT_CONFIGS)
    c = cost.calibration().constants
    (launch,) = [op for op in entry(FIXED_TILE).ops if op.kind == "triton"]
    assert cost.gpu_us(launch, c) == pytest.approx(launch.flops / c["flops_tile_fp16_32x32x32_w4_s3"])
    (fixed,) = cost.autotune((launch,), launch.line, launch.line)
    best = max(c["flops_tile_fp16_{}x{}x{}_w{}_s{}".format(*config)] for config in AUTOTUNE_CONFIGS)
    assert fixed.autotuned and cost.gpu_us(fixed, c) == pytest.approx(launch.flops / best)
    (finding,) = [f for f in lint_source("k.py", FIXED_TILE).findings if f.code == "KL003"]
    estimate = finding.expected_speedup["for_this_file"]
    assert estimate["graph"] == pytest.approx(best / c["flops_tile_fp16_32x32x32_w4_s3"], rel=0.02)


def test_a_batched_attention_product_is_sized_as_one_even_with_as_many_heads_as_batches() -> None:
    """Q [B, H, L, D] times K read transposed into S [B, H, L, L]: 2*B*H*L*L*D flops, not a convolution's
    (with B == H the operands once passed for a convolution's input and weight)."""
    source = FIXED_TILE.replace(
        "        M, K = a.shape\n        N = b.shape[1]\n        c = torch.empty(M, N, device=a.device, dtype=a.dtype)\n",
        "        B, H, M, K = a.shape\n        N = b.shape[2]\n        c = torch.empty(B, H, M, N, device=a.device)\n",
    ).replace(
        "torch.randn(4096, 4096, dtype=torch.float16), torch.randn(4096, 4096, dtype=torch.float16)",
        "torch.randn(8, 8, 512, 64, dtype=torch.float16), torch.randn(8, 8, 512, 64, dtype=torch.float16)",
    )
    (launch,) = [op for op in entry(source).ops if op.kind == "triton"]
    assert (launch.flops, launch.dot_mn) == (2 * 8 * 8 * 512 * 512 * 64, (8 * 8 * 512, 512))


UNREACHED_HELPER = """
import torch
import torch.nn as nn


class NewGELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(0.79788456 * (x + 0.044715 * torch.pow(x, 3.0))))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = NewGELU()

    def forward(self, x):
        return self.act(x)


class ModelNew(nn.Module):
    def __init__(self, dim=1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        if x.dim() != 2 or self.dim not in (1, -1):
            return torch.softmax(x, dim=self.dim)
        return torch.nn.functional.gelu(x, approximate="tanh")


dim = 4096


def get_inputs():
    return [torch.randn(4096, dim)]


def get_init_inputs():
    return []
"""


def test_a_finding_in_code_the_entry_point_never_runs_gains_nothing_for_the_file() -> None:
    """KL023 in the reference's NewGELU (ModelNew calls F.gelu): estimated at 1.0x, with the reason, instead
    of falling back to its pair's range; `self.dim not in (1, -1)` is decided (the parameter's default 1, not
    the module constant `dim`), so the softmax branch is not the entry point's work."""
    e = entry(UNREACHED_HELPER)
    assert [(op.kind, op.line) for op in e.ops] == [("elementwise", 28)]
    assert not e.runs(6, 8) and not e.runs(27, 27) and e.runs(26, 26) and e.runs(28, 28)
    (finding,) = [f for f in lint_source("k.py", UNREACHED_HELPER).findings if f.code == "KL023"]
    estimate = finding.expected_speedup["for_this_file"]
    assert (estimate["status"], estimate["kernelbench"], estimate["graph"]) == ("estimated", 1.0, 1.0)
    assert estimate["reason"] == "ModelNew.forward does not run this code: its fix changes nothing the call does"
    assert "findings_fixed" not in estimate


def test_a_training_mode_batchnorm_solution_reads_the_modules_momentum_and_running_statistics() -> None:
    source = KERNELBENCH.replace(
        "self.linear = nn.Linear(in_features, out_features)", "self.bn = nn.BatchNorm1d(out_features)"
    ).replace(
        "        w = self.linear.weight.t().contiguous()\n        y = x @ w\n",
        "        y = torch.cat([x, x], dim=1)\n"
        "        m = self.bn.momentum\n"
        "        self.bn.running_mean.mul_(1 - m)\n"
        "        self.bn.num_batches_tracked += 1\n",
    )
    e = entry(source)
    assert e.unknown == () and [op.kind for op in e.ops][:2] == ["copy", "elementwise"]


def test_a_tuning_finding_with_an_estimate_for_the_file_ranks_by_it() -> None:
    """kl003_smalltile_before.py: KL003 (its fixed 32x32x32 tile, estimated for the file) leads the
    verdict over KL009, whose fix has no estimate (its pair measured 1.11x); without an estimate a tuning
    finding would come after every other."""
    from kernlint.advice import best_finding, verdict

    path = ROOT / "fixtures/costmodel/kl003_smalltile_before.py"
    findings = lint_source(str(path), path.read_text()).findings
    assert sorted(f.code for f in findings) == ["KL003", "KL009"]
    assert best_finding(findings).code == "KL003"
    advice = verdict(str(path), findings)
    assert advice["worth_optimizing"] == "yes"
    assert advice["optimisation method"].startswith("Memory Layout Optimization: Autotune the kernel")


TRITON_SOFTMAX_ATTENTION = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_softmax_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=offs < n, other=float("-inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + tl.program_id(0) * n + offs, e / tl.sum(e, axis=0), mask=offs < n)


def triton_softmax(x):
    x = x.contiguous()
    y = torch.empty_like(x)
    row_softmax_kernel[(x.numel() // x.shape[-1],)](x, y, x.shape[-1], BLOCK=triton.next_power_of_2(x.shape[-1]))
    return y


class ModelNew(nn.Module):
    def forward(self, q, k, v):
        att = triton_softmax(torch.matmul(q, k.transpose(-2, -1)) * 0.125)
        return torch.matmul(att, v)


def get_inputs():
    return [torch.randn(16, 16, 2048, 64, dtype=torch.float16) for _ in range(3)]


def get_init_inputs():
    return []
"""


def test_materialized_attention_through_the_files_own_triton_softmax_is_estimated_as_one_fused_kernel() -> None:
    """KL007's fix replaces the scores GEMM, the scale, the helper's Triton softmax launch and the output
    GEMM by one attention op (the key's transposed view and the helper's output buffer stay)."""
    ops = entry(TRITON_SOFTMAX_ATTENTION).ops
    assert [op.kind for op in ops] == ["view", "gemm", "elementwise", "alloc", "triton", "gemm"]
    fixed = cost.flash_attention(ops, 25, 26)
    assert [op.kind for op in fixed] == ["view", "attention", "alloc"]
    (finding,) = [f for f in lint_source("k.py", TRITON_SOFTMAX_ATTENTION).findings if f.code == "KL007"]
    assert finding.expected_speedup["for_this_file"]["status"] == "estimated"


PER_GROUP_LOOP = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def group_sum_kernel(x_ptr, out_ptr, base, idx, numel, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, numel, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + offs, mask=offs < numel, other=0.0)
    tl.store(out_ptr + idx, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        N, C, HW = x.shape
        out = torch.empty(N * C, device=x.device)
        for n in range(N):
            for c in range(C):
                idx = n * C + c
                group_sum_kernel[(1,)](x, out, idx * HW, idx, HW, BLOCK=1024)
        return out


def get_inputs():
    return [torch.randn(16, 32, 65536)]


def get_init_inputs():
    return []
"""


def test_a_launch_handed_its_loops_index_moves_that_steps_share_and_batching_the_loop_moves_it_once() -> None:
    """512 launches of one program, each handed an index computed from both loops' indices, read 1/512 of
    x each (not all of it 512 times); KL005's fix (the nested loops as one launch) is one grid of 512
    programs over x once."""
    (launch,) = [op for op in entry(PER_GROUP_LOOP).ops if op.kind == "triton"]
    x_bytes, out_bytes = 16 * 32 * 65536 * 4, 16 * 32 * 4
    assert (launch.repeat, launch.programs, launch.bytes) == (512, 1, (x_bytes + out_bytes) // 512)
    (batched,) = [op for op in cost.batch_loop((launch,), 21, 24) if op.kind == "triton"]
    assert (batched.repeat, batched.programs, batched.bytes) == (1, 512, launch.bytes * 512)
    (finding,) = [f for f in lint_source("k.py", PER_GROUP_LOOP).findings if f.code == "KL005"]
    assert finding.expected_speedup["for_this_file"]["kernelbench"] > 10


def test_attention_built_from_launches_is_estimated_as_one_fused_attention() -> None:
    """KL007's INVALID example of a Triton tl.dot scores kernel, a Triton softmax in place and torch.matmul with
    the values: the flash-attention fix replaces all three, the scores (805 MB) never written."""
    from kernlint.rules.kl007_materialized_attention import MaterializedAttention

    source = textwrap.dedent(
        next(example.code for example in MaterializedAttention.INVALID if "rows_kernel" in example.code)
    )
    e = entry(source)
    fixed = cost.flash_attention(e.ops, 26, 28)
    assert [op.kind for op in fixed] == ["alloc", "attention"]
    assert fixed[1].flops == 2 * (2 * 16 * 12 * 1024 * 1024 * 64)
    finding = next(f for f in lint_source("k.py", source).findings if f.code == "KL007")
    assert finding.span.line == 26
    assert finding.expected_speedup["for_this_file"]["kernelbench"] > 3


THREE_ELEMENTWISE_KERNELS = """\
import torch
import triton
import triton.language as tl


@triton.jit
def act(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.01 * x), mask=offs < n)


def run(x):
    y = torch.empty_like(x)
    act[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y


class ModelNew(torch.nn.Module):
    def forward(self, x):
        x = run(x)
        x = run(x)
        x = run(x)
        return x


def get_inputs():
    return [torch.randn(64, 1024, 1024)]


def get_init_inputs():
    return []
"""


def test_a_chain_of_three_elementwise_kernels_is_fused_into_one_by_the_rules_fix() -> None:
    """KL022 reports the second and third kernels; its fix (all of the rule's findings) leaves one kernel that
    reads x and writes the last output: the merged launch keeps its producer's inputs, so the next merge
    finds them (it had none, and the fix stopped after one pair)."""
    e = entry(THREE_ELEMENTWISE_KERNELS)
    assert [op.kind for op in e.ops].count("triton") == 3
    findings = [f for f in lint_source("k.py", THREE_ELEMENTWISE_KERNELS).findings if f.code == "KL022"]
    assert [f.span.line for f in findings] == [22, 23]
    estimate = findings[0].expected_speedup["for_this_file"]
    assert estimate["findings_fixed"] == 2
    fixed = cost.fuse_into_kernel(cost.fuse_into_kernel(e.ops, 23, 23) or (), 22, 22)
    assert fixed is not None and [op.kind for op in fixed].count("triton") == 1
    assert estimate["graph"] > 2.5


CONTIGUOUS_ALREADY = """\
import torch
import triton
import triton.language as tl


@triton.jit
def rows(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * n + cols, mask=cols < n)
    tl.store(y_ptr + tl.program_id(0) * n + cols, tl.cumsum(x, axis=0), mask=cols < n)


def scan(x, dim):
    if dim != x.dim() - 1:
        x = x.transpose(dim, -1)
    x = x.contiguous()
    y = torch.empty_like(x)
    rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=4096)
    return y


class ModelNew(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return scan(x, self.dim)


def get_inputs():
    return [torch.randn(4096, 4096)]


def get_init_inputs():
    return [1]
"""


def test_a_copy_of_a_tensor_contiguous_at_the_files_shapes_gains_nothing() -> None:
    """The transpose sits in a branch the file's shapes do not take, so `x.contiguous()` copies nothing: KL002's
    fix is estimated at 1.0x with that reason, not at its pair's measured range (which made the file 'worth
    optimizing')."""
    (finding,) = [f for f in lint_source("k.py", CONTIGUOUS_ALREADY).findings if f.code == "KL002"]
    estimate = finding.expected_speedup["for_this_file"]
    assert (estimate["status"], estimate["kernelbench"], estimate["graph"]) == ("estimated", 1.0, 1.0)
    assert "copies nothing there" in estimate["reason"]
    # Two copies, one on a line the call runs (a conditional expression that picks the plain `.contiguous()`),
    # one in a branch it never takes: their shared estimate gains nothing either.
    source = CONTIGUOUS_ALREADY.replace(
        """    if dim != x.dim() - 1:
        x = x.transpose(dim, -1)
    x = x.contiguous()
    y = torch.empty_like(x)
    rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=4096)
    return y""",
        """    x = x.transpose(dim, -1).contiguous() if dim != x.dim() - 1 else x.contiguous()
    y = torch.empty_like(x)
    rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=4096)
    if dim != x.dim() - 1:
        y = y.transpose(dim, -1).contiguous()
    return y""",
    )
    findings = [f for f in lint_source("k.py", source).findings if f.code == "KL002"]
    assert [f.span.line for f in findings] == [14, 18]
    for finding in findings:
        estimate = finding.expected_speedup["for_this_file"]
        assert (estimate["status"], estimate["kernelbench"]) == ("estimated", 1.0), estimate


FUSED_QKV_ATTENTION = """\
import torch
import triton
import triton.language as tl


@triton.jit
def scores(qkv_ptr, s_ptr, T, C, H, D, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    d = tl.arange(0, BLOCK_D)
    bh = tl.program_id(2)
    base = qkv_ptr + (bh // H) * T * 3 * C + (bh % H) * D
    q = tl.load(base + m[:, None] * 3 * C + d[None, :])
    k = tl.load(base + C + n[None, :] * 3 * C + d[:, None])
    tl.store(s_ptr + bh * T * T + m[:, None] * T + n[None, :], tl.dot(q, k))


@triton.jit
def softmax(s_ptr, T, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    row = s_ptr + tl.program_id(0) * T
    x = tl.load(row + cols, mask=cols < T, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(row + cols, e / tl.sum(e, axis=0), mask=cols < T)


@triton.jit
def pv(s_ptr, qkv_ptr, y_ptr, T, C, H, D, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    d = tl.arange(0, BLOCK_D)
    bh = tl.program_id(1)
    base = qkv_ptr + (bh // H) * T * 3 * C + 2 * C + (bh % H) * D
    acc = tl.zeros((BLOCK_M, BLOCK_D), dtype=tl.float32)
    for start in range(0, T, BLOCK_N):
        n = start + tl.arange(0, BLOCK_N)
        p = tl.load(s_ptr + bh * T * T + m[:, None] * T + n[None, :])
        v = tl.load(base + n[:, None] * 3 * C + d[None, :])
        acc += tl.dot(p, v)
    tl.store(y_ptr + (bh // H) * T * C + m[:, None] * C + (bh % H) * D + d[None, :], acc)


class ModelNew(torch.nn.Module):
    def forward(self, qkv):
        B, T, C3 = qkv.shape
        C, H = C3 // 3, 12
        s = torch.empty((B * H, T, T), device=qkv.device)
        scores[(T // 64, T // 64, B * H)](qkv, s, T, C, H, C // H, BLOCK_M=64, BLOCK_N=64, BLOCK_D=64)
        softmax[(B * H * T,)](s, T, BLOCK=1024)
        y = torch.empty((B, T, C), device=qkv.device)
        pv[(T // 64, B * H)](s, qkv, y, T, C, H, C // H, BLOCK_M=64, BLOCK_N=64, BLOCK_D=64)
        return y


def get_inputs():
    return [torch.randn(8, 1024, 3 * 768)]


def get_init_inputs():
    return []
"""


def test_a_dot_kernel_reading_its_operands_out_of_one_tensor_is_sized_from_its_tiles_and_grid() -> None:
    """q and k read by offsets out of one fused qkv tensor name no product by their shapes: each program's
    tl.dot (64x64x64) counts once, or once per trip of the loop around it (T / BLOCK_N), so the scores and the
    product with the values are GEMMs of 2 * B*H * T*T * D flops each, and KL007's fused attention is estimated
    (it saw no product and said nothing)."""
    e = entry(FUSED_QKV_ATTENTION)
    launches = [op for op in e.ops if op.kind == "triton"]
    flops = 2 * 8 * 12 * 1024 * 1024 * 64
    assert [(op.note, op.flops, op.path) for op in launches] == [
        ("scores", flops, "tf32"),
        ("softmax", 0, ""),
        ("pv", flops, "tf32"),
    ]
    (finding,) = [f for f in lint_source("k.py", FUSED_QKV_ATTENTION).findings if f.code == "KL007"]
    assert finding.expected_speedup["for_this_file"]["kernelbench"] > 1.2


RECAST_WEIGHT = """\
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8192, 8192)

    def forward(self, x):
        w = self.fc.weight.to(torch.float16)
        return x.half() @ w.t()


def get_inputs():
    return [torch.randn(64, 8192)]


def get_init_inputs():
    return []
"""


def test_a_parameter_re_cast_per_call_is_removed_by_the_fix_and_an_activations_cast_stays() -> None:
    """KL002's re-cast of a parameter: its fix casts the weight once at load time, so the estimate drops the
    268 MB read and 134 MB write of the cast (it dropped nothing, and the fix read as a no-op); the cast of the
    input x, an activation, is the call's work either way."""
    (finding,) = [f for f in lint_source("k.py", RECAST_WEIGHT).findings if f.code == "KL002"]
    estimate = finding.expected_speedup["for_this_file"]
    assert estimate["findings_fixed"] == 1 and estimate["kernelbench"] > 2
    fixed = cost.remove_copy(entry(RECAST_WEIGHT).ops, 11, 11)
    assert fixed is not None
    assert [(op.kind, op.note) for op in fixed if op.note.startswith("cast")] == [("elementwise", "cast from float32")]


LINEAR_KERNEL = """\
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear(x_ptr, w_ptr, y_ptr, M, N, K, stride_bk, stride_bn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(w_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn)
        acc += tl.dot(a, b)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4096, 4096, bias=False)

    def forward(self, x):
        w = self.fc.weight
        y = torch.empty(x.shape[0], 4096, device=x.device)
        linear[(x.shape[0] // 128, 4096 // 128)](x, w, y, x.shape[0], 4096, 4096, STRIDES, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, num_warps=8)
        return y


def get_inputs():
    return [torch.randn(8192, 4096)]


def get_init_inputs():
    return []
"""


def test_a_tf32_dot_reading_a_weight_k_major_runs_at_the_k_major_probes_rate() -> None:
    """B[k, n] read out of the nn.Linear weight w[n, k] (the launch hands `w.stride(1), w.stride(0)`: K
    contiguous) runs at the triton_dot_tile_tf32k_* probe's rate, about 3x the row-major probe's on the H100;
    the same kernel handed the strides the other way round (B row-major) keeps the row-major rate."""
    kmajor = entry(LINEAR_KERNEL.replace("STRIDES", "w.stride(1), w.stride(0)"))
    rows = entry(LINEAR_KERNEL.replace("STRIDES", "w.stride(0), w.stride(1)"))
    (fast,) = [op for op in kmajor.ops if op.kind == "triton"]
    (slow,) = [op for op in rows.ops if op.kind == "triton"]
    assert (fast.dot_b_kmajor, slow.dot_b_kmajor) == (True, False)
    assert (fast.path, fast.dot_tile[:3]) == ("tf32", (128, 128, 32))
    c = cost.calibration(None).constants
    assert cost.gpu_us(fast, c) == pytest.approx(fast.flops / c["flops_tile_tf32k_128x128x32_w8_s3"])
    assert cost.gpu_us(slow, c) == pytest.approx(slow.flops / c["flops_tile_tf32_128x128x32_w8_s3"])
    assert cost.gpu_us(slow, c) > 3 * cost.gpu_us(fast, c)


def test_an_int64_cast_of_the_offsets_keeps_the_weight_read_k_major() -> None:
    """`rn[None, :].to(tl.int64) * stride_bn` (offsets widened against overflow, as generated kernels write
    them) is the same layout as without the cast: still K-major, still at the K-major probe's rate."""
    source = LINEAR_KERNEL.replace("STRIDES", "w.stride(1), w.stride(0)").replace(
        "rn[None, :] * stride_bn", "rn[None, :].to(tl.int64) * stride_bn"
    )
    assert ".to(tl.int64)" in source
    (op,) = [op for op in entry(source).ops if op.kind == "triton"]
    assert op.dot_b_kmajor


DUMMY_BIAS = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def scale_bias(x_ptr, b_ptr, y_ptr, n, C: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n) * 2.0
    if HAS_BIAS:
        v += tl.load(b_ptr + offs % C)
    tl.store(y_ptr + offs, v, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, bias):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(1024)) if bias else None

    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        scale_bias[(triton.cdiv(n, 1024),)](
            x, self.bias if self.bias is not None else x, y, n, C=1024, HAS_BIAS=self.bias is not None, BLOCK=1024
        )
        return y


def get_inputs():
    return [torch.randn(8192, 1024)]


def get_init_inputs():
    return [BIAS]
"""


@pytest.mark.parametrize("bias, read", [(False, 2), (True, 3)])
def test_a_dummy_tensor_for_a_pointer_the_launch_never_touches_moves_no_bytes(bias: bool, read: int) -> None:
    """`bias if bias is not None else x` with HAS_BIAS=False (a generated kernel's idiom for an optional
    pointer): x is not read a second time through the bias pointer; with a bias, its 4 KB are read."""
    (op,) = [op for op in entry(DUMMY_BIAS.replace("BIAS]", f"{bias}]")).ops if op.kind == "triton"]
    assert len(op.in_bytes) == read
    assert op.bytes == 2 * 8192 * 1024 * 4 + (1024 * 4 if bias else 0)


GUARDED_FALLBACK = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(8, 64, 3, stride=STRIDE)

    def forward(self, x):
        conv = self.conv
        if conv.stride != (1, 1) or (conv.out_channels & (conv.out_channels - 1)) != 0:
            return conv(x)
        y = torch.empty_like(x)
        double[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y


def get_inputs():
    return [torch.randn(16, 8, 256, 256)]


def get_init_inputs():
    return []
"""


@pytest.mark.parametrize("stride, path", [(1, "triton"), (2, "gemm")])
def test_a_fallback_guarded_by_a_modules_tuple_and_a_power_of_two_test_takes_the_branch_the_shapes_decide(
    stride: int, path: str
) -> None:
    """`conv.stride != (1, 1)` compares the module's tuple with a literal one, and `n & (n - 1)` tests a size
    for a power of two: both decided, so the table follows the branch the call takes (not the fallback)."""
    e = entry(GUARDED_FALLBACK.replace("STRIDE", str(stride)))
    assert not e.unknown
    assert [op.kind for op in e.ops if op.kind in ("triton", "gemm")] == [path]


STRIDED_CHANNELS = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def rms(x_ptr, y_ptr, S, C: tl.constexpr):
    pid = tl.program_id(0)
    b, s = pid // S, pid % S
    c = tl.arange(0, C)
    ptrs = b.to(tl.int64) * C * S + s + c.to(tl.int64) * S
    x = tl.load(x_ptr + ptrs)
    tl.store(y_ptr + ptrs, x / tl.sqrt(tl.sum(x * x, axis=0) / C + 1e-5))


class ModelNew(nn.Module):
    def forward(self, x):
        B, C, H, W = x.shape
        y = torch.empty_like(x)
        rms[(B * H * W,)](x, y, H * W, C=C)
        return y


def get_inputs():
    return [torch.randn(16, 64, 512, 512)]


def get_init_inputs():
    return []
"""


def test_coalescing_a_kernel_whose_lanes_ran_along_the_strided_axis_turns_its_grid_with_them() -> None:
    """One program per position, its 64 channels as lanes H*W apart: KL030's fix puts the 64 lanes on 64
    adjacent positions and loops over the channels, so the 4.2 M programs become 65,536 (the scheduling of the
    original grid, not only its sectors, goes)."""
    e = entry(STRIDED_CHANNELS)
    (op,) = [op for op in e.ops if op.kind == "triton"]
    assert (op.programs, op.strided_lanes, op.lane_stride) == (16 * 512 * 512, 64, 512 * 512)
    fixed = cost.coalesce(e.ops, op.line, op.line)
    assert fixed is not None
    (after,) = [f for f in fixed if f.kind == "triton"]
    assert (after.programs, after.strided_bytes) == (16 * 512 * 512 // 64, 0)


def test_a_store_whose_lanes_are_a_sector_apart_is_priced_as_such_a_load() -> None:
    """The position-per-program RMS norm stores its 64 lanes H*W apart too: both tensors, the one it loads
    and the one it stores, are counted at the strided rate (on an H200 the validation file's before measured
    5.79 ms, 2.53 estimated from its loads alone)."""
    (op,) = [op for op in entry(STRIDED_CHANNELS).ops if op.kind == "triton"]
    assert op.strided_bytes == 2 * 16 * 64 * 512 * 512 * 4


WINDOW_POOL = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def pool3x3(x_ptr, w_ptr, y_ptr, H, W, total, BLOCK: tl.constexpr, KS: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    ow = offs % W
    oh = (offs // W) % H
    base = offs - ow - oh * W
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for kh in range(KS):
        for kw in tl.static_range(KS):
            w = tl.load(w_ptr + kh * KS + kw)
            ok = mask & (oh + kh < H) & (ow + kw < W)
            acc += w * tl.load(x_ptr + base + (oh + kh) * W + ow + kw, mask=ok, other=0.0)
    tl.store(y_ptr + offs, acc, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x, w):
        N, C, H, W = x.shape
        y = torch.empty_like(x)
        pool3x3[(triton.cdiv(x.numel(), 1024),)](x, w, y, H, W, x.numel(), BLOCK=1024, KS=3)
        return y


def get_inputs():
    return [torch.randn(8, 64, 256, 256), torch.randn(9)]


def get_init_inputs():
    return []
"""


def test_a_window_kernel_counts_every_tap_its_tile_loads_and_is_priced_by_them() -> None:
    """A 3x3 window walked tap by tap: the tile load runs 9 times per program (the scalar weight load is not
    a tile), 9x the elements the input holds, and the kernel is bound by those loads (the calibrated Triton
    pool's rate per tap), not by its bytes."""
    (op,) = [op for op in entry(WINDOW_POOL).ops if op.kind == "triton"]
    elements = 8 * 64 * 256 * 256
    assert (op.programs, op.loaded_elements) == (elements // 1024, 9 * elements)
    c = cost.calibration().constants
    assert cost.gpu_us(op, c) == pytest.approx(9 * elements * c["triton_pool_tap_us"])
    assert cost.gpu_us(op, c) > op.bytes / c["bw_triton_4byte"]


def test_a_row_read_in_three_loops_counts_each_loop_once() -> None:
    """`offs = start + tl.arange(0, BLOCK)` bound in each of three passes over a row: one axis of BLOCK
    lanes, so the kernel loads its row three times, not BLOCK**3 elements per trip."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def norm(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
            row = x_ptr + tl.program_id(0) * N
            acc = tl.zeros([BLOCK], dtype=tl.float32)
            for start in range(0, N, BLOCK):
                offs = start + tl.arange(0, BLOCK)
                acc += tl.load(row + offs, mask=offs < N, other=0.0)
            mean = tl.sum(acc, axis=0) / N
            acc2 = tl.zeros([BLOCK], dtype=tl.float32)
            for start in range(0, N, BLOCK):
                offs = start + tl.arange(0, BLOCK)
                d = tl.load(row + offs, mask=offs < N, other=0.0) - mean
                acc2 += d * d
            rstd = 1.0 / tl.sqrt(tl.sum(acc2, axis=0) / N + 1e-5)
            for start in range(0, N, BLOCK):
                offs = start + tl.arange(0, BLOCK)
                v = tl.load(row + offs, mask=offs < N, other=0.0)
                tl.store(y_ptr + tl.program_id(0) * N + offs, (v - mean) * rstd, mask=offs < N)

        class ModelNew(torch.nn.Module):
            def forward(self, x):
                y = torch.empty_like(x)
                norm[(x.shape[0],)](x, y, x.shape[1], BLOCK=1024)
                return y

        def get_inputs():
            return [torch.randn(512, 65536)]

        def get_init_inputs():
            return []
        """
    )
    (op,) = [op for op in entry(source).ops if op.kind == "triton"]
    assert op.loaded_elements == 3 * 512 * 65536


def test_a_direct_convolutions_tl_dot_rewrite_runs_no_faster_than_the_librarys_convolution() -> None:
    """KL020's fix of a direct 3x3 convolution (multiply-adds, one scalar weight per tap): the launch's
    tensors name a Conv2d of depth 16 x 9, and the tl.dot rewrite is priced at no more than the calibrated
    cuDNN rate for that convolution, not at a GEMM's tile rate (on an H200 fresh5's gb05 so rewritten measured
    3,446 us, cuDNN 2,707, the tile rate's 650). The kernel's own loads count every tap: 9 x 16 per output lane."""
    source = (ROOT / "fixtures/generated/g05_l1_63_conv2d_direct.py").read_text()
    ops = entry(source).ops
    (i,) = [i for i, op in enumerate(ops) if op.kind == "triton"]
    op = ops[i]
    outputs = 16 * 128 * 1022 * 1022
    nbytes = 4 * (16 * 16 * 1024 * 1024 + 128 * 16 * 9 + outputs)  # input, weight, output
    assert op.conv_product == ConvProduct("nn.Conv2d", 16 * 9, 2 * outputs * 16 * 9, 1, (3, 3, 1, 1, 1, 1), nbytes)
    # Every program's 256 lanes, the last block of each plane's 1022 * 1022 pixels masked in part.
    assert op.loaded_elements == 16 * 128 * -(-1022 * 1022 // 256) * 256 * 16 * 9
    fixed = cost.tensor_cores(ops, op.line, op.line)
    assert fixed is not None
    after = fixed[i]
    assert (after.path, after.at_library_rate, after.loaded_elements) == ("tf32", True, 0)
    c = cost.calibration().constants
    library = cost.gpu_us(
        Op(
            "gemm",
            0,
            bytes=nbytes,
            flops=2 * outputs * 16 * 9,
            path="tf32",
            reduction=16 * 9,
            note="nn.Conv2d",
            conv_window=(3, 3, 1, 1, 1, 1),
            elem_bytes=4,
        ),
        c,
    )
    assert cost.gpu_us(after, c) == pytest.approx(library)
    assert cost.gpu_us(replace(after, at_library_rate=False), c) < library / 2


WHILE_OVER_LAYERS = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1))

    def forward(self, x):
        mods = list(self.features)
        i = 0
        while i < len(mods):
            m = mods[i]
            if isinstance(m, nn.Conv2d):
                x = torch.nn.functional.conv2d(x, m.weight, m.bias, padding=1)
            i += 1
        return x


def get_inputs():
    return [torch.randn(8, 3, 64, 64)]


def get_init_inputs():
    return []
"""


def test_a_while_loop_stepping_over_the_models_layers_is_run_step_by_step() -> None:
    """`while i < len(mods)` with `i += 1`: its test is a static value at every step, so the table runs the
    body per layer (the two convolutions, sized) instead of giving up on the statement."""
    e = entry(WHILE_OVER_LAYERS)
    assert not e.unknown
    assert [op.kind for op in e.ops if op.kind == "gemm"] == ["gemm", "gemm"]
    assert e.outputs[0][1] == (8, 32, 64, 64)


NAMED_DIRECTIONS = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(64, 128, num_layers=1, bidirectional=True)

    def forward(self, x):
        outs = []
        for d, sfx in enumerate(["", "_reverse"]):
            w = getattr(self.rnn, f"weight_ih_l0{sfx}")
            outs.append(x @ w.t())
        return torch.cat(outs, dim=-1)


def get_inputs():
    return [torch.randn(512, 64)]


def get_init_inputs():
    return []
"""


def test_a_loop_over_a_few_named_items_is_run_item_by_item() -> None:
    """`for d, sfx in enumerate(["", "_reverse"])` builds parameter names from its strings: the table runs it per
    item, so `getattr(self.rnn, f"weight_ih_l0{sfx}")` is each direction's weight, sized."""
    e = entry(NAMED_DIRECTIONS)
    assert not e.unknown
    assert e.outputs[0][1] == (512, 2 * 3 * 128)


def test_an_elementwise_kernel_merged_into_the_kernel_that_reduces_its_output_saves_that_tensor() -> None:
    """KL022's INVALID example of a loss in two kernels (a difference written whole, then squared and summed
    per block): the fix is one kernel reading both inputs, 537 MB where the two moved 1,074 MB and the partial
    sums; of the launches the finding's line holds, the merge that saves the largest tensor is the one made."""
    from kernlint.rules.kl022_torch_after_kernel import TorchAfterKernel

    source = textwrap.dedent(next(e.code for e in TorchAfterKernel.INVALID if "sq_sum" in e.code))
    (finding,) = [f for f in lint_source("k.py", source).findings if f.code == "KL022"]
    launches = [op for op in cost.fuse_into_kernel(entry(source).ops, 21, 21) or () if op.kind == "triton"]
    # (and the sum it now writes: 4 bytes)
    assert [(op.note, op.bytes) for op in launches] == [("sub", 2 * 8192 * 8192 * 4 + 4)]
    assert finding.expected_speedup["for_this_file"]["graph"] > 1.8


IM2COL = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(64, 3 * 5 * 5))

    def forward(self, x):
        cols = F.unfold(x, kernel_size=5, padding=2)
        return self.weight @ cols


def get_inputs():
    return [torch.randn(8, 3, 128, 128)]


def get_init_inputs():
    return []
"""


def test_f_unfold_is_an_im2col_copy_of_every_window() -> None:
    """F.unfold (im2col, as generated convolutions write it) reads x once and writes each 5x5 window's 75
    values per output position: [8, 75, 16384]; the file stays static (it was 'not in the cost table')."""
    e = entry(IM2COL)
    assert not e.unknown
    (im2col,) = [op for op in e.ops if op.note.startswith("F.unfold")]
    assert (im2col.kind, im2col.in_bytes, im2col.out_bytes) == ("copy", (8 * 3 * 128 * 128 * 4,), 8 * 75 * 16384 * 4)


def test_a_join_of_kernel_outputs_is_dropped_by_the_fix() -> None:
    """KL022's INVALID example of two kernels' outputs joined by torch.cat: the fix stores each into its slice
    of the joined tensor, so the join's copy (a read and a write of both outputs) goes and nothing else."""
    from kernlint.rules.kl022_torch_after_kernel import TorchAfterKernel

    source = textwrap.dedent(next(e.code for e in TorchAfterKernel.INVALID if "torch.cat([ya, yb]" in e.code))
    ops = entry(source).ops
    fixed = cost.fuse_into_kernel(ops, 16, 16)
    assert fixed is not None
    assert [op.kind for op in ops if op.kind not in ("alloc", "view")] == ["triton", "triton", "copy"]
    assert [op.kind for op in fixed if op.kind not in ("alloc", "view")] == ["triton", "triton"]
    (finding,) = [f for f in lint_source("k.py", source).findings if f.code == "KL022"]
    assert finding.expected_speedup["for_this_file"]["graph"] > 1.5


def test_a_torch_op_only_a_kernel_reads_is_folded_into_its_loads_by_the_fix() -> None:
    """KL022's INVALID example of a mask applied in torch before a row-scan kernel: the fix hands the kernel x
    and the mask, so the product's pass (x and the mask read, 537 MB written) goes and the kernel reads the
    op's inputs instead of its result."""
    from kernlint.rules.kl022_torch_after_kernel import TorchAfterKernel

    source = textwrap.dedent(next(e.code for e in TorchAfterKernel.INVALID if "masked = x * mask" in e.code))
    ops = entry(source).ops
    (launch,) = [op for op in ops if op.kind == "triton"]
    fixed = cost.fuse_into_kernel(ops, 14, 14)
    assert fixed is not None and not [op for op in fixed if op.kind == "elementwise"]
    (merged,) = [op for op in fixed if op.kind == "triton"]
    (product,) = [op for op in ops if op.kind == "elementwise"]
    assert merged.bytes == launch.bytes + sum(product.in_bytes) - product.out_bytes
    (finding,) = [f for f in lint_source("k.py", source).findings if f.code == "KL022"]
    assert finding.expected_speedup["for_this_file"]["graph"] > 1.5


SOFTMAX_IN_THREE_KERNELS = """\
import torch
import triton
import triton.language as tl


@triton.jit
def row_max(x_ptr, m_ptr, N, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    tl.store(m_ptr + tl.program_id(0), tl.max(tl.load(x_ptr + tl.program_id(0) * N + cols, mask=cols < N, other=-1e30), axis=0))


@triton.jit
def row_sumexp(x_ptr, m_ptr, s_ptr, N, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * N + cols, mask=cols < N, other=-1e30)
    tl.store(s_ptr + tl.program_id(0), tl.sum(tl.exp(x - tl.load(m_ptr + tl.program_id(0))), axis=0))


@triton.jit
def row_normalize(x_ptr, y_ptr, m_ptr, s_ptr, N, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * N + cols, mask=cols < N)
    y = tl.exp(x - tl.load(m_ptr + tl.program_id(0))) / tl.load(s_ptr + tl.program_id(0))
    tl.store(y_ptr + tl.program_id(0) * N + cols, y, mask=cols < N)


def softmax(x):
    m = torch.empty(x.shape[0], device=x.device)
    s = torch.empty(x.shape[0], device=x.device)
    y = torch.empty_like(x)
    row_max[(x.shape[0],)](x, m, x.shape[1], BLOCK=4096)
    row_sumexp[(x.shape[0],)](x, m, s, x.shape[1], BLOCK=4096)
    row_normalize[(x.shape[0],)](x, y, m, s, x.shape[1], BLOCK=4096)
    return y


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return softmax(x)


def get_inputs():
    return [torch.randn(65536, 4096)]


def get_init_inputs():
    return []
"""


def test_a_softmax_in_three_kernels_keeps_two_passes_under_the_online_fix() -> None:
    """KL008 on a softmax written as a max kernel, an exp-sum kernel and a normalize kernel over x: the online
    softmax computes both statistics in one pass, so the fix drops the middle kernel's read of x (1 GB), and
    the estimate is for the file (it was 'not modelled', and the verdict fell back to the pair's range)."""
    (finding,) = [f for f in lint_source("k.py", SOFTMAX_IN_THREE_KERNELS).findings if f.code == "KL008"]
    ops = entry(SOFTMAX_IN_THREE_KERNELS).ops
    fixed = cost.online_passes(ops, finding.span.line, finding.span.end_line)
    assert [op.note for op in ops if op.kind == "triton"] == ["row_max", "row_sumexp", "row_normalize"]
    assert fixed is not None and [op.note for op in fixed if op.kind == "triton"] == ["row_max", "row_normalize"]
    estimate = finding.expected_speedup["for_this_file"]
    assert estimate["status"] == "estimated" and 1.2 < estimate["graph"] < 1.6


def test_a_tl_dot_grid_that_leaves_sms_idle_streams_at_its_configs_measured_rate_per_program() -> None:
    """A decode-shaped GEMM (16 x 8192 x 8192 fp16) at a fixed 64x64x32 tile runs 128 programs, fewer than
    the SMs: where the record has the triton_dot_programs_* probes, each program streams at its config's
    measured rate per program, not at its share of the GPU's bandwidth; the fix's autotuning set takes the
    config whose programs stream fastest. A record without the probes prices it as before."""
    record = json.loads(CALIBRATION.read_text())
    plain = cost.derive_constants(record)
    path = ROOT / "fixtures/costmodel/kl003_decode_before.py"
    source = path.read_text()
    (launch,) = [op for op in build_model(str(path), source, parse(source)).entry_point.ops if op.kind == "triton"]
    assert (launch.dot_tile, launch.programs) == ((64, 64, 32, 4, 3), 128)
    probed = copy.deepcopy(record)
    for config, us in (("64x64x32_w4_s3", 170.0), ("16x64x128_w4_s4", 42.0)):
        probed["probes"][f"triton_dot_programs_fp16_{config}"] = {
            "bytes": 64 * 10**6,
            "programs": 32,
            "modes": {"graph": {"median_us": us}},
        }
    c = cost.derive_constants(probed)
    per_program = 64 * 10**6 / 170.0 / 32
    assert c["bw_dot_program_fp16_64x64x32_w4_s3"] == pytest.approx(per_program, rel=1e-3)  # rates kept to 4 digits
    per_program = c["bw_dot_program_fp16_64x64x32_w4_s3"]
    assert cost.gpu_us(launch, c) == pytest.approx(launch.bytes / (128 * per_program))
    assert cost.gpu_us(launch, plain) < cost.gpu_us(launch, c) / 1.5
    (fixed,) = cost.autotune((launch,), launch.line, launch.line)
    # The 16-row config's programs stream 4x faster: the whole GPU's bandwidth bounds it, not its programs.
    assert cost.gpu_us(fixed, c) == pytest.approx(cost.gpu_us(fixed, plain))


FLATTEN_AND_ENCODER_LAYER = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 64, 4, stride=4)
        self.layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, batch_first=True)
        self.head = nn.Parameter(torch.randn(4096, 10))

    def forward(self, x):
        y = self.conv(x).flatten(start_dim=1)
        sa, norm = self.layer.self_attn, self.layer.norm1
        qkv = torch.matmul(y.view(-1, 64), sa.in_proj_weight.t())
        return torch.matmul(y, self.head), qkv * norm.weight.sum() + norm.eps


def get_inputs():
    return [torch.randn(8, 3, 32, 32)]


def get_init_inputs():
    return []
"""


def test_flatten_keeps_the_dims_before_start_dim_and_an_encoder_layer_has_its_torch_submodules() -> None:
    """`x.flatten(start_dim=1)` of [8, 64, 8, 8] is [8, 4096], not one dimension; a TransformerEncoderLayer
    exposes self_attn's packed projection and its norms' parameters and eps, as torch builds them."""
    e = entry(FLATTEN_AND_ENCODER_LAYER)
    assert e.unknown == ()
    projection, head = [op for op in e.ops if op.kind == "gemm" and op.note != "nn.Conv2d"]
    assert head.flops == 2 * 8 * 4096 * 10  # [8, 4096] @ [4096, 10]
    assert projection.flops == 2 * 512 * 64 * 192  # [512, 64] @ in_proj_weight.t() [64, 192]


def test_a_fix_the_model_cannot_price_is_bounded_by_deleting_the_code_it_names(tmp_path: Path) -> None:
    """At a file the model sizes, a finding whose fix it does not model still gets an upper bound: the call
    without the ops on the finding's lines (here the relu and scale at line 14, asked for as a tensor-core
    fix, which finds no GEMM there). A bound under 1.2x makes the verdict 'no', whatever the pair measured."""
    e = entry(KERNELBENCH)
    result = cost.estimate("tensor_cores", e, [(14, 14)])
    c = cost.calibration().constants
    named = {i for i, op in enumerate(e.ops) if op.line == 14}
    assert len(named) == 2
    whole, without = cost.entry_time(e.ops, c), cost.entry_time(cost._without(e.ops, named), c)
    assert result["status"] == "unknown"
    assert result["at_most"]["kernelbench"] == round(whole.kernelbench / without.kernelbench, 2)
    assert result["at_most"]["graph"] is None  # the .item() sync: no CUDA graph of the call
    from kernlint import advice, claims
    from kernlint.findings import Category, Finding, Severity, Span

    finding = Finding(
        code="KL020",
        name="gemm-without-dot",
        category=Category.ALGORITHM_REPLACEMENT,
        severity=Severity.WARNING,
        message="m",
        path="k.py",
        span=Span(14, 5, 14, 30),
        plan="p",
        expected_speedup={
            **claims.expected_speedup("KL020"),
            "for_this_file": {**result, "at_most": {"kernelbench": 1.04}},
        },
    )
    verdict = advice.verdict("k.py", [finding])
    assert verdict["worth_optimizing"] == "no" and "at most 1.04x" in verdict["reason"]


DEPTHWISE_AFTER_A_KERNEL = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu6_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(v, 0.0), 6.0), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = nn.Conv2d(256, 256, 5, padding=2, groups=256)

    def forward(self, x):
        y = torch.empty_like(x)
        relu6_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return self.dw(y)


def get_inputs():
    return [torch.randn(8, 256, 128, 128)]


def get_init_inputs():
    return []
"""


def test_kl029s_triton_kernel_applies_the_elementwise_pass_that_wrote_its_input() -> None:
    """A depthwise conv (PyTorch's own kernel) over what an elementwise Triton kernel wrote and nothing else
    reads: KL029's replacement loads the kernel's input and applies it, so the intermediate is never written
    nor read back, and the plan says so."""
    e = entry(DEPTHWISE_AFTER_A_KERNEL)
    launch = next(i for i, op in enumerate(e.ops) if op.kind == "triton")
    conv = next(i for i, op in enumerate(e.ops) if op.kernel.startswith("depthwise"))
    fixed = cost.replace_library_kernel(e.ops, e.ops[conv].line, e.ops[conv].line)
    assert fixed is not None and not any(op.kind == "triton" and op.note == e.ops[launch].note for op in fixed[:-1])
    assert [op.kind for op in fixed].count("triton") == 1  # the replacement alone
    (replacement,) = [op for op in fixed if op.kind == "triton"]
    assert replacement.bytes == cost.library_replacement(e.ops[conv])[0].bytes  # reads x where it read y
    (finding,) = [f for f in lint_source("k.py", DEPTHWISE_AFTER_A_KERNEL).findings if f.code == "KL029"]
    assert "Apply the elementwise pass that writes its input (line 22, relu6_kernel)" in finding.plan


GETATTR_PARAMETER = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(64, 128, num_layers=2, bidirectional=True)

    def forward(self, x):
        layer, sfx = 1, "_reverse"
        w = getattr(self.lstm, f"weight_ih_l{layer}" + sfx)
        return torch.matmul(x, w.t())


def get_inputs():
    return [torch.randn(32, 256)]


def get_init_inputs():
    return []
"""


def test_getattr_reads_a_modules_parameter_by_a_name_an_f_string_builds() -> None:
    """`getattr(self.lstm, f"weight_ih_l{layer}" + sfx)` with static parts is the layer's parameter by its torch
    name: layer 1's reverse input weight reads both directions of layer 0, [4 * 128, 2 * 128]."""
    e = entry(GETATTR_PARAMETER)
    assert e.unknown == ()
    (gemm,) = [op for op in e.ops if op.kind == "gemm"]
    assert gemm.flops == 2 * 32 * 256 * 512


def test_getattr_reads_a_parameter_by_a_name_built_printf_style() -> None:
    """`"weight_ih_l%d" % layer` builds the same name as the f-string: a loop over the suffixes it makes is
    unrolled and each parameter sized; a format of a float (not a name) stays unknown."""
    e = entry(
        GETATTR_PARAMETER.replace(
            'layer, sfx = 1, "_reverse"\n        w = getattr(self.lstm, f"weight_ih_l{layer}" + sfx)',
            'layer = 1\n        for s in ["_l%d" % layer, "_l%d_reverse" % layer]:\n'
            '            w = getattr(self.lstm, "weight_ih" + s)',
        )
    )
    assert e.unknown == ()
    (gemm,) = [op for op in e.ops if op.kind == "gemm"]
    assert gemm.flops == 2 * 32 * 256 * 512
    unknown = entry(GETATTR_PARAMETER.replace('f"weight_ih_l{layer}" + sfx', '"weight_ih_l%f" % 1.0'))
    assert unknown.unknown


LAYER_LOOP_BY_NAME = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(64, 128, num_layers=2)

    def forward(self, x):
        for layer in range(2):
            w = getattr(self.rnn, f"weight_ih_l{layer}")
            x = torch.tanh(torch.matmul(x, w.t()))
        return x


def get_inputs():
    return [torch.randn(32, 64)]


def get_init_inputs():
    return []
"""


def test_a_few_steps_whose_body_needs_the_index_run_step_by_step() -> None:
    """A two-layer loop reading each layer's weight by its torch name: run once with an unknown index it has
    no static name, so it runs step by step, layer 0's [128, 64] weight, then layer 1's [128, 128]."""
    e = entry(LAYER_LOOP_BY_NAME)
    assert e.unknown == ()
    assert [op.flops for op in e.ops if op.kind == "gemm"] == [2 * 32 * 64 * 128, 2 * 32 * 128 * 128]
    assert all(op.repeat == 1 for op in e.ops)


TRANSPOSED_A = """
import torch
import triton
import triton.language as tl


@triton.jit
def at_b(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + (k + rk)[:, None] * M + rm[None, :])  # A[k, m]: a K x M tile
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(tl.trans(a), b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)


class ModelNew(torch.nn.Module):
    def forward(self, A, B):
        K, M = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device)
        at_b[(M // 64, N // 128)](A, B, C, M, N, K, BM=64, BN=128, BK=32)
        return C


def get_inputs():
    return [torch.randn(8192, 2048), torch.randn(8192, 4096)]


def get_init_inputs():
    return []
"""


def test_a_tl_dot_of_a_transposed_tile_is_sized_with_the_output_as_allocated() -> None:
    """`tl.dot(tl.trans(a), b)` over A [K, M] and B [K, N]: the tile config reads a's axes swapped, and the
    product is C [M, N] (the allocated output), not A taken for an output of B and C."""
    (launch,) = [op for op in entry(TRANSPOSED_A).ops if op.kind == "triton"]
    assert (launch.dot_tile[:3], launch.dot_mn, launch.flops) == ((64, 128, 32), (2048, 4096), 2 * 2048 * 4096 * 8192)


TRAINING_AND_RNN_ATTRIBUTES = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(64, 128, num_layers=2, bidirectional=True)

    def forward(self, x):
        if self.training and self.rnn.bias and self.rnn.bidirectional:
            x = F.dropout(x, p=0.1)
        return x * 2.0


def get_inputs():
    return [torch.randn(32, 64)]


def get_init_inputs():
    return []
"""


def test_a_model_runs_in_training_mode_and_an_rnn_keeps_its_flags() -> None:
    """KernelBench never calls .eval(): `self.training` is True; an nn.GRU's bias and bidirectional flags are
    read as torch keeps them, so the branch runs (the dropout, then the scale)."""
    e = entry(TRAINING_AND_RNN_ATTRIBUTES)
    assert e.unknown == ()
    assert [op.kind for op in e.ops if op.kind != "view"] == ["elementwise", "elementwise"]


STEP_KERNEL_ON_WHOLE_TENSORS = """
import torch
import triton
import triton.language as tl


@triton.jit
def step(g_ptr, w_ptr, h_ptr, out_ptr, t, B: tl.constexpr, H: tl.constexpr, T: tl.constexpr):
    rb = tl.arange(0, B)
    rh = tl.arange(0, H)
    h = tl.load(h_ptr + rb[:, None] * H + rh[None, :])
    w = tl.load(w_ptr + rh[:, None] * H + rh[None, :])
    g = tl.load(g_ptr + (rb[:, None] * T + t) * H + rh[None, :])
    h = tl.tanh(g + tl.dot(h, w))
    tl.store(h_ptr + rb[:, None] * H + rh[None, :], h)
    tl.store(out_ptr + (rb[:, None] * T + t) * H + rh[None, :], h)


class ModelNew(torch.nn.Module):
    def forward(self, g, w):
        B, T, H = g.shape
        h = torch.zeros(B, H, device=g.device)
        out = torch.empty(B * T, H, device=g.device)
        for t in range(T):
            step[(1,)](g.view(B * T, H), w, h, out, t, B=B, H=H, T=T)
        return out


def get_inputs():
    return [torch.randn(16, 512, 64), torch.randn(64, 64)]


def get_init_inputs():
    return []
"""


def test_a_launch_handed_the_loop_index_does_that_steps_share_of_its_product() -> None:
    """A step kernel given `t` reads step t's slice of the gates and writes step t's rows of the output: the
    product its tensors describe (out [B*T, H] from the whole gates [B*T, H] against w [H, H]) is shared by the
    512 steps, as its bytes are (it was counted whole at every step)."""
    e = entry(STEP_KERNEL_ON_WHOLE_TENSORS)
    (launch,) = [op for op in e.ops if op.kind == "triton"]
    assert launch.repeat == 512
    assert launch.flops == 2 * 16 * 512 * 64 * 64 // 512


IN_PLACE_TWICE = """
import torch
import triton
import triton.language as tl


@triton.jit
def mish(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x * tl.tanh(tl.log(1.0 + tl.exp(x))), mask=offs < n)


def triton_mish(x, out):
    mish[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
    return out


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.relu(x)
        y = triton_mish(y, out=y)
        y = triton_mish(y, out=y)
        return y


def get_inputs():
    return [torch.randn(8192, 8192)]


def get_init_inputs():
    return []
"""


def test_a_kernel_storing_into_its_argument_in_place_produces_what_reads_it_next() -> None:
    """`triton_mish(y, out=y)` twice: the second launch reads what the first one stored into y (not the relu's
    result), so the two launches are a chain KL022 merges (beside the relu its first kernel could apply)."""
    e = entry(IN_PLACE_TWICE)
    relu, first, second = [i for i, op in enumerate(e.ops) if op.kind in ("elementwise", "triton")]
    assert e.ops[first].inputs == (relu, relu) and e.ops[second].inputs == (first, first)
    findings = lint_source("k.py", IN_PLACE_TWICE).findings
    assert [(f.code, f.span.line) for f in findings] == [("KL022", 22), ("KL022", 23)]
    assert "reads back the 268 MB tensor that `mish` (line 22) wrote" in findings[1].message


def test_a_pool_module_after_an_in_place_kernel_fuses_without_its_input_sizes() -> None:
    """A library pool (its op records no per-input sizes) reading what an in-place Triton kernel wrote (no
    allocation for the launch): fusing it into the kernel charges no input it cannot size (this raised
    IndexError, an internal error on a whole DenseNet file)."""
    n = 1 << 26
    ops = (
        cost.Op("triton", 11, bytes=2 * n, inputs=(-1, -1), in_bytes=(n, n), programs=65536),
        cost.Op("reduction", 12, bytes=n + n // 4, inputs=(0,), out_bytes=n // 4, note="nn.MaxPool2d"),
    )
    fused = cost.fuse_into_kernel(ops, 11, 11)
    assert fused is not None and [op.kind for op in fused] == ["triton"]
    assert fused[0].bytes == 2 * n  # the kernel still reads and writes its tensor once


USER_BLOCK_LAYERS = """
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(width, width) for _ in range(2)])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(256), Block(256)])

    def forward(self, x):
        for block in self.blocks:
            for layer in block.layers:
                x = torch.relu(layer(x))
        return x


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return []
"""


def test_a_module_class_of_the_file_exposes_what_its_init_set() -> None:
    """`block.layers` of a Block built from the file's own class is the ModuleList its __init__ made: two
    blocks of two Linear layers each are four GEMMs."""
    e = entry(USER_BLOCK_LAYERS)
    assert e.unknown == ()
    assert [op.flops for op in e.ops if op.kind == "gemm"] == [2 * 64 * 256 * 256] * 4


def test_one_weight_against_each_batchs_columns_is_a_product() -> None:
    """A launch's tensors out [B, M, N], weight [M, K] and columns [B, K, N] (a convolution's im2col GEMM per
    image) describe B products of M x N x K."""
    from kernlint.model.shapes import Tensor, _product_work

    out, weight, cols = (
        Tensor((8, 64, 4096), "float32"),
        Tensor((64, 576), "float32"),
        Tensor((8, 576, 4096), "float32"),
    )
    assert _product_work([out, weight, cols]) == (2 * 8 * 64 * 4096 * 576, 4)


def test_a_triton_kernel_writing_an_expanded_copy_for_a_gemm_is_an_im2col_that_the_fix_never_writes() -> None:
    """KL025's INVALID example of an im2col in Triton: the kernel reads the 4 MB input and writes the 37.7 MB
    column matrix (9 taps); the fix drops it and the GEMM reads the input's windows instead."""
    from kernlint.rules.kl025_structure_blind_gemm import StructureBlindGemm

    source = textwrap.dedent(StructureBlindGemm.INVALID[0].code)
    ops = entry(source).ops
    (im2col,) = [op for op in ops if op.expands]
    columns, image = 128 * 128 * 576 * 4, 64 * 128 * 128 * 4
    assert (im2col.note, im2col.expands) == ("im2col", (image, columns))
    (gemm,) = [op for op in ops if op.flops]
    fixed = cost.structured_gemm(ops, 29, 29)
    assert fixed is not None and [op.note for op in fixed if op.kind == "triton"] == ["gemm"]
    (implicit,) = [op for op in fixed if op.flops]
    assert implicit.bytes == gemm.bytes - columns + image
    # A kernel that writes what it reads (a scale before the GEMM) is no expansion.
    valid = textwrap.dedent(StructureBlindGemm.VALID[-1].code)
    assert not any(op.expands for op in entry(valid).ops)


def test_merging_a_zero_insert_kernel_into_the_convolution_that_reads_it_keeps_the_convolutions_flops() -> None:
    """A transposed convolution as a zero-inserted copy of the input (a Triton kernel) and a direct
    convolution without tl.dot over it (weight in nn.ConvTranspose's [C_in, C_out, k, k] layout): the
    convolution's multiply-adds are its flops, and KL022's merge of the two kernels keeps them."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def insert(x_ptr, xd_ptr, n, W, Wd, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            v = tl.load(x_ptr + offs, mask=offs < n)
            tl.store(xd_ptr + (offs // W) * 2 * Wd + (offs % W) * 2, v, mask=offs < n)

        @triton.jit
        def conv(xd_ptr, w_ptr, y_ptr, C_in, HWd, Wd, OW, BLOCK_W: tl.constexpr, BLOCK_OC: tl.constexpr):
            offs_w = tl.program_id(0) * BLOCK_W + tl.arange(0, BLOCK_W)
            offs_oc = tl.arange(0, BLOCK_OC)
            acc = tl.zeros((BLOCK_OC, BLOCK_W), dtype=tl.float32)
            for ic in range(C_in):
                for k in range(9):
                    xv = tl.load(xd_ptr + ic * HWd + (k // 3) * Wd + k % 3 + offs_w)
                    wv = tl.load(w_ptr + ic * BLOCK_OC * 9 + offs_oc * 9 + k)
                    acc += wv[:, None] * xv[None, :]
            tl.store(y_ptr + offs_oc[:, None] * OW + offs_w[None, :], acc)

        class ModelNew(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.up = torch.nn.ConvTranspose2d(64, 32, 3, stride=2, bias=False)

            def forward(self, x):
                xd = torch.zeros(16, 64, 257, 257, device=x.device)
                insert[(16 * 64 * 128 * 128 // 1024,)](x, xd, x.numel(), 128, 257, BLOCK=1024)
                y = torch.empty(16, 32, 255, 255, device=x.device)
                conv[(255 * 255 // 64,)](xd, self.up.weight, y, 64, 257 * 257, 257, 255, BLOCK_W=64, BLOCK_OC=32)
                return y

        def get_inputs():
            return [torch.randn(16, 64, 128, 128)]

        def get_init_inputs():
            return []
        """
    )
    ops = entry(source).ops
    (convolution,) = [op for op in ops if op.flops]
    assert convolution.path == "fma" and convolution.flops == 2 * 16 * 32 * 255 * 255 * 64 * 9
    line = next(n for n, text in enumerate(source.splitlines(), 1) if "conv[(" in text)
    merged = cost.fuse_into_kernel(ops, line, line)
    assert merged is not None
    (launch,) = [op for op in merged if op.kind == "triton"]
    assert (launch.flops, launch.path) == (convolution.flops, "fma")


def test_a_model_new_deriving_from_the_files_model_runs_its_bases_init_and_forward() -> None:
    """`class ModelNew(Model)`: super().__init__(...) builds Model's layers, a forward ModelNew does not define
    is Model's, and `super().forward(x)` runs it."""
    base = """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self, features):
                super().__init__()
                self.fc = nn.Linear(features, features)

            def forward(self, x):
                return torch.relu(self.fc(x))

        class ModelNew(Model):
            def __init__(self, features):
                super().__init__(features)
                self.scale = 2.0
            {forward}

        def get_inputs():
            return [torch.randn(64, 1024)]

        def get_init_inputs():
            return [1024]
        """
    inherited = entry(textwrap.dedent(base.format(forward="")))
    assert not inherited.unknown and inherited.model_class == "ModelNew"
    assert [op.kind for op in inherited.ops] == ["gemm", "elementwise"]
    assert inherited.ops[0].flops == 2 * 64 * 1024 * 1024
    extended = entry(
        textwrap.dedent(
            base.format(forward="def forward(self, x):\n                return super().forward(x) * self.scale")
        )
    )
    assert not extended.unknown and [op.kind for op in extended.ops] == ["gemm", "elementwise", "elementwise"]


LAYERS_FROM_THE_REFERENCE = """
    import torch
    import torch.nn as nn

    class Block(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.fc = nn.Linear(features, features)

        def forward(self, x):
            return torch.relu(self.fc(x))

    class BlockNew(Block):
        def forward(self, x):
            return torch.relu(self.fc(x)) * 2.0

    class Model(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.head = nn.Linear(features, features)
            self.blocks = self._make_blocks(Block, features)

        def _make_blocks(self, block, features):
            return nn.Sequential(block(features), block(features))

        def forward(self, x):
            return self.blocks(self.head(x))

    class ModelNew(nn.Module):
        def __init__(self, features):
            INIT

        _make_blocks = Model._make_blocks

        def forward(self, x):
            return self.blocks(self.head(x))

    def get_inputs():
        return [torch.randn(64, 1024)]

    def get_init_inputs():
        return [1024]
    """


@pytest.mark.parametrize(
    "init",
    [
        # The reference's builder method taken into ModelNew's body; a subclass keeping its base's __init__.
        "super().__init__()\n            self.head = nn.Linear(features, features)\n"
        "            self.blocks = self._make_blocks(BlockNew, features)",
        # nn.Module.__init__ called directly, then the same.
        "nn.Module.__init__(self)\n            self.head = nn.Linear(features, features)\n"
        "            self.blocks = self._make_blocks(BlockNew, features)",
        # The reference built, its layers taken one by one.
        "super().__init__()\n            ref = Model(features)\n"
        "            for name, mod in ref.named_children():\n                setattr(self, name, mod)",
    ],
)
def test_a_model_new_built_from_its_references_layers_and_builders_is_sized(init: str) -> None:
    """Generated files build ModelNew from the reference's parts: `_make_layer = Model._make_layer`, a
    `class BlockNew(Block)` that only overrides forward, `nn.Module.__init__(self)`, or the reference's layers
    copied with setattr. Each left the whole file unsized."""
    found = entry(textwrap.dedent(LAYERS_FROM_THE_REFERENCE.replace("INIT", init)))
    assert not found.unknown
    assert [op.kind for op in found.ops if op.kind == "gemm"] == ["gemm"] * 3
    assert all(op.flops == 2 * 64 * 1024 * 1024 for op in found.ops if op.kind == "gemm")
    elementwise = [op for op in found.ops if op.kind == "elementwise"]
    # BlockNew's forward (a ReLU, then the scale) where ModelNew builds BlockNew; Block's ReLU in the reference's.
    assert len(elementwise) == (2 if "ref = Model" in init else 4)


def test_a_view_as_another_dtype_and_a_helper_defined_in_forward_keep_the_file_sized() -> None:
    """`mask.view(torch.uint8)` reads the same bytes as another dtype (no kernel), and `def out_dim(L):` in
    forward reads forward's own names (a closure): both were 'shapes not static'."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def pool(x_ptr, m_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            keep = tl.load(m_ptr + offs, mask=offs < n, other=0)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * keep, mask=offs < n)

        class ModelNew(torch.nn.Module):
            def __init__(self, k):
                super().__init__()
                self.k = k

            def forward(self, x, mask):
                k = self.k

                def out_dim(length):
                    return (length - k) // k + 1

                y = torch.empty(x.shape[0], out_dim(x.shape[1]) * k, device=x.device)
                m8 = mask.contiguous().view(torch.uint8)
                pool[(y.numel() // 1024,)](x, m8, y, y.numel(), BLOCK=1024)
                return y

        def get_inputs():
            return [torch.randn(256, 4096), torch.rand(256, 4096) > 0.5]

        def get_init_inputs():
            return [4]
        """
    )
    point = entry(source)
    assert not point.unknown, point.unknown
    (launch,) = [op for op in point.ops if op.kind == "triton"]
    # x, the mask read as uint8 (1 byte each) and y [256, 4096].
    assert launch.in_bytes == (256 * 4096 * 4, 256 * 4096, 256 * 4096 * 4)
    # One view op for the reinterpretation (its host cost counted once).
    assert [op.kind for op in point.ops].count("view") == 1


def test_a_lane_stride_bound_to_a_kernel_local_product_of_parameters_is_known() -> None:
    """`DHW = D * H * W`, then a channel vector's lanes `offs_c * DHW` apart: the stride is the launch's
    D * H * W, so the load is uncoalesced (KL030) and the tensor is priced at the strided rate."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def channel_max(x_ptr, y_ptr, C, D, H, W, BLOCK_C: tl.constexpr):
            pid = tl.program_id(0)
            offs_c = tl.arange(0, BLOCK_C)
            DHW = D * H * W
            v = tl.load(x_ptr + offs_c * DHW + pid, mask=offs_c < C, other=0.0)
            tl.store(y_ptr + pid, tl.max(v, axis=0))

        class ModelNew(torch.nn.Module):
            def forward(self, x):
                N, C, D, H, W = x.shape
                y = torch.empty(D * H * W, device=x.device)
                channel_max[(D * H * W,)](x, y, C, D, H, W, BLOCK_C=64)
                return y

        def get_inputs():
            return [torch.randn(1, 64, 32, 64, 64)]

        def get_init_inputs():
            return []
        """
    )
    (launch,) = [op for op in entry(source).ops if op.kind == "triton"]
    assert (launch.strided_bytes, launch.lane_stride) == (64 * 32 * 64 * 64 * 4, 32 * 64 * 64)
    assert [f.code for f in lint_source("k.py", source).findings if f.code == "KL030"] == ["KL030"]


def test_a_comprehension_over_a_sequentials_layers_filters_them_by_class() -> None:
    """`[m for m in self.net if isinstance(m, nn.Linear)]` in forward: each layer bound and filtered, so the
    loop over the Linear layers is sized (it was 'ListComp is not evaluated')."""
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn

        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()
                self.net = nn.Sequential(nn.Linear(512, 256), nn.ReLU(), nn.Linear(256, 128))

            def forward(self, x):
                linears = [m for m in self.net if isinstance(m, nn.Linear)]
                for lin in linears:
                    x = torch.relu(x @ lin.weight.t() + lin.bias)
                return x

        def get_inputs():
            return [torch.randn(64, 512)]

        def get_init_inputs():
            return []
        """
    )
    point = entry(source)
    assert not point.unknown, point.unknown
    assert [op.flops for op in point.ops if op.kind == "gemm"] == [2 * 64 * 512 * 256, 2 * 64 * 256 * 128]


def test_movedim_is_a_permutation_whose_contiguous_copy_is_sized() -> None:
    """`x.movedim(1, -1).contiguous()` moves one dimension last: a view, then a transposed copy of its size
    (it was 'not in the cost table')."""
    source = textwrap.dedent(
        """
        import torch

        class ModelNew(torch.nn.Module):
            def forward(self, x):
                return x.movedim(1, -1).contiguous() * 2.0

        def get_inputs():
            return [torch.randn(8, 64, 32, 16)]

        def get_init_inputs():
            return []
        """
    )
    point = entry(source)
    assert not point.unknown, point.unknown
    copies = [op for op in point.ops if op.kind == "transpose_copy"]
    assert [(op.out_bytes, op.note) for op in copies] == [(8 * 64 * 32 * 16 * 4, ".contiguous()")]


def test_a_launch_writing_its_callers_buffer_through_a_helper_is_the_callers_value_and_not_dead_work() -> None:
    """A helper's parameter aliases the caller's tensor (`run(x, out)` launching into `out`): the caller's
    name is rebound to the launch as the helper's is, so forward returns the launch's output (no side effect
    left unfollowed) and KL027 stays silent; a buffer forward allocates and never reads is dead (KL027's
    INVALID example)."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

        def run(x, out):
            scale[(x.numel() // 1024,)](x, out, x.numel(), BLOCK=1024)

        class ModelNew(torch.nn.Module):
            def forward(self, x):
                out = torch.empty_like(x)
                run(x, out)
                return out

        def get_inputs():
            return [torch.randn(4096, 4096)]

        def get_init_inputs():
            return []
        """
    )
    point = entry(source)
    assert not point.side_effects, point.side_effects
    assert [op.kind for op in point.ops if op.returned] == ["triton"]
    assert not [f for f in lint_source("k.py", source).findings if f.code == "KL027"]


def test_functional_batch_norm_in_training_is_the_modules_passes_and_in_eval_one_pass() -> None:
    """`F.batch_norm(x, rm, rv, w, b, self.training, ...)`: in training (a module's default) the batch's
    statistics and the normalize pass, as nn.BatchNorm1d runs them; with training=False one affine pass."""
    template = """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()
                self.bn = nn.BatchNorm1d(512)

            def forward(self, x):
                bn = self.bn
                return F.batch_norm(x, bn.running_mean, bn.running_var, bn.weight, bn.bias, {training}, 0.1, 1e-5)

        def get_inputs():
            return [torch.randn(4096, 512)]

        def get_init_inputs():
            return []
        """
    size = 4096 * 512 * 4
    (train,) = entry(textwrap.dedent(template.format(training="self.training"))).ops
    (inference,) = entry(textwrap.dedent(template.format(training="False"))).ops
    assert (train.kernel, train.bytes) == ("batch_norm", 3 * size)
    assert (inference.kind, inference.bytes) == ("elementwise", 2 * size)


def test_attention_from_the_files_own_kernels_is_fused_and_torch_attention_is_replaced() -> None:
    """KL007's fix category follows the code: attention built from the file's Triton launches is fused into
    one kernel (Operator Fusion, the verdict's method says so); attention in torch ops calls SDPA (the rule's
    Algorithm Replacement)."""
    from kernlint.advice import verdict
    from kernlint.findings import Category
    from kernlint.rules.kl007_materialized_attention import MaterializedAttention

    launched = textwrap.dedent(next(e.code for e in MaterializedAttention.INVALID if "rows_kernel" in e.code))
    (finding,) = [f for f in lint_source("k.py", launched).findings if f.code == "KL007"]
    assert finding.category is Category.OPERATOR_FUSION
    assert verdict("k.py", [finding])["optimisation method"].startswith("Operator Fusion: ")
    torch_form = "import torch\ndef f(q, k, v):\n    return torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v\n"
    (finding,) = [f for f in lint_source("t.py", torch_form).findings if f.code == "KL007"]
    assert finding.category is Category.ALGORITHM_REPLACEMENT


def test_a_grid_sized_by_the_devices_sm_count_reads_the_calibrated_gpus() -> None:
    """`torch.cuda.get_device_properties(dev).multi_processor_count` sizes a persistent grid: the table reads
    the SM count of the GPU the estimates are for (its calibration record's, handed in by the engine), so the
    file is sized; a model built without one says why it is not."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def partial_sums(x_ptr, out_ptr, n, BLOCK: tl.constexpr, ITERS: tl.constexpr):
            acc = tl.zeros((BLOCK,), dtype=tl.float32)
            for i in range(ITERS):
                offs = (i * tl.num_programs(0) + tl.program_id(0)) * BLOCK + tl.arange(0, BLOCK)
                acc += tl.load(x_ptr + offs, mask=offs < n, other=0.0)
            tl.store(out_ptr + tl.program_id(0), tl.sum(acc, axis=0))

        class ModelNew(torch.nn.Module):
            def forward(self, x):
                sms = torch.cuda.get_device_properties(x.device).multi_processor_count
                programs = min(triton.cdiv(x.numel(), 4096), sms * 4)
                partials = torch.empty(programs, device=x.device)
                iters = triton.cdiv(triton.cdiv(x.numel(), 4096), programs)
                partial_sums[(programs,)](x, partials, x.numel(), BLOCK=4096, ITERS=iters)
                return partials.sum().item()

        def get_inputs():
            return [torch.randn(8192, 8192)]

        def get_init_inputs():
            return []
        """
    )
    calibrated = cost.calibration()
    assert calibrated is not None
    sms = int(calibrated.constants["sm_count"])
    sized = build_model("k.py", source, parse(source), sm_count=sms).entry_point
    assert not sized.unknown
    (launch,) = [op for op in sized.ops if op.kind == "triton"]
    assert launch.programs == sms * 4
    assert "the GPU's SM count" in entry(source).unknown[0]
    (finding,) = [f for f in lint_source("k.py", source).findings if f.code == "KL006"]
    assert finding.expected_speedup["for_this_file"]["status"] == "estimated"


def test_dropout_with_p_zero_runs_no_kernel() -> None:
    """ATen's dropout returns its input when p is 0 (KernelBench's attn_pdrop/resid_pdrop): nn.Dropout(0.0),
    F.dropout(x, 0.0) and F.dropout(x, training=False) add no op; nn.Dropout(0.1) is an elementwise pass."""
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class ModelNew(nn.Module):
            def __init__(self, p_none, p_some):
                super().__init__()
                self.none = nn.Dropout(p_none)
                self.some = nn.Dropout(p=p_some)

            def forward(self, x):
                x = self.none(x)
                x = F.dropout(x, 0.0)
                x = F.dropout(x, p=0.5, training=False)
                return self.some(x)

        def get_inputs():
            return [torch.randn(1024, 1024)]

        def get_init_inputs():
            return [0.0, 0.1]
        """
    )
    point = entry(source)
    assert not point.unknown, point.unknown
    assert [(op.kind, op.note) for op in point.ops] == [("elementwise", "nn.Dropout")]


def test_a_permutation_that_keeps_the_last_axis_copies_at_the_streaming_rate() -> None:
    """Attention's heads put back, `o.transpose(1, 2).contiguous()` over [B, H, T, 96] fp32: the copy moves
    rows of 384 bytes, a plain copy; moving the last axis (`x.transpose(-2, -1)`) or keeping rows shorter
    than a 128-byte line (8 fp32) is a transposed copy."""
    source = textwrap.dedent(
        """
        import torch

        class ModelNew(torch.nn.Module):
            def forward(self, o, w, s):
                heads = o.transpose(1, 2).contiguous()
                moved = w.transpose(-2, -1).contiguous()
                short = s.permute(0, 2, 1, 3).contiguous()
                return heads, moved, short

        def get_inputs():
            return [torch.randn(4, 8, 256, 96), torch.randn(4, 8, 256, 96), torch.randn(4, 8, 256, 8)]

        def get_init_inputs():
            return []
        """
    )
    point = entry(source)
    assert not point.unknown, point.unknown
    copies = [(op.kind, op.line) for op in point.ops if op.kind in ("copy", "transpose_copy")]
    assert copies == [("copy", 6), ("transpose_copy", 7), ("transpose_copy", 8)]


def test_math_of_a_number_read_from_the_device_is_a_host_number() -> None:
    """`math.sqrt(partials.sum().item())` is a number the host has (its value unknown): the entry point is
    still sized, with the sync where `.item()` is."""
    source = textwrap.dedent(
        """
        import math
        import torch

        class ModelNew(torch.nn.Module):
            def forward(self, x):
                norm = math.sqrt((x * x).sum().item())
                return x / norm

        def get_inputs():
            return [torch.randn(2048, 2048)]

        def get_init_inputs():
            return []
        """
    )
    point = entry(source)
    assert not point.unknown, point.unknown
    assert [op.kind for op in point.ops] == ["elementwise", "reduction", "sync", "elementwise"]


def test_f_pad_is_a_pass_writing_the_padded_tensor() -> None:
    """F.pad(x, (1, 1, 2, 2)) over [8, 16, 64, 64] fp32 writes [8, 16, 68, 66] in one pass over x."""
    source = textwrap.dedent(
        """
        import torch
        import torch.nn.functional as F

        class ModelNew(torch.nn.Module):
            def forward(self, x):
                return F.pad(x, (1, 1, 2, 2), mode="constant", value=0.0)

        def get_inputs():
            return [torch.randn(8, 16, 64, 64)]

        def get_init_inputs():
            return []
        """
    )
    point = entry(source)
    assert not point.unknown, point.unknown
    (op,) = point.ops
    assert (op.kind, op.note, op.in_bytes, op.out_bytes) == (
        "elementwise",
        "F.pad",
        (8 * 16 * 64 * 64 * 4,),
        8 * 16 * 68 * 66 * 4,
    )


def test_an_out_of_place_masked_fill_pays_for_the_clone_aten_makes() -> None:
    """`att.masked_fill(mask, v)` clones `att`, then fills the clone in place (profiled on an H200: a
    device-to-device copy beside the fill's kernel): a copy pass at the streaming rate on top of the fill."""
    source = textwrap.dedent(
        """
        import torch

        class ModelNew(torch.nn.Module):
            def forward(self, x, mask):
                return x.masked_fill(mask, 0.0)

        def get_inputs():
            return [torch.randn(4096, 4096), torch.rand(4096, 4096) > 0.5]

        def get_init_inputs():
            return []
        """
    )
    point = entry(source)
    assert not point.unknown, point.unknown
    (op,) = point.ops
    c = cost.calibration().constants
    assert op.cloned
    assert cost.gpu_us(op, c) == pytest.approx(
        cost.gpu_us(replace(op, cloned=False), c) + 2 * 4096 * 4096 * 4 / c["bw_stream"]
    )


def test_the_fp16_softmax_and_permuted_copy_probes_price_their_ops_where_a_record_has_them() -> None:
    """The H200 record's supplement measured PyTorch's softmax over fp16 rows and a permuted copy that keeps
    the last axis: a 2-byte softmax takes the fp16 probes' ratio there and the fp32 ones' where the record
    has none (the H100's); a `.contiguous()` copy of long runs takes the copy probe's rate, else the
    streaming rate."""
    h200 = cost.load_calibration(str(ROOT / "kernels/kernlint/kernels/measurements/checks/h200/calibration_h200.json"))
    h100 = cost.calibration()
    assert h200 is not None and h100 is not None
    c200, c100 = h200.constants, h100.constants
    assert "lib_softmax_fp16_cols_4096_x" in c200 and "lib_softmax_fp16_cols_4096_x" not in c100
    scores = Op(
        "reduction", 1, bytes=2 * 2 * 8192 * 4096, out_bytes=2 * 8192 * 4096, elem_bytes=2, kernel="softmax", rows=8192
    )
    stream200 = scores.bytes / c200["bw_stream"]
    assert cost.library_us(scores, c200) == pytest.approx(stream200 * c200["lib_softmax_fp16_cols_4096_x"])
    assert cost.library_us(replace(scores, elem_bytes=4), c200) == pytest.approx(
        stream200 * c200["lib_softmax_cols_4096_x"]
    )
    assert cost.library_us(scores, c100) == pytest.approx(
        scores.bytes / c100["bw_stream"] * c100["lib_softmax_cols_4096_x"]
    )
    heads = Op("copy", 1, bytes=2 * 4 * (1 << 26), out_bytes=4 * (1 << 26), elem_bytes=4, note=".contiguous()")
    assert cost.gpu_us(heads, c200) == pytest.approx(heads.bytes / c200["bw_copy_runs_4byte"])
    assert cost.gpu_us(heads, c100) == pytest.approx(heads.bytes / c100["bw_stream"])


CAUSAL_ATTENTION_BY_HELPER = """
import math
import torch
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pb = tl.program_id(2)
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + pb * sab + rm[:, None] * sam + (k0 + rk)[None, :] * sak)
        b = tl.load(b_ptr + pb * sbb + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn)
        acc += tl.dot(a, b)
    tl.store(c_ptr + pb * scb + rm[:, None] * scm + rn[None, :] * scn, acc)


@triton.jit
def softmax_rows(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + tl.program_id(0) * N + cols, mask=cols < N, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + tl.program_id(0) * N + cols, e / tl.sum(e, axis=0), mask=cols < N)


@triton.jit
def causal_pv(p_ptr, v_ptr, o_ptr, T, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    rows = pid_m * BM + tl.arange(0, BM)
    d = tl.arange(0, D)
    acc = tl.zeros((BM, D), dtype=tl.float32)
    hi = tl.minimum((pid_m + 1) * BM, T)
    for j0 in range(0, hi, BN):
        cols = j0 + tl.arange(0, BN)
        p = tl.load(p_ptr + bh * T * T + rows[:, None] * T + cols[None, :])
        v = tl.load(v_ptr + bh * T * D + cols[:, None] * D + d[None, :])
        acc += tl.dot(p, v)
    tl.store(o_ptr + bh * T * D + rows[:, None] * D + d[None, :], acc)


def _bmm(a, b, c, batch):
    M, K = a.shape[-2], a.shape[-1]
    N = b.shape[-1]
    bmm_kernel[(M // 64, N // 64, batch)](a, b, c, M, N, K, M * K, K, 1, K * N, N, 1, M * N, N, 1,
                                         BM=64, BN=64, BK=32)


class ModelNew(torch.nn.Module):
    def forward(self, q, k, v):
        B, H, T, D = q.shape
        S = torch.empty(B * H, T, T, device=q.device)
        _bmm(q, k.transpose(-2, -1), S, B * H)
        P = torch.empty_like(S)
        softmax_rows[(B * H * T,)](S, P, T, BLOCK=1024)
        o = torch.empty_like(q)
        causal_pv[(T // 64, B * H)](P, v, o, T, D=64, BM=64, BN=64)
        return o


def get_inputs():
    return [torch.randn(8, 8, 1024, 64) for _ in range(3)]


def get_init_inputs():
    return []
"""


def test_a_loop_bound_read_from_the_program_id_is_averaged_over_the_grid() -> None:
    """A causal P @ V kernel: `hi = tl.minimum((pid_m + 1) * BM, T)` bounds its tl.dot loop, so program
    row-block m runs m + 1 tiles of BN keys: (1 + ... + 16) / 16 = 8.5 tiles on average over T // BM = 16
    row blocks (it was no flops at all, the bound being unknown)."""
    point = entry(CAUSAL_ATTENTION_BY_HELPER)
    assert not point.unknown, point.unknown
    (pv,) = [op for op in point.ops if op.note == "causal_pv"]
    assert pv.flops == round(16 * 64 * 2 * 64 * 64 * 64 * 8.5)


def test_attention_whose_scores_a_helper_writes_into_a_buffer_is_materialized_attention() -> None:
    """`_bmm(q, k^T, S)` stores the scores into S through the helper's parameter (S keeps its allocation as
    its origin), a softmax kernel reads S, and the causal P @ V kernel multiplies by the values: KL007, with
    the fused kernel's estimate."""
    (finding,) = [f for f in lint_source("attn.py", CAUSAL_ATTENTION_BY_HELPER).findings if f.code == "KL007"]
    estimate = finding.expected_speedup["for_this_file"]
    assert estimate["status"] == "estimated" and estimate["kernelbench"] > 1.2


def test_a_triton_gemm_masked_to_a_triangle_computes_twice_the_tiles_it_needs() -> None:
    """KL025 on a Triton GEMM that masks its result to the upper triangle after its K loop and computes
    every tile: the fix (skip the tiles wholly below the diagonal) halves the kernel's flops, as for a
    torch product masked by triu; the launch is compute-bound, so about 2x."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def triu_mm(a_ptr, b_ptr, c_ptr, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
            rm = tl.program_id(0) * BM + tl.arange(0, BM)
            rn = tl.program_id(1) * BN + tl.arange(0, BN)
            acc = tl.zeros((BM, BN), tl.float32)
            for k in range(0, N, BK):
                rk = k + tl.arange(0, BK)
                acc += tl.dot(tl.load(a_ptr + rm[:, None] * N + rk[None, :]), tl.load(b_ptr + rk[:, None] * N + rn[None, :]))
            acc = tl.where(rn[None, :] >= rm[:, None], acc, 0.0)
            tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

        class ModelNew(torch.nn.Module):
            def forward(self, a, b):
                n = a.shape[0]
                c = torch.empty(n, n, device=a.device)
                triu_mm[(n // 128, n // 128)](a, b, c, n, BM=128, BN=128, BK=32)
                return c

        def get_inputs():
            return [torch.triu(torch.randn(4096, 4096)), torch.triu(torch.randn(4096, 4096))]

        def get_init_inputs():
            return []
        """
    )
    point = entry(source)
    (launch,) = [op for op in point.ops if op.kind == "triton"]
    assert launch.triangle and launch.flops == 2 * 4096**3
    (finding,) = [f for f in lint_source("triu.py", source).findings if f.code == "KL025"]
    estimate = finding.expected_speedup["for_this_file"]
    assert finding.span.line == 14
    assert 1.8 < estimate["graph"] <= 2.0


SIZES_COPIED_AND_SET = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        shape = list(x.shape)
        out_shape = shape.copy()
        out_shape[1] = 1
        return torch.empty(out_shape, device=x.device, dtype=x.dtype)

def get_inputs():
    return [torch.rand(8, 4096, 32)]

def get_init_inputs():
    return []
"""


def test_a_list_of_sizes_copied_then_one_item_set_sizes_the_allocation() -> None:
    e = entry(SIZES_COPIED_AND_SET)
    assert e.unknown == ()
    assert [(op.kind, op.out_bytes) for op in e.ops] == [("alloc", 8 * 1 * 32 * 4)]


RELOAD_AFTER_GPU_WORK = """
import torch
import torch.nn as nn
import triton
import triton.language as tl

class Model(nn.Module):
    def forward(self, a, b):
        y = torch.matmul(a, b)
        @triton.jit
        def relu(x_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)
        relu[(triton.cdiv(y.numel(), 1024),)](y, y.numel(), BLOCK=1024)
        return y

def get_inputs():
    return [torch.rand(8192, 8192), torch.rand(8192, 8192)]

def get_init_inputs():
    return []
"""


def test_a_kernel_reloaded_every_call_waits_for_the_gpu_work_before_it() -> None:
    """KL017's reload does not hide behind the GEMM queued before it (fixtures/costmodel/kl017_conv, measured
    on an H200): each mode's time is the GEMM's GPU time plus the reload's host time, not the larger of them."""
    e = entry(RELOAD_AFTER_GPU_WORK)
    c = cost.calibration().constants
    gemm, jit = e.ops[0], next(op for op in e.ops if op.kind == "jit")
    assert gemm.kind == "gemm" and cost.gpu_us(gemm, c) > 1000  # milliseconds of GPU work
    times = cost.entry_time(e.ops, c)
    assert times.kernelbench > cost.gpu_us(gemm, c) + cost.host_us(jit, c, "kernelbench")
    assert times.eager > cost.gpu_us(gemm, c) + cost.host_us(jit, c, "eager")


POOLED_IN_THE_TILE = """
import torch
import torch.nn as nn
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
    pooled = tl.sum(tl.reshape(acc, (BM, BN // POOL, POOL)), axis=2)
    g = 0.5 * pooled * (1.0 + tl.erf(pooled * 0.7071067811865476))
    tl.atomic_max(out_ptr + rm, tl.max(g, axis=1), mask=rm < M)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(8192, 8192))

    def forward(self, x):
        out = torch.full((x.shape[0],), float("-inf"), device=x.device)
        gemm_pool[(8, 64)](x, self.weight, out, 1024, 8192, 8192, BM=128, BN=128, BK=32, POOL=16)
        return out

def get_inputs():
    return [torch.rand(1024, 8192)]

def get_init_inputs():
    return []
"""


def test_a_tile_summed_in_windows_narrows_the_gemm_by_the_window() -> None:
    """KL026's fix for an average pool inside a tl.dot kernel: the weight averaged once in the windows, then
    the product over N / POOL columns: a sixteenth of the flops, not a GEMV's."""
    e = entry(POOLED_IN_THE_TILE)
    (launch,) = [op for op in e.ops if op.kind == "triton"]
    assert launch.reduced_product == (1024, 8192, 8192) and launch.reduced_window == 16
    line = (
        POOLED_IN_THE_TILE.splitlines().index("    pooled = tl.sum(tl.reshape(acc, (BM, BN // POOL, POOL)), axis=2)")
        + 1
    )
    fixed = cost.collapse_gemm(e.ops, line, line)
    assert fixed is not None
    averaged, narrowed = [op for op in fixed if op.note.startswith(("weight averaged", "gemm_pool"))]
    assert averaged.kind == "reduction" and averaged.in_bytes == (8192 * 8192 * 4,)
    assert narrowed.flops == 2 * 1024 * 8192 * 8192 // 16


def test_a_small_k_tl_dot_kernel_is_bounded_by_its_tile_epilogues_store() -> None:
    """A tl.dot GEMM whose K is one BLOCK_K step writes its output at the rate the triton_dot_store_* probe
    measured for its tile config and operand path (fp32 tiles from a row-major B store at about a quarter of
    the streaming rate on an H200): that, not its flops, is its time where the record has the probe."""
    e = entry(SMALL_K)
    (launch,) = [op for op in e.ops if op.kind == "triton"]
    assert launch.dot_tile[:3] == (128, 128, 64) and launch.stored_bytes == 8192 * 8192 * 4
    base = dict(cost.calibration().constants)
    base = {k: v for k, v in base.items() if not k.startswith(cost.STORE_RATE)}
    without = cost.gpu_us(launch, base)
    rate = 1.0e6  # bytes per µs: 1 TB/s
    with_store = cost.gpu_us(launch, {**base, f"{cost.STORE_RATE}4byte_128x128x32_w8_s3": rate})
    assert with_store == pytest.approx(max(without, 8192 * 8192 * 4 / rate))
    assert with_store > without
    # Operands of another type than the stored tensor (fp16 products stored as fp32): no probe, no term.
    half = replace(launch, elem_bytes=2, path="fp16")
    assert cost.gpu_us(half, {**base, f"{cost.STORE_RATE}2byte_128x128x32_w8_s3": rate}) == cost.gpu_us(half, base)


SMALL_K = """
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
        b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

class Model(nn.Module):
    def forward(self, a, b):
        c = torch.empty((a.shape[0], b.shape[1]), device=a.device, dtype=a.dtype)
        mm[(64, 64)](a, b, c, 8192, 8192, 64, BM=128, BN=128, BK=64, num_warps=8, num_stages=2)
        return c

def get_inputs():
    return [torch.rand(8192, 64), torch.rand(64, 8192)]

def get_init_inputs():
    return []
"""


ASSERT_ON_A_TENSOR = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x, targets):
        assert int(targets.max()) < x.shape[1], "target out of range"
        return torch.softmax(x, dim=1)

def get_inputs():
    return [torch.rand(4096, 1000), torch.randint(0, 1000, (4096,))]

def get_init_inputs():
    return []
"""


def test_an_assert_runs_and_int_of_a_tensor_is_a_sync() -> None:
    """Python runs a forward's assert (KernelBench does not pass -O): `int(t.max())` in it reduces t and reads
    the value on the host every call."""
    e = entry(ASSERT_ON_A_TENSOR)
    assert e.unknown == ()
    assert [(op.kind, op.note) for op in e.ops[:2]] == [("reduction", ""), ("sync", "int()")]
    assert e.ops[1].inputs == (0,)


SUBMODULE_THROUGH_A_HELPER = """
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.left = nn.Conv2d(c, c, 1)
        self.right = nn.Conv2d(c, c, 3, padding=1)

def _block_forward(m, x):
    return m.left(x) + m.right(x)

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(64), Block(64)])

    def forward(self, x):
        for m in self.blocks:
            x = _block_forward(m, x)
        return x

def get_inputs():
    return [torch.rand(8, 64, 56, 56)]

def get_init_inputs():
    return []
"""


def test_a_helper_calls_the_layers_of_a_module_it_is_handed() -> None:
    """`m.left(x)` in a module-level helper handed a block of the file's own class runs that block's layer."""
    e = entry(SUBMODULE_THROUGH_A_HELPER)
    assert e.unknown == ()
    assert [op.note for op in e.ops if op.kind == "gemm"] == ["nn.Conv2d"] * 4


def test_var_mean_in_place_functions_broadcast_to_and_result_type_are_sized() -> None:
    """`torch.var_mean` is one reduction pass returning (var, mean); `torch.var(x, dim, unbiased, keepdim)`
    reads keepdim after `unbiased`; `torch.relu_(x)` is the elementwise op written in place;
    `torch.broadcast_to` is a view; `torch.result_type` is the promoted dtype; `.stride()` of a contiguous
    tensor is its row-major strides."""
    source = textwrap.dedent(
        """
        import torch

        class ModelNew(torch.nn.Module):
            def forward(self, x, t):
                var, mean = torch.var_mean(x, dim=1, keepdim=True, unbiased=False)
                spread = torch.var(x, 1, False, True)
                y = (x - mean) * torch.rsqrt(var + spread)
                torch.relu_(y)
                tb = torch.broadcast_to(t, y.shape)
                out = torch.empty(y.shape, dtype=torch.result_type(y, tb), device=y.device)
                rows, cols = out.stride()
                return out.view(rows, cols).copy_(y * tb)

        def get_inputs():
            return [torch.randn(64, 4096), torch.randn(64, 1)]

        def get_init_inputs():
            return []
        """
    )
    e = entry(source)
    assert not e.unknown
    reductions = [op for op in e.ops if op.kind == "reduction"]
    assert [op.out_bytes for op in reductions] == [64 * 4, 64 * 4]  # var_mean once, var once: keepdim rows
    assert [op.note for op in e.ops if op.kind == "view"] == [".expand()", ".view()"]
    assert "torch.relu_ writes a tensor in place" in e.side_effects[0]
    (alloc,) = [op for op in e.ops if op.kind == "alloc"]
    assert alloc.out_bytes == 64 * 4096 * 4 and alloc.elem_bytes == 4


def test_a_module_dict_built_from_dict_is_read_by_attribute() -> None:
    """`nn.ModuleDict(dict(c_fc=nn.Linear(...), ...))` (minGPT's MLP): `self.mlp.c_fc` is that layer."""
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn

        class ModelNew(nn.Module):
            def __init__(self, d):
                super().__init__()
                self.mlp = nn.ModuleDict(dict(c_fc=nn.Linear(d, 4 * d), c_proj=nn.Linear(4 * d, d)))

            def forward(self, x):
                return self.mlp.c_proj(torch.relu(self.mlp.c_fc(x)))

        def get_inputs():
            return [torch.randn(512, 256)]

        def get_init_inputs():
            return [256]
        """
    )
    e = entry(source)
    assert not e.unknown
    assert [op.flops for op in e.ops if op.kind == "gemm"] == [2 * 512 * 256 * 1024, 2 * 512 * 1024 * 256]


def test_a_step_loops_ping_pong_buffers_are_sized() -> None:
    """A data loop that alternates two same-sized buffers (`hbuf[t % 2]`, `hbuf[(t + 1) % 2]`) is sized with
    its trip count."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def step(h_ptr, out_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(h_ptr + offs, mask=offs < n) * 0.5, mask=offs < n)

        class ModelNew(torch.nn.Module):
            def forward(self, h):
                bufs = [h.clone(), torch.empty_like(h)]
                for t in range(SHAPES):
                    step[(triton.cdiv(h.numel(), 1024),)](bufs[t % 2], bufs[(t + 1) % 2], h.numel(), BLOCK=1024)
                return bufs[0]

        SHAPES = 64

        def get_inputs():
            return [torch.randn(64, 1024)]

        def get_init_inputs():
            return []
        """
    )
    e = entry(source)
    assert not e.unknown
    (launch,) = [op for op in e.ops if op.kind == "triton"]
    assert launch.repeat == 64 and launch.bytes == 2 * 64 * 1024 * 4  # one buffer read, the other written


def test_fusing_a_statistic_larger_than_a_program_holds_keeps_its_read() -> None:
    """KL022's fix for a torch statistic the kernel could compute: over a row a program holds, the reduction's
    pass goes; over a GroupNorm group of 2 M elements (more than STATISTIC_EXTENT), the fused kernel walks the
    group twice, so only the launch and the small writes go and the estimate is about 1.0x."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def apply(x_ptr, y_ptr, mean_ptr, rstd_ptr, n, GROUP: tl.constexpr, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            g = offs // GROUP
            x = tl.load(x_ptr + offs, mask=offs < n)
            y = (x - tl.load(mean_ptr + g)) * tl.load(rstd_ptr + g)
            tl.store(y_ptr + offs, y, mask=offs < n)

        class ModelNew(torch.nn.Module):
            def forward(self, x):
                var, mean = torch.var_mean(x, dim=1, unbiased=False)
                rstd = torch.rsqrt(var + 1e-5)
                y = torch.empty_like(x)
                apply[(triton.cdiv(x.numel(), 4096),)](x, y, mean, rstd, x.numel(), GROUP=x.shape[1], BLOCK=4096)
                return y

        def get_inputs():
            return [torch.randn(ROWS, COLS)]

        def get_init_inputs():
            return []
        """
    )

    def kernelbench(rows: int, cols: int) -> float:
        text = source + f"\nROWS = {rows}\nCOLS = {cols}\n"
        (finding,) = [f for f in lint_source("k.py", text).findings if f.code == "KL022"]
        return finding.expected_speedup["for_this_file"]["kernelbench"]

    assert kernelbench(65536, 4096) >= 1.4  # a row a program holds: x read once instead of twice
    assert kernelbench(448, 1 << 21) < 1.1  # 8 MB groups: read twice either way


# A tl.dot GEMM reading A and B through the strides it is handed (s_bk, s_bn: B's layout is the launch's).
STRIDED_GEMM = textwrap.dedent(
    """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def gemm(a_ptr, b_ptr, c_ptr, M, N, K, s_am, s_ak, s_bk, s_bn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
            offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
            offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
            offs_k = tl.arange(0, BLOCK_K)
            acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
            for k0 in range(0, K, BLOCK_K):
                a = tl.load(a_ptr + offs_m[:, None] * s_am + (k0 + offs_k)[None, :] * s_ak)
                b = tl.load(b_ptr + (k0 + offs_k)[:, None] * s_bk + offs_n[None, :] * s_bn)
                acc = tl.dot(a, b, acc)
            tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)
    """
)


def test_strides_handed_through_a_star_tuple_bind_the_kernels_parameters() -> None:
    """`gemm[grid](a, w, c, M, N, K, *sa, *sb)`: the parameters after a star take the tuple's values, so a
    weight read as B through (stride_bk, stride_bn) = (1, K) is K-major (its tile rate), and (N, 1) is not."""
    source = STRIDED_GEMM + textwrap.dedent(
        """

        class ModelNew(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(2048, 4096)

            def forward(self, x):
                M, K = x.shape
                N = self.lin.weight.shape[0]
                out = torch.empty((M, N), device=x.device)
                gemm[(M // 128, N // 128)](x, self.lin.weight, out, M, N, K, *(K, 1), *STRIDES,
                                           BLOCK_M=128, BLOCK_N=128, BLOCK_K=32)
                return out

        def get_inputs():
            return [torch.randn(4096, 2048)]

        def get_init_inputs():
            return []
        """
    )

    def launch(strides: str):
        (op,) = [op for op in entry(source.replace("*STRIDES", strides)).ops if op.kind == "triton"]
        return op

    assert launch("*(1, K)").dot_b_kmajor
    assert not launch("*(N, 1)").dot_b_kmajor
    assert launch("*(1, K)").flops == 2 * 4096 * 4096 * 2048


def test_a_3d_or_transposed_convolution_runs_at_its_familys_measured_rate() -> None:
    """The H200 record times cuDNN's 3-D and transposed convolutions apart from 2-D ones (calibrate's
    conv3d_kK, conv_transpose3d_kK, conv_transpose2d_kK): a Conv3d of depth 432 (16 channels x 27 taps) is
    priced at the conv3d probe of that depth, a record without the family (the H100's, for now) falls back to
    the 2-D probes."""
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv3d(16, 32, 3, bias=False)

            def forward(self, x):
                return self.conv(x)

        def get_inputs():
            return [torch.randn(8, 16, 64, 64, 64)]

        def get_init_inputs():
            return []
        """
    )
    record = ROOT / "kernels/kernlint/kernels/measurements/checks/h200/calibration_h200.json"
    h200 = cost.load_calibration(str(record))
    assert h200 is not None
    constants = h200.constants
    (conv,) = [op for op in entry(source).ops if op.kind == "gemm"]
    assert conv.note == "nn.Conv3d" and conv.reduction == 432
    assert cost.gpu_us(conv, constants) == pytest.approx(conv.flops / constants["flops_conv3d_k432"], rel=0.02)
    without = {k: v for k, v in constants.items() if not k.startswith("flops_conv3d_")}
    assert cost.gpu_us(conv, without) == pytest.approx(conv.flops / cost._conv_rate(without, 432), rel=0.02)
    assert cost.gpu_us(conv, without) < cost.gpu_us(conv, constants)


def test_dropping_a_weights_transposed_copy_reads_b_k_major_again() -> None:
    """KL002's fix for `w_t = self.lin.weight.t().contiguous()` handed to a tl.dot GEMM as B: the kernel reads
    the weight [N, K] with its strides swapped, K-major, at the K-major tile probe's rate (several times the
    [K, N] layout's for fp32), so the estimate is far more than the copy's own cost. A convolution weight
    permuted to (taps, C_in, C_out) is not a matrix transposed: only the copy goes."""
    source = STRIDED_GEMM + textwrap.dedent(
        """

        class ModelNew(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(4096, 4096)

            def forward(self, x):
                M, K = x.shape
                w_t = self.lin.weight.t().contiguous()
                N = w_t.shape[1]
                out = torch.empty((M, N), device=x.device)
                gemm[(M // 128, N // 128)](x, w_t, out, M, N, K, x.stride(0), x.stride(1),
                                           w_t.stride(0), w_t.stride(1), BLOCK_M=128, BLOCK_N=128, BLOCK_K=32)
                return out

        def get_inputs():
            return [torch.randn(8192, 4096)]

        def get_init_inputs():
            return []
        """
    )
    (launch,) = [op for op in entry(source).ops if op.kind == "triton"]
    assert not launch.dot_b_kmajor
    (finding,) = [f for f in lint_source("k.py", source).findings if f.code == "KL002"]
    assert finding.expected_speedup["for_this_file"]["kernelbench"] >= 2.0
    # The same weight copied as a 4-D permutation (a convolution's taps first): not a matrix transposed.
    permuted = source.replace(
        "self.lin = torch.nn.Linear(4096, 4096)", "self.w = torch.nn.Parameter(torch.randn(4096, 1024, 2, 2))"
    )
    permuted = permuted.replace(
        "self.lin.weight.t().contiguous()", "self.w.permute(2, 3, 1, 0).contiguous().view(4096, 4096)"
    )
    (finding,) = [f for f in lint_source("k.py", permuted).findings if f.code == "KL002"]
    assert finding.expected_speedup["for_this_file"]["kernelbench"] < 1.1


def test_a_sequentials_layers_unpack_and_a_modules_build_arguments_and_training_flag_are_read() -> None:
    """`conv, bn, act = stage` of an nn.Sequential binds its layers; `self.pool.kernel_size` is what the module
    was built with; `bn.training` is True (a module is built in training mode, and a KernelBench harness never
    calls .eval())."""
    source = textwrap.dedent(
        """
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()
                self.stage = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU())
                self.pool = nn.AvgPool2d(4)

            def forward(self, x):
                conv, bn, _ = self.stage
                y = F.conv2d(x, conv.weight, conv.bias, padding=1)
                if bn.training:
                    y = (y - y.mean(dim=(0, 2, 3), keepdim=True)) * bn.weight.view(1, -1, 1, 1)
                return F.avg_pool2d(y, kernel_size=self.pool.kernel_size)

        def get_inputs():
            return [torch.randn(8, 16, 64, 64)]

        def get_init_inputs():
            return []
        """
    )
    e = entry(source)
    assert not e.unknown
    (conv,) = [op for op in e.ops if op.kind == "gemm"]
    assert conv.reduction == 16 * 9 and conv.out_bytes == 8 * 32 * 64 * 64 * 4
    # The training branch ran: its mean over (0, 2, 3) writes one value per channel.
    assert [op.out_bytes for op in e.ops if op.kind == "reduction" and not op.note] == [32 * 4]
    (out,) = e.outputs
    assert out[1] == (8, 32, 16, 16)  # pooled by the module's kernel_size of 4


def test_a_tf32x3_dot_does_three_tf32_products() -> None:
    """`tl.dot(..., input_precision="tf32x3")` on fp32 operands splits each into a high and a low TF32 part and
    sums three TF32 products: its compute is three times the plain TF32 dot's at the same tile rate (a held-out
    4096^3 GEMM so written measured 3,828 us on the H100, 0.69x of cuBLAS's fp32 GEMM, where one TF32 pass
    would be about 1,630 us). A precision a constexpr sets at the launch counts the same; "tf32" stays one pass."""
    model = STRIDED_GEMM + textwrap.dedent(
        """

        class ModelNew(torch.nn.Module):
            def forward(self, a, b):
                M, K = a.shape
                N = b.shape[1]
                c = torch.empty((M, N), device=a.device)
                gemm[(M // 128, N // 128)](a, b, c, M, N, K, K, 1, N, 1, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32)
                return c

        def get_inputs():
            return [torch.randn(4096, 4096), torch.randn(4096, 4096)]

        def get_init_inputs():
            return []
        """
    )
    constants = cost.calibration().constants

    def launch(source: str):
        (op,) = [op for op in entry(source).ops if op.kind == "triton"]
        return op

    plain = launch(model)
    three = launch(model.replace("tl.dot(a, b, acc)", 'tl.dot(a, b, acc, input_precision="tf32x3")'))
    named = launch(
        model.replace("tl.dot(a, b, acc)", "tl.dot(a, b, acc, input_precision=PRECISION)")
        .replace("BLOCK_K: tl.constexpr):", "BLOCK_K: tl.constexpr, PRECISION: tl.constexpr):")
        .replace("BLOCK_K=32)", 'BLOCK_K=32, PRECISION="tf32x3")')
    )
    tf32 = launch(model.replace("tl.dot(a, b, acc)", 'tl.dot(a, b, acc, input_precision="tf32")'))
    assert (plain.path, plain.dot_passes) == ("tf32", 1)
    assert (three.path, three.dot_passes) == ("tf32", 3)
    assert named.dot_passes == 3 and tf32.dot_passes == 1
    assert cost.gpu_us(three, constants) == pytest.approx(3 * cost.gpu_us(plain, constants), rel=0.01)


def test_a_dot_whose_k_is_one_step_adds_its_stores_to_its_product() -> None:
    """A tl.dot GEMM whose K loop is a single BLOCK_K step has no later step to hide its store behind: its time
    is its product plus writing its output (32768 x 32 x 32768 fp32 on the IEEE path: 2,907 us measured on the
    H100, 1,642 us of product, 1,434 us of output). With a long K loop the store is hidden: the larger term."""
    source = STRIDED_GEMM.replace("acc = tl.dot(a, b, acc)", 'acc = tl.dot(a, b, acc, input_precision="ieee")')
    source += textwrap.dedent(
        """

        class ModelNew(torch.nn.Module):
            def forward(self, a, b):
                M, K = a.shape
                N = b.shape[1]
                c = torch.empty((M, N), device=a.device)
                gemm[(M // 128, N // 128)](a, b, c, M, N, K, K, 1, N, 1, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32)
                return c

        def get_inputs():
            return [torch.randn(32768, KDIM), torch.randn(KDIM, 32768)]

        def get_init_inputs():
            return []
        """
    )
    constants = cost.calibration().constants

    def timed(k: int) -> tuple[float, float, float]:
        (op,) = [op for op in entry(source.replace("KDIM", str(k))).ops if op.kind == "triton"]
        product = op.flops / constants["flops_triton_fp32"]
        output = 32768 * 32768 * 4 / constants["bw_stream"]
        return cost.gpu_us(op, constants), product, output

    time, product, output = timed(32)
    assert time == pytest.approx(product + output, rel=0.01)
    time, product, output = timed(1024)  # 32 K steps: the product's time alone
    assert time == pytest.approx(product, rel=0.01) and product > output


def test_a_transposed_convolution_masking_its_taps_by_parity_computes_stride_to_the_dims_taps_per_one() -> None:
    """KL025's INVALID example of a transposed convolution gathered over every tap with parity masks (two
    dimensions): at stride 2 its tl.dot runs 4 tap products per tap that lands, at stride 3 nine, at stride
    1 one (every tap lands: no finding); the fix (one launch per output phase) divides the product by it."""
    from kernlint.rules.kl025_structure_blind_gemm import StructureBlindGemm

    source = textwrap.dedent(StructureBlindGemm.INVALID[-1].code)

    def launch(stride: int):
        (op,) = [op for op in entry(source.replace("STRIDE = 2", f"STRIDE = {stride}")).ops if op.kind == "triton"]
        return op

    assert [launch(s).parity_waste for s in (1, 2, 3)] == [1, 4, 9]
    op = launch(2)
    fixed = cost.structured_gemm((op,), op.kernel_lines[0] + 11, op.kernel_lines[0] + 11)
    assert fixed is not None and fixed[0].flops == op.flops // 4 and fixed[0].parity_waste == 1
    (finding,) = [f for f in lint_source("k.py", source).findings if f.code == "KL025"]
    assert 3.5 < finding.expected_speedup["for_this_file"]["kernelbench"] <= 4.0


def test_an_a_operand_read_m_major_puts_a_tf32_dot_on_its_slow_path() -> None:
    """A tl.dot whose A is read with a unit stride along M (an implicit-GEMM convolution's gathered NCHW
    pixels; A = a.t()): TF32 then runs at the rate of a tile with an operand off K-major whatever B's layout.
    The H200 record's A-M-major probes (`tf32m`, `tf32mk`) price it where they exist; the H100 record has
    none yet, and a B read K-major then falls back to the row-major-B probes' rate, not the K-major ones'."""
    source = STRIDED_GEMM + textwrap.dedent(
        """

        class ModelNew(torch.nn.Module):
            def forward(self, a, b):
                K, M = a.shape
                N = b.shape[1]
                c = torch.empty((M, N), device=a.device)
                gemm[(M // 128, N // 128)](a, b, c, M, N, K, A_STRIDES, B_STRIDES, BLOCK_M=128, BLOCK_N=128, BLOCK_K=32)
                return c

        def get_inputs():
            return [torch.randn(4096, 4096), torch.randn(4096, 4096)]

        def get_init_inputs():
            return []
        """
    )

    def launch(a: str, b: str):
        (op,) = [op for op in entry(source.replace("A_STRIDES", a).replace("B_STRIDES", b)).ops if op.kind == "triton"]
        return op

    k_major, m_major = "K, 1", "1, M"
    assert (launch(k_major, "1, K").dot_a_mmajor, launch(m_major, "1, K").dot_a_mmajor) == (False, True)
    h100 = cost.calibration().constants
    h200 = cost.load_calibration(str(ROOT / "kernels/kernlint/kernels/measurements/checks/h200/calibration_h200.json"))
    assert h200 is not None
    tile = "128x128x32_w4_s3"
    fast, slow = h100[f"flops_tile_tf32k_{tile}"], h100[f"flops_tile_tf32_{tile}"]
    assert cost._tile_rate(launch(k_major, "1, K"), h100) == fast
    assert cost._tile_rate(launch(m_major, "1, K"), h100) == slow  # no tf32mk probes in the H100 record
    assert cost._tile_rate(launch(m_major, "1, K"), h200.constants) == h200.constants[f"flops_tile_tf32mk_{tile}"]
    assert cost._tile_rate(launch(m_major, "N, 1"), h200.constants) == h200.constants[f"flops_tile_tf32m_{tile}"]


TAP_LOOP = """
import itertools
import torch
import triton
import triton.language as tl


@triton.jit
def tap_kernel(x_ptr, y_ptr, n, shift, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.atomic_add(y_ptr + offs, x * shift, mask=offs < n)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.zeros_like(x)
        for kh, kw in itertools.product(range(3), range(3)):
            tap_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), kh * 3 + kw, BLOCK=1024)
        return y


def get_inputs():
    return [torch.randn(4096, 4096)]


def get_init_inputs():
    return []
"""


def test_a_loop_over_itertools_product_of_ranges_runs_its_item_count() -> None:
    """`for kh, kw in itertools.product(range(3), range(3))`: nine steps, each launch timed nine times; the
    tuple's names are loop indices (unknown values, sizes do not depend on them)."""
    e = entry(TAP_LOOP)
    assert e.unknown == ()
    (launch,) = [op for op in e.ops if op.kind == "triton"]
    assert launch.repeat == 9
    unsized = entry(TAP_LOOP.replace("range(3), range(3)", "range(3), self.taps"))
    assert unsized.unknown


def test_an_operand_read_off_k_major_costs_per_element_of_its_tiles_at_the_probes_block_k() -> None:
    """On the H200 record's A-M-major probes (B K-major), a 128 x 32 tile re-reads A twice as often per flop as
    the nearest probe's 128 x 64 and takes twice as long; a BLOCK_K the probes do not share keeps their flop
    rate, and so does the H100 record, which has no A-M-major probes."""
    h200 = cost.load_calibration(
        str(ROOT / "kernels/kernlint/kernels/measurements/checks/h200/calibration_h200.json")
    ).constants
    flops, mn = 2 * 4096 * 128 * 4096, (4096, 128)
    gemm = Op("triton", 1, flops=flops, path="tf32", dot_a_mmajor=True, dot_b_kmajor=True, dot_mn=mn, programs=4096)
    probe = replace(gemm, dot_tile=(128, 64, 32, 4, 3))
    narrow = replace(gemm, dot_tile=(128, 32, 32, 4, 3))
    assert cost.gpu_us(probe, h200) == pytest.approx(flops / h200["flops_tile_tf32mk_128x64x32_w4_s3"])
    assert cost.gpu_us(narrow, h200) == pytest.approx(2 * cost.gpu_us(probe, h200))
    shallow = replace(gemm, dot_tile=(128, 32, 16, 4, 3))  # nearest probe: 128 x 64 x 32
    assert cost._tile_rate(shallow, h200) == h200["flops_tile_tf32mk_128x64x32_w4_s3"]
    h100 = cost.calibration().constants
    assert cost._tile_rate(narrow, h100) == cost._nearest_config(narrow, h100, cost.TILE_RATE)


def test_a_convolution_writing_its_channels_into_a_slice_of_a_wider_output_is_sized() -> None:
    """A Fire or Inception module's branch written straight into its channel slice of the concatenated output:
    the product is the branch's own C_out, not the output's channels."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def conv1x1(x_ptr, w_ptr, y_ptr, C_in, C_out, HW, C_total, c0, BP: tl.constexpr, BCO: tl.constexpr):
            offs_p = tl.program_id(0) * BP + tl.arange(0, BP)
            offs_co = tl.arange(0, BCO)
            acc = tl.zeros((BP, BCO), dtype=tl.float32)
            for ci in range(C_in):
                xv = tl.load(x_ptr + ci * HW + offs_p)
                wv = tl.load(w_ptr + offs_co * C_in + ci, mask=offs_co < C_out, other=0.0)
                acc += xv[:, None] * wv[None, :]
            tl.store(y_ptr + (c0 + offs_co)[None, :] * HW + offs_p[:, None], acc, mask=(offs_co < C_out)[None, :])

        class ModelNew(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.left = torch.nn.Conv2d(16, 64, 1, bias=False)
                self.right = torch.nn.Conv2d(16, 64, 1, bias=False)

            def forward(self, x):
                out = torch.empty(1, 128, 64, 64, device=x.device)
                conv1x1[(64 * 64 // 128,)](x, self.left.weight, out, 16, 64, 4096, 128, 0, BP=128, BCO=64)
                conv1x1[(64 * 64 // 128,)](x, self.right.weight, out, 16, 64, 4096, 128, 64, BP=128, BCO=64)
                return out

        def get_inputs():
            return [torch.randn(1, 16, 64, 64)]

        def get_init_inputs():
            return []
        """
    )
    launches = [op for op in entry(source).ops if op.kind == "triton"]
    assert [(op.path, op.flops) for op in launches] == [("fma", 2 * 64 * 64 * 64 * 16)] * 2


def test_a_pointwise_convolution_with_its_weight_viewed_as_a_matrix_is_sized() -> None:
    """A 1x1 convolution whose weight is reshaped to [C_out, C_in] and multiplied, per image, with the NCHW
    input viewed as [C_in, H * W] by tl.dot: its product and its output's pixels and channels, as for a
    convolution's 4-D weight; without the 1x1 case the launch had no product at all."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def pointwise(x_ptr, w_ptr, y_ptr, C_in, C_out, HW, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
            rn = tl.program_id(0) * BN + tl.arange(0, BN)
            rm = tl.program_id(1) * BM + tl.arange(0, BM)
            rk = tl.arange(0, BK)
            x_base = x_ptr + tl.program_id(2) * C_in * HW
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k in range(0, C_in, BK):
                w = tl.load(w_ptr + rm[:, None] * C_in + (k + rk)[None, :])
                xv = tl.load(x_base + (k + rk)[:, None] * HW + rn[None, :])
                acc += tl.dot(w, xv)
            tl.store(y_ptr + tl.program_id(2) * C_out * HW + rm[:, None] * HW + rn[None, :], acc)

        class ModelNew(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(64, 128, 1, bias=False)

            def forward(self, x):
                B, C_in, H, W = x.shape
                w = self.conv.weight.reshape(128, C_in)
                y = torch.empty(B, 128, H, W, device=x.device)
                pointwise[(H * W // 128, 128 // 64, B)](x, w, y, C_in, 128, H * W, BM=64, BN=128, BK=32)
                return y

        def get_inputs():
            return [torch.randn(16, 64, 256, 256)]

        def get_init_inputs():
            return []
        """
    )
    (launch,) = [op for op in entry(source).ops if op.kind == "triton"]
    assert (launch.path, launch.flops, launch.dot_mn) == ("tf32", 2 * 16 * 128 * 256 * 256 * 64, (16 * 256 * 256, 128))


def test_a_kernel_made_with_triton_jit_in_a_helper_is_reloaded_on_every_call() -> None:
    """`kernel = triton.jit(fn)` in a helper forward calls (KL017 without the decorator): a jit op on that line,
    so KL017's fix has work to remove, as for a `@triton.jit` def in the body."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        def _double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2.0, mask=offs < n)

        def double(x):
            kernel = triton.jit(_double)
            y = torch.empty_like(x)
            kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
            return y

        class ModelNew(torch.nn.Module):
            def forward(self, x):
                return double(x)

        def get_inputs():
            return [torch.randn(4096, 4096)]

        def get_init_inputs():
            return []
        """
    )
    assert [(op.kind, op.note) for op in entry(source).ops if op.kind in ("jit", "triton")] == [
        ("jit", "_double"),
        ("triton", "kernel"),
    ]


def test_a_transposed_convolutions_output_pixels_and_channels_are_its_product_rows_and_columns() -> None:
    """A tl.dot transposed convolution (weight [C_in, C_out, k], nn.ConvTranspose1d's layout): its product's M is
    the output's positions over the batch and N its channels, as an implicit GEMM tiles them."""
    from kernlint.model.shapes import Tensor, _product_rows_columns

    x = Tensor((32, 32, 1000), "float32")
    w = Tensor((32, 64, 5), "float32")
    out = Tensor((32, 64, 1012), "float32")
    assert _product_rows_columns([out, x, w]) == (32 * 1012, 64)


def test_a_stride_1_transposed_convolution_runs_at_the_direct_convolutions_rate() -> None:
    """A stride-1 ConvTranspose2d is a direct convolution with its kernel flipped, and cuDNN runs it so: it is
    priced at the conv2d probes' rate, not at the stride-2 transposed probes' (about 100 TFLOPS against 43 at
    depth 576 on an H200); a stride-2 one keeps its family's."""
    record = ROOT / "kernels/kernlint/kernels/measurements/checks/h200/calibration_h200.json"
    h200 = cost.load_calibration(str(record))
    assert h200 is not None
    c = h200.constants
    direct = cost._conv_rate(c, 576, "nn.Conv2d", (3, 3, 1, 1, 1, 1))
    assert cost._conv_rate(c, 576, "nn.ConvTranspose2d", (3, 3, 1, 1, 1, 1)) == direct
    strided = cost._conv_rate(c, 576, "nn.ConvTranspose2d", (3, 3, 2, 2, 1, 1))
    assert strided == pytest.approx(c["flops_conv_transpose2d_k576"]) and strided < direct / 2


FLASH_ATTENTION_FROM_QKV = """\
import torch
import triton
import triton.language as tl


@triton.jit
def flash(qkv_ptr, o_ptr, L, C, sm_scale, HEADS: tl.constexpr, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    b = tl.program_id(1) // HEADS
    h = tl.program_id(1) % HEADS
    rows = pid_m * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    d = tl.arange(0, D)
    base = qkv_ptr + b * L * 3 * C + h * D
    q = tl.load(base + rows[:, None] * 3 * C + d[None, :], mask=rows[:, None] < L, other=0.0)
    q = q * sm_scale
    m_i = tl.full((BM,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((BM,), dtype=tl.float32)
    acc = tl.zeros((BM, D), dtype=tl.float32)
    for start in range(0, L, BN):
        n = start + cols
        k = tl.load(base + C + n[:, None] * 3 * C + d[None, :], mask=n[:, None] < L, other=0.0)
        v = tl.load(base + 2 * C + n[:, None] * 3 * C + d[None, :], mask=n[:, None] < L, other=0.0)
        s = tl.dot(q, tl.trans(k))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p, v)
        m_i = m_new
    tl.store(o_ptr + b * L * C + rows[:, None] * C + h * D + d[None, :], acc / l_i[:, None], mask=rows[:, None] < L)


class ModelNew(torch.nn.Module):
    def forward(self, qkv):
        B, L, C3 = qkv.shape
        C = C3 // 3
        o = torch.empty((B, L, C), device=qkv.device)
        flash[(triton.cdiv(L, 64), B * 4)](qkv, o, L, C, 0.125, HEADS=4, D=C // 4, BM=64, BN=64)
        return o


def get_inputs():
    return [torch.randn(2, 4096, 3 * 256)]


def get_init_inputs():
    return []
"""


def test_a_flash_attention_kernels_two_products_are_counted_each_at_its_own_tile() -> None:
    """Q K^T (64 x 64 over the head dim) and P V (64 x head dim over 64), P computed and q rescaled in place:
    every program's query rows against every key, twice: 4 B H L^2 D flops, where no shape of the launch's
    tensors names the product."""
    (launch,) = [op for op in entry(FLASH_ATTENTION_FROM_QKV).ops if op.kind == "triton"]
    assert (launch.path, launch.flops) == ("tf32", 4 * 2 * 4 * 4096 * 4096 * 64)


BLOCKS_WITH_CONTINUE_AND_BREAK = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.Sequential(
            nn.Sequential(nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16)),
            nn.AvgPool2d(2),
            nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32)),
            nn.Sequential(nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64)),
        )

    def forward(self, x):
        for i, block in enumerate(self.blocks):
            if isinstance(block, nn.AvgPool2d):
                x = F.avg_pool2d(x, block.kernel_size)
                continue
            if i == 3:
                break
            mods = list(block)
            x = mods[1](mods[0](x))
            mean = x.mean(dim=(0, 2, 3))
            block[1].running_mean.lerp_(mean, 0.1)
        return x


def get_inputs():
    return [torch.randn(4, 8, 32, 32)]
"""


def test_continue_and_break_end_a_step_and_the_loop_over_a_sequentials_blocks() -> None:
    """`continue` skips the rest of its step (the pool is not also run as a conv block) and `break` ends the
    loop (the last block never runs); `list(block)` is the block's layers; `lerp_` is an elementwise op."""
    e = entry(BLOCKS_WITH_CONTINUE_AND_BREAK)
    assert not e.unknown, e.unknown
    assert [op.note for op in e.ops if op.kind == "gemm"] == ["nn.Conv2d", "nn.Conv2d"]
    assert e.outputs[0][1] == (4, 32, 16, 16)


HOST_IDIOMS = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, pool=2):
        super().__init__()
        self.pool = pool if isinstance(pool, (tuple, list)) else (pool,) * 2
        self.conv = nn.Conv2d(8, 16, 3)

    def forward(self, x, y):
        x = self.conv(x)
        uniform = len(set(self.conv.stride)) == 1 and isinstance(self.pool[0], int)
        last = x.ndim - 1
        shape = torch.broadcast_shapes(x.shape, y.shape)
        if uniform and last == 3:
            return x.expand(shape) + y
        return x


def get_inputs():
    return [torch.randn(4, 8, 34, 34), torch.randn(1, 16, 1, 32)]
"""


def test_sizes_computed_with_isinstance_set_ndim_and_broadcast_shapes_are_static() -> None:
    """Host idioms of generated files: `isinstance` of a size against builtin types, `set()` of sizes, `.ndim`
    and `torch.broadcast_shapes` are evaluated, so the file stays sized and the branch is decided."""
    e = entry(HOST_IDIOMS)
    assert not e.unknown, e.unknown
    assert e.outputs[0][1] == (4, 16, 32, 32)
    assert [op.kind for op in e.ops] == ["gemm", "view", "elementwise"]


HELPER_WITH_A_MODULES_NUMBER = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def leaky(x_ptr, y_ptr, n, slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.where(v >= 0, v, v * slope), mask=offs < n)


def _launch(x, out, n, slope):
    leaky[(triton.cdiv(n, 1024),)](x, out, n, float(slope), BLOCK=1024)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = nn.LeakyReLU(0.1)

    def forward(self, x):
        out = torch.empty_like(x)
        _launch(x, out, x.numel(), self.act.negative_slope)
        return out


def get_inputs():
    return [torch.randn(1024, 1024)]
"""


def test_a_helper_handed_a_modules_number_the_table_lacks_is_still_sized() -> None:
    """`self.act.negative_slope` handed to a helper of the file: a number the kernel takes, unknown to the
    table, passed as unknown (its float() a host number) instead of leaving the whole file unsized."""
    e = entry(HELPER_WITH_A_MODULES_NUMBER)
    assert not e.unknown, e.unknown
    assert [(op.kind, op.bytes) for op in e.ops if op.kind == "triton"] == [("triton", 2 * 1024 * 1024 * 4)]


def test_self_handed_to_a_helper_of_the_file_is_the_module_with_its_layers() -> None:
    """`_launch(self, x, out)`: the helper reads `m.act.negative_slope` and the shapes through the module
    handed to it, so the file stays sized (it was "`self` has no static value")."""
    source = HELPER_WITH_A_MODULES_NUMBER.replace(
        "def _launch(x, out, n, slope):\n    leaky[(triton.cdiv(n, 1024),)](x, out, n, float(slope), BLOCK=1024)",
        "def _launch(m, x, out):\n    leaky[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), m.act.negative_slope, BLOCK=1024)",
    ).replace("_launch(x, out, x.numel(), self.act.negative_slope)", "_launch(self, x, out)")
    assert "_launch(self, x, out)" in source and "def _launch(m, x, out)" in source
    e = entry(source)
    assert not e.unknown, e.unknown
    assert [(op.kind, op.bytes) for op in e.ops if op.kind == "triton"] == [("triton", 2 * 1024 * 1024 * 4)]


def test_a_convolution_fused_with_a_reduction_over_its_channels_is_priced_from_its_tiles_and_loops() -> None:
    """A direct convolution written as multiply-adds whose output the kernel reduces over the channels before
    storing ([N, 1, H, W]): the launch's tensors name no product, so the flops come from the accumulated tile
    ([C_PAD, BLOCK_S]) once per trip of the loops around it (C_IN input channels, 3 x 3 taps), per program."""
    source = textwrap.dedent(
        """
        import torch
        import triton
        import triton.language as tl

        @triton.jit
        def conv_min(x_ptr, w_ptr, y_ptr, H, W, C_IN: tl.constexpr, C_OUT: tl.constexpr, C_PAD: tl.constexpr,
                     BLOCK_S: tl.constexpr):
            n = tl.program_id(0)
            offs = tl.program_id(1) * BLOCK_S + tl.arange(0, BLOCK_S)
            oh = offs // W
            ow = offs % W
            co = tl.arange(0, C_PAD)
            acc = tl.zeros((C_PAD, BLOCK_S), dtype=tl.float32)
            for ci in range(C_IN):
                for kh in tl.static_range(3):
                    for kw in tl.static_range(3):
                        ih = oh + kh - 1
                        iw = ow + kw - 1
                        ok = (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W) & (offs < H * W)
                        xv = tl.load(x_ptr + ((n * C_IN + ci) * H + ih) * W + iw, mask=ok, other=0.0)
                        wv = tl.load(w_ptr + ((co * C_IN + ci) * 3 + kh) * 3 + kw, mask=co < C_OUT, other=0.0)
                        acc += wv[:, None] * xv[None, :]
            acc = tl.where((co < C_OUT)[:, None], acc, float("inf"))
            tl.store(y_ptr + n * H * W + offs, tl.min(acc, axis=0), mask=offs < H * W)

        class ModelNew(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = torch.nn.Parameter(torch.randn(24, 16, 3, 3))

            def forward(self, x):
                N, C, H, W = x.shape
                y = torch.empty((N, 1, H, W), device=x.device)
                conv_min[(N, triton.cdiv(H * W, 128))](x, self.weight, y, H, W, C_IN=C, C_OUT=24, C_PAD=32,
                                                       BLOCK_S=128)
                return y

        def get_inputs():
            return [torch.randn(8, 16, 64, 64)]

        def get_init_inputs():
            return []
        """
    )
    found = entry(source)
    assert not found.unknown
    (op,) = [op for op in found.ops if op.kind == "triton"]
    programs = 8 * (64 * 64 // 128)
    assert op.programs == programs and op.path == "fma"
    assert op.flops == 2 * programs * (32 * 128) * 16 * 3 * 3


TRANSPOSED_WEIGHT_COPY = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4096, 4096)

    def forward(self, x):
        w_t = self.fc.weight.t().contiguous()
        return torch.relu(torch.addmm(self.fc.bias, x, w_t))


def get_inputs():
    return [torch.randn(8192, 4096)]


def get_init_inputs():
    return []
"""


def test_kl032s_fix_reads_the_parameter_a_per_call_transposed_copy_was_made_of() -> None:
    """`w_t = self.fc.weight.t().contiguous()` handed to an fp32 `torch.addmm`: the TF32 kernel of KL032's plan
    reads the weight [N, K] K-major as it lies, and the copy goes (on an H200, a held-out file written so
    measured 4.53x with its fix; it was estimated 1.56x with B priced as an activation read N-major)."""
    ops = entry(TRANSPOSED_WEIGHT_COPY).ops
    (gemm,) = [i for i, op in enumerate(ops) if op.kind == "gemm"]
    (copy,) = [i for i, op in enumerate(ops) if op.kind == "transpose_copy"]
    assert cost.parameter_copy(ops, gemm) == copy
    fixed = cost.tf32_gemm(ops, ops[gemm].line, ops[gemm].line)
    assert fixed is not None
    assert [op.kind for op in fixed].count("transpose_copy") == 0
    (kernel,) = [op for op in fixed if op.kind == "triton"]
    assert (kernel.path, kernel.dot_b_kmajor) == ("tf32", True)
    (finding,) = [f for f in lint_source("k.py", TRANSPOSED_WEIGHT_COPY).findings if f.code == "KL032"]
    assert "in place of its transposed copy made on every call" in (finding.plan or "")


CASTS_TO_ITS_OWN_DTYPE = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        y = x.float()
        z = y.half()
        return z.half() + 1
def get_inputs():
    return [torch.randn(64, 1024)]
"""


def test_a_cast_to_the_tensors_own_dtype_is_the_tensor_itself_and_only_a_real_cast_is_a_kernel() -> None:
    # torch returns the tensor itself for `x.float()` of an fp32 x: no kernel, no copy (fresh's cd04 had
    # `x.contiguous().float()` of a contiguous fp32 input priced as a 4 GB pass, and KL022 a 1.89x fix for it).
    e = entry(CASTS_TO_ITS_OWN_DTYPE)
    assert [(op.kind, op.line, op.bytes) for op in e.ops] == [
        ("elementwise", 9, 64 * 1024 * (4 + 2)),  # y.half(): fp32 in, fp16 out
        ("elementwise", 10, 2 * 64 * 1024 * 2),  # z.half() is z; the + 1 reads and writes fp16
    ]


TRANSPOSED_3D = """
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose3d(16, 32, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x):
        return torch.relu(self.up(x))
def get_inputs():
    return [torch.randn(8, 16, 16, 32, 32)]
"""


def test_an_estimate_says_which_convolution_it_priced_without_a_probe_of_its_family() -> None:
    ops = entry(TRANSPOSED_3D).ops
    h200 = cost.load_calibration(
        str(ROOT / "kernels" / "kernlint" / "kernels" / "measurements" / "checks" / "h200" / "calibration_h200.json")
    )
    assert h200 is not None and cost.unprobed(ops, h200.constants) == []  # a record with the family's probes
    without = {k: v for k, v in h200.constants.items() if not k.startswith("flops_conv_transpose3d_")}
    assert cost.unprobed(ops, without) == [
        "nn.ConvTranspose3d at the 2-D convolutions' rates (the record has no conv_transpose3d probes)"
    ]
