"""The cost model: how long the file's entry point takes at its own shapes,
before and after a finding's fix, in each timing mode.

One job: turn the entry point's ops (`kernlint.model.shapes`) into times.
Per op, GPU time is max(a floor per kernel, bytes / bandwidth, flops /
throughput of its execution path) (a transposed copy at its own measured
rate, a Triton grid with fewer programs than SMs at that fraction of the
bandwidth, and a small grid of looping programs at most at their own
streaming rate, measured by KL021's pair); host time is the cost of issuing it (a torch op, an allocation,
a Triton launch). The modes combine them as the harnesses measure them
(`kernlint.kernels.timing`):

  * graph: the sum of GPU times (no host cost); None when a host sync
    makes the call impossible to capture;
  * eager: calls back to back, so the host issues ahead of the GPU: each
    stretch between host syncs costs max(GPU, host), plus each sync's round
    trip; a call's host time is read off the measured curve of tiny-op calls;
  * kernelbench: one call's timeline after the 256 MiB L2 flush: the GPU
    runs each op once the host has issued it, the flush hiding the host's
    first work; ops after a sync find the GPU idle.

Every constant comes from a calibration record measured on the GPU
(`python -m kernlint.kernels.calibrate`, committed under the kernel
library's measurements/ as calibration_<gpu>.json): `derive_constants`
computes them from the record's raw probe times whenever it is read, so
none is typed here, and each estimate names the record it used.

A finding's fix is a rule's declared `fix_effect` applied to the ops
(`EFFECTS`): remove the per-call copy, allocation or sync; run a per-step
loop's work as one batched launch; fold an epilogue into its GEMM; replace
materialized attention by one fused attention kernel; run an upcast GEMM
on its narrow inputs; run a Triton product's multiply-adds on the tensor
cores; spread a launch over the whole GPU; do the torch ops after a Triton
kernel inside it; drop the work a constant or unused result does not need;
read a row in the two passes of an online softmax where a kernel read it
in three (a launch's bytes count each full pass over a tensor it re-reads);
read a TF32 tl.dot's operands K-major (an input copied so on each call).
"""

from __future__ import annotations

import ast
import functools
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, replace

from kernlint.findings import NO_FIX_MODEL
from kernlint.model.shapes import (
    FLASH_HEAD_DIM,
    IM2COL,
    STATISTIC_EXTENT,
    EntryPoint,
    Op,
    concatenated_launches,
    dead_with,
    head_dim,
    im2col_readers,
    library_prologue,
    live_ops,
    mixes_values,
    prologue_of,
    reads_grid_statistic,
    statistics_of,
    written_by,
)
from kernlint.model.tuning import AUTOTUNE_CONFIGS
from kernlint.provenance import library_folder

MEASUREMENTS_DIR = "measurements"
CALIBRATION_PREFIX = "calibration_"
RECORD_PREFIX = "kernels/measurements/"
MODES = ("kernelbench", "eager", "graph")


# -- constants, from the calibration record ------------------------------------


def _median(record: dict, probe: str, mode: str) -> float:
    return float(record["probes"][probe]["modes"][mode]["median_us"])


def derive_constants(record: dict) -> dict[str, float]:
    """The model's constants from a calibration record's probe times (µs, bytes per µs, flops per µs).

    Rates come from large probes, whose host cost is negligible: the faster
    of their CUDA-graph and KernelBench-mode medians. Host costs come from
    the tiny probes, N ops a call: each mode's time is modelled as
    base + max(N * gpu_floor, N * host - hidden) (`entry_time`), where
    `hidden` is the host time the harness's own L2 flush in front of the call
    covers; N = 1 is GPU-bound and gives `base`, the larger N are
    host-bound and give `host` and `hidden` (a least-squares line through
    them: its slope, and `base` less its intercept).
    """
    p = record["probes"]

    def best(probe: str) -> float:
        # A GPU-only probe (a tile config's rate) has its graph time alone.
        return min(_median(record, probe, mode) for mode in ("graph", "kernelbench") if mode in p[probe]["modes"])

    def rate(probe: str, what: str = "bytes") -> float:
        return float(p[probe][what]) / best(probe)

    counts = sorted(int(name.rsplit("_", 1)[1]) for name in p if name.startswith("tiny_ops_"))
    lo, mid, hi = counts[0], counts[len(counts) // 2], counts[-1]

    def at(kind: str, mode: str, n: int) -> float:
        return _median(record, f"{kind}_{n}", mode)

    # The counts whose time the host's issue rate sets. In eager mode (calls
    # back to back, the GPU never waits for a flush) that is every count: one
    # tiny op issues slower than the GPU runs it. In KernelBench mode the
    # flush in front of the call hides the first ops' host time, so the small
    # counts are GPU-bound and only the larger ones show the host.
    bound = {"eager": counts, "kernelbench": [n for n in counts if n >= mid]}

    def fit(kind: str, mode: str) -> tuple[float, float]:
        """Least squares over the host-bound counts: (per-op slope, intercept)."""
        ns = bound[mode]
        times = [at(kind, mode, n) for n in ns]
        mean_n, mean_t = sum(ns) / len(ns), sum(times) / len(times)
        spread = sum((n - mean_n) ** 2 for n in ns)
        per_op = sum((n - mean_n) * (t - mean_t) for n, t in zip(ns, times)) / spread
        return per_op, mean_t - per_op * mean_n

    def slope(kind: str, mode: str) -> float:
        return fit(kind, mode)[0]

    gpu_floor = (at("tiny_ops", "graph", hi) - at("tiny_ops", "graph", lo)) / (hi - lo)
    constants = {
        "bw_stream": rate("copy_fp32_1g"),
        "bw_transpose_2byte": rate("transpose_fp16"),
        "bw_transpose_4byte": rate("transpose_fp32"),
        **{
            f"bw_copy_runs_{n}byte": rate(f"copy_heads_{t}")
            for n, t in ((2, "fp16"), (4, "fp32"))
            if f"copy_heads_{t}" in p
        },
        "flops_fp16": rate("gemm_fp16", "flops"),
        "flops_bf16": rate("gemm_bf16", "flops"),
        "flops_fp32": rate("gemm_fp32", "flops"),
        "flops_tf32": rate("gemm_tf32", "flops"),
        "flops_int8": rate("gemm_int8", "flops"),
        "flops_attention": rate("sdpa_fp16", "flops"),
        "gpu_floor_us": gpu_floor,
        "triton_floor_us": (at("tiny_triton", "graph", hi) - at("tiny_triton", "graph", lo)) / (hi - lo),
        "graph_base_us": max(0.0, at("tiny_ops", "graph", lo) - lo * gpu_floor),  # the line can cross just below 0
        "sm_count": float(record["environment"].get("sm_count") or 132),
    }
    # Probes a newer calibration run has (kernels/kernlint/kernels/calibrate.py); a
    # record without them keeps the rates above.
    if "gemm_int8_tn" in p:
        # An int8 GEMM on a weight stored [N, K] (a linear layer's) runs on
        # cuBLASLt's fast path; gemm_int8's row-major B is a slower one.
        constants["flops_int8"] = rate("gemm_int8_tn", "flops")
    for size, path in ((2, "fp16"), (4, "fp32")):
        if f"broadcast_mul_{path}" in p:
            # An elementwise op with a broadcast operand (PyTorch's unvectorized kernel).
            constants[f"bw_broadcast_{size}byte"] = rate(f"broadcast_mul_{path}")
        if f"triton_stream_{path}" in p:
            # A Triton elementwise kernel over a full grid, one block per program.
            constants[f"bw_triton_{size}byte"] = rate(f"triton_stream_{path}")
        if f"gemm_skinny_{path}" in p:
            # A GEMM of few rows, bound by reading its other operand.
            constants[f"bw_gemm_skinny_{path}"] = rate(f"gemm_skinny_{path}")
    if "triton_fma_gemm" in p:
        constants["flops_fma"] = rate("triton_fma_gemm", "flops")
    if "triton_strided_lanes_fp32" in p:
        # A load whose lanes read fp32 elements a row apart (one program per column, summing down it).
        constants["bw_strided_lanes"] = rate("triton_strided_lanes_fp32")
    for name in p:
        if name.startswith(TILE_PROBE):
            # A Triton tl.dot GEMM at one tile config (`_tile_rate` reads them back by config).
            constants[TILE_RATE + name[len(TILE_PROBE) :]] = rate(name, "flops")
        if name.startswith(PROGRAMS_PROBE):
            # The same kernel over fewer output tiles than SMs: what one program streams at that config.
            constants[PROGRAM_RATE + name[len(PROGRAMS_PROBE) :]] = rate(name) / p[name]["programs"]
    for path in ("fp16", "tf32", "fp32"):
        if f"triton_dot_{path}" in p:
            constants[f"flops_triton_{path}"] = rate(f"triton_dot_{path}", "flops")
    for name in p:
        if name.startswith(STORE_PROBE):
            # A tl.dot kernel whose output is its work (K = 64) at one tile config: the rate at which that
            # config's tile epilogue stores (`gpu_us` reads them back through `_nearest_config`).
            label, config = name[len(STORE_PROBE) :].split("_", 1)
            size = 2 if label.startswith("fp16") else 4
            kmajor = "k" if label.endswith("k") else ""  # B read K-major: `_nearest_config` prefers these
            constants[f"{STORE_RATE}{size}byte{kmajor}_{config}"] = float(p[name]["out_bytes"]) / best(name)
    grids = sorted(int(name.rsplit("_", 1)[1]) for name in p if name.startswith("triton_stream_programs_"))
    if grids:
        # What one program streams when the grid leaves SMs idle (its loop's
        # loads in flight, not the GPU's bandwidth, bound it): the smallest grid's.
        constants["bw_program"] = rate(f"triton_stream_programs_{grids[0]}") / grids[0]
    for name in p:
        family = next((f for f in CONV_FAMILIES.values() if name.startswith(f"{f}_k")), None)
        if family is not None:
            # A 3-D or transposed convolution's rate at its depth (no bias: the probe's time is the conv's).
            constants[f"flops_{family}_k{int(p[name]['reduction'])}"] = float(p[name]["flops"]) / best(name)
    for name in p:
        if name.startswith("conv2d_k"):
            # A convolution's rate at its GEMM depth K (`_conv_rate` interpolates between them). The probes'
            # nn.Conv2d has a bias, which PyTorch adds in a pass of its own over the output after cuDNN's
            # convolution: that pass (read and write the output at the broadcast probe's rate, what `gpu_us`
            # prices it at) is not the conv's.
            flops, depth = float(p[name]["flops"]), int(p[name]["reduction"])
            bias_pass = 2 * (4 * flops / (2 * depth)) / constants.get("bw_broadcast_4byte", constants["bw_stream"])
            conv_only = best(name) - bias_pass
            constants[f"flops_conv_k{depth}"] = (
                flops / conv_only if conv_only > 0.2 * best(name) else rate(name, "flops")
            )
    if "triton_scalar_loop_wide" in p and "triton_scalar_loop_narrow" in p:
        # Programs that each loop over scalar loads (one output per program): the GPU-wide rate of a
        # grid far larger than the GPU holds at once, and one program's rate from a grid of two per SM.
        constants["bw_scalar_loop"] = rate("triton_scalar_loop_wide")
        narrow = float(p["triton_scalar_loop_narrow"]["programs"])
        constants["bw_scalar_loop_program"] = rate("triton_scalar_loop_narrow") / narrow
    if "triton_scalar_programs" in p:
        # What one program of a grid costs when its own work is nothing: the
        # probe's one-element programs, its time over its grid.
        constants["program_us"] = best("triton_scalar_programs") / float(p["triton_scalar_programs"]["programs"])
    for layer in ("conv", "batchnorm", "linear"):
        layer_counts = sorted(int(n.rsplit("_", 1)[1]) for n in p if n.startswith(f"layer_{layer}_"))
        if len(layer_counts) < 2:
            continue
        low, high = layer_counts[0], layer_counts[-1]

        def per_layer(mode: str, layer: str = layer, low: int = low, high: int = high) -> float:
            return (at(f"layer_{layer}", mode, high) - at(f"layer_{layer}", mode, low)) / (high - low)

        # A small layer's GPU time (graph: no host cost), and its host cost where the host sets the pace.
        constants[f"gpu_floor_{layer}_us"] = per_layer("graph")
        constants[f"eager_host_{layer}_us"] = per_layer("eager")
        constants[f"kb_host_{layer}_us"] = per_layer("kernelbench")
    constants.update(_library_constants(p, best, constants["bw_stream"]))
    # Counts of the many-argument launch probe, and the arguments of tiny_triton's launch they are set against.
    launch_counts = sorted(int(n.rsplit("_", 1)[1]) for n in p if n.startswith("tiny_triton_args_"))
    if launch_counts:
        constants["triton_probe_args"] = float(p[f"tiny_triton_{lo}"]["arguments"])
    # A model is called through nn.Module.__call__: its ops' host cost is the module probe's.
    kind = "module_ops" if f"module_ops_{hi}" in p else "tiny_ops"
    for mode, key in (("eager", "eager"), ("kernelbench", "kb")):
        host, intercept = fit(kind, mode)
        if mode == "eager":
            # t(N) = base + N * host at every count: the line's intercept is the call's own cost, and no more
            # than the one-op call measured leaves beside its op (one noisy count can lift the line's
            # intercept far above it: 25 us in one lease, where the one-op call took 8.4).
            base = max(0.0, min(intercept, at(kind, mode, lo) - lo * host))
        else:
            # One op is GPU-bound behind the flush: t(1) = base + gpu_floor.
            base = at(kind, mode, lo) - lo * gpu_floor
        constants[f"{key}_host_op_us"] = host
        constants[f"{key}_base_us"] = base
        # t(N) = base + N * host - hidden on the host-bound counts: the fit's intercept is base - hidden.
        constants[f"{key}_hidden_us"] = max(0.0, base - intercept)
        if mode == "kernelbench" and all("events_no_flush" in p[f"{kind}_{n}"]["modes"] for n in counts):
            # What the flush hides, measured rather than read off a line's intercept (one jump between two
            # counts, 20 us at 8 ops and 131 at 16 in one lease, moves the intercept by tens of us): the same
            # calls timed by events without the flush, less with it, on the host-bound counts. Of that, the
            # call's own fixed host work (the no-flush one-op call less its op and the GPU-bound flushed call)
            # is hidden too but is not in the timeline's walk of ops; the rest hides the ops' host work.
            def unflushed(n: int) -> float:
                return _median(record, f"{kind}_{n}", "events_no_flush")

            hidden = sum(unflushed(n) - at(kind, mode, n) for n in bound[mode]) / len(bound[mode])
            fixed = unflushed(lo) - lo * host - at(kind, mode, lo) + base
            constants[f"{key}_hidden_us"] = max(0.0, hidden - fixed)
        # The measured call times themselves: a call of few ops costs less per
        # op than the line through many says (`_host_bound`).
        if mode == "eager":
            for n in counts:
                constants[f"{key}_call_{n}_us"] = at(kind, mode, n)
        # Triton launches and allocations cost their own host time per call.
        constants[f"{key}_host_triton_us"] = slope("tiny_triton", mode)
        if f"tiny_autotuned_{hi}" in p:
            # An @triton.autotune kernel's launch runs the autotuner's Python first.
            constants[f"{key}_host_autotuned_us"] = slope("tiny_autotuned", mode)
        constants[f"{key}_host_alloc_us"] = slope("tiny_alloc", mode)
        if f"tiny_view_{hi}" in p and f"tiny_setitem_{hi}" in p:
            # A view by indexing launches nothing but is a dispatched op; an assignment into one is its
            # indexing and a copy.
            constants[f"{key}_host_view_us"] = slope("tiny_view", mode)
            constants[f"{key}_host_setitem_us"] = slope("tiny_setitem", mode)
        if f"tiny_empty_{hi}" in p:
            # torch.empty (a kernel's output buffer) launches no fill kernel.
            constants[f"{key}_host_empty_us"] = slope("tiny_empty", mode)
        constants[f"{key}_sync_us"] = _median(record, "sync", mode) - at("tiny_ops", mode, lo)
        if launch_counts:
            # A launch's host cost per argument beyond the one of tiny_triton's kernel (Triton binds,
            # checks and specializes every argument on every call).
            first, last = launch_counts[0], launch_counts[-1]
            many = (at("tiny_triton_args", mode, last) - at("tiny_triton_args", mode, first)) / (last - first)
            extra = float(p[f"tiny_triton_args_{first}"]["arguments"]) - constants["triton_probe_args"]
            constants[f"{key}_host_triton_arg_us"] = max(0.0, (many - slope("tiny_triton", mode)) / extra)
        if "jit_per_call" in p:
            # A kernel defined inside the call: the probe's call less a plain launch's.
            constants[f"{key}_host_jit_us"] = _median(record, "jit_per_call", mode) - at("tiny_triton", mode, lo)
    return {k: float(f"{v:.4g}") for k, v in constants.items()}


def _library_constants(p: dict, best, bw: float) -> dict[str, float]:
    """KL029's constants from the library_* probes: each library kernel's
    time over the streaming time of the bytes the model counts for it (the
    `_x` ratios); a pool's time per output and per window tap (two windows
    each, a line through them); the rate of one LayerNorm row (one block);
    the Triton pool's time per tap (the fix's rate)."""
    out: dict[str, float] = {}
    pools: dict[str, list[tuple[int, float]]] = {}
    norms: list[tuple[int, float, float]] = []  # LayerNorm: (rows, ratio, bytes per µs of one row)
    for name, probe in p.items():
        if not name.startswith("library_"):
            continue
        kernel, ratio = probe["kernel"], best(name) / (float(probe["bytes"]) / bw)
        if "taps" in probe:  # a window per output: a pool, a depthwise convolution
            pools.setdefault(kernel, []).append((int(probe["taps"]), best(name) / float(probe["outputs"])))
        elif kernel == "layer_norm":
            norms.append((int(probe["rows"]), ratio, float(probe["bytes"]) / best(name) / int(probe["rows"])))
        elif kernel in ("softmax", "log_softmax"):
            elem = int(probe.get("elem", 4))  # rows read and written once; fp32 where the probe does not say
            cols = int(float(probe["bytes"]) / (2 * elem) / int(probe["rows"]))
            out[f"lib_{kernel}{'_fp16' if elem == 2 else ''}_cols_{cols}_x"] = ratio
        else:
            out[f"lib_{kernel}_x"] = ratio
    for kernel, points in pools.items():
        (t0, u0), (t1, u1) = sorted(points)[0], sorted(points)[-1]
        per_tap = max(0.0, (u1 - u0) / (t1 - t0))
        out[f"lib_{kernel}_tap_us"] = per_tap
        out[f"lib_{kernel}_out_us"] = max(0.0, u0 - per_tap * t0)
    if norms:
        # Many rows fill the GPU (the ratio of the most rows'); a few rows run one block each, at one row's rate.
        out["lib_layer_norm_x"] = max(norms)[1]
        out["lib_layer_norm_row_bw"] = min(norms)[2]
    if "triton_max_pool2d" in p:
        probe = p["triton_max_pool2d"]
        out["triton_pool_tap_us"] = best("triton_max_pool2d") / (float(probe["outputs"]) * int(probe["taps"]))
    return out


@dataclass(frozen=True)
class Calibration:
    path: str  # repository-relative, as estimates name it
    gpu: str
    date: str
    constants: dict[str, float]


# One entry per target asked for: the engine asks for the settings' target GPU and the rules for any
# (None); with a single entry the two evicted each other and every file re-read the records.
@functools.cache
def calibration(target_gpu: str | None = None) -> Calibration | None:
    """The newest calibration record (for `target_gpu`, matched as claims match records)."""
    folder = library_folder()
    if folder is None:
        return None
    directory = os.path.join(folder, MEASUREMENTS_DIR)
    try:
        names = sorted(n for n in os.listdir(directory) if n.startswith(CALIBRATION_PREFIX) and n.endswith(".json"))
    except OSError:
        return None
    found = []
    for name in names:
        loaded = load_calibration(os.path.join(directory, name), RECORD_PREFIX + name)
        if loaded is not None and (target_gpu is None or target_gpu.casefold() in loaded.gpu.casefold()):
            found.append(loaded)
    found.sort(key=lambda c: c.date, reverse=True)
    if not found:
        return None
    best = found[0]
    extra = recurrence_constants(folder, best.gpu)
    return replace(best, constants={**best.constants, **extra})


def load_calibration(path: str, name: str | None = None) -> Calibration | None:
    """The calibration record at `path` (named `name` in estimates, the path itself by default) and the
    constants derived from it; None where it is not a readable calibration record. What `calibration` reads
    for each record of the library, and what a check of the model on another GPU's record reads."""
    try:
        with open(path, encoding="utf-8") as handle:
            record = json.load(handle)
        return Calibration(name or path, record["environment"]["gpu"], record.get("date", ""), derive_constants(record))
    except (OSError, ValueError, KeyError, ZeroDivisionError, TypeError):
        return None


# A recurrence's step is a fixed cost of its own (a few small kernels and a
# dependency on the step before), not a rate the calibration probes measure.
# It is read from the measured pair that times one: KL005's GRU layer, whose
# reference is nn.GRU (cuDNN) and whose fix is the persistent kernel, at the
# pair's own number of steps.
RECURRENCE_PAIR = "kl005_per_step_launch_loop"
RECURRENCE_SHAPE = "kernelbench"


def recurrence_constants(folder: str, gpu: str) -> dict[str, float]:
    """Per step of one layer (µs): cuDNN's GPU time (`rnn_step_graph_us`)
    and its time in eager and KernelBench mode (`eager_rnn_step_us`,
    `kb_rnn_step_us`: cuDNN issues each step from the host), and the
    persistent kernel's (`persistent_step_us`), from the newest GPU record
    of the pair on `gpu`. Empty when there is none (recurrences are then
    not sized)."""
    steps = _pair_steps(os.path.join(folder, RECURRENCE_PAIR, "reference.py"))
    directory = os.path.join(folder, MEASUREMENTS_DIR)
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json") and not n.startswith(CALIBRATION_PREFIX))
    except OSError:
        return {}
    rows = []
    for name in names:
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                record = json.load(handle)
        except (OSError, ValueError):
            continue
        env = record.get("environment") or {}
        if env.get("interpret") or env.get("gpu") != gpu or not isinstance(record.get("results"), list):
            continue
        for result in record["results"]:
            if result.get("pair") == RECURRENCE_PAIR and result.get("shape") == RECURRENCE_SHAPE and result.get("ok"):
                rows.append((record.get("date", ""), result))
    if not rows or not steps:
        return {}
    result = max(rows, key=lambda r: r[0])[1]
    try:
        reference, after = result["reference"], result["after"]
        constants = {
            "rnn_step_graph_us": reference["graph_us"] / steps,
            "eager_rnn_step_us": reference["eager_us"] / steps,
            "kb_rnn_step_us": reference["modes"]["kernelbench"]["median_us"] / steps,
            "persistent_step_us": after["graph_us"] / steps,
        }
    except (KeyError, TypeError, ZeroDivisionError):
        return {}
    return {k: float(f"{v:.4g}") for k, v in constants.items()}


def _gpu_records(folder: str, gpu: str) -> list[dict]:
    """The pair records measured on `gpu` (not the interpreter)."""
    directory = os.path.join(folder, MEASUREMENTS_DIR)
    try:
        names = sorted(n for n in os.listdir(directory) if n.endswith(".json") and not n.startswith(CALIBRATION_PREFIX))
    except OSError:
        return []
    records = []
    for name in names:
        try:
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                record = json.load(handle)
        except (OSError, ValueError):
            continue
        env = record.get("environment") or {}
        if not env.get("interpret") and env.get("gpu") == gpu and isinstance(record.get("results"), list):
            records.append(record)
    return records


def _pair_steps(path: str) -> int:
    """The time steps T of the recurrence pair's measured shape, read from its
    reference's SHAPES literal (never imported: it imports torch)."""
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return 0
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SHAPES" for t in node.targets):
            try:
                shapes = ast.literal_eval(node.value)
                return int(shapes[RECURRENCE_SHAPE]["T"])
            except (ValueError, KeyError, TypeError):
                return 0
    return 0


# -- time of ops and of the entry point -----------------------------------------


def gpu_us(op: Op, c: dict[str, float]) -> float:
    """One run of `op` on the GPU (µs)."""
    if op.kind == "sync" or not op.launches:
        return 0.0
    if op.kind == "triton":
        # A grid of fewer programs than SMs runs on that fraction of the GPU;
        # a program that loops over its data streams at most at one program's
        # measured rate (a CTA keeps only so many loads in flight: Little's
        # law), far below an SM's share of the bandwidth.
        share = min(1.0, op.programs / c["sm_count"]) if op.programs else 1.0
        bandwidth = c.get(f"bw_triton_{_size(op)}byte", c["bw_stream"]) * share
        if op.programs and share < 1.0 and op.streams and "bw_program" in c:
            bandwidth = min(bandwidth, op.programs * c["bw_program"])
        if op.scalar_loop and "bw_scalar_loop" in c:
            # Programs that walk their data one scalar load at a time: each moves what its loop's
            # latency allows (the narrow probe's rate per program), and the GPU holds only so many
            # at once (the wide probe's rate).
            bandwidth = c["bw_scalar_loop"]
            if op.programs:
                bandwidth = min(bandwidth, op.programs * c["bw_scalar_loop_program"])
        if op.dot_tile and op.programs and share < 1.0:
            # A tl.dot grid that leaves SMs idle: each program streams its operands at what its loop keeps in
            # flight at its tile config (the measured rate per program of that config, or the nearest one's).
            per_program = _nearest_config(op, c, PROGRAM_RATE)
            if per_program:
                bandwidth = min(bandwidth, op.programs * per_program)
        if op.dot_configs and op.dot_mn:
            # An autotuned launch runs the config that is fastest at its shapes.
            return min(gpu_us(_with_tile(op, config), c) for config in op.dot_configs)
        compute = 0.0
        if op.flops and op.path:
            # Multiply-adds without tl.dot ("fma") run on the CUDA cores: the
            # measured Triton product's rate, or at best the fp32 GEMM's
            # without tensor cores (cuBLAS SIMT) where the record has none.
            fma = "flops_fma" if "flops_fma" in c else "flops_fp32"
            rate = c[fma if op.path == "fma" else f"flops_{op.path}"]
            # A Triton kernel's own tl.dot runs at the measured rate of a
            # fixed-tile Triton GEMM of its path, well below cuBLAS's.
            own = f"flops_triton_{'fp16' if op.path == 'bf16' else op.path}"
            if op.kind == "triton" and own in c:
                rate = c[own]
            if op.dot_tile:
                # At its own tile config where the calibration measured it (or the nearest one measured).
                rate = _tile_rate(op, c) or rate
            # tf32x3 (three TF32 products per tl.dot) does its product's work that many times.
            compute = op.flops * op.dot_passes / rate
            if op.at_library_rate and op.conv_product:
                # A convolution KL020's plan rewrites with tl.dot (an implicit GEMM gathering its operand
                # tiles) runs no faster than cuDNN's measured rate for that convolution: on an H200, fresh5's
                # gb05 (a 3x3x1 conv3d over 3 channels) rewritten so measured 3,446 us, cuDNN 2,707, the ideal
                # tl.dot 650 (fixtures/fresh4/README.md).
                conv = op.conv_product
                library_conv = Op(
                    "gemm",
                    op.line,
                    bytes=conv.nbytes,
                    flops=conv.flops,
                    path=op.path,
                    reduction=conv.depth,
                    note=conv.module,
                    conv_window=conv.window,
                    conv_groups=conv.groups,
                    elem_bytes=op.elem_bytes,
                )
                compute = max(compute, gpu_us(library_conv, c))
        # Millions of programs cost their scheduling, whatever each one moves.
        scheduling = op.programs * c.get("program_us", 0.0)
        # A fixed window's loads (KL029's index-free pool): the measured Triton pool's time per tap.
        taps = (
            (op.out_bytes // op.elem_bytes) * op.reduction * c.get("triton_pool_tap_us", 0.0) if op.reduction else 0.0
        )
        # Any kernel's tile loads at that rate per element loaded: what bounds a window the kernel walks tap by
        # tap (a pool, a depthwise convolution), each tap a load of the inputs the taps before it brought into
        # the cache. (A kernel that reads each element once loads far faster than DRAM brings them.)
        # A grid of fewer programs than SMs loads on that fraction of the GPU.
        taps = max(taps, op.loaded_elements * c.get("triton_pool_tap_us", 0.0) / share)
        # Loads (and stores) whose lanes touch elements a stride apart: those tensors at the measured rate of such a load.
        strided = 0.0
        if op.strided_bytes and "bw_strided_lanes" in c:
            strided = op.strided_bytes * max(0.0, 1 / c["bw_strided_lanes"] - 1 / bandwidth)
        # Operand tiles with no unit stride on either axis (a transposed convolution's weight gathered tap by
        # tap), each lane a sector of its own: the bytes those tiles load, at the same measured rate. The
        # product waits on them; the larger of the two bounds the kernel (on an H200, with an A read M-major
        # beside such a weight the two added up more nearly: checks/h200/README.md, fresh_variants).
        gather = 0.0
        if any(op.dot_gather_bytes) and "bw_strided_lanes" in c:
            gather = sum(op.dot_gather_bytes) / c["bw_strided_lanes"] / share
        # A tl.dot kernel's output leaves through its tile epilogue, at the measured rate of a small-K product's
        # store (where the record has it): what bounds a GEMM whose K is a single step.
        # (The probes store their operands' type: a kernel storing another, fp32 scores of fp16 operands, has
        # no measured rate and no such term.)
        store = 0.0
        if op.dot_tile and op.stored_bytes and (2 if op.stored_elem <= 2 else 4) == _size(op):
            store_rate = _nearest_config(op, c, STORE_RATE, f"{_size(op)}byte")
            store = op.stored_bytes / (store_rate * share) if store_rate else 0.0
        # A tl.dot program whose K loop is a step or two computes its tile, then stores it, with no later K step
        # to overlap the store: the product and the output's write add up (a 32768 x 32 x 32768 fp32 product
        # on the IEEE path measured 2,907 us on the H100 against 1,642 us of product and 1,434 us of output
        # alone; 4,430 us on an H200 at K = 64 against 3,305 and 1,014). A longer K loop hides the store.
        # (The write is the product's M x N tile outputs, not the whole buffer a launch in a loop stores a slice of.)
        epilogue = 0.0
        if op.product and op.stored_elem and _k_steps(op) <= SHORT_K_STEPS:
            m, n = op.dot_mn
            epilogue = compute / share + min(op.stored_bytes, m * n * op.stored_elem) / bandwidth
        return max(
            c["triton_floor_us"],
            op.bytes / bandwidth + strided,
            compute / share,
            gather,
            scheduling,
            taps,
            store,
            epilogue,
        )
    if op.kind == "rnn":
        if "rnn_step_graph_us" not in c:
            return 0.0
        per_step = c["persistent_step_us"] if op.note.startswith("persistent") else c["rnn_step_graph_us"]
        steps = max(1, op.steps)
        rate = c.get(f"flops_{op.path}", c["flops_fp32"])
        # A step is its measured fixed cost unless its own bytes or flops take longer.
        return steps * max(per_step, op.bytes / steps / c["bw_stream"], op.flops / steps / rate)
    if op.kind == "transpose_copy":
        bandwidth = c["bw_transpose_2byte"] if op.elem_bytes <= 2 else c["bw_transpose_4byte"]
        return max(c["gpu_floor_us"], op.bytes / bandwidth)
    if op.kind == "copy" and op.note == ".contiguous()":
        # A view whose rows are long runs (a slice, a permutation keeping the last axis): the permuted-copy
        # probe's rate where the record has it, else the streaming rate.
        bandwidth = c.get(f"bw_copy_runs_{2 if op.elem_bytes <= 2 else 4}byte", c["bw_stream"])
        return max(c["gpu_floor_us"], op.bytes / bandwidth)
    # A small conv or norm: its layer's time. The conv layer probe is a dense cuDNN conv; a depthwise one runs
    # PyTorch's own depthwise kernel, at a plain kernel's floor (2.5 us measured at 1x32x28x28, kl029_dwsmall).
    layer = None if op.kernel.startswith("depthwise") else _layer(op)
    floor = c.get(f"gpu_floor_{layer}_us", c["gpu_floor_us"])
    library = library_us(op, c)
    if library is not None:
        return max(floor, library)
    compute = 0.0
    if op.flops:
        throughput = c.get(f"flops_{op.path}", c["flops_fp32"])
        if op.reduction and op.path in ("tf32", "fp16", "bf16"):
            # A convolution at the measured cuDNN rate for its depth. The probes are fp32 (TF32); an fp16
            # convolution of the same depth is held to that rate too (no fp16 probe yet): a small-K conv is
            # bound by cuDNN's data movement, not by the tensor cores' peak, which fp16 does not change.
            throughput = min(
                throughput, _conv_rate(c, op.reduction, op.note, op.conv_window, op.conv_groups) or throughput
            )
        if op.kind == "attention":
            # The fused kernel's measured rate (fp16 SDPA) at best, and no faster than its GEMMs'
            # own path: fp32 operands do not reach the fp16 tensor-core rate by being fused.
            throughput = min(c["flops_attention"], throughput)
        compute = op.flops / throughput
    # A conv's bias: a pass of its own over the output (read, add, write) after cuDNN's convolution, an add of a
    # [C, 1, 1] operand broadcast over it: at the broadcast probe's rate. Of ten files of checks/h200's
    # fresh_bias and fixed_plans runs fixed as KL004's plan says, eight saved 1.43-1.75x what the streaming
    # rate gives for the pass (the H200's broadcast probe runs at 1/1.56 of it), ea09 0.82x, eh10 4.6x.
    bias = 2 * op.out_bytes / c.get(f"bw_broadcast_{_size(op)}byte", c["bw_stream"]) if op.conv_bias else 0.0
    # An out-of-place masked_fill: the clone ATen makes first is a copy pass (profiled on an H200: a
    # device-to-device copy beside the fill's own kernel).
    clone = 2 * op.out_bytes / c["bw_stream"] if op.cloned else 0.0
    return max(floor, op.bytes / _bandwidth(op, c), compute) + bias + clone


# The triton_dot_tile_* and triton_dot_programs_* probes' names, `{path}_{BM}x{BN}x{BK}_w{warps}_s{stages}`
# after the prefix, and the constants derived from them (flops per µs; bytes per µs of one program).
TILE_PROBE, TILE_RATE = "triton_dot_tile_", "flops_tile_"
PROGRAMS_PROBE, PROGRAM_RATE = "triton_dot_programs_", "bw_dot_program_"
STORE_PROBE, STORE_RATE = "triton_dot_store_", "bw_dot_store_"


# The K steps of a tl.dot kernel's loop up to which its product does not hide its store (see `gpu_us`).
SHORT_K_STEPS = 2


def _k_steps(op: Op) -> int:
    """The steps of a tl.dot launch's K loop at its tile (its product's K over BLOCK_K); a large number where
    its tile or product shape is not known."""
    if len(op.dot_tile) < 3 or len(op.dot_mn) < 2 or not op.flops or not all(op.dot_mn):
        return 1 << 30
    m, n = op.dot_mn
    k = op.flops // (2 * m * n)
    return max(1, math.ceil(k / op.dot_tile[2]))


def _tile_rate(op: Op, c: dict[str, float]) -> float | None:
    """The measured rate of a Triton tl.dot GEMM at `op`'s tile config, for its operand path (bf16 as
    fp16) and its operands' layouts (K-major, A M-major where the record has those probes); a config the
    calibration did not measure takes the nearest measured one's (tile sizes, warps and stages compared by
    their ratios). None without tile probes for the path.

    On the TF32 path an operand read off K-major costs per element of its tiles, not per flop: the
    calibration's off-K-major probes at BLOCK_K 32 load each such operand at 310-460 M elements per ms on an
    H200 whatever the tile, where their flop rates span 29-158 TFLOPS. A tile of A is re-read once per column
    of tiles (flops / 2 BN elements), of B once per row (flops / 2 BM): the probe's rate is taken per
    element of its own off-K-major operands and paid per element of the launch's (a generated convolution's
    128 x 32 tile re-reads A twice as often per flop as the nearest probe's 128 x 64)."""
    found = _nearest(op, c, TILE_RATE)
    if found is None:
        return None
    rate, config, layout = found
    if op.path != "tf32" or len(op.dot_tile) < 2:
        return rate
    off = (op.dot_a_mmajor and op.dot_passes == 1, not op.dot_b_kmajor)
    # Only from a probe reading the same operands off K-major, at the same BLOCK_K: at BLOCK_K 64 the probes
    # load such an operand several times faster per element, and at 32 x 128 x 64 the B-row-major probe loads
    # its B three times faster per element than the A-M-major probe its A (H200). The H100 record, without
    # A-M-major probes, prices an A read M-major by its B-row-major probes' rate as it is.
    if off != ("m" in layout, "k" not in layout) or len(op.dot_tile) < 3 or config[2] != op.dot_tile[2]:
        return rate
    probe = _off_major_share(config, *off)
    own = _off_major_share(op.dot_tile, *off, op.dot_mn)
    return rate * probe / own if probe and own else rate


def _off_major_share(tile: tuple[int, ...], a_off: bool, b_off: bool, mn: tuple[int, ...] = ()) -> float:
    """Elements of off-K-major operand tiles loaded per flop of a tl.dot kernel at `tile` (BM, BN, ...): A's
    once per column of tiles, B's once per row; a product narrower than its tile (N = 128 under BN = 256) reads
    each once all the same."""
    rows, columns = (mn[0], mn[1]) if len(mn) == 2 and all(mn) else (tile[0], tile[1])
    per_a = math.ceil(columns / tile[1]) / (2 * columns)
    per_b = math.ceil(rows / tile[0]) / (2 * rows)
    return (per_a if a_off else 0.0) + (per_b if b_off else 0.0)


def _nearest_config(op: Op, c: dict[str, float], constant: str, path: str | None = None) -> float | None:
    """The constant `constant{path}_{config}` measured at `op`'s tile config or the nearest one (see
    `_tile_rate`); None without such constants for the path (`op`'s operand path unless given)."""
    found = _nearest(op, c, constant, path)
    return found[0] if found is not None else None


def _nearest(
    op: Op, c: dict[str, float], constant: str, path: str | None = None
) -> tuple[float, tuple[int, ...], str] | None:
    """`_nearest_config`'s constant, with the config it was measured at and the operand layout of its probes
    ("k": B K-major, "m": A M-major, both, or neither)."""
    if path is None:
        path = "fp16" if op.path in ("fp16", "bf16") else op.path
    prefix = f"{constant}{path}_"
    chosen = ""
    # The probes that read the operands as the launch does: B K-major (a weight [N, K]: `k`), A M-major (an
    # implicit-GEMM convolution's gathered pixels: `m`), where the record has them. Without A-M-major probes
    # (the H100's record, for now) an A read M-major takes the row-major-B probes' rate however B is read:
    # one operand off K-major puts TF32 on its slow path (on an H200, 82 TFLOPS either way at 128x128x32).
    # tf32x3 (three TF32 MMAs) measured 1.13x slower with A gathered M-major than K-major where plain TF32
    # measured 3.7x (bench/conv_layout_h200.md): A's layout is priced for plain TF32 only.
    layout = ("m" if op.dot_a_mmajor and op.dot_passes == 1 else "") + ("k" if op.dot_b_kmajor else "")
    if layout and any(key.startswith(f"{constant}{path}{layout}_") for key in c):
        prefix, chosen = f"{constant}{path}{layout}_", layout
    best: tuple[float, float, tuple[int, ...]] | None = None
    for key, value in c.items():
        if not key.startswith(prefix):
            continue
        tile, warps, stages = key[len(prefix) :].split("_")
        config = (*(int(v) for v in tile.split("x")), int(warps[1:]), int(stages[1:]))
        distance = sum(abs(math.log2(a / b)) for a, b in zip(config, op.dot_tile))
        if best is None or distance < best[0]:
            best = (distance, value, config)
    return (best[1], best[2], chosen) if best is not None else None


def _with_tile(op: Op, config: tuple[int, ...]) -> Op:
    """`op` run at another tile config: its grid as many programs as that config's tiles cover its output
    (a launch whose grid is unknown, or one a fix spreads over the whole GPU, keeps 0: no grid limit)."""
    m, n = op.dot_mn
    programs = math.ceil(m / config[0]) * math.ceil(n / config[1]) if op.programs else 0
    # A tile of A is re-read once per column of tiles (B: per row): its gathered bytes go with the other's width.
    gathered = op.dot_gather_bytes
    if any(gathered) and len(op.dot_tile) >= 2:
        gathered = (gathered[0] * op.dot_tile[1] // config[1], gathered[1] * op.dot_tile[0] // config[0])
    flops = op.flops
    if op.dot_k_extent and len(op.dot_tile) >= 3 and len(config) >= 3:
        # A K tile deeper than what its loop walks multiplies masked zeros: 16 input channels per tap under
        # BLOCK_K 32 compute twice the product. Measured on an H200 (checks/h200/fixed_plans_h200.jsonl):
        # fresh3's eg02 (16 channels) autotuned over configs of BLOCK_K 32-128 ran 2.2x slower than at its own 16.
        flops = flops * _k_padding(op.dot_k_extent, config[2]) // _k_padding(op.dot_k_extent, op.dot_tile[2])
    return replace(op, dot_tile=config, dot_configs=(), programs=programs, dot_gather_bytes=gathered, flops=flops)


def _k_padding(extent: int, block: int) -> int:
    """The depth a K loop over `extent` in steps of `block` multiplies: whole tiles."""
    return math.ceil(extent / block) * block


def _size(op: Op) -> int:
    """The element size of the probes whose rates `op` takes: 2 bytes or less, or 4."""
    return 2 if op.elem_bytes <= 2 else 4


def _bandwidth(op: Op, c: dict[str, float]) -> float:
    """The rate a torch op moves its bytes at: an elementwise op with a broadcast operand at that
    kernel's measured rate (PyTorch does not vectorize it: about half the stream's); a GEMM bound by
    reading one operand (a few rows against a weight) at the measured rate of such a GEMM on its path;
    anything else at the streaming rate."""
    if op.broadcast and f"bw_broadcast_{_size(op)}byte" in c:
        return c[f"bw_broadcast_{_size(op)}byte"]
    skinny = f"bw_gemm_skinny_{'fp16' if op.path in ('fp16', 'bf16') else op.path}"
    if op.kind == "gemm" and not op.reduction and skinny in c and 2 * max(op.in_bytes, default=0) >= op.bytes:
        return c[skinny]
    return c["bw_stream"]


# The bytes of one row (or plane) a Triton program keeps on chip between its
# statistics and its normalizing step (in registers and shared memory); a
# longer row is read twice. A design bound of the fix, not a measured rate.
ONCHIP_ROW_BYTES = 64 * 1024


def library_us(op: Op, c: dict[str, float]) -> float | None:
    """A PyTorch library kernel (`op.kernel`) at its own measured rate
    (calibrate's library_* probes, KL029); None where the op has no such
    kernel or the record no probe of it."""
    kernel = op.kernel
    stream = op.bytes / c["bw_stream"]
    if f"lib_{kernel}_out_us" in c:
        # A pool or a depthwise convolution, each output reading its window: a time per output and per tap.
        outputs = op.out_bytes // op.elem_bytes
        return max(stream, outputs * (c[f"lib_{kernel}_out_us"] + op.reduction * c[f"lib_{kernel}_tap_us"]))
    if kernel == "layer_norm" and "lib_layer_norm_x" in c:
        # One block per row: fewer rows than SMs run at that many rows' rate.
        few = op.bytes / (op.rows * c["lib_layer_norm_row_bw"]) if 0 < op.rows < c["sm_count"] else 0.0
        return max(stream * c["lib_layer_norm_x"], few)
    if kernel in ("softmax", "log_softmax") and op.rows:
        # The measured ratio at the row length, interpolated in log length between the probes: the fp16
        # probes' for 2-byte rows where the record has them.
        points = (op.elem_bytes <= 2 and _numbered(c, f"lib_{kernel}_fp16_cols_", "_x")) or _numbered(
            c, f"lib_{kernel}_cols_", "_x"
        )
        if not points:
            return None
        cols = max(1, op.out_bytes // op.elem_bytes // op.rows)
        return stream * _interpolated(points, cols)
    if kernel in ("group_norm", "instance_norm") and op.rows and op.bytes // 2 // op.rows <= ONCHIP_ROW_BYTES:
        return None  # the probes' planes (256 KiB) do not stay on chip; a smaller one's second read hits in cache
    if f"lib_{kernel}_x" in c:
        return stream * c[f"lib_{kernel}_x"]
    return None


def _interpolated(points: list[tuple[int, float]], at: int) -> float:
    """A measured curve's value at `at`, linear in log(at) between its points, held at its ends."""
    if at <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if at <= x1:
            return y0 + (y1 - y0) * math.log(at / x0) / math.log(x1 / x0)
    return points[-1][1]


def _numbered(c: dict[str, float], prefix: str, suffix: str = "") -> list[tuple[int, float]]:
    """The constants `{prefix}{N}{suffix}` as sorted (N, value): a measured curve's points."""
    return sorted(
        (int(name.removeprefix(prefix).removesuffix(suffix)), value)
        for name, value in c.items()
        if name.startswith(prefix)
    )


# The convolution families the calibration times apart from 2-D convolutions (calibrate's conv3d_kK, ...), by
# the module a convolution op runs.
CONV_FAMILIES = {
    "nn.Conv3d": "conv3d",
    "nn.ConvTranspose3d": "conv_transpose3d",
    "nn.ConvTranspose2d": "conv_transpose2d",
}


def _conv_family(module: str, window: tuple[int, ...] = ()) -> str | None:
    """The probe family whose rates price a convolution run by `module` (None: the 2-D convolution probes')."""
    family = CONV_FAMILIES.get(module)
    dims = len(window) // 3
    if family and family.startswith("conv_transpose") and dims and all(s == 1 for s in window[dims : 2 * dims]):
        # A transposed convolution of stride 1 is a direct one (its kernel flipped, padded by k - 1 - p), and
        # cuDNN runs it so; the transposed probes are of stride 2, whose zero-inserted input it avoids with
        # other kernels. On an H200 (checks/h200/fresh*_h200.jsonl) KernelBench level 2's stride-1 3x3
        # ConvTranspose2d of 64 to 128 channels at 512 x 512 (fresh's ce10, cf13, ...) ran at about 100 TFLOPS,
        # the conv2d_k576 probe's rate, where the stride-2 conv_transpose2d_k576 probe runs at 43.
        family = "conv3d" if family == "conv_transpose3d" else None
    return family


def unprobed(ops: tuple[Op, ...], c: dict[str, float]) -> list[str]:
    """What an estimate prices without a probe of its own in the record: a 3-D or transposed convolution at the
    2-D convolution probes' rates, where the record has none of its family's. On an H200 those rates put such
    convolutions at 0.4-21x their measured speed (bench/convt_rate_h200.md), so a gain measured around one is
    that much less certain; the H100 record has none of these probes yet (measure_h100.sh calibration)."""
    said: list[str] = []
    for op in ops:
        family = _conv_family(op.note, op.conv_window) if op.reduction else None
        if family and not _numbered(c, f"flops_{family}_k"):
            text = f"{op.note} at the 2-D convolutions' rates (the record has no {family} probes)"
            if text not in said:
                said.append(text)
    return said


def _conv_rate(
    c: dict[str, float], depth: int, module: str = "", window: tuple[int, ...] = (), groups: int = 1
) -> float | None:
    """A cuDNN fp32 convolution's rate at GEMM depth `depth`, interpolated
    in log K between the calibration's probes of its family (a 3-D or a
    transposed convolution, where the record has them; else the 2-D conv
    probes) and held at the nearest one outside them; None for a record
    without them.

    The probes are 3-wide kernels, so their depth is their input channels
    times 9 (27 in 3-D). A wider kernel over few input channels runs at no
    more than the probe of its input channels gives (`window`: the conv's
    kernel sizes, then strides and dilations): on an H200
    (bench/conv_rate_h200.md) a 6x6 stride-4 convolution over 8 channels ran
    at 23 TFLOPS, which its depth (288) reads as 85 and its channels as 30;
    reading every shape by the smaller of the two puts 12 of 16 shapes
    within 1.5x, against 8 read by depth and 10 by channels."""
    family = _conv_family(module, window)
    dims = len(window) // 3
    points = _numbered(c, f"flops_{family}_k") if family else []
    points = points or _numbered(c, "flops_conv_k")
    if not points:
        return None
    rate = _interpolated(points, depth)
    if dims:
        taps = math.prod(window[:dims])
        probe_taps = 3 ** (3 if family in ("conv3d", "conv_transpose3d") else 2)
        channels = depth // taps
        by_channels = _interpolated([(k // probe_taps, v) for k, v in points], channels)
        if taps == 1 and groups == 1:
            # A dense 1x1 convolution is a GEMM over its channels: the probe of its input channels is its analog,
            # not the probe of its depth (a 3x3 kernel over a ninth of the channels, slow for its few channels
            # per tap). On an H200, fresh2's 64 -> 128 pointwise conv over 16 x 1024^2 ran in 3,590 us
            # (checks/h200/fresh2_h200.jsonl, df05: 3.6 TB/s, bound by its bytes), which its depth's reading
            # put at 10,000 us; bench/conv_rate_h200.md's two 1x1 rows are within 1.25x either way. A grouped
            # one (ShuffleNet's, 3 groups) keeps its depth's reading: read by its channels, four of the five
            # ShuffleNet units of checks/h200/fresh*_h200.jsonl would be priced 1.4-1.8x under their measurement.
            return by_channels
        rate = min(rate, by_channels)
    return rate


def _layer(op: Op) -> str | None:
    """The measured small layer (calibrate's layer_* probes) whose floor and host cost `op` has."""
    if op.note.startswith("nn.Conv"):  # nn.ConvTranspose too
        return "conv"
    if op.note.startswith("nn.BatchNorm"):
        return "batchnorm"
    if op.note == "nn.Linear":
        return "linear"
    return None


def host_us(op: Op, c: dict[str, float], mode: str) -> float:
    key = "kb" if mode == "kernelbench" else "eager"
    layer = _layer(op)
    if layer and not op.library and f"{key}_host_{layer}_us" in c:
        return c[f"{key}_host_{layer}_us"]
    if op.kind == "sync":
        return 0.0
    if op.kind == "view":
        return c.get(f"{key}_host_view_us", 0.0)  # a record without the probe: views as free as before
    if op.note == "setitem" and f"{key}_host_setitem_us" in c:
        return c[f"{key}_host_setitem_us"]
    if op.kind == "jit":
        return c.get(f"{key}_host_jit_us", 0.0)
    if op.kind == "rnn" and not op.note.startswith("persistent"):
        return max(1, op.steps) * c.get(f"{key}_rnn_step_us", 0.0)  # cuDNN issues every step from the host
    if op.library:
        return 0.0
    if op.kind == "triton" and op.autotuned and f"{key}_host_autotuned_us" in c:
        return c[f"{key}_host_autotuned_us"]
    if op.kind == "triton" and f"{key}_host_triton_arg_us" in c:
        # Triton binds and specializes every argument of a launch on every call.
        extra = max(0.0, op.arguments - c["triton_probe_args"]) if op.arguments else 0.0
        return c[f"{key}_host_triton_us"] + extra * c[f"{key}_host_triton_arg_us"]
    if op.kind == "triton" or op.kind == "rnn":
        return c[f"{key}_host_triton_us"]
    if op.kind == "alloc":
        if not op.launches and f"{key}_host_empty_us" in c:
            return c[f"{key}_host_empty_us"]
        return c[f"{key}_host_alloc_us"]
    return c[f"{key}_host_op_us"]


@dataclass(frozen=True)
class Times:
    kernelbench: float
    eager: float
    graph: float | None

    def as_dict(self) -> dict[str, float | None]:
        return {m: (None if getattr(self, m) is None else round(getattr(self, m), 2)) for m in MODES}


def entry_time(ops: tuple[Op, ...], c: dict[str, float]) -> Times:
    """The entry point's time per call in each mode (µs)."""
    return Times(_kernelbench(ops, c), _eager(ops, c), _graph(ops, c))


def _graph(ops: tuple[Op, ...], c: dict[str, float]) -> float | None:
    if any(op.kind == "sync" for op in ops):
        return None  # a host sync cannot be captured in a CUDA graph
    return c["graph_base_us"] + sum(op.repeat * gpu_us(op, c) for op in ops)


def _eager(ops: tuple[Op, ...], c: dict[str, float]) -> float:
    """Eager calls run back to back, so the host issues ahead of the GPU:
    each stretch between syncs costs max(GPU, host), the first read off the
    measured calls of tiny ops (`_host_bound`); after a sync the GPU waits
    for the host."""
    stretches: list[tuple[float, float]] = [(0.0, 0.0)]
    syncs = 0
    for op in ops:
        if op.kind == "sync":
            syncs += op.repeat
            stretches.append((0.0, 0.0))
            continue
        if op.kind == "jit":
            # A kernel defined on every call (KL017) is reloaded on every call, and loading a kernel's
            # binary waits until the GPU has finished the work queued before it (CUDA loads modules
            # lazily; a load synchronizes the context): the reload starts a stretch of its own. Measured
            # with fixtures/costmodel/kl017_conv_*.py on an H200 (measurements/checks/h200/costmodel/):
            # after a 1.87 ms convolution the file took 4.10 ms a call in KernelBench mode against 1.90 ms
            # with the kernel defined once, where a reload hidden behind the convolution gives about 2.3 ms.
            stretches.append((0.0, op.repeat * host_us(op, c, "eager")))
            continue
        gpu, host = stretches[-1]
        stretches[-1] = (gpu + op.repeat * gpu_us(op, c), host + op.repeat * host_us(op, c, "eager"))
    (first_gpu, first_host), rest = stretches[0], stretches[1:]
    calls = _host_bound(c, first_host)
    if calls is None:  # a record without the probe's points: the line through them
        calls = c["eager_base_us"] + first_host - c["eager_hidden_us"]
    first = max(c["eager_base_us"] + first_gpu, calls)
    return first + sum(max(g, h) for g, h in rest) + syncs * c["eager_sync_us"]


def _kernelbench(ops: tuple[Op, ...], c: dict[str, float]) -> float:
    """KernelBench mode times one call after the flush: op by op, the GPU
    starts an op when the host has issued it and the op before it is done.
    The flush in front covers `kb_hidden_us` of the host's first work; a
    sync waits for the GPU, then the host issues on to an idle GPU. Work the
    host does before a launch (a compile, an allocation) leaves the GPU idle,
    which a sum of GPU times and a sum of host times do not show."""
    host, gpu = -c["kb_hidden_us"], 0.0
    for op in ops:
        if op.kind == "sync":
            host = max(host, gpu) + op.repeat * c["kb_sync_us"]
            gpu = host
            continue
        if op.kind == "jit":  # the reload waits for the GPU to go idle (`_eager`)
            host = max(host, gpu) + op.repeat * host_us(op, c, "kernelbench")
            gpu = host
            continue
        slices = min(op.repeat, TIMELINE_STEPS)
        host_step = host_us(op, c, "kernelbench") * op.repeat / slices
        gpu_step = gpu_us(op, c) * op.repeat / slices
        for _ in range(slices):
            host += host_step
            gpu = max(gpu, host) + gpu_step
    return c["kb_base_us"] + max(gpu, 0.0)


# An op repeated N times (a loop) is walked in at most this many slices:
# enough to interleave host and GPU work, bounded for a 10^6-step loop.
TIMELINE_STEPS = 64


def _host_bound(c: dict[str, float], host: float) -> float | None:
    """What an eager call whose host work is `host` µs of issue costs, read
    off the measured calls of N tiny ops (the module probe): `host` counted
    in that probe's ops, the time between the two counts around it, or past
    the largest along its per-op slope. The curve is not a line: one op
    costs less than the slope through many (an output kept alive, no
    allocator churn). None for a record without the points."""
    points = _numbered(c, "eager_call_", "_us")
    if not points:
        return None
    n = host / c["eager_host_op_us"]
    points = [(0, 0.0), *points]
    for (n0, t0), (n1, t1) in zip(points, points[1:]):
        if n <= n1:
            return t0 + (t1 - t0) * (n - n0) / (n1 - n0)
    last_n, last_t = points[-1]
    return last_t + (n - last_n) * c["eager_host_op_us"]


def largest_terms(ops: tuple[Op, ...], c: dict[str, float], count: int = 3) -> list[dict]:
    timed = sorted(
        ((op.repeat * max(gpu_us(op, c), host_us(op, c, "kernelbench")), i, op) for i, op in enumerate(ops)),
        key=lambda t: -t[0],
    )
    return [
        {"line": op.line, "op": op.kind + (f" {op.note}" if op.note else ""), "us": round(t, 2), "repeat": op.repeat}
        for t, _, op in timed[:count]
    ]


# -- a finding's fix, as a change to the ops ------------------------------------

Effect = Callable[[tuple[Op, ...], int, int], tuple[Op, ...] | None]


def _on_lines(ops: tuple[Op, ...], first: int, last: int, kinds: set[str]) -> list[int]:
    return [i for i, op in enumerate(ops) if _at(op, first, last) and op.kind in kinds]


def _without(ops: tuple[Op, ...], drop: set[int]) -> tuple[Op, ...]:
    """`ops` less `drop`, indices renumbered: a reader of a dropped op reads what that op read (a
    GEMM whose upcasts go reads their narrow inputs), so a later effect follows the same def-use."""
    keep = [i for i in range(len(ops)) if i not in drop]
    renumber = {old: new for new, old in enumerate(keep)}

    def source(j: int) -> int:
        while j in drop:
            j = next(iter(ops[j].inputs), -1)
        return renumber.get(j, j)

    return tuple(replace(ops[i], inputs=tuple(source(j) for j in ops[i].inputs)) for i in keep)


def _consumers(ops: tuple[Op, ...], sources: set[int], kinds: set[str]) -> set[int]:
    """Ops of `kinds` that read, directly or through each other, what `sources` produced."""
    chain: set[int] = set()
    frontier = set(sources)
    for i, op in enumerate(ops):
        if op.kind in kinds and frontier & set(op.inputs):
            chain.add(i)
            frontier.add(i)
    return chain


def remove_copy(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """The per-call copies go: a transposed or plain copy, and a re-cast of a module parameter (inputs -1: a
    parameter or constant), which the fix makes once at load time."""
    drop = set(_on_lines(ops, first, last, {"transpose_copy", "copy"}))
    drop |= {
        i
        for i in _on_lines(ops, first, last, {"elementwise"})
        if ops[i].note.startswith("cast") and ops[i].inputs == (-1,)
    }
    if not drop:
        return None
    # A tl.dot kernel handed a parameter matrix's transposed copy reads the matrix itself with its strides
    # swapped instead: its B operand's layout flips (a weight [N, K] copied to [K, N] is read K-major again, the
    # layout the K-major tile probes measure several times faster for fp32). A convolution weight permuted to
    # (taps, C_in, C_out) is not a matrix: read in place, neither of its axes would be unit-stride.
    flipped = {
        j
        for i in drop
        if ops[i].matrix_transpose and ops[i].inputs == (-1,)
        for j, op in enumerate(ops)
        if op.kind == "triton" and op.dot_tile and i in op.inputs
    }
    ops = tuple(replace(op, dot_b_kmajor=not op.dot_b_kmajor) if j in flipped else op for j, op in enumerate(ops))
    return _without(ops, drop)


def kmajor_operands(
    ops: tuple[Op, ...], first: int, last: int, c: dict[str, float] | None = None
) -> tuple[Op, ...] | None:
    """KL031's fix: a TF32 tl.dot reads its off-K-major operands K-major, at the tile probes' rate for the
    layouts that leaves. An operand loaded from a tensor forward receives or makes from its inputs on each call
    is copied K-major first (an input transposed, an NCHW activation made channels-last): a transposed copy of
    its bytes, appended so no op's inputs move; one from a parameter or buffer is laid out once, at load time,
    and costs nothing per call. Of A, B or both, the fix relays out what makes the launch fastest (with `c`, a
    calibration's constants; the default record's without): copying a large activation can cost more than its
    layout saves where the weight's layout alone pays."""
    found = [
        i
        for i, op in enumerate(ops)
        if op.kind == "triton"
        and op.path == "tf32"
        and (op.a_off_kmajor or op.dot_b_off_kmajor)
        and _names(op, first, last)
        and not _k_unaligned(op)
    ]
    if not found:
        return None
    if c is None:
        cal = calibration()
        c = cal.constants if cal is not None else {}
    out, copies = list(ops), list[Op]()
    for i in found:
        op = ops[i]
        variants = [
            _relaid(op, a, b)
            for a in ((False, True) if op.a_off_kmajor else (False,))
            for b in ((False, True) if op.dot_b_off_kmajor else (False,))
            if a or b
        ]
        best = min(variants, key=lambda v: sum(gpu_us(o, c) for o in v) if c else 0.0)
        out[i] = best[0]
        copies.extend(best[1:])
    return tuple(out + copies)


# Triton specializes an integer argument divisible by 16, and only then knows a mask along K (`offs_k < K - k *
# BLOCK_K`) comes in aligned runs: a product whose K is not a multiple of 16 loads its tiles element by element
# along K whatever their layout, so reading them K-major gains nothing. Measured on an H200
# (checks/h200/fixed_plans_h200.jsonl): fixtures/fresh's cb02 (8205 x 2949 x 5921) ran its K-major fix at
# 2,759 us against 2,712 (1.0x), with its rows' pitch padded to 16 elements too (3,056 us), where three files
# of K 4,096-8,192 ran theirs 2.6-2.9x faster.
KMAJOR_K_MULTIPLE = 16


def _k_unaligned(op: Op) -> bool:
    """The product's K (its flops over 2 M N), where the launch shows it, is not a multiple of 16."""
    if len(op.dot_mn) != 2 or not all(op.dot_mn) or not op.flops:
        return False
    k, rest = divmod(op.flops, 2 * op.dot_mn[0] * op.dot_mn[1])
    return not rest and k % KMAJOR_K_MULTIPLE != 0


def _relaid(op: Op, a: bool, b: bool) -> tuple[Op, ...]:
    """`op` with its A (`a`) and/or B (`b`) read K-major, and the copies of per-call tensors that takes."""
    copied = (op.dot_relayout_bytes[0] if a else 0) + (op.dot_relayout_bytes[1] if b else 0)
    fixed = replace(
        op,
        dot_a_mmajor=op.dot_a_mmajor and not a,
        dot_b_off_kmajor=op.dot_b_off_kmajor and not b,
        dot_b_kmajor=op.dot_b_kmajor or b,
        dot_relayout_bytes=(0 if a else op.dot_relayout_bytes[0], 0 if b else op.dot_relayout_bytes[1]),
        # Read K-major, an operand's tile is contiguous along K for Triton too: its lanes share sectors.
        dot_gather_bytes=(0 if a else op.dot_gather_bytes[0], 0 if b else op.dot_gather_bytes[1]),
    )
    if not copied:
        return (fixed,)
    copy = Op(
        "transpose_copy",
        op.line,
        bytes=2 * copied,
        in_bytes=(copied,),
        out_bytes=copied,
        elem_bytes=4,
        site_line=op.site_line,
        note="K-major copy of a tl.dot operand",
    )
    return (fixed, copy)


def coalesce(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """KL030's fix: the kernel's lanes walk the contiguous dimension, so its loads stream. The plan keeps the
    kernel's vector width and turns it: where each program held one element of the contiguous dimension and
    its lanes ran along the strided one (a program per position, its 64 channels as lanes), a program now
    holds as many adjacent elements as it had lanes and loops over the strided dimension: its grid shrinks by
    that width."""
    strided = [i for i in _on_lines(ops, first, last, {"triton"}) if ops[i].strided_bytes]
    if not strided:
        return None

    def fixed(op: Op) -> Op:
        programs = op.programs
        if programs and op.strided_lanes > 1 and not op.flops:
            programs = max(1, programs // op.strided_lanes)
        return replace(op, strided_bytes=0, lane_stride=0, strided_lanes=0, programs=programs)

    return tuple(fixed(op) if i in strided else op for i, op in enumerate(ops))


def remove_alloc(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    allocs = set(_on_lines(ops, first, last, {"alloc"}))
    # Conversions and host-to-device moves of the new tensor on the same lines go with it.
    derived = {i for i in _consumers(ops, allocs, {"elementwise", "sync"}) if first <= ops[i].line <= last}
    drop = allocs | derived
    return _without(ops, drop) if drop else None


def _feeding_only(ops: tuple[Op, ...], drop: set[int], first: int, last: int) -> set[int]:
    """Ops on the finding's lines whose results only the dropped ops read: dead once those go."""
    dead = set(drop)
    for i in range(len(ops) - 1, -1, -1):
        if i in dead or not first <= ops[i].line <= last:
            continue
        readers = [j for j, op in enumerate(ops) if i in op.inputs]
        if readers and all(j in dead for j in readers):
            dead.add(i)
    return dead


def remove_sync(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """The value stays on the device: the sync goes, and the reduction that fed only it, unless forward
    goes on to use the value (then the reduction computes what the kernel reads from the device)."""
    drop = set(_on_lines(ops, first, last, {"sync"}))
    if not drop:
        return None
    unused = {i for i in drop if not ops[i].value_read}
    return _without(ops, _feeding_only(ops, unused, first, last) | drop)


def batch_loop(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """The loop's per-step ops as one launch each over all steps' data."""
    # The loop's ops, those of loops nested in it included (their `loop_line` is the innermost loop's).
    inside = [i for i, op in enumerate(ops) if first <= op.loop_line <= last and op.repeat > 1]
    if not inside or any(ops[i].recurrent for i in inside):
        return None  # a step's product needs the step before's result: no batched launch does the loop
    batched = list(ops)
    for i in inside:
        op = ops[i]
        # One launch of all the steps' programs (a Triton grid gains the steps as an axis).
        programs = op.programs * op.repeat if op.kind == "triton" else op.programs
        batched[i] = replace(
            op, repeat=1, bytes=op.bytes * op.repeat, flops=op.flops * op.repeat, loop_line=0, programs=programs
        )
    return tuple(batched)


def fuse_epilogue(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """The elementwise ops after a GEMM run in its epilogue: no pass of their
    own. After a convolution (cuDNN kept, as the plan says) the tail,
    normalizations included, becomes one Triton pass over the conv's output.
    A finding in a module class the model builds several times (a residual
    block) fixes the tail of each instance's GEMM."""
    # A Triton GEMM (its product's flops known) takes the epilogue into its own store as a torch GEMM does.
    gemms = [
        i
        for i, op in enumerate(ops)
        if (op.kind == "gemm" or op.kind == "triton" and op.flops) and min(op.line, op.site_line or op.line) <= last
    ]
    near = [i for i in gemms if _at(ops[i], first, last)] or gemms[-1:]
    groups: list[tuple[set[int], Op | None]] = []
    claimed: set[int] = set()
    # A convolution whose output a Triton kernel reads: the plan adds its bias in that kernel.
    heads = {g for g in near if ops[g].conv_bias and any(op.kind == "triton" and g in op.inputs for op in ops)}
    for g in near:
        conv = ops[g].note.startswith("nn.Conv")
        tail = _tail(ops, g, {"elementwise", "reduction"} if conv else {"elementwise"}, claimed)
        if not tail and not conv:
            # A GEMM whose tail opens with a normalization or a reduction (a
            # GroupNorm over the row): that tail is one fused pass of its own, as
            # after a convolution.
            conv = True
            tail = _tail(ops, g, {"elementwise", "reduction"}, claimed)
        if not tail:
            continue
        claimed |= tail
        groups.append((tail, _tail_pass(ops, g, tail) if conv else None))
    # The plan calls the convolution without its bias and adds the bias in the tail's kernel (a
    # per-channel vector): PyTorch's own bias pass over the output goes.
    heads |= {g for g in near if ops[g].conv_bias and any(g in ops[i].inputs for members, _ in groups for i in members)}
    if not groups and not heads:
        return None
    ops = tuple(replace(op, conv_bias=False) if i in heads else op for i, op in enumerate(ops))
    return _replace_groups(ops, groups)


def _at(op: Op, first: int, last: int) -> bool:
    """`op` runs on the finding's lines: in forward, or in the helper or module class forward calls."""
    return first <= op.line <= last or 0 < op.site_line and first <= op.site_line <= last


def _names(op: Op, first: int, last: int) -> bool:
    """A finding on lines `first..last` names `op`: it runs there (`_at`), or the finding sits in the kernel
    `op` launches."""
    return _at(op, first, last) or 0 < op.kernel_lines[0] <= first <= op.kernel_lines[1]


def _tail(ops: tuple[Op, ...], gemm: int, kinds: set[str], claimed: set[int]) -> set[int]:
    """The ops of `kinds` after `gemm` that read its result, directly or through each other, and whose
    other inputs do not wait for the GEMM's result through other work (a residual, a constant, a
    shortcut branch computed from the block's input: they can be read in the epilogue; the output of
    the next layer's GEMM cannot, and what reads it is that GEMM's tail)."""
    tail: set[int] = set()
    after: set[int] = set()  # ops that wait for the GEMM's result and are not its tail
    for i in range(gemm + 1, len(ops)):
        op = ops[i]
        reads = set(op.inputs)
        # A copy of the result (`x.clone()` kept to add back later) is the same values in registers.
        if (
            (op.kind in kinds or op.kind == "copy")
            and i not in claimed
            and ({gemm} | tail) & reads
            and not after & reads
        ):
            tail.add(i)
        elif ({gemm} | tail | after) & reads:
            after.add(i)
    return tail


def _tail_pass(ops: tuple[Op, ...], producer: int, tail: set[int]) -> Op:
    """The tail of a convolution as one Triton pass (the plan's kernel): the conv's output and any
    tensor from before it read once, and what leaves the tail (read after it, or returned) written
    once."""
    reads: dict[object, int] = {producer: ops[producer].out_bytes}
    for i in sorted(tail):
        for source, size in zip(ops[i].inputs, ops[i].in_bytes):
            if source not in tail and source >= -1 and source != producer:
                reads.setdefault(source, size)
    # A batch norm's statistics span the whole batch: every program's part is needed before any
    # element is normalized, so the fused form reads the norm's input once more (a statistics pass),
    # and launches more: the statistics kernel, the running statistics' update and the zeroed buffer
    # the statistics are summed into (the kl004_convbn validation pair's after).
    norms = [j for j in sorted(tail) if ops[j].note.startswith("nn.BatchNorm") and ops[j].in_bytes]
    for j in norms:
        reads[("statistics", j)] = ops[j].in_bytes[0]
    launches = 1 + 3 * len(norms)
    readers = {j: {k for k, op in enumerate(ops) if j in op.inputs} for j in tail}
    leaving = [j for j in sorted(tail) if readers[j] - tail or ops[j].returned or j == max(tail)]
    # As large as the conv's output for an elementwise tail, a slice of it where the tail reduces.
    written = sum(ops[j].out_bytes for j in leaving) or ops[producer].out_bytes
    head = ops[producer]
    return Op(
        "triton",
        ops[min(tail)].line,
        bytes=(sum(reads.values()) + written) // launches,  # `repeat` counts the launches, not the bytes again
        repeat=head.repeat * launches,
        loop_line=head.loop_line,
        inputs=tuple(source for source in reads if isinstance(source, int)),
        in_bytes=tuple(size for source, size in reads.items() if isinstance(source, int)),
        out_bytes=written,
        site_line=ops[min(tail)].site_line,
        returned=any(ops[j].returned for j in tail),
        elem_bytes=ops[max(tail)].elem_bytes,
        note="fused tail",
    )


def _replace_groups(ops: tuple[Op, ...], groups: list[tuple[set[int], Op | None]]) -> tuple[Op, ...]:
    """Each group's ops as its one op, at the group's first place (None: the group is gone and its
    readers read what fed it, a GEMM that took the tail into its epilogue); indices renumbered."""
    head_of: dict[int, int] = {}
    by_head: dict[int, Op | None] = {}
    for members, by in groups:
        head = min(members)
        if by is None:
            fed = min(j for j in ops[head].inputs if j >= 0 and j not in members)
            head_of.update({m: fed for m in members})
            continue
        head_of.update({m: head for m in members})
        by_head[head] = by
    keep = [i for i in range(len(ops)) if head_of.get(i, i) == i]
    renumber = {old: new for new, old in enumerate(keep)}
    out = []
    for old in keep:
        op = by_head.get(old) or ops[old]
        inputs = tuple(renumber.get(_root(head_of, j), j) if j >= 0 else j for j in op.inputs)
        out.append(replace(op, inputs=inputs))
    return tuple(out)


def _root(head_of: dict[int, int], j: int) -> int:
    while head_of.get(j, j) != j:
        j = head_of[j]
    return j


def flash_attention(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """scores GEMM -> scale/mask/softmax -> output GEMM as one fused attention kernel."""
    # A generated solution's Triton kernel for the scores (a tl.dot launch) is a GEMM here too.
    gemms = [i for i, op in enumerate(ops) if op.product and op.line >= first]
    # The scores GEMM: the first whose result reaches a later GEMM through elementwise and reduction
    # ops (a projection before it, nn.MultiheadAttention's packed one, feeds a GEMM directly).
    for scores in gemms:
        # A generated solution's own softmax kernel between them (a Triton launch with no product of its
        # own, fed through a .contiguous() copy) is part of the chain the fused kernel replaces.
        writes = written_by(ops, scores)
        between = {
            i
            for i in _consumers(ops, writes, {"elementwise", "reduction", "copy", "view", "triton"})
            if not (ops[i].kind == "triton" and ops[i].flops) and i > scores
        }
        # A softmax kernel that writes in place leaves the scores' tensor to the output GEMM to read; so does
        # attention without a softmax (a ReLU in the scores' kernel), whose scores multiply two activations.
        in_place = writes if any(ops[i].kind == "triton" for i in between) or -1 not in ops[scores].inputs else set()
        output = next(
            (
                i
                for i in gemms
                if i > scores and mixes_values(ops, scores, i) and set(ops[i].inputs) & (between | in_place)
            ),
            None,
        )
        if output is not None:
            break
    else:
        return None
    if (head_dim(ops, scores) or 0) > FLASH_HEAD_DIM:
        return None  # no fused kernel takes a head that wide: the scores go through memory either way
    s, o = ops[scores], ops[output]
    # What the scores' op wrote: a launch's output is the tensor allocated for it.
    written = s.out_bytes or max(
        (ops[j].out_bytes for j in s.inputs if 0 <= j < scores and ops[j].kind == "alloc"), default=0
    )
    fused_bytes = (s.bytes - written) + (o.bytes - o.in_bytes[0]) if o.in_bytes else s.bytes
    if s.kind == "triton" and s.dot_tile and not any(ops[i].kind in ("reduction", "triton") for i in between):
        # Attention with an activation for its softmax (ReLU attention), the scores from the file's own kernel:
        # no library kernel computes it, so the fix is that kernel made the fused one, a Triton tl.dot kernel at
        # the scores' tile config and operand layout, at that config's measured rate. (With a softmax, the plan's
        # fix is PyTorch's flash attention, at the library's rate.)
        fused = replace(s, bytes=fused_bytes, flops=s.flops + o.flops, inputs=s.inputs)
    else:
        fused = Op(
            "attention",
            s.line,
            bytes=fused_bytes,
            flops=s.flops + o.flops,
            path=s.path,
            repeat=s.repeat,
            loop_line=s.loop_line,
            inputs=s.inputs,
        )
    drop = between | {output}
    return tuple(fused if i == scores else op for i, op in enumerate(ops) if i not in drop)


def narrow_gemm(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """An upcast GEMM on its narrow inputs: the casts go, the GEMM runs on the narrow path."""
    gemms = _on_lines(ops, first, last, {"gemm"})
    if not gemms:
        return None
    out = list(ops)
    drop: set[int] = set()
    for i in gemms:
        gemm = ops[i]
        casts = [j for j in gemm.inputs if j >= 0 and ops[j].kind == "elementwise" and ops[j].note.startswith("cast")]
        narrow = [ops[j].note.removeprefix("cast from ") for j in casts]
        if not casts:
            continue
        drop.update(casts)
        path = "int8" if "int8" in narrow else "fp16" if "float16" in narrow else "bf16"
        shrink = sum(ops[j].bytes for j in casts) // 3  # a cast's input is a third of its traffic (1 in, 4 out)
        out[i] = replace(gemm, path=path, bytes=max(gemm.out_bytes, gemm.bytes - sum(gemm.in_bytes) + shrink))
    return _without(tuple(out), drop) if drop else None


def narrow_fused_gemm(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """An upcast GEMM on its narrow inputs; an int8 one with the elementwise ops after it
    (the dequantizing scales, a bias, the output cast) in its epilogue: one int8 Triton
    kernel, as KL016's plan and its reference pair write it."""
    narrowed = narrow_gemm(ops, first, last)
    if narrowed is None:
        return None
    if not any(op.kind == "gemm" and op.path == "int8" and _at(op, first, last) for op in narrowed):
        return narrowed  # fp16/bf16 operands go to cuBLAS unconverted; its tail stays as it is
    return fuse_epilogue(narrowed, first, last) or narrowed


# KL032's fix: the tile config of the Triton GEMM that takes over a torch fp32 GEMM (BLOCK_M, BLOCK_N, BLOCK_K,
# num_warps, num_stages), the calibration's own TF32 probe config, and the arguments of its launch (A, B, C, M,
# N, K and the six strides).
TF32_GEMM_TILE = (128, 128, 32, 4, 3)
TF32_GEMM_ARGUMENTS = 12


def tf32_gemm(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """A torch GEMM on fp32 operands that runs without TF32 (cuBLAS's fp32 kernels, on the CUDA cores) computed
    instead by a Triton tl.dot kernel on TF32, tl.dot's default for fp32 tiles (KL032), at the calibration's
    TF32 tile config: B read K-major where it is a parameter (an nn.Linear weight [N, K] as it is, another laid
    out once at load time), as it lies otherwise (an activation [K, N]: the slower TF32 path)."""
    found = [i for i in _on_lines(ops, first, last, {"gemm"}) if ops[i].path == "fp32"]
    if not found:
        return None
    out = list(ops)
    copies: set[int] = set()
    for i in found:
        copy = parameter_copy(ops, i)
        out[i] = on_tf32(ops[i], weight=copy is not None)
        if copy is not None and copy >= 0:
            copies.add(copy)
    return _without(tuple(out), copies) if copies else tuple(out)


def parameter_copy(ops: tuple[Op, ...], gemm: int) -> int | None:
    """Whether GEMM `gemm`'s B is a parameter: -1 where it is one as it is, the index of the copy where it is a
    transposed copy of one made in forward (`w.t().contiguous()`, only this GEMM reading it: the kernel that
    takes over reads the parameter K-major as it lies, and the copy goes); None for an activation."""
    op = ops[gemm]
    if len(op.inputs) < 2:
        return None
    b = op.inputs[1]
    if b == -1:
        return -1
    if not 0 <= b < gemm or ops[b].kind != "transpose_copy" or ops[b].inputs != (-1,):
        return None
    if any(b in other.inputs for j, other in enumerate(ops) if j != gemm):
        return None
    return b


def on_tf32(op: Op, weight: bool | None = None) -> Op:
    """A torch fp32 GEMM as `tf32_gemm` computes it: a Triton tl.dot launch on TF32 at the calibration's tile."""
    if weight is None:
        weight = len(op.inputs) >= 2 and op.inputs[1] == -1
    return replace(
        op,
        kind="triton",
        path="tf32",
        dot_tile=TF32_GEMM_TILE,
        dot_b_kmajor=weight,
        arguments=TF32_GEMM_ARGUMENTS,
        library=False,
        note="tl.dot TF32 GEMM",  # a Triton launch's host cost, not the nn.Linear layer's
    )


def tensor_cores(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """A kernel's product moved onto the tensor cores of its operands' own
    type: written without tl.dot (KL020), a tl.dot at full fp32 precision
    (KL018), or one whose operands were upcast before it (KL001): int8 as
    int8, fp16 and bf16 as fp16, fp32 as TF32 (tl.dot's default)."""
    # The finding sits in the kernel's body (or on its launch).
    found = [
        i
        for i, op in enumerate(ops)
        if op.kind == "triton"
        and op.flops
        and op.path != _native_path(op)
        and (first <= op.line <= last or op.kernel_lines[0] <= first <= last <= op.kernel_lines[1])
    ]
    if not found:
        return None
    out = list(ops)
    for i in found:
        # A multiply-add loop's loads, lane by lane each trip, become operand tiles each K step loads once for
        # the whole output tile: its count of loaded elements is the old kernel's, not the fixed one's.
        loaded = 0 if ops[i].path == "fma" else ops[i].loaded_elements
        out[i] = replace(
            ops[i], path=_native_path(ops[i]), loaded_elements=loaded, at_library_rate=ops[i].path == "fma"
        )
    return tuple(out)


def _native_path(op: Op) -> str:
    return "int8" if op.elem_bytes == 1 else "fp16" if op.elem_bytes == 2 else "tf32"


def autotune(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """A tl.dot launch of one fixed tile config (KL003) autotuned over the plan's config set
    (`AUTOTUNE_CONFIGS`): the best of them at its shapes, and the autotuner's host work on every call."""
    found = [
        i for i, op in enumerate(ops) if op.kind == "triton" and op.dot_tile and op.dot_mn and _names(op, first, last)
    ]
    if not found:
        return None
    out = list(ops)
    for i in found:
        # The plan's set holds the launch's own config too: autotuning never picks worse than what it replaces.
        own = () if ops[i].dot_tile in AUTOTUNE_CONFIGS else (ops[i].dot_tile,)
        out[i] = replace(ops[i], dot_configs=(*own, *AUTOTUNE_CONFIGS), autotuned=True)
    return tuple(out)


def fill_the_gpu(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """A launch with fewer programs than SMs, its work split over enough
    programs to fill the GPU (chunks of a row, split-K): the same bytes and
    flops at the whole GPU's rate."""
    found = [i for i in _on_lines(ops, first, last, {"triton"}) if ops[i].programs]
    if not found:
        return None
    out = list(ops)
    for i in found:
        out[i] = replace(ops[i], programs=0)
    return tuple(out)


# The block the plan gives each program (KL019's `Use instead`: BLOCK=1024).
PROGRAM_BLOCK = 1024


def blocked(op: Op) -> Op:
    """A launch's grid with a block of PROGRAM_BLOCK elements per program: fewer programs, the same bytes.
    A program that walked its data a scalar at a time loads a block per step instead (a row's loop
    over vectors, or a block of outputs per program): its bytes at the streaming rate."""
    if op.scalar_loop and op.programs < PROGRAM_BLOCK * PROGRAM_BLOCK:
        return replace(op, scalar_loop=False)
    return replace(op, programs=-(-op.programs // PROGRAM_BLOCK), scalar_loop=False)


def block_programs(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """The launch at `first..last` (or of the kernel written there), one
    element per program, gives each program a block of PROGRAM_BLOCK elements: the grid shrinks by
    that factor, the bytes stay."""
    found = [
        i
        for i, op in enumerate(ops)
        if op.kind == "triton"
        and op.programs
        # A program that streams blocks already: blocking its grid changes nothing the model prices.
        and (not op.streams or op.scalar_loop)
        and (first <= op.site_line <= last or op.kernel_lines[0] <= last and first <= op.kernel_lines[1])
    ]
    if not found:
        return None
    out = list(ops)
    for i in found:
        out[i] = blocked(ops[i])
    return tuple(out)


# The passes the plan's online softmax keeps: one for the running max and sum, one to normalize.
ONLINE_PASSES = 2


def online_passes(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """The kernel's separate max and exp-sum passes over a row, at `first..last`, merged into one
    online pass: the tensor is read in ONLINE_PASSES passes, the launch's other bytes stay."""
    out, changed = list(ops), False
    for i, op in enumerate(ops):
        if op.kind != "triton":
            continue
        passes = tuple(
            (line, ONLINE_PASSES, size) if first <= line <= last and count > ONLINE_PASSES else (line, count, size)
            for line, count, size in op.row_passes
        )
        if passes != op.row_passes:
            saved = sum((old[1] - new[1]) * old[2] for old, new in zip(op.row_passes, passes))
            out[i], changed = replace(op, bytes=op.bytes - saved, row_passes=passes), True
    if changed:
        return tuple(out)
    # The passes as separate kernels (a max kernel, an exp-sum kernel, a normalize kernel over the same
    # tensor, launched one after the other): the first computes both statistics online, the middle ones go.
    starts = [i for i, op in enumerate(ops) if op.kind == "triton" and first <= (op.site_line or op.line) <= last]
    if not starts or not ops[starts[0]].in_bytes:
        return None
    head = ops[starts[0]]
    tensor = head.inputs[head.in_bytes.index(max(head.in_bytes))]
    group = [
        j
        for j in range(starts[0], len(ops))
        if ops[j].kind == "triton" and ops[j].line == head.line and tensor in ops[j].inputs
    ]
    if len(group) <= ONLINE_PASSES:
        return None
    return _without(ops, set(group[1 : len(group) - ONLINE_PASSES + 1]))


def compile_once(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """The kernel defined at `first..last` inside the call moves to module
    level: the per-call kernel object, and its reload, go."""
    drop = {i for i, op in enumerate(ops) if op.kind == "jit" and first <= (op.site_line or op.line) <= last}
    return _without(ops, drop) if drop else None


def fuse_into_kernel(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """The torch ops that read a Triton kernel's output, done in the kernel
    before its store: an elementwise op costs no pass of its own; a
    normalization that keeps the size (group, batch, layer norm) needs its
    statistics before the store, so the kernel reads its input once more
    (a first pass for the statistics, recomputed in the second) instead of
    the norm's own read and write. A launch that reads what an earlier
    Triton launch wrote (a second elementwise kernel) is done by that one
    (`_merge_into_producer`)."""
    launches = _on_lines(ops, first, last, {"triton"})
    if not launches:
        # A torch.cat of Triton launches' outputs: each kernel stores into its slice of the result instead.
        joins = [i for i in _on_lines(ops, first, last, {"copy"}) if concatenated_launches(ops, i)]
        return _without(ops, set(joins)) if joins else None
    # A kernel that reads a convolution's output adds its bias too (the plan): PyTorch's bias pass goes.
    readers = set(launches) | {s for i in launches for s in ops[i].inputs if 0 <= s < i and ops[s].kind == "triton"}
    ops = tuple(
        replace(op, conv_bias=False) if op.conv_bias and any(j in ops[r].inputs for r in readers) else op
        for j, op in enumerate(ops)
    )
    # A torch reduction handed to the kernel beside the tensor it reduced: computed by the kernel from the
    # values it loads, its pass gone.
    # A torch elementwise op whose result only the kernel reads: applied to the values the kernel loads, the
    # kernel reads that op's inputs instead, and the op's pass goes.
    prologues = {i: prologue_of(ops, i) for i in launches}
    if any(prologues.values()):
        out = list(ops)
        for i, found in prologues.items():
            extra = sum(sum(ops[r].in_bytes) - ops[r].out_bytes for r in found)
            out[i] = replace(ops[i], bytes=max(0, ops[i].bytes + extra))
        dropped = {r for found in prologues.values() for r in found}
        ops = _without(tuple(out), dropped)
        launches = [i - sum(r < i for r in dropped) for i in launches]
    handed = {i: statistics_of(ops, i) for i in launches}
    computing = {i: {c for _, chain in handed[i] for c in chain} for i in launches}
    statistics = set().union(*computing.values())
    # A statistic over more elements than a program holds (a GroupNorm's 8 MB group): the kernel walks those
    # values twice, once for the statistic and once to apply it, so one read of each such tensor stays.
    rereads = {
        i: sum(
            {
                ops[r].inputs[0]: ops[r].in_bytes[0]
                for r, _ in handed[i]
                if ops[r].kind == "reduction" and ops[r].in_bytes[0] > ops[r].out_bytes * STATISTIC_EXTENT
            }.values()
        )
        for i in launches
    }
    if any(rereads.values()):
        ops = tuple(replace(op, bytes=op.bytes + rereads.get(j, 0)) for j, op in enumerate(ops))
    # A launch that now computes its own statistics stays a kernel of its own: the plan moves the reduction
    # into it, not it into the kernel that wrote its input.
    mergeable = [i - sum(r < i for r in statistics) for i in launches if not computing[i]]
    if statistics:
        ops = _without(ops, statistics)
        launches = [i - sum(r < i for r in statistics) for i in launches]
    chain: set[int] = set()
    extra = 0
    frontier = set(launches)
    for i, op in enumerate(ops):
        if not frontier & set(op.inputs):
            continue
        if op.kind == "elementwise":
            chain.add(i)
            frontier.add(i)
            extra += _epilogue_traffic(ops, launches, chain, i)
        elif op.kind == "reduction" and op.out_bytes and op.out_bytes == max(op.in_bytes, default=0):
            chain.add(i)
            frontier.add(i)
            extra += op.out_bytes  # one more read of a tensor the size of the kernel's output
        elif op.kind == "reduction" and not chain and op.inputs and op.inputs[0] in launches:
            # A sum or mean of the kernel's output (or a loss picking one entry per row of it, with its
            # targets, or a pool of its windows), done in the kernel (partials per program): the full-size
            # output is neither written nor read back, the reduced one is written; the loss's other tensors are
            # read by the kernel.
            chain.add(i)
            written = [ops[s].out_bytes for s in ops[op.inputs[0]].inputs if 0 <= s < i and ops[s].kind == "alloc"]
            extra -= max(written, default=op.in_bytes[0] if op.in_bytes else 0)
            extra += sum(size for s, size in zip(op.inputs[1:], op.in_bytes[1:]) if s not in launches)
            if written:  # the reduced tensor written instead of the full one (an in-place kernel keeps its write)
                extra += op.out_bytes
    merged = _merge_into_producer(ops, mergeable)
    if not chain:
        return merged if merged is not None or not (statistics or any(prologues.values())) else ops
    out = list(ops)
    out[launches[0]] = replace(ops[launches[0]], bytes=max(0, ops[launches[0]].bytes + extra))
    fused = _without(tuple(out), chain)
    return fused if merged is None else _merge_into_producer(fused, [i - sum(j < i for j in chain) for i in mergeable])


def _epilogue_traffic(ops: tuple[Op, ...], launches: list[int], chain: set[int], i: int) -> int:
    """What the fused kernel still moves for elementwise op `i` of its epilogue: the large tensors the op reads
    besides the kernel's results (read again, unless the kernel reads them too and holds what each of its
    outputs needs: at most STATISTIC_EXTENT elements per output), and the amount by which the op's result
    outgrows what the kernel wrote (a row's norm, then `x / norm`: the fused kernel writes the full tensor)."""
    op = ops[i]
    kernel_reads = {s for launch in launches for s in ops[launch].inputs}
    written = sum(
        ops[s].out_bytes
        for launch in launches
        for s in ops[launch].inputs
        if 0 <= s < launch and ops[s].kind == "alloc"
    )
    extra = 0
    for source, size in zip(op.inputs, op.in_bytes):
        if source in launches or source in chain or size * 2 <= op.out_bytes:
            continue  # the kernel's own results, and small operands (a bias, a per-row scale)
        if source in kernel_reads and written and size <= written * STATISTIC_EXTENT:
            continue  # each program holds the values it needs for its outputs
        extra += size
    if not {s for s in op.inputs if s in chain}:  # the first op after the kernel: its write replaces the kernel's
        extra += max(0, op.out_bytes - written) if written else 0
    return extra


def _merge_into_producer(ops: tuple[Op, ...], launches: list[int]) -> tuple[Op, ...] | None:
    """A launch that reads a full-size tensor only it reads, written by an
    earlier Triton launch, done by that launch before its store: one kernel
    that reads the first one's inputs and writes the second one's output,
    the tensor between them never written or read back."""
    best: tuple[int, int, int] | None = None  # (bytes saved, launch, its producer)
    for i in sorted(launches, reverse=True):
        op = ops[i]
        for source, size in zip(op.inputs, op.in_bytes):
            if not 0 <= source < i or ops[source].kind != "triton" or size < max(op.in_bytes):
                continue
            if ops[source].returned or any(source in other.inputs for j, other in enumerate(ops) if j != i):
                continue
            # Of several launches on the finding's lines (a helper's), the merge that saves the largest tensor.
            if best is None or size > best[0]:
                best = (size, i, source)
    if best is None:
        return None
    size, i, source = best
    producer, consumer = ops[source], ops[i]
    if reads_grid_statistic(ops, i, source):
        # The consumer needs the producer's grid-wide statistics: two kernels still, but the producer no
        # longer stores the tensor, and the consumer recomputes it from the producer's largest input.
        recomputed = max(
            (n for s, n in zip(producer.inputs, producer.in_bytes) if s < 0 or ops[s].kind != "alloc"), default=0
        )
        out = list(ops)
        out[source] = replace(producer, bytes=max(0, producer.bytes - size))
        out[i] = replace(consumer, bytes=max(0, consumer.bytes - size + recomputed))
        return tuple(out)
    # The merged kernel does both kernels' arithmetic: a product's (a convolution reading a zero-inserted copy
    # of its input) keeps its flops, path and grid.
    base = consumer if consumer.flops and not producer.flops else producer
    fused = replace(
        base, bytes=max(0, producer.bytes + consumer.bytes - 2 * size), flops=producer.flops + consumer.flops
    )
    return _replace_group(ops, {source, i}, fused)


def fuse_chain(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """A GEMM-free chain of elementwise/normalization/reduction ops as one
    kernel: each input from outside the chain read once, each result the
    chain hands on written once, one launch."""
    kinds = {"elementwise", "reduction"}
    seeds = set(_on_lines(ops, first, last, kinds))
    if not seeds:
        return None
    chain = seeds | _consumers(ops, seeds, kinds)
    if len(chain) < 2:
        return None
    readers = {j: {k for k, op in enumerate(ops) if j in op.inputs} for j in chain}
    # A reduction of the whole tensor to a few values that later ops of the
    # chain read (`x / x.norm()`) needs every program's part first: a
    # grid-wide dependency, so the fused form is two kernels, and the inputs
    # read on each side of it are read once per side.
    splits = [j for j in sorted(chain) if ops[j].kind == "reduction" and ops[j].out_bytes <= 8 and readers[j] & chain]
    phase = {i: sum(1 for j in splits if j < i) for i in chain}
    inputs: dict[tuple[int, int], int] = {}
    for i in sorted(chain):
        for source, size in zip(ops[i].inputs, ops[i].in_bytes):
            if source not in chain:
                inputs.setdefault((phase[i], source), size)
    outputs = [j for j in chain if not readers[j] or readers[j] - chain]
    head = ops[min(chain)]
    sources = tuple(dict.fromkeys(source for _, source in inputs))
    # The plan's one Triton kernel: a launch's host cost (its tensors and a size and a block as arguments),
    # and its output allocated with torch.empty.
    fused = Op(
        "triton",
        head.line,
        arguments=len(sources) + len(outputs) + 2,
        bytes=sum(inputs.values()) + sum(ops[j].out_bytes for j in outputs),
        repeat=head.repeat * (1 + len(splits)),  # one kernel per side of a grid-wide reduction
        loop_line=head.loop_line,
        inputs=sources,
        in_bytes=tuple(max(size for (_, s), size in inputs.items() if s == source) for source in sources),
        out_bytes=sum(ops[j].out_bytes for j in outputs),
        elem_bytes=head.elem_bytes,
        note="fused chain",
    )
    if splits:
        fused = replace(fused, bytes=fused.bytes // fused.repeat)  # repeat counts the launches, not the bytes twice
    return _replace_group(ops, chain, fused)


def _replace_group(ops: tuple[Op, ...], group: set[int], by: Op) -> tuple[Op, ...]:
    """`group`'s ops as the one op `by`, at the first one's place; readers of
    any of them read `by` (indices renumbered)."""
    return _replace_groups(ops, [(group, by)])


def persistent_rnn(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """cuDNN's recurrence as one persistent kernel per layer and direction
    (the time loop inside, W_hh resident), launched from Python beside the
    input-projection GEMM, which becomes a torch op of its own."""
    found = _on_lines(ops, first, last, {"rnn"})
    if not found:
        return None
    out = list(ops)
    for i in found:
        out[i] = replace(ops[i], note="persistent " + ops[i].note, library=False)
    for i, op in enumerate(ops):
        if op.kind == "gemm" and first <= op.line <= last and op.library:
            out[i] = replace(op, library=False)
    return tuple(out)


def structured_gemm(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """A GEMM with a diagonal operand as row/column scaling (the dense
    diagonal is never built), a GEMM whose result is masked to a
    triangle as a triangular GEMM (half the flops, the mask in its store),
    and a transposed convolution whose taps are masked by stride parity as
    one split by output phase (only the taps that land computed)."""
    out = list(ops)
    drop: set[int] = set()
    changed = False
    for u in _on_lines(ops, first, last, {"copy", "triton"}):
        if ops[u].note != IM2COL and not ops[u].expands:
            continue
        # A convolution lowered to im2col (F.unfold, or a Triton kernel expanding its input): the GEMM reads the
        # windows from the input (an implicit GEMM at the same tiles, or cuDNN's) and the column matrix is never
        # written nor read.
        read, written = ops[u].expands or (ops[u].in_bytes[0], ops[u].out_bytes)
        readers, copies = im2col_readers(ops, u)
        for j in readers:
            if ops[j].flops:
                reader = ops[j]
                out[j] = replace(reader, bytes=max(0, reader.bytes - written) + read)
                drop |= {u, *copies}
                changed = True
    for i, op in enumerate(ops):
        # A Triton GEMM that masks its result to a triangle (the finding in its kernel, or on its launch):
        # the tiles on the zero side skipped, as for a torch product masked by tril/triu.
        if op.triangle and (_at(op, first, last) or op.kernel_lines[0] <= first <= last <= op.kernel_lines[1]):
            out[i] = replace(
                op,
                flops=op.flops // 2,
                triangle=False,
                dot_gather_bytes=(op.dot_gather_bytes[0] // 2, op.dot_gather_bytes[1] // 2),
            )
            changed = True
        # A transposed convolution gathered over every tap with stride-parity masks: split by output phase,
        # each program loops over only the taps that land.
        if op.parity_waste > 1 and (_at(op, first, last) or op.kernel_lines[0] <= first <= last <= op.kernel_lines[1]):
            # Its tiles are loaded for the taps it computes: the gathered ones too.
            gathered = (op.dot_gather_bytes[0] // op.parity_waste, op.dot_gather_bytes[1] // op.parity_waste)
            out[i] = replace(op, flops=op.flops // op.parity_waste, parity_waste=1, dot_gather_bytes=gathered)
            changed = True
    gemms = _on_lines(ops, first, last, {"gemm"})
    if not gemms and not changed:
        return None
    for i in gemms:
        gemm = ops[i]
        diagonal = [j for j in gemm.inputs if j >= 0 and ops[j].note == "diag"]
        if diagonal:
            d = ops[diagonal[0]]
            other = sum(size for j, size in zip(gemm.inputs, gemm.in_bytes) if j != diagonal[0])
            vector = d.in_bytes[0] if d.in_bytes else 0
            out[i] = replace(
                gemm,
                kind="elementwise",
                flops=0,
                bytes=vector + other + gemm.out_bytes,
                inputs=(d.inputs[0], *(j for j in gemm.inputs if j != diagonal[0])),
                note="row scaling",
                broadcast=True,  # the vector against the other operand's rows or columns
            )
            # The diagonal's copy goes, and the matrix of zeros it was copied into.
            drop.add(diagonal[0])
            drop.update(j for j in d.inputs if j >= 0 and ops[j].note == "torch.diag zeros")
            changed = True
            continue
        masks = [j for j, op in enumerate(ops) if i in op.inputs and op.note in ("tril", "triu")]
        if masks:
            out[i] = replace(gemm, flops=gemm.flops // 2, note="triangular GEMM")
            drop.update(masks)
            changed = True
    if not changed:
        return None
    # The readers of a dropped mask read the GEMM itself (`_without`: a dropped op's readers read its input).
    return _without(tuple(out), drop)


def collapse_kernel_gemm(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """A Triton kernel that reduces its tl.dot product over N, written there (`first..last` in its body), as
    the plan writes it: the weight summed once (a torch reduction reading it), then a Triton GEMV that streams
    the input once; the launch's output stays."""
    found = [
        i
        for i, op in enumerate(ops)
        if op.kind == "triton" and op.reduced_product and op.kernel_lines[0] <= first <= op.kernel_lines[1]
    ]
    if not found:
        return None
    out = list(ops)
    for i in reversed(found):
        op = ops[i]
        m, n, k = op.reduced_product
        if op.reduced_window:
            out[i : i + 1] = _narrowed_kernel_gemm(op)
            continue
        w_bytes, vector = n * k * op.elem_bytes, k * op.elem_bytes
        summed = Op(
            "reduction",
            op.line,
            bytes=w_bytes + vector,
            in_bytes=(w_bytes,),
            out_bytes=vector,
            elem_bytes=op.elem_bytes,
            note="weight reduced",
        )
        gemv = replace(
            op,
            bytes=max(0, op.bytes - w_bytes) + vector,
            flops=2 * m * k,
            path="",
            programs=0,
            reduced_product=(),
            note=f"{op.note} as a GEMV",
        )
        out[i : i + 1] = [summed, gemv]
    return tuple(out)


def _narrowed_kernel_gemm(op: Op) -> list[Op]:
    """A tl.dot kernel that sums its tile in windows of `reduced_window` columns (an average pool of the
    output features), as the plan writes it: the weight's rows averaged in the windows once (a torch
    reduction reading the weight), then the same kernel over N / window columns of the narrowed weight."""
    m, n, k = op.reduced_product
    window = op.reduced_window
    w_bytes = n * k * op.elem_bytes
    narrowed = w_bytes // window
    averaged = Op(
        "reduction",
        op.line,
        bytes=w_bytes + narrowed,
        in_bytes=(w_bytes,),
        out_bytes=narrowed,
        elem_bytes=op.elem_bytes,
        note="weight averaged in windows",
    )
    gemm = replace(
        op,
        bytes=max(0, op.bytes - w_bytes) + narrowed,
        flops=op.flops // window,
        programs=max(1, op.programs // window) if op.programs else 0,
        reduced_product=(),
        reduced_window=0,
        dot_mn=(m, n // window) if op.dot_mn else (),
        note=f"{op.note} over N / {window} columns",
    )
    return [averaged, gemm]


def _as_gemm(op: Op) -> Op:
    """A Triton tl.dot launch whose tensors say which product it computes (`dot_mn`), as the GEMM it is: its
    A and B operands first (picked from its tensors by their sizes), its output the M x N product. Other ops
    unchanged."""
    if op.kind != "triton" or not op.dot_mn or not op.flops:
        return op
    m, n = op.dot_mn
    k = op.flops // (2 * m * n)
    sizes = list(op.in_bytes)
    picked = []
    for want in (m * k * op.elem_bytes, n * k * op.elem_bytes):
        if want not in sizes:
            return op
        j = next(j for j, size in enumerate(op.in_bytes) if size == want and j not in picked)
        picked.append(j)
    out_bytes = m * n * op.elem_bytes
    return Op(
        "gemm",
        op.line,
        bytes=op.in_bytes[picked[0]] + op.in_bytes[picked[1]] + out_bytes,
        flops=op.flops,
        path=op.path,
        repeat=op.repeat,
        inputs=tuple(op.inputs[j] for j in picked) if len(op.inputs) == len(op.in_bytes) else (),
        in_bytes=(op.in_bytes[picked[0]], op.in_bytes[picked[1]]),
        out_bytes=out_bytes,
        elem_bytes=op.elem_bytes,
        note=f"{op.note} as a GEMM",
    )


def collapse_gemm(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """A GEMM summed (or averaged over disjoint windows) through linear ops,
    as the plan writes it in forward: the weight reduced first (one read of
    it), then the input times that vector (a GEMV, or a GEMM narrowed by the
    window); the elementwise ops between the GEMM and its reduction run on
    the reduced result, and the reduction itself goes."""
    in_kernel = collapse_kernel_gemm(ops, first, last)
    if in_kernel is not None:
        return in_kernel
    summed_in_kernel = collapse_summed_in_kernel(ops, first, last)
    if summed_in_kernel is not None:
        return summed_in_kernel
    ops = tuple(_as_gemm(op) if _at(op, first, last) else op for op in ops)
    gemms = [i for i in _on_lines(ops, first, last, {"gemm"}) if len(ops[i].in_bytes) >= 2]
    plans: dict[int, tuple[int, list[int]]] = {}  # GEMM -> (its reduction, the ops between them)
    for i in gemms:
        chain = sorted(_consumers(ops, {i}, {"elementwise", "reduction"}))
        reduction = next((j for j in chain if ops[j].kind == "reduction"), None)
        if reduction is not None and ops[reduction].out_bytes:
            plans[i] = (reduction, [j for j in chain if j < reduction])
    if not plans:
        return None
    reductions = {r: i for i, (r, _) in plans.items()}
    scaled = {j: i for i, (_, between) in plans.items() for j in between}
    out: list[Op] = []
    moved: dict[int, int] = {}  # old index -> new index of the op that now holds its result

    def inputs(op: Op) -> tuple[int, ...]:
        return tuple(moved.get(j, j) if j >= 0 else j for j in op.inputs)

    for k, op in enumerate(ops):
        if k in plans and op.conv_window and ops[plans[k][0]].kernel.startswith("avg_pool"):
            # A convolution averaged over disjoint windows of its positions: one convolution with the wider
            # kernel and the window's stride, writing only the pooled positions.
            out.append(replace(_pool_folded(op, ops[plans[k][0]]), inputs=inputs(op)))
            moved[k] = len(out) - 1
        elif k in plans:
            summed = ops[plans[k][0]]
            factor = max(1, op.out_bytes // summed.out_bytes)  # N for a sum over the outputs, k for a window
            x_bytes, w_bytes = op.in_bytes[0], op.in_bytes[1]
            weight = op.inputs[1] if len(op.inputs) > 1 else -1
            out.append(
                replace(
                    op,
                    kind="reduction",
                    flops=0,
                    path="",
                    bytes=w_bytes + w_bytes // factor,
                    inputs=(weight,),
                    in_bytes=(w_bytes,),
                    out_bytes=w_bytes // factor,
                    note="weight reduced",
                    broadcast=False,
                )
            )
            out.append(
                replace(
                    op,
                    flops=op.flops // factor,
                    bytes=x_bytes + w_bytes // factor + summed.out_bytes,
                    inputs=(*inputs(op)[:1], len(out) - 1),
                    in_bytes=(x_bytes, w_bytes // factor),
                    out_bytes=summed.out_bytes,
                    note="collapsed GEMV",
                    kernel="",  # a GEMM now, not the pool's library kernel it replaces
                    rows=0,
                    reduction=0,
                )
            )
            moved[k] = len(out) - 1
        elif k in scaled:
            # On the reduced result: its bytes shrink by the GEMM's output over the reduction's.
            gemm, summed = ops[scaled[k]], ops[plans[scaled[k]][0]]
            shrink = summed.out_bytes / gemm.out_bytes
            out.append(
                replace(
                    op,
                    bytes=int(op.bytes * shrink),
                    in_bytes=tuple(int(b * shrink) for b in op.in_bytes),
                    out_bytes=int(op.out_bytes * shrink),
                    inputs=inputs(op),
                )
            )
            moved[k] = len(out) - 1
        elif k in reductions:
            # Gone: its readers read the last op on the reduced result (or the GEMV).
            moved[k] = moved[(plans[reductions[k]][1] or [reductions[k]])[-1]]
        else:
            out.append(replace(op, inputs=inputs(op)))
            moved[k] = len(out) - 1
    return tuple(out)


def collapse_summed_in_kernel(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """A convolution or a GEMM on `first..last` whose output a Triton kernel adds up before any other use
    (`Op.summed_input`), as the plan writes it: over a fixed window of a (not transposed) convolution's
    positions, one convolution with the window folded into its kernel; over windows of a GEMM's output
    features, the GEMM narrowed by the window; over more (a plane, a depth, a GEMM's row), the input read
    once and a GEMV with the reduced weight. The kernel then reads the reduced tensor."""
    products = [
        i
        for i in _on_lines(ops, first, last, {"gemm", "triton"})
        if ops[i].conv_window or (ops[i].kind == "gemm" and len(ops[i].in_bytes) >= 2) or ops[i].dot_mn
    ]
    readers = {i: j for j, op in enumerate(ops) for i in products if op.summed_input and op.summed_input[0] == i}
    if not readers:
        return None
    out = list(ops)
    reduced_weights: dict[int, Op] = {}  # index -> the pass that reduces its weight, run before it
    for i, j in readers.items():
        conv, reader = _as_gemm(ops[i]), ops[j]
        taps = reader.summed_input[1]
        if taps < 0 or len(conv.in_bytes) < 2:
            return None  # a window of taps the launch does not say: no estimate
        if not conv.conv_window:
            # A GEMM [M, K] x [K, N]: a window over its N output features narrows it; a sum over them leaves
            # one number per row (N from its operands' and output's sizes: N^2 = out * w / (x * elem)).
            x_bytes, w_bytes = conv.in_bytes[0], conv.in_bytes[1]
            n = round(math.sqrt(conv.out_bytes * w_bytes / max(1, x_bytes * conv.elem_bytes)))
            factor = taps if taps > 1 else n
            if factor < 2:
                return None
            out[i] = replace(
                conv,
                flops=conv.flops // factor,
                bytes=x_bytes + w_bytes // factor + conv.out_bytes // factor,
                in_bytes=(x_bytes, w_bytes // factor),
                out_bytes=conv.out_bytes // factor,
                note=f"{conv.note} narrowed" if taps > 1 else "collapsed GEMV",
            )
            # The weight reduced per call (as the torch GEMM's collapse charges it): one pass reading it.
            reduced_weights[i] = _weight_reduction(conv, w_bytes, factor)
            reduced_bytes = conv.out_bytes // factor
        elif taps > 1 and "Transpose" not in conv.note:
            reduced_bytes = conv.out_bytes // taps
            pool = Op("reduction", conv.line, reduction=taps, out_bytes=reduced_bytes, kernel="avg_pool")
            out[i] = _pool_folded(conv, pool)
        else:
            # What the kernel writes (the tensors allocated for it) against what it reads of the convolution.
            written = sum(
                size
                for origin, size in zip(reader.inputs, reader.in_bytes)
                if 0 <= origin < len(ops) and ops[origin].kind == "alloc"
            )
            factor = conv.out_bytes // written if written else 0
            if factor < 2:
                return None
            reduced_bytes = conv.out_bytes // factor
            x_bytes, w_bytes = conv.in_bytes[0], conv.in_bytes[1]
            # Still a convolution over the dimensions the sum keeps (a depth mean leaves a 2-D one over the
            # depth-summed input: measured on an H200 at the convolution rate of its depth, not a GEMV's),
            # a GEMV where it keeps none: priced at its depth's conv rate either way.
            out[i] = replace(
                conv,
                flops=conv.flops // factor,
                bytes=x_bytes + w_bytes // factor + reduced_bytes,
                in_bytes=(x_bytes, w_bytes // factor),
                out_bytes=reduced_bytes,
                note="collapsed GEMV",
            )
            reduced_weights[i] = _weight_reduction(conv, w_bytes, factor)
        shrink = conv.out_bytes - reduced_bytes
        out[j] = replace(
            reader,
            bytes=max(0, reader.bytes - shrink),
            in_bytes=tuple(
                size - shrink if origin == i else size for origin, size in zip(reader.inputs, reader.in_bytes)
            ),
            summed_input=(),
        )
    return _inserted_before(tuple(out), reduced_weights)


def _weight_reduction(product: Op, w_bytes: int, factor: int) -> Op:
    return Op(
        "reduction",
        product.line,
        bytes=w_bytes + w_bytes // factor,
        in_bytes=(w_bytes,),
        out_bytes=w_bytes // factor,
        elem_bytes=product.elem_bytes,
        note="weight reduced",
    )


def _inserted_before(ops: tuple[Op, ...], before: dict[int, Op]) -> tuple[Op, ...]:
    """`ops` with each op of `before` placed ahead of the op at its index; readers renumbered."""
    if not before:
        return ops
    renumber: dict[int, int] = {}
    out: list[Op] = []
    for i, op in enumerate(ops):
        if i in before:
            out.append(before[i])
        renumber[i] = len(out)
        out.append(op)
    return tuple(
        replace(
            op,
            inputs=tuple(renumber.get(j, j) if j >= 0 else j for j in op.inputs),
            summed_input=(renumber[op.summed_input[0]], *op.summed_input[1:]) if op.summed_input else (),
        )
        for op in out
    )


def _pool_folded(conv: Op, pool: Op) -> Op:
    """`conv` followed by an average pool over disjoint windows of `pool.reduction` positions (a cube, one
    side per spatial dimension), as one convolution: its kernel widened by the window (each side
    dilation * (k - 1) + 1 + stride * (window - 1), every tap of it a product), its stride times the window,
    its output the pool's. Its weight is the kernel convolved with the window's box, made once from the
    parameter."""
    dims = len(conv.conv_window) // 3
    kernel, stride, dilation = (conv.conv_window[i * dims : (i + 1) * dims] for i in range(3))
    side = round(pool.reduction ** (1 / dims))
    widened = [d * (k - 1) + 1 + s * (side - 1) for k, s, d in zip(kernel, stride, dilation)]
    taps, folded_taps = math.prod(kernel), math.prod(widened)
    x_bytes, w_bytes = conv.in_bytes[0], conv.in_bytes[1] * folded_taps // taps
    positions = max(1, conv.out_bytes // pool.out_bytes)
    return replace(
        conv,
        flops=conv.flops // positions * folded_taps // taps,
        bytes=x_bytes + w_bytes + pool.out_bytes,
        in_bytes=(x_bytes, w_bytes),
        out_bytes=pool.out_bytes,
        reduction=conv.reduction // taps * folded_taps,
        note=f"{conv.note} with the pool folded in",
        conv_window=(*widened, *(s * side for s in stride), *(1,) * dims),
    )


def remove_dead_work(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """Work the result does not need, gone: a constant's op (a softmax over a
    dimension of size 1), the ops that only fed it (the GEMM before it) and
    the constants computed from it; an unused op and what only fed it. A
    returned constant becomes one fill of the output (torch.full), the
    readers of a constant that stay read a number."""
    live = live_ops(ops)
    seeds = {i for i, op in enumerate(ops) if first <= op.line <= last and (op.value is not None or i not in live)}
    if not seeds:
        return None
    drop = dead_with(ops, seeds, live)
    kept = [i for i in range(len(ops)) if i not in drop or ops[i].returned]
    renumber = {old: new for new, old in enumerate(kept)}
    out = []
    for i in kept:
        op = ops[i]
        if i in drop:
            # The returned constant: one kernel that writes it.
            op = Op(
                "alloc",
                op.line,
                bytes=op.out_bytes,
                repeat=op.repeat,
                loop_line=op.loop_line,
                out_bytes=op.out_bytes,
                elem_bytes=op.elem_bytes,
                note="fill",
                value=op.value,
                returned=True,
            )
        out.append(replace(op, inputs=tuple(renumber.get(j, -1) if j >= 0 else j for j in op.inputs)))
    return tuple(out)


def capture_graph(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """The whole forward replayed as one CUDA graph (captured on the first
    call): per call, the inputs copied into the graph's static buffers, one
    replay whose kernels the host no longer issues one by one, and the
    output cloned out of its static buffer. The GPU work is unchanged. A
    forward that syncs or compiles on every call cannot be captured. Inside
    a capture of its own (graph mode) the fixed forward runs op by op: the
    replay costs the host and the GPU nothing there."""
    if not ops or any(op.kind in ("sync", "jit") for op in ops):
        return None
    inputs: dict[int, int] = {}
    for op in ops:
        for source, size in zip(op.inputs, op.in_bytes):
            if source <= -2:
                inputs.setdefault(source, size)
    returned = sum(op.out_bytes for op in ops if op.returned)
    line = ops[0].line
    copy_in = Op("copy", line, bytes=2 * sum(inputs.values()), out_bytes=sum(inputs.values()), note="graph inputs in")
    replay = Op("graph", line, launches=False, note="CUDA graph replay")
    copy_out = Op("copy", line, bytes=2 * returned, out_bytes=returned, note="graph output out")
    return (copy_in, replay, *(replace(op, library=True) for op in ops), copy_out)


# Library kernels KL029 knows a Triton replacement for.
LIBRARY_KERNELS = frozenset(
    {"max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d", "batch_norm",
     "group_norm", "instance_norm", "layer_norm", "softmax", "log_softmax", "scan", "depthwise_conv1d",
     "depthwise_conv2d", "depthwise_conv3d"}
)  # fmt: skip
# Elements per program of a replacement kernel's grid (it fills the GPU).
REPLACEMENT_BLOCK = 1024


def library_replacement(op: Op) -> tuple[Op, ...]:
    """The Triton kernels that replace library kernel `op` (KL029's fix):
    an index-free pool; a depthwise convolution as a window sum; a norm or
    softmax that keeps a row on chip; a longer row read twice (statistics,
    then normalizing), a LayerNorm's split across programs (a statistics
    kernel, then the normalizing one); a train-mode BatchNorm as a
    statistics kernel and a normalizing one; a row scan. The first op takes
    `op`'s place."""
    read = op.in_bytes[0] if op.in_bytes else op.bytes // 2
    rows = max(1, op.rows)
    # Only a norm or softmax reads a row again; a pool, a scan and BatchNorm's passes (already counted) do not.
    row_kernel = op.kernel in ("group_norm", "instance_norm", "layer_norm", "softmax", "log_softmax")
    twice = row_kernel and (op.kernel in ("group_norm", "instance_norm") or read // rows > ONCHIP_ROW_BYTES)
    split = op.kernel == "layer_norm" and twice
    nbytes = op.bytes + read if twice else op.bytes
    main = replace(
        op,
        kind="triton",
        kernel="",
        rows=0,
        bytes=nbytes,
        programs=max(1, op.out_bytes // op.elem_bytes // REPLACEMENT_BLOCK),
        reduction=op.reduction if "pool" in op.kernel or "depthwise" in op.kernel else 0,
        flops=0,
        path="",
        conv_bias=False,  # added in the kernel, before its store
        note=f"Triton {op.kernel}",
    )
    if op.kernel == "batch_norm" or split:
        return main, replace(main, bytes=0, reduction=0, note=f"Triton {op.kernel} statistics")
    return (main,)


def replace_library_kernel(ops: tuple[Op, ...], first: int, last: int) -> tuple[Op, ...] | None:
    """The library kernels at `first..last` replaced by their Triton kernels
    (`library_replacement`); a second kernel of a replacement is appended,
    so no op's inputs move."""
    found = [i for i, op in enumerate(ops) if op.kernel in LIBRARY_KERNELS and _at(op, first, last)]
    if not found:
        return None
    out, extra, drop = list(ops), [], set()
    for i in found:
        main, *rest = library_replacement(ops[i])
        pre = library_prologue(ops, i)
        if pre is not None:
            # The elementwise pass that wrote the library kernel's input is applied as the Triton kernel
            # loads: it reads that pass's inputs instead of its output, which is never written.
            produced = ops[i].in_bytes[0] if ops[i].in_bytes else ops[pre].out_bytes
            main = replace(main, bytes=main.bytes - produced + max(0, ops[pre].bytes - produced))
            drop.add(pre)
        out[i] = main
        extra.extend(rest)
    return _without(tuple(out + extra), drop) if drop else tuple(out + extra)


EFFECTS: dict[str, Effect] = {
    "replace_library_kernel": replace_library_kernel,
    "capture_graph": capture_graph,
    "tensor_cores": tensor_cores,
    "fill_the_gpu": fill_the_gpu,
    "autotune": autotune,
    "fuse_into_kernel": fuse_into_kernel,
    "remove_copy": remove_copy,
    "remove_alloc": remove_alloc,
    "remove_sync": remove_sync,
    "batch_loop": batch_loop,
    "fuse_epilogue": fuse_epilogue,
    "flash_attention": flash_attention,
    "narrow_fused_gemm": narrow_fused_gemm,
    "fuse_chain": fuse_chain,
    "persistent_rnn": persistent_rnn,
    "structured_gemm": structured_gemm,
    "collapse_gemm": collapse_gemm,
    "remove_dead_work": remove_dead_work,
    "block_programs": block_programs,
    "compile_once": compile_once,
    "online_passes": online_passes,
    "coalesce": coalesce,
    "kmajor_operands": kmajor_operands,
    "tf32_gemm": tf32_gemm,
}
# Effects that choose among ways to fix by their time, given the estimate's calibration constants.
CALIBRATED_EFFECTS = {"kmajor_operands": kmajor_operands}


def _at_most(entry: EntryPoint, spans: list[tuple[int, int]], c: dict[str, float]) -> dict:
    """For a fix the model cannot price, at a file it sizes: what deleting the ops the findings name (on
    their lines in forward, or the launches of the kernel they sit in) would gain, per mode, an upper bound on
    any fix of them (Amdahl); {} where the findings name no op."""
    named = {i for i, op in enumerate(entry.ops) if any(_names(op, first, last) for first, last in spans)}
    if not named:
        return {}
    before, after = entry_time(entry.ops, c), entry_time(_without(entry.ops, named), c)
    bound = {}
    for mode in MODES:
        b, a = getattr(before, mode), getattr(after, mode)
        bound[mode] = round(b / a, 2) if b is not None and a else None
    return {"at_most": bound}


def estimate(
    effect: str, entry: EntryPoint | None, spans: list[tuple[int, int]], target_gpu: str | None = None
) -> dict:
    """The speedup of the whole entry point from the rule's fix at every one
    of its findings (`spans`: their first and last lines), per mode, or why
    there is none. A rule's plan fixes all its findings in the file, so they
    share one estimate."""
    if entry is None:
        return {"status": "unknown", "reason": "not a KernelBench-style file (no get_inputs and model class)"}
    if entry.unknown:
        return {"status": "unknown", "reason": "shapes not static: " + "; ".join(entry.unknown[:2])}
    cal = calibration(target_gpu)
    if cal is None:
        return {"status": "unknown", "reason": "no calibration record for this GPU"}
    fixed: tuple[Op, ...] | None = entry.ops
    applied = 0
    for first, last in sorted(spans, reverse=True):
        if fixed is None:
            changed = None
        elif effect in CALIBRATED_EFFECTS:
            changed = CALIBRATED_EFFECTS[effect](fixed, first, last, cal.constants)
        else:
            changed = EFFECTS[effect](fixed, first, last)
        if changed is not None:
            fixed, applied = changed, applied + 1
    unreached = (
        (fixed is None or not applied) and entry.ran and not any(entry.runs(first, last) for first, last in spans)
    )
    # A copy the call runs through, of a tensor that is contiguous at the file's shapes (`x.contiguous()` after
    # a transpose in a branch those shapes do not take), or one in a branch the call never takes: the shape
    # table records no copy, so there is none to remove.
    no_copy = effect == "remove_copy" and (fixed is None or not applied) and entry.ran
    if unreached or no_copy:
        # The findings sit in code the timed call never runs (the reference Model's helpers beside ModelNew):
        # fixing them changes nothing the entry point does.
        fixed = entry.ops
    elif fixed is None or not applied:
        if effect == "batch_loop" and any(
            op.recurrent and any(f <= op.loop_line <= end for f, end in spans) for op in entry.ops
        ):
            return {
                "status": "unknown",
                "reason": f"{NO_FIX_MODEL} for a recurrence: each step's matrix product needs the step before's "
                "result, so no batched launch does the loop (a persistent kernel would)",
            }
        return {
            "status": "unknown",
            "reason": f"{NO_FIX_MODEL} for this code: its ops ({effect}) were not found in {entry.model_class}.forward",
            **_at_most(entry, spans, cal.constants),
        }
    c = cal.constants
    if "bw_scalar_loop" not in c and any(op.scalar_loop and op not in fixed for op in entry.ops):
        return {
            "status": "unknown",
            "reason": f"{NO_FIX_MODEL} here: the calibration record ({cal.path}) has no rate for programs that "
            "loop over scalar loads",
        }
    before, after = entry_time(entry.ops, c), entry_time(fixed, c)
    speedup: dict[str, float | None] = {}
    for mode in MODES:
        b, a = getattr(before, mode), getattr(after, mode)
        speedup[mode] = round(b / a, 2) if b is not None and a else None
    fixed_count: dict[str, object] = (
        {"reason": f"{entry.model_class}.forward does not run this code: its fix changes nothing the call does"}
        if unreached
        else {
            "reason": "at the file's shapes the call copies nothing there (the tensor is already contiguous, or "
            "the branch is not taken): its fix changes nothing the call does"
        }
        if no_copy
        else {"findings_fixed": applied}
    )
    return {
        "status": "estimated",
        **speedup,
        "before_us": before.as_dict(),
        "after_us": after.as_dict(),
        **fixed_count,
        "entry_point": f"{entry.model_class}.forward",
        "inputs": [f"{name}: {desc}" for name, desc in entry.inputs],
        "shapes_from": list(entry.sources),
        "largest_terms": largest_terms(entry.ops, c),
        **({"unprobed": caveats} if (caveats := unprobed(entry.ops, c)) else {}),
        "calibration": cal.path,
        "gpu": cal.gpu,
    }
