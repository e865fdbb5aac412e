"""Issue 25's calibration bar over the kernel library's own record: for every
pair, shape and mode of kernels/kernlint/kernels/measurements/h100.json, the
estimate for the pair's `before` (linted as a KernelBench-style file at the
record's shape, scripts/calibration_check.py) lands within 1.3x of the
measured speedup.

What does not hold yet is listed here, row by row, with the reason: a row
that leaves the band fails, and so does a listed row that has come into it
(take it off the list), so the list stays the model's exact state.
"""

from __future__ import annotations

import sys

import pytest
from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
import calibration_check  # noqa: E402

# Pairs the model gives no estimate for, with the start of the reason the
# table prints: every shape and mode of the pair.
INSIDE_A_KERNEL = "the cost model has no model of this rule's fix (inside a kernel)"
UNKNOWN = {
    # Its fix is modelled (tensor_cores), but the before's GEMM is a helper bound to a name at import
    # (int8_as_fp32_matmul = ...), which the shape table does not follow.
    "kl001_upcast_before_dot": "shapes not static: forward: `int8_as_fp32_matmul` has no static value",
    # Its fix is modelled (autotune: the best of the set's tile configs), but the before's int8 weight is made
    # by the library's Int8Linear helper (another module), which the shape table does not follow.
    "kl003_hardcoded_launch_config": "shapes not static: forward: `self.weight_int8` was not set statically",
    "kl009_missing_l2_swizzle": INSIDE_A_KERNEL,
    # The GEMM is in a helper module (kernlint.kernels._int8_gemm) this file imports: its work is not in the file.
    "kl002_per_call_relayout": "shapes not static: forward: line 21: call to `int8_matmul`",
    "kl006_host_sync_in_hot_path": "shapes not static: forward: line 22: call to `kernlint.kernels.kl004_unfused_epilogue",
    # A hand-written GRU step: the loop carries h through a matrix product, which batch_loop cannot batch
    # (a scan could be); the persistent kernel that fixes it is not modelled for a torch loop.
    "kl005_per_step_launch_loop": "the cost model has no model of this rule's fix for a recurrence",
    # Opt-in (their fixes measure 1.0x); calibration_check selects each pair's rules.
    "kl010_unconditional_k_mask": INSIDE_A_KERNEL,
    "kl015_small_dot_tile": INSIDE_A_KERNEL,
    "seed_all_fixes": "the pair fixes 3 rules at once (KL001, KL002, KL003)",
}

# Rows estimated but outside 1.3x: (pair, shape, mode) -> why.
# The before's materialized attention measures ~1.4x its modelled time (seq1k 1870 vs 1377 us graph;
# seq4k 3190 vs 2191); the fused after is on the mark.
BEFORE_SLOWER = "the before's unfused attention measures ~1.4x its modelled time"
HOST_LEASE = "host cost measured in another lease than the calibration"
# Pairs re-measured in the newest calibration's own lease whose host time the probes still miss: small
# afters and befores whose eager or KernelBench time is Python and launch overhead the one-op probes do
# not reproduce (module attribute lookups, views, argument binding of wide launches).
HOST_MODEL = "host time above the probes' in the calibration's own lease"
MODES = ("kernelbench", "eager", "graph")
MISSES = (
    # seq4k: in eager and graph mode within 1.3x since the softmax is priced at its probe's rate (the masked
    # pair's seq1k since its broadcast mask is priced at the broadcast probe's).
    {("kl007_materialized_attention", "seq4k", "kernelbench"): BEFORE_SLOWER}
    | {
        # The fused after measures 31.1 us graph where the SDPA probe's rate gives 18.8.
        ("kl007_materialized_attention", "seq512", "graph"): "fused attention at S=512 below the SDPA probe's rate",
        ("kl007_materialized_attention", "seq512", "eager"): "fused attention at S=512 below the SDPA probe's rate",
        (
            "kl007_materialized_attention",
            "seq512",
            "kernelbench",
        ): "fused attention at S=512 below the SDPA probe's rate",
    }
    | {
        # The before's torch epilogue measures 105 us eager where the model gives 83, the after's launch 12 where
        # the probes' Triton launch and allocation give 19.
        ("kl004_unfused_epilogue", "decode", "eager"): "eager host costs of the before's ops and the after's launch",
    }
    | {
        # The Triton int8 GEMM runs at gemm_int8_tn's cuBLAS rate (~910 TOPS) in the model; the pair's fused
        # kernel measures ~1,130 at 4096^3 (and at the seed shape the epilogue's eager host cost, as above).
        ("kl004_unfused_epilogue", s, m): "cuBLAS int8 probe's rate below the pair's Triton GEMM"
        for s, m in (("large", "kernelbench"), ("large", "eager"), ("seed", "eager"))
    }
    | {
        # At decode the before measures ~1.5x its modelled time in a graph (119 vs 79 us, with the fp32 GEMM
        # of 16 rows at the gemm_skinny_fp32 probe's 1.9 TB/s); at 4096^3 the fused int8 after runs at
        # ~1,130 TOPS, above the cuBLAS int8 probe's (121 vs 151 us; within 1.3x in a graph).
        **{
            ("kl016_upcast_before_torch_matmul", "decode", m): "the before's fp32 path below its modelled time"
            for m in ("graph",)
        },
        **{
            ("kl016_upcast_before_torch_matmul", "large", m): "cuBLAS int8 probe's rate below the pair's Triton GEMM"
            for m in ("eager", "graph")
        },
        # KernelBench mode: the decode pair measures 10.0x where the model gives 6.2 (its before's host time).
        ("kl016_upcast_before_torch_matmul", "decode", "kernelbench"): HOST_MODEL,
    }
    | {
        # The fused LayerNorm + GELU(erf) kernel measures 133.6 us where its bytes take 89 at the streaming rate.
        ("kl022_torch_after_kernel", s, m): "the after's fused kernel is slower than its bytes"
        for s, m in (
            ("kernelbench", "kernelbench"),
            ("kernelbench", "eager"),
            ("kernelbench", "graph"),
            ("wide", "kernelbench"),
            ("wide", "graph"),
        )
    }
    | {
        # At n=1024 the before measures 16.4 us KernelBench and 26.9 eager where the model (torch.diag as the
        # allocation, fill and copy torch runs) gives 8.1 and 24.7; its after 7.6 and 6.4 against 5.2 and 8.4.
        ("kl025_structure_blind_gemm", "n1k", "eager"): "small before and after off the probes' host costs",
    }
    | {
        # The fused chain's Triton kernel measures 130 us where its bytes take 89 at the streaming rate (the
        # before's chain of torch ops, with its broadcast operands at their probe's rate, is within 1.1x).
        ("kl023_unfused_op_chain", "rows4k", m): "the after's fused kernel is slower than its bytes"
        for m in MODES
    }
    | {
        # The fused kernel at 16x16384 measures 3.0 us in a graph where the Triton floor probe gives 1.1.
        ("kl023_unfused_op_chain", "kb16", "graph"): "the after's small kernel above the Triton floor probe",
        # KernelBench mode: the before measures 177 us where the model gives 218 (its zero-filled diagonal).
        ("kl025_structure_blind_gemm", "kernelbench", "kernelbench"): "the before below its modelled time",
    }
    | {
        # cuDNN's step cost comes from the KL005 pair's one-layer nn.GRU (4.97 us a step in a graph, 12.6 in
        # KernelBench mode); six layers at T=512 measure 2.1 us a layer-step in a graph, the layers3 shape
        # (T=256, B=32, 3 layers) 2.6 in a graph and 22 in KernelBench mode.
        ("kl024_recurrent_module", "kernelbench", "graph"): "cuDNN's per-step cost from a one-layer GRU",
        ("kl024_recurrent_module", "layers3", "kernelbench"): "cuDNN's per-step cost from a one-layer GRU",
        ("kl024_recurrent_module", "layers3", "eager"): "cuDNN's per-step cost from a one-layer GRU",
        ("kl024_recurrent_module", "layers3", "graph"): "cuDNN's per-step cost from a one-layer GRU",
    }
    | {
        # Host costs of pairs measured in other leases than the calibration record's: the per-op host cost
        # fitted between 7 and 14 us eager over seven leases (8.7 in the newest), a Triton launch 13 to 19 us
        # (the machine's CPU differs), and these rows' gains are host time. The validation files, measured in the calibration's
        # lease, hold (tests/test_cost.py).
        # KernelBench mode: the probes' flush constants of the newest lease against pairs measured before it.
        ("kl020_gemm_without_dot", "standard", "kernelbench"): HOST_LEASE,
        ("kl027_dead_or_constant_result", "kernelbench", "eager"): HOST_LEASE,
        # Re-measured in the calibration's own lease, still off the probes' host costs (seed and decode befores
        # of 79-117 us eager against 54-94 modelled; small afters of one launch).
        ("kl004_unfused_epilogue", "decode", "kernelbench"): HOST_MODEL,
        ("kl004_unfused_epilogue", "seed", "kernelbench"): HOST_MODEL,
        ("kl004_unfused_epilogue", "seed", "graph"): HOST_MODEL,
        # A chain of small ops whose eager time is the host's: 36.6 us measured, 30.0 modelled; its after 23.7, 15.
        ("kl023_unfused_op_chain", "kb16", "eager"): HOST_MODEL,
        ("kl011_per_call_allocation", "prefill", "eager"): HOST_MODEL,
        ("kl016_upcast_before_torch_matmul", "seed", "kernelbench"): HOST_MODEL,
        # The tile-probe lease (its eager calls 1.5x the lease before's per op, the flush hiding 107 us of host
        # work where it hid 26): small pairs whose gain is host time, off the probes in it.
        ("kl011_per_call_allocation", "decode", "kernelbench"): HOST_MODEL,
        ("kl011_per_call_allocation", "decode", "eager"): HOST_MODEL,
        ("kl011_per_call_allocation", "prefill", "kernelbench"): HOST_MODEL,
        ("kl025_structure_blind_gemm", "n1k", "kernelbench"): HOST_MODEL,
        ("kl025_structure_blind_gemm", "n1k", "graph"): "small before and after off the probes' host costs",
        ("kl027_dead_or_constant_result", "m128", "kernelbench"): HOST_LEASE,
        ("kl028_host_bound_forward", "kernelbench", "eager"): HOST_LEASE,
    }
    | {
        # One element per program: the before (1 M programs, 632 us) is on the mark; the after's one launch
        # (5.5 us KernelBench, 26.9 eager, 1.9 graph) is off the probes' host cost and the bytes' time.
        ("kl019_scalar_programs", "small", "kernelbench"): "the after's one launch below the probes' host cost",
        ("kl019_scalar_programs", "small", "graph"): "the after's 1.9 us graph time above its bytes' 1.4",
    }
    | {
        # The 128x4096x4096 fp16 GEMM measures 22.7 us in a graph where the tensor-core rate gives 15.4 (one
        # rate for every GEMM size), and the eager after's torch.ones 2.9 us where the probes give 6.9; in
        # KernelBench mode the before's GEMM is GPU time the flush does not hide.
        ("kl027_dead_or_constant_result", "m128", m): "a small GEMM below the tensor-core probe's rate"
        for m in ("graph",)
    }
    | {
        # KL029 stays silent at the launch-bound shape (PyTorch's pool and the Triton one both at the GPU's
        # floor in the model): it claims 1.0x where the fix measured 1.35x KernelBench, 0.42x eager (a
        # Triton launch costs the host more than torch's op) and 1.91x graph.
        ("kl029_slow_library_kernel", "small", m): "silent at a launch-bound shape"
        for m in MODES
    }
    | {
        # KL030's fix turns the grid with the load's lanes (one program per column and 256 lanes down it: 128
        # programs, fewer than the SMs, each at one program's streaming rate: 27 us). The pair's after gives
        # each program 128 columns (256 programs) and measures 17 us.
        ("kl030_uncoalesced_load", "narrow", "graph"): "the after's grid twice the plan's, at a shape under the SMs"
    }
    | {
        # The pair's after sums the weight over its outer dimension (a column reduction: 62 us for 134 MB, 2.15
        # TB/s, where the model streams it) and casts x to fp32 for its GEMV (25 us the plan does not have).
        ("kl026_collapsible_gemm", s, m): "the after's column sum and fp32 cast slower than the plan's fix"
        for s, m in (
            ("kernelbench", "kernelbench"),
            ("kernelbench", "eager"),
            ("kernelbench", "graph"),
            ("m128", "kernelbench"),
            ("m128", "eager"),
            ("m128", "graph"),
        )
    }
)


@pytest.fixture(scope="module")
def table() -> list[dict]:
    return calibration_check.rows()


def test_every_pair_and_shape_of_the_record_is_compared(table) -> None:
    record = calibration_check.record()
    assert [(r["pair"], r["shape"]) for r in table] == [(r["pair"], r["shape"]) for r in record["results"]]
    assert {r["pair"] for r in table} == {r["pair"] for r in table if r["estimate"].get("status") == "estimated"} | set(
        UNKNOWN
    )


def test_a_pair_without_an_estimate_is_unknown_for_the_listed_reason(table) -> None:
    for row in table:
        status, reason = row["estimate"].get("status"), row["estimate"].get("reason", "")
        if row["pair"] in UNKNOWN:
            assert status != "estimated", f"{row['pair']} {row['shape']} is estimated now: take it off UNKNOWN"
            assert reason.startswith(UNKNOWN[row["pair"]]), (row["pair"], row["shape"], reason)
        else:
            assert status == "estimated", (row["pair"], row["shape"], reason)


def test_each_estimate_is_within_1_3x_of_the_measurement_except_the_listed_misses(table) -> None:
    outside, improved = [], []
    for row in table:
        if row["estimate"].get("status") != "estimated":
            continue
        for mode in calibration_check.MODES:
            if row["measured"][mode] is None:
                # Not capturable in a CUDA graph (a sync): the model must say so too.
                assert row["estimate"][mode] is None, (row["pair"], row["shape"], mode)
                continue
            key = (row["pair"], row["shape"], mode)
            ratio = calibration_check.ratio(row, mode)
            assert ratio is not None, key
            if calibration_check.within(row, mode):
                if key in MISSES:
                    improved.append((key, round(ratio, 2)))
            elif key not in MISSES:
                outside.append((key, round(ratio, 2)))
    assert not outside, f"estimate / measured outside 1.3x: {outside}"
    assert not improved, f"listed as misses but within 1.3x now (take them off MISSES): {improved}"


def test_the_misses_list_names_only_rows_of_the_record(table) -> None:
    rows = {(r["pair"], r["shape"]) for r in table}
    assert {(pair, shape) for pair, shape, _ in MISSES} <= rows
    assert set(UNKNOWN) <= {r["pair"] for r in table}


def test_the_sizing_appended_to_a_before_is_the_record_shapes(table) -> None:
    """The KernelBench sizing written after a before is its problem's, at the
    record's shape: each size of the record's dims appears in what
    get_inputs()/get_init_inputs() return there."""
    source = calibration_check.kernelbench_source("kl021_too_few_programs", "wide")
    assert "def get_inputs():" in source and "B, F, D1, D2 = (8, 32, 512, 512)" in source
    assert source.count("def get_inputs(") == 1  # the before's own (its kernelbench shape) gave way
    for row in table:
        entry = calibration_check.problem(row["pair"]).shapes[row["shape"]]
        assert {int(d) for d in row["dims"].split("x")} <= set(entry.values()), (row["pair"], row["shape"])


def test_the_new_triton_probes_compute_what_they_time() -> None:
    """calibrate.py's Triton probes (a grid of few streaming programs, a
    product without tl.dot, a tl.dot GEMM, a row softmax in one tile), run tiny under the Triton interpreter: the
    record's bytes and flops are of a kernel that does that work."""
    import os
    import subprocess

    pytest.importorskip("torch")
    pytest.importorskip("triton")
    script = """
import torch, triton, triton.language as tl
from kernlint.kernels.calibrate import _probe_kernels
stream, fma, dot = _probe_kernels(triton, tl)
x = torch.randn(4 * 1500).half()
assert torch.equal(stream(x, torch.empty_like(x), 4), x)
a, b = torch.randn(70, 20), torch.randn(20, 50)
assert torch.allclose(fma(a, b, torch.empty(70, 50)), a @ b, atol=1e-4)
a, b = torch.randn(32, 64), torch.randn(64, 32)
assert torch.allclose(dot(a, b, torch.empty(32, 32), "ieee", (16, 16, 16)), a @ b, atol=1e-3)
w = torch.randn(48, 64)  # a weight [N, K]: B read K-major
assert torch.allclose(dot(a, w, torch.empty(32, 48), "ieee", (16, 16, 16), True), a @ w.t(), atol=1e-3)
from kernlint.kernels.calibrate import _row_tile_kernel
rows = torch.randn(3, 64)
assert torch.allclose(_row_tile_kernel(triton, tl)(rows, torch.empty_like(rows), 4), rows.softmax(1), atol=1e-6)
print("ok")
"""
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]


def test_the_newer_probes_give_their_constants_when_a_record_has_them() -> None:
    """A record with calibrate.py's newer probes (here the committed record
    plus made-up times for them: test inputs, not a calibration) sets the
    int8 rate from the [N, K] weight layout, the Triton multiply-add rate
    and one program's bandwidth, and a grid of fewer programs than SMs is
    timed at the smaller of its share of the GPU and its programs' rates; a
    record without them keeps the older rates."""
    import copy
    import json

    from kernlint import cost
    from kernlint.model.shapes import Op

    record = json.loads((ROOT / "kernels/kernlint/kernels/measurements/calibration_h100.json").read_text())
    newer_probes = ("gemm_int8_tn", "triton_fma_gemm", "triton_stream_", "tiny_empty_")
    for name in [n for n in record["probes"] if n.startswith(newer_probes)]:
        del record["probes"][name]  # the committed record as an older calibration run made it
    old = cost.derive_constants(record)
    assert not {"flops_fma", "bw_program"} & set(old)

    def probe(us: float, **facts) -> dict:
        return {**facts, "modes": {m: {"median_us": us} for m in ("graph", "kernelbench", "eager")}}

    newer = copy.deepcopy(record)
    newer["probes"]["gemm_int8_tn"] = probe(1000.0, flops=2 * 8192**3, bytes=6 * 8192**2)
    newer["probes"]["triton_fma_gemm"] = probe(4000.0, flops=2 * 4096 * 4096 * 1024, bytes=1)
    newer["probes"]["triton_stream_programs_16"] = probe(3000.0, bytes=2 * 2 * 16 * (1 << 22), programs=16)
    newer["probes"]["triton_stream_programs_64"] = probe(1000.0, bytes=2 * 2 * 64 * (1 << 22), programs=64)
    for count in sorted(int(n.rsplit("_", 1)[1]) for n in record["probes"] if n.startswith("tiny_ops_")):
        newer["probes"][f"tiny_empty_{count}"] = probe(2.0 * count, allocs=count, bytes=0)
    c = cost.derive_constants(newer)
    assert c["eager_host_empty_us"] == pytest.approx(2.0) and "eager_host_empty_us" not in old
    empty, filled = Op("alloc", 1, launches=False), Op("alloc", 1, bytes=64)
    assert cost.host_us(empty, c, "eager") == pytest.approx(2.0)
    assert cost.host_us(filled, c, "eager") == cost.host_us(filled, old, "eager") == old["eager_host_alloc_us"]
    assert c["flops_int8"] == pytest.approx(2 * 8192**3 / 1000.0, rel=1e-3)
    assert c["flops_fma"] == pytest.approx(2 * 4096 * 4096 * 1024 / 4000.0, rel=1e-3)
    assert c["bw_program"] == pytest.approx(4 * (1 << 22) / 3000.0, rel=1e-3)  # the smallest grid's, per program

    few = Op("triton", 1, bytes=10**9, programs=16, streams=True)  # a looping kernel's small grid
    assert cost.gpu_us(few, c) == pytest.approx(10**9 / (16 * c["bw_program"]), rel=1e-3)
    assert cost.gpu_us(few, old) == pytest.approx(10**9 / (old["bw_stream"] * 16 / old["sm_count"]), rel=1e-3)
    full = Op("triton", 1, bytes=10**9, programs=0)
    assert cost.gpu_us(full, c) == cost.gpu_us(full, old)  # a full grid streams at the GPU's rate either way
    fma = Op("triton", 1, flops=10**12, path="fma")
    assert cost.gpu_us(fma, c) == pytest.approx(10**12 / c["flops_fma"], rel=1e-3)
    assert cost.gpu_us(fma, old) == pytest.approx(10**12 / old["flops_fp32"], rel=1e-3)


def test_the_h100_runbook_measures_every_probe_the_h200_record_has_and_the_h100_record_lacks() -> None:
    """The model reads a probe wherever a record has it, so a probe measured on the H200 and not on the
    H100 leaves the verdict (H100) on its fallback: measure_h100.sh's `calibration` part must name it."""
    import json
    import re

    measurements = ROOT / "kernels" / "kernlint" / "kernels" / "measurements"
    h100 = set(json.loads((measurements / "calibration_h100.json").read_text())["probes"])
    h200: set[str] = set()
    for record in ("checks/h200/calibration_h200.json", "checks/dot_programs_h200/probes_h200.json"):
        h200 |= set(json.loads((measurements / record).read_text())["probes"])
    script = (ROOT / "kernels" / "kernlint" / "kernels" / "measure_h100.sh").read_text()
    part = script[script.index("\n  calibration)") : script.index(";;", script.index("\n  calibration)"))]
    prefixes = tuple(re.findall(r"--only (\S+)", part))
    assert prefixes
    assert sorted(name for name in h200 - h100 if not name.startswith(prefixes)) == []
