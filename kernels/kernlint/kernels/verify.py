"""`kernlint verify`: check and time kernlint's reference-fix kernel library.

For each pair (`kernlint.kernels.<pair_id>`: a PyTorch reference, a `before`
kernel with one rule's anti-pattern, an `after` kernel with the fix) and each
problem shape it

  * checks `before`, `after` and the reference against a float64 evaluation
    of the same formula, on fresh random inputs and weights every trial, with
    every floating-point `torch.empty` poisoned with NaN so that an output
    element the kernel never writes fails the check;
  * on a GPU, times all three with `triton.testing.do_bench` (median, eager:
    includes Python launch overhead) and `triton.testing.do_bench_cudagraph`
    (median over CUDA-graph replays: GPU time alone), rotating through several
    copies of weights and inputs so that small shapes are not timed out of L2;
  * records the DRAM floor of each shape and, where `torch._int_mm` accepts
    the shape, the time of cuBLAS int8 GEMM + the same epilogue in torch;
  * with `--record FILE`, writes everything as a JSON record that validates
    against `record.schema.json`; rule claims (`kernlint.claims`) are read
    from such records.

It only runs kernlint's own bundled library.  torch and triton are imported
inside functions, never at module level: the lint CLI imports this module to
register the command.
"""

from __future__ import annotations

import datetime as _dt
import importlib
import importlib.util
import json
import math
import os
import platform
import shlex
import sys
import time
from pathlib import Path

import click
from kernlint.kernels import PAIRS, pair_meta, timing
from kernlint.provenance import pair_bytes_digest, pair_digest

STATED_DRAM_TB_S = 3.0  # H100 SXM HBM3 copy rate used for the DRAM floor
ROTATE_BYTES = 200e6  # rotate input sets until this many bytes (> 4x the H100's 50 MB L2)
MAX_ROTATE = 16
SCHEMA_FILE = "record.schema.json"
SCHEMA_VERSION = 1
INTERPRET_NOTE = "correctness only: no timing was taken under --interpret"


class VerifyError(Exception):
    """A problem the user can fix; reported as one line, exit code 2."""


# --------------------------------------------------------------------------
# helpers


def _dims_str(d):
    return f"{d['M']}x{d['K']}x{d['N']}"


def _problem_dims(ref, d):
    """'MxKxN' for the int8 problem; a pair on another problem names its own
    dims with `dims_str(d)` in its reference module."""
    return ref.dims_str(d) if hasattr(ref, "dims_str") else _dims_str(d)


def _dram_bytes(d, ref=None):
    if ref is not None and hasattr(ref, "dram_bytes"):
        return ref.dram_bytes(d)  # a pair whose problem is not the seed's int8 GEMM
    M, K, N = d["M"], d["K"], d["N"]
    # x int8, W int8, scale_x fp32, scale_w fp32, bias fp16, out fp16: each once.
    return M * K + N * K + 4 * M + 4 * N + 2 * N + 2 * M * N


def _log(quiet, msg):
    if not quiet:
        click.echo(msg, err=True)


def _finite(v):
    return v is not None and isinstance(v, (int, float)) and math.isfinite(v)


def _round(v, nd=4):
    return None if v is None else float(f"{v:.{nd}g}")


class _PoisonEmpty:
    """Context manager: floating-point torch.empty/empty_like return NaN-filled tensors."""

    def __init__(self, torch):
        self.torch = torch

    def __enter__(self):
        torch = self.torch
        self.saved = (torch.empty, torch.empty_like)
        orig_empty, orig_empty_like = self.saved

        def poison(t):
            if t.is_floating_point():
                t.fill_(float("nan"))
            return t

        torch.empty = lambda *a, **k: poison(orig_empty(*a, **k))
        torch.empty_like = lambda *a, **k: poison(orig_empty_like(*a, **k))
        return self

    def __exit__(self, *exc):
        self.torch.empty, self.torch.empty_like = self.saved
        return False


_LOADED_MODE: dict[str, bool] = {}


def _load(name, interpret):
    """Import a kernel module, re-importing it if it was first imported in the other mode.

    triton.jit decides at decoration time whether a kernel runs compiled or in
    the interpreter, so a module imported before TRITON_INTERPRET changed must
    be imported again.
    """
    full = f"kernlint.kernels.{name}"
    if full in sys.modules and _LOADED_MODE.get(full) != interpret:
        module = importlib.reload(sys.modules[full])
    else:
        module = importlib.import_module(full)
    _LOADED_MODE[full] = interpret
    return module


def _autotuned_configs(module, M, N, K):
    """'BMxBNxBK split_k=S wW sS' of the config each autotuned kernel picked for (M, N, K)."""
    from triton.runtime.autotuner import Autotuner

    found = []
    for value in vars(module).values():
        # A kernel launched through `_launch.AutotunedLauncher` (directly or
        # as the `launcher` of a wrapper): the configs it resolved.
        launcher = getattr(value, "launcher", value)
        if callable(getattr(launcher, "configs", None)) and hasattr(launcher, "resolved"):
            found += launcher.configs(M=M, N=N, K=K)
        elif isinstance(value, Autotuner):
            for key, cfg in getattr(value, "cache", {}).items():
                if tuple(key[:3]) == (M, N, K):
                    kw = cfg.kwargs
                    found.append(
                        f"{kw.get('BLOCK_M')}x{kw.get('BLOCK_N')}x{kw.get('BLOCK_K')}"
                        f" split_k={kw.get('SPLIT_K', 1)} w{cfg.num_warps} s{cfg.num_stages}"
                        + (" K-masked" if kw.get("UNMASKED_K") is False else "")
                    )
    # A launcher's kernel is also an Autotuner in the module: each config once.
    return ", ".join(dict.fromkeys(found)) if found else None


def _environment(torch, triton, interpret):
    env = {
        "gpu": None,
        "driver": None,
        "sm_count": None,
        "cuda": torch.version.cuda,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "interpret": interpret,
    }
    if not interpret:
        props = torch.cuda.get_device_properties(0)
        env["gpu"] = props.name
        env["sm_count"] = props.multi_processor_count
        env["driver"] = _driver_version()
    else:
        env["gpu"] = "cpu (Triton interpreter)"
    return env


def _driver_version():
    try:
        import pynvml

        pynvml.nvmlInit()
        v = pynvml.nvmlSystemGetDriverVersion()
        return v.decode() if isinstance(v, bytes) else str(v)
    except Exception:
        pass
    try:
        import subprocess

        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=20,
        )
        return out.stdout.strip().splitlines()[0] or "unknown"
    except Exception:
        return "unknown"


# --------------------------------------------------------------------------
# measurement


def _truth_of(torch, ref, model, inputs):
    """The pair's own float64 formula (`reference.truth`) where it computes
    something other than the seed's int8 GEMM, else the seed's."""
    if hasattr(ref, "truth"):
        return ref.truth(model, *inputs)
    return _truth(torch, model, *inputs)


def _truth(torch, model, x, scale_x):
    """The reference formula evaluated in float64 (exact products, one rounding)."""
    acc = x.double() @ model.weight_int8.double().t()
    out = model.scale_w.double()[None, :] * (scale_x.double()[:, None] * (acc / (127.0 * 127.0)))
    return out + model.bias.double()[None, :]


def _rel_err(torch, out, truth):
    if out.shape != truth.shape:
        return float("inf")
    o = out.double()
    if not bool(torch.isfinite(o).all()):
        return float("inf")
    return float((o - truth).norm() / truth.norm())


def _make_models(torch, ref, before, after, dims, device, seed):
    torch.manual_seed(seed)
    init = ref.get_init_inputs(dims)
    model_ref = ref.Model(*init)
    state = model_ref.state_dict()
    models = {"reference": model_ref}
    for name, mod in (("before", before), ("after", after)):
        m = mod.ModelNew(*init)
        m.load_state_dict(state)
        models[name] = m
    return {k: m.to(device).eval() for k, m in models.items()}


def _check(torch, ref, before, after, dims, device, trials, tol, seed0):
    """Worst rel. error of before/after/reference over `trials` fresh draws."""
    errs = {"before": 0.0, "after": 0.0, "reference": 0.0}
    notes = []
    for t in range(trials):
        seed = seed0 + 7919 * t
        models = _make_models(torch, ref, before, after, dims, device, seed)
        gen = torch.Generator().manual_seed(seed + 1)
        inputs = ref.get_inputs(dims, device=device, generator=gen)
        with torch.no_grad():
            truth = _truth_of(torch, ref, models["reference"], inputs)
        for name, m in models.items():
            with torch.no_grad(), _PoisonEmpty(torch):
                out = m(*inputs)
            # The library's pairs are fp16; a pair whose problem is fp32 says so in its reference.
            expected = getattr(ref, "OUTPUT_DTYPE", torch.float16)
            if out.dtype != expected:
                notes.append(f"{name}: output dtype {out.dtype}, expected {expected}")
                errs[name] = float("inf")
                continue
            errs[name] = max(errs[name], _rel_err(torch, out, truth))
    ok = {k: bool(_finite(v) and v <= tol) for k, v in errs.items()}
    return errs, ok, notes


def _rotating(fns):
    state = {"i": 0}

    def call():
        i = state["i"]
        state["i"] = (i + 1) % len(fns)
        return fns[i]()

    return call


EAGER_BATCH = timing.EAGER_BATCH


def _bench(torch, triton_testing, fn):
    """(eager_us, graph_us) medians per call.

    Eager: do_bench times a batch of EAGER_BATCH back-to-back calls and the
    median is divided by the batch.  A single call per rep would hide the
    launch overhead behind do_bench's L2-flush memset (~85 us of GPU time for
    256 MB that the CPU enqueues the call during), so eager times would swing
    with CPU jitter between "GPU time" and "launch time"; a batch measures
    steady-state eager calls, Python launch overhead included.
    Graph: do_bench_cudagraph replays the calls captured in a CUDA graph, so
    it measures GPU time without launch overhead.
    """

    fn()
    torch.cuda.synchronize()
    return timing.eager(fn, repeats=1).median_us, timing.graph(fn, repeats=1).median_us


def _time_pair(torch, triton_testing, ref, before, after, dims, device, seed0):
    """Every timing mode of before, after and the reference (and, where the after
    launches through `_launch`, of the same after calls launched the plain way).

    The variants are timed interleaved, not one after another: each repeat
    times every mode of every variant, one mode at a time, in alternating
    order (before, after, ...; then ..., after, before), so that a drift of
    the GPU's clocks (a compute-bound shape heats the GPU for seconds) or a
    burst of host noise during the run lands on all variants alike instead of
    on whichever was timed last.
    """
    set_bytes = _dram_bytes(dims, ref)
    n_sets = int(min(MAX_ROTATE, max(2, math.ceil(ROTATE_BYTES / set_bytes))))
    sets = []
    for s in range(n_sets):
        models = _make_models(torch, ref, before, after, dims, device, seed0 + 104729 * (s + 1))
        gen = torch.Generator().manual_seed(seed0 + 13 * s + 5)
        sets.append((models, ref.get_inputs(dims, device=device, generator=gen)))
    notes: list[str] = []
    from kernlint.kernels._launch import PLAIN, launch_mode, launches_through

    variants = {}  # name -> (rotating call over the input sets, first set's call, launch mode or None)
    with torch.no_grad():
        for name in ("before", "after", "reference"):
            fns = [(lambda m=models[name], i=inputs: m(*i)) for models, inputs in sets]
            for fn in fns:  # every set once: no first call inside a timed or captured region
                fn()
            torch.cuda.synchronize()
            variants[name] = (_rotating(fns), fns[0], None)
        # An after launched through the library's launcher (kernlint.kernels._launch)
        # is also timed with the config it resolved launched the plain way
        # (`jit_fn[grid](..., BLOCK_M=.., num_warps=..)`): the host-cost baseline.
        after_launch = _launch_kind(variants["after"][1], launches_through)
        if after_launch == "launcher":
            variants["after_plain"] = (variants["after"][0], variants["after"][1], PLAIN)
        runs = {name: {} for name in variants}  # name -> mode -> one ModeTime per repeat
        no_graph = set()

        def timed(name, mode):
            rotating, first, launch = variants[name]
            if mode == "graph":
                return timing.graph(rotating, repeats=1)
            if mode == "eager":
                return timing.eager(rotating, repeats=1)
            # KernelBench times one input set and relies on its L2 flush, not on rotation.
            return timing.cuda_events(torch, first, flush=mode == "kernelbench", repeats=1)

        names = list(variants)
        for repeat in range(timing.REPEATS):
            for mode in timing.MODES:
                for name in names if repeat % 2 == 0 else names[::-1]:
                    if (mode == "graph" and name in no_graph) or (
                        name == "after_plain" and mode not in ("graph", "eager")
                    ):
                        continue
                    launch = variants[name][2]
                    try:
                        if launch:
                            with launch_mode(launch):
                                result = timed(name, mode)
                        else:
                            result = timed(name, mode)
                    except RuntimeError as error:
                        if mode != "graph":
                            raise
                        # A variant that copies from host memory on every call cannot
                        # be captured in a CUDA graph: it is timed in the other modes.
                        torch.cuda.synchronize()
                        no_graph.add(name)
                        notes.append(f"{name}: not capturable in a CUDA graph ({str(error).splitlines()[0][:120]})")
                        continue
                    runs[name].setdefault(mode, []).append(result)
    times = {name: {mode: timing.merge(parts) for mode, parts in modes.items()} for name, modes in runs.items()}
    del sets
    torch.cuda.empty_cache()
    return times, n_sets, notes, after_launch


def _launch_kind(call, launches_through):
    """How `call()` launches its kernels (it is called once or twice):
    "launcher" (through kernlint.kernels._launch), "autotuner" (through
    `@triton.autotune` on this call) or "plain" (`jit_fn[grid](...)`)."""
    if launches_through(call):
        return "launcher"
    from triton.runtime.autotuner import Autotuner

    original, calls = Autotuner.run, [0]

    def counting(self, *args, **kwargs):
        calls[0] += 1
        return original(self, *args, **kwargs)

    Autotuner.run = counting
    try:
        call()
    finally:
        Autotuner.run = original
    return "autotuner" if calls[0] else "plain"


def _int_mm_epilogue(torch, dims, device, seed0):
    """cuBLAS int8 GEMM (torch._int_mm) + the reference epilogue in torch, where allowed."""
    M, K, N = dims["M"], dims["K"], dims["N"]
    if not (M > 16 and K % 8 == 0 and N % 8 == 0):
        return None, f"torch._int_mm needs M > 16 and K, N multiples of 8; {_dims_str(dims)} is not allowed"
    from kernlint.kernels.seed_all_fixes import reference as ref

    set_bytes = _dram_bytes(dims)
    n_sets = int(min(MAX_ROTATE, max(2, math.ceil(ROTATE_BYTES / set_bytes))))
    sets = []
    for s in range(n_sets):
        torch.manual_seed(seed0 + 31 * s)
        model = ref.Model(*ref.get_init_inputs(dims)).to(device)
        gen = torch.Generator().manual_seed(seed0 + 37 * s)
        sets.append((model, ref.get_inputs(dims, device=device, generator=gen)))

    def run(model, x, scale_x):
        acc = torch._int_mm(x, model.weight_int8.t())
        out = model.scale_w[None, :] * (scale_x[:, None] * (acc.float() * (1.0 / (127.0 * 127.0))))
        return (out + model.bias[None, :]).to(torch.float16)

    def alone(model, x, scale_x):
        return torch._int_mm(x, model.weight_int8.t())

    model, (x, scale_x) = sets[0]
    err = _rel_err(torch, run(model, x, scale_x), _truth(torch, model, x, scale_x))
    import triton.testing as tt

    with torch.no_grad():
        eager, graph = _bench(torch, tt, _rotating([(lambda m=m, i=i: run(m, *i)) for m, i in sets]))
        _, alone_graph = _bench(torch, tt, _rotating([(lambda m=m, i=i: alone(m, *i)) for m, i in sets]))
    del sets
    torch.cuda.empty_cache()
    return {
        "eager_us": _round(eager),
        "graph_us": _round(graph),
        "alone_graph_us": _round(alone_graph),
        "rel_err": _round(err, 3),
        "ok": bool(_finite(err) and err <= 2e-3),
    }, None


def _copy_same_bytes(torch, triton_testing, nbytes):
    """CUDA-graph time of a device copy that moves `nbytes` (half read, half written).

    The practical floor of a kernel that moves that many bytes in this harness
    (launch gaps and DRAM latency included), next to the bandwidth-only floor.
    """
    half = max(1, nbytes // 2)
    n_sets = int(min(MAX_ROTATE, max(2, math.ceil(ROTATE_BYTES / nbytes))))
    pairs = [
        (
            torch.empty(half, device="cuda", dtype=torch.uint8).random_(0, 255),
            torch.empty(half, device="cuda", dtype=torch.uint8),
        )
        for _ in range(n_sets)
    ]
    _, graph = _bench(torch, triton_testing, _rotating([(lambda s=s, d=d: d.copy_(s)) for s, d in pairs]))
    del pairs
    torch.cuda.empty_cache()
    return graph


def _copy_bandwidth(torch, triton_testing):
    """Device-to-device copy rate in TB/s (bytes read + bytes written)."""
    n = 1 << 28  # 1 GiB of fp32
    src = torch.empty(n, device="cuda", dtype=torch.float32).uniform_()
    dst = torch.empty_like(src)
    ms = triton_testing.do_bench(lambda: dst.copy_(src), warmup=25, rep=200, return_mode="median")
    src = dst = None  # free the 2 GiB before the pairs run
    torch.cuda.empty_cache()
    return 2 * 4 * n / (ms * 1e-3) / 1e12


# --------------------------------------------------------------------------
# the command


def _select(rules, pair_ids):
    selected = list(PAIRS)
    if pair_ids:
        unknown = [p for p in pair_ids if p not in PAIRS]
        if unknown:
            raise VerifyError(f"unknown pair {unknown[0]!r}; known pairs: {', '.join(PAIRS)}")
        selected = [p for p in selected if p in pair_ids]
    if rules:
        codes = {r.upper() for r in rules}
        selected = [p for p in selected if codes & set(pair_meta(p).RULES)]
        if not selected:
            raise VerifyError(f"no pair measures {', '.join(sorted(codes))}")
    return selected


def _command_line(params):
    parts = ["kernlint", "verify"]
    for code in params["rules"]:
        parts += ["--rule", code]
    for p in params["pair_ids"]:
        parts += ["--pair", p]
    for s in params["shapes"]:
        parts += ["--shape", s]
    if params["interpret"]:
        parts.append("--interpret")
    if params["record"]:
        parts += ["--record", params["record"]]
    parts += ["--trials", str(params["trials"])]
    if params["quiet"]:
        parts.append("--quiet")
    return shlex.join(parts)


def load_schema() -> dict:
    from importlib import resources

    return json.loads(resources.files("kernlint.kernels").joinpath(SCHEMA_FILE).read_text())


def validate_record(record: dict) -> None:
    """Raise jsonschema.ValidationError if `record` does not match the schema."""
    import jsonschema

    jsonschema.validate(record, load_schema())


def run_verify(*, rules=(), pair_ids=(), shapes=(), interpret=False, record=None, trials=3, quiet=False):
    """Run the verification; returns (exit_code, record_dict)."""
    params = dict(
        rules=rules, pair_ids=pair_ids, shapes=shapes, interpret=interpret, record=record, trials=trials, quiet=quiet
    )
    selected = _select(rules, pair_ids)
    missing = [m for m in ("torch", "triton") if importlib.util.find_spec(m) is None]
    if missing:
        raise VerifyError(f"{' and '.join(missing)} not installed: pip install 'kernlint[kernels]'")
    os.environ["TRITON_INTERPRET"] = "1" if interpret else "0"
    import torch
    import triton

    if not interpret and not torch.cuda.is_available():
        raise VerifyError(
            "no CUDA GPU found: pass --interpret to check correctness on the CPU "
            "with the Triton interpreter (no timing)"
        )
    device = "cpu" if interpret else "cuda"
    if not interpret:
        # Idle OpenMP workers left spinning by CPU-side weight init steal time
        # from the launching thread and make eager times jitter.
        torch.set_num_threads(1)
    triton_testing = None
    if not interpret:
        import triton.testing as triton_testing

    refs = {p: _load(f"{p}.reference", interpret) for p in selected}
    table_of = (lambda r: r.INTERPRET_SHAPES) if interpret else (lambda r: r.SHAPES)
    # Each pair runs on its own shape table unless --shape names shapes.
    names_of = {p: list(shapes) if shapes else list(table_of(refs[p])) for p in selected}
    shape_names = list(dict.fromkeys(n for p in selected for n in names_of[p]))
    for p in selected:
        for name in names_of[p]:
            if name not in table_of(refs[p]):
                kind = "interpret shapes" if interpret else "shapes"
                raise VerifyError(f"unknown shape {name!r} for {p}; {kind}: {', '.join(table_of(refs[p]))}")

    for shared in ("_configs", "_epilogue", "_launch", "_int8_linear", "_int8_gemm"):
        _load(shared, interpret)
    env = _environment(torch, triton, interpret)
    started = time.time()
    _log(
        quiet,
        f"kernlint verify: {len(selected)} pair(s) x {len(shape_names)} shape(s) on {env['gpu']}"
        + (f" -- {INTERPRET_NOTE}" if interpret else ""),
    )

    copy_tb_s = None
    if not interpret:
        copy_tb_s = _copy_bandwidth(torch, triton_testing)
        _log(quiet, f"  device-to-device copy: {copy_tb_s:.2f} TB/s (stated {STATED_DRAM_TB_S} TB/s)")

    shapes_out = {}
    int8_pairs = [p for p in selected if not hasattr(refs[p], "truth")]
    for p in selected:
        if p in int8_pairs:
            continue
        for name in names_of[p]:
            d = table_of(refs[p])[name]
            nbytes = _dram_bytes(d, refs[p])
            shapes_out[f"{p}:{name}"] = {
                "dims": _problem_dims(refs[p], d),
                "bytes": nbytes,
                "dram_floor_us": None if interpret else _round(nbytes / (STATED_DRAM_TB_S * 1e12) * 1e6),
                "dram_floor_measured_bw_us": None if interpret else _round(nbytes / (copy_tb_s * 1e12) * 1e6),
                "int_mm": None,
                "notes": [],
            }
    for name in dict.fromkeys(n for p in int8_pairs for n in names_of[p]):
        # The first int8-problem pair that has the shape describes it (a
        # GEMV pair brings shapes the GEMM pairs do not have).
        ref0 = next(refs[p] for p in int8_pairs if name in names_of[p])
        d = table_of(ref0)[name]
        nbytes = _dram_bytes(d, ref0)
        entry = {
            "M": d["M"],
            "K": d["K"],
            "N": d["N"],
            "dims": _dims_str(d),
            "bytes": nbytes,
            "dram_floor_us": None if interpret else _round(nbytes / (STATED_DRAM_TB_S * 1e12) * 1e6),
            "dram_floor_measured_bw_us": None if interpret else _round(nbytes / (copy_tb_s * 1e12) * 1e6),
            "int_mm": None,
            "copy_same_bytes_graph_us": None,
            "notes": [],
        }
        if not interpret and not getattr(ref0, "INT8_GEMM", True):
            entry["copy_same_bytes_graph_us"] = _round(_copy_same_bytes(torch, triton_testing, nbytes))
            entry["notes"].append(getattr(ref0, "SHAPE_NOTE", "not an int8 GEMM problem: no torch._int_mm baseline"))
        elif not interpret:
            entry["copy_same_bytes_graph_us"] = _round(_copy_same_bytes(torch, triton_testing, nbytes))
            t0 = time.time()
            int_mm, why = (
                _int_mm_epilogue(torch, d, device, seed0=991)
                if not hasattr(ref0, "truth")
                else (None, "torch._int_mm baseline not run: the pair's problem is not the int8 GEMM")
            )
            entry["int_mm"] = int_mm
            if why:
                entry["notes"].append(why)
            else:
                _log(
                    quiet,
                    f"  torch._int_mm + torch epilogue {name} {entry['dims']}: graph {int_mm['graph_us']} us,"
                    f" eager {int_mm['eager_us']} us (int_mm alone {int_mm['alone_graph_us']} us) [{time.time() - t0:.0f}s]",
                )
        shapes_out[name] = entry

    def make_record(done):
        """The record of the results so far (`done` False: a partial record written mid-run)."""
        acceptance, general_notes = _acceptance(results, shapes_out)
        if interpret:
            general_notes.insert(0, INTERPRET_NOTE)
        if not done:
            general_notes.insert(
                0,
                f"partial record: written after {len(results)} of {n_total} results, so that a run cut off "
                "keeps what it measured; the complete run overwrites it",
            )
        rec = {
            "schema_version": SCHEMA_VERSION,
            "tool": "kernlint verify",
            "command": _command_line(params),
            "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
            "environment": env,
            "settings": {
                "trials": trials,
                "tolerance": {"float16": max(pair_meta(p).TOLERANCE["float16"] for p in selected)},
                "error_metric": "||out - ref64|| / ||ref64||, ref64 = the reference formula in float64; NaN/Inf fail",
                "timing": None
                if interpret
                else {
                    "eager": f"triton.testing.do_bench(warmup=25 ms, rep=200 ms) of {EAGER_BATCH} back-to-back calls, median / {EAGER_BATCH}",
                    "graph": "triton.testing.do_bench_cudagraph(rep=100 ms), median per call",
                    "host": "eager - graph per call; after_plain: the after calls with the config they resolved, "
                    "launched as jit_fn[grid](..., **config) (Triton's own launch path)",
                    "order": "variants timed interleaved: each repeat times every mode of every variant, one mode at a "
                    "time, in alternating order, so that clock drift and host noise land on all variants alike",
                    "rotation_bytes": ROTATE_BYTES,
                    **{f"mode_{mode}": text for mode, text in timing.DESCRIPTIONS.items()},
                    "repeats": timing.REPEATS,
                },
                "stated_dram_tb_s": STATED_DRAM_TB_S,
                "measured_copy_tb_s": _round(copy_tb_s),
            },
            "shapes": shapes_out,
            "results": results,
            "acceptance": acceptance,
            "notes": general_notes,
            "elapsed_s": round(time.time() - started, 1),
        }
        return rec

    def write_record(rec, final=True):
        try:
            validate_record(rec)
        except ImportError:
            if final:
                _log(quiet, "  (jsonschema not installed: record written without validation)")
        Path(record).parent.mkdir(parents=True, exist_ok=True)
        Path(record).write_text(json.dumps(rec, indent=1) + "\n")

    results = []
    any_fail = False
    n_total = sum(len(names_of[p]) for p in selected)
    i = 0
    for p in selected:
        meta = pair_meta(p)
        ref = refs[p]
        before = _load(f"{p}.before", interpret)
        after = _load(f"{p}.after", interpret)
        tol = meta.TOLERANCE["float16"]
        for name in names_of[p]:
            i += 1
            d = table_of(ref)[name]
            t0 = time.time()
            seed0 = 1000 * (PAIRS.index(p) + 1) + 17 * i
            # Warm-up call outside the poisoned region: autotuning happens here.
            warm = _make_models(torch, ref, before, after, d, device, seed0)
            wx = ref.get_inputs(d, device=device, generator=torch.Generator().manual_seed(seed0))
            with torch.no_grad():
                for m in warm.values():
                    m(*wx)
            del warm, wx
            errs, ok, notes = _check(torch, ref, before, after, d, device, trials, tol, seed0)
            item = {
                "pair": p,
                # What was measured: a later change to the pair makes its claim say so (kernlint.provenance).
                "source_sha256": pair_digest(p),
                "source_bytes_sha256": pair_bytes_digest(p),
                "rules": list(meta.RULES),
                "shape": name,
                "dims": _problem_dims(ref, d),
                **{key: d[key] for key in ("M", "K", "N") if key in d},
                "before": {
                    "eager_us": None,
                    "graph_us": None,
                    "rel_err": _round(errs["before"], 3),
                    "ok": ok["before"],
                    "config": None,
                },
                "after": {
                    "eager_us": None,
                    "graph_us": None,
                    "rel_err": _round(errs["after"], 3),
                    "ok": ok["after"],
                    "config": None,
                },
                "reference": {
                    "eager_us": None,
                    "graph_us": None,
                    "rel_err": _round(errs["reference"], 3),
                    "ok": ok["reference"],
                },
                "speedup": None,
                "ok": bool(ok["before"] and ok["after"]),
                "notes": notes,
            }
            if not interpret:
                for which, mod in (("before", before), ("after", after)):
                    if all(key in d for key in ("M", "N", "K")):
                        item[which]["config"] = _autotuned_configs(mod, d["M"], d["N"], d["K"])
                times, n_sets, timing_notes, after_launch = _time_pair(
                    torch, triton_testing, ref, before, after, d, device, seed0
                )
                item["after_launch"] = after_launch
                for which in ("before", "after", "reference"):
                    modes = times[which]
                    item[which]["eager_us"] = _round(modes["eager"].median_us)
                    item[which]["graph_us"] = _round(modes["graph"].median_us) if "graph" in modes else None
                    item[which]["modes"] = {mode: t.as_dict() for mode, t in modes.items()}
                item["notes"].extend(timing_notes)
                _add_host_costs(item, times)
                graphs = (item["before"]["graph_us"], item["after"]["graph_us"])
                item["speedup"] = {
                    "eager": _round(item["before"]["eager_us"] / item["after"]["eager_us"]),
                    "graph": _round(graphs[0] / graphs[1]) if None not in graphs else None,
                    "kernelbench": _round(
                        times["before"]["kernelbench"].median_us / times["after"]["kernelbench"].median_us
                    ),
                    "kernelbench_mean": _round(
                        times["before"]["kernelbench"].mean_us / times["after"]["kernelbench"].mean_us
                    ),
                    "events_no_flush": _round(
                        times["before"]["events_no_flush"].median_us / times["after"]["events_no_flush"].median_us
                    ),
                }
                if None in graphs:
                    item["notes"].append("no CUDA-graph time: the call could not be captured (a host sync)")
                item["rotated_input_sets"] = n_sets
                sp = item["speedup"]
                if sp["graph"] is not None and sp["eager"] < 1.0 <= sp["graph"]:
                    item["notes"].append(
                        f"eager: after {item['after']['eager_us']:.1f} us per call vs {item['after']['graph_us']:.1f} us "
                        f"of GPU time: the call is bound by its host cost (Python and the launch; host cost per call "
                        f"after {item['after']['host_us']:.1f} us, before {item['before']['host_us']:.1f} us), "
                        f"so the fix is {sp['eager']:.2f}x in eager "
                        f"and {sp['graph']:.2f}x under CUDA graphs"
                    )
            if not item["ok"]:
                any_fail = True
                item["notes"].append(
                    f"correctness failed: rel. error before {errs['before']:.3g}, after {errs['after']:.3g} "
                    f"(tolerance {tol:g})"
                )
            results.append(item)
            _log(quiet, _progress_line(i, n_total, item, time.time() - t0))
            if record and not interpret and i < n_total:
                write_record(make_record(done=False), final=False)

    rec = make_record(done=True)
    click.echo(format_table(rec))
    if interpret:
        click.echo(INTERPRET_NOTE)
    if record:
        write_record(rec)
        _log(quiet, f"record written to {record}")
    return (1 if any_fail else 0), rec


def _add_host_costs(item, times):
    """Host cost per call (eager of back-to-back calls minus CUDA-graph time),
    and for the library's autotuned launcher, after vs a plain launch."""

    def host(which):
        modes = times[which]
        return modes["eager"].median_us - modes["graph"].median_us if "graph" in modes else None

    for which in ("before", "after", "reference"):
        item[which]["host_us"] = _round(host(which))
    if "after_plain" not in times:
        return
    plain_eager, plain_graph = times["after_plain"]["eager"].median_us, times["after_plain"]["graph"].median_us
    item["after_plain"] = {
        "eager_us": _round(plain_eager),
        "graph_us": _round(plain_graph),
        "host_us": _round(plain_eager - plain_graph),
    }
    plain_host = plain_eager - plain_graph
    after_host = host("after")
    item["host_cost_ratio"] = _round(after_host / plain_host) if plain_host > 0 and after_host is not None else None


def _progress_line(i, n, item, secs):
    b, a = item["before"], item["after"]
    status = "ok" if item["ok"] else "FAIL"
    line = f"[{i}/{n}] {item['pair']} {item['shape']} {item['dims']}: {status}, err before {b['rel_err']:.2g} after {a['rel_err']:.2g}"
    if item["speedup"]:
        if item["speedup"]["graph"] is not None:
            line += f"; graph {b['graph_us']:.1f} -> {a['graph_us']:.1f} us ({item['speedup']['graph']:.2f}x),"
        else:
            line += "; graph: not capturable,"
        line += f" eager {b['eager_us']:.1f} -> {a['eager_us']:.1f} us ({item['speedup']['eager']:.2f}x)"
        if item.get("after_plain"):
            line += (
                f"; host per call after {a['host_us']:.1f} us vs plain launch {item['after_plain']['host_us']:.1f} us"
            )
        kb_before, kb_after = (v.get("modes", {}).get("kernelbench") for v in (b, a))
        if kb_before and kb_after:
            by_repeat = timing.mean_speedup_by_repeat(kb_before, kb_after)
            line += (
                f"; kernelbench mean {kb_before['mean_us']:.1f} -> {kb_after['mean_us']:.1f} us "
                f"({item['speedup']['kernelbench_mean']:.2f}x; by repeat {', '.join(f'{x:.2f}x' for x in by_repeat)})"
            )
    return line + f" [{secs:.0f}s]"


HOST_BOUND_US = 5.0


HOST_COST_TARGET = 1.2


def _host_cost_check(results):
    """Check (a) over every timed pair and shape: the after's host cost per call
    (eager minus graph time) at most HOST_COST_TARGET x a plain fixed-config
    launch of the same kernel.

    An after launched through the library's launcher is compared with the
    same calls launched the plain way (`after_plain`, timed interleaved with
    it).  An after that launches `jit_fn[grid](...)` with a fixed config is a
    plain launch itself.  An after that goes through `@triton.autotune` on
    every call has no fixed config, so no plain launch exists to compare its
    host cost with: it is listed, and judged instead by the no-slower check
    (its eager time, host cost included, against its before's), which is what
    a user of it sees.  Where
    the plain launch's host cost is under HOST_BOUND_US the call is bound by
    its GPU time, eager and graph time agree to within the timing's noise and
    the ratio of two such differences says nothing: those are listed, not
    judged.
    """
    timed = [r for r in results if r.get("speedup")]
    if not timed:
        return [], []
    judged, unresolved, plain, autotuned, unrecorded = [], [], [], [], []
    for r in timed:
        where = f"{r['pair']} {r['shape']}"
        kind = r.get("after_launch")
        plain_host = (r.get("after_plain") or {}).get("host_us")
        if kind == "plain":
            plain.append(where)
        elif kind is None and r.get("host_cost_ratio") is None:
            unrecorded.append(where)  # a result from before verify recorded how the after launches
        elif kind == "autotuner" or r.get("host_cost_ratio") is None:
            autotuned.append(where)
        elif plain_host is not None and plain_host >= HOST_BOUND_US:
            judged.append((r["host_cost_ratio"], where, r["after"]["host_us"], plain_host))
        else:
            unresolved.append(f"{where} ({r['after']['host_us']:.1f} vs {plain_host:.1f} us)")
    worst = max((j[0] for j in judged), default=1.0 if plain else None)
    notes = []
    if judged:
        notes.append(
            "host cost per call, after vs a plain launch of its config (eager - graph, us): "
            + ", ".join(f"{w} {a:.1f} vs {p:.1f} ({x:.2f}x)" for x, w, a, p in sorted(judged, reverse=True))
        )
    if unresolved:
        notes.append(
            f"host cost not judged where the plain launch's is under {HOST_BOUND_US:g} us (GPU-bound: "
            f"eager = graph time to within noise): {', '.join(unresolved)}"
        )
    if plain:
        notes.append(f"the after is a plain jit_fn[grid](...) launch with a fixed config: {', '.join(plain)}")
    if autotuned:
        notes.append(
            "the after goes through @triton.autotune on every call (no fixed config, so no plain launch to "
            "compare with; judged by the no-slower check): " + ", ".join(autotuned)
        )
    if unrecorded:
        notes.append(
            "not covered (results recorded before verify recorded how the after launches, without a plain "
            f"baseline): {', '.join(unrecorded)}"
        )
    if worst is None:
        return [], notes
    check = {
        "check": f"every timed pair and shape ({len(judged)} launch-bound and compared, {len(plain)} plain launches, "
        f"{len(unresolved)} GPU-bound, {len(autotuned)} autotuned on every call"
        + (f", {len(unrecorded)} not covered" if unrecorded else "")
        + "): "
        f"after host cost per call <= {HOST_COST_TARGET}x a plain fixed-config launch, where one exists "
        "(the autotuned ones: see the no-slower check)",
        "value": worst,
        "target": HOST_COST_TARGET,
        "ok": bool(worst <= HOST_COST_TARGET),
    }
    return [check], notes


SLOWER_TOLERANCE = 0.95


def _no_after_slower_check(results):
    """No after is more than 5% slower than its before, in any mode, at any shape.

    Every speedup the record holds counts, the KernelBench-mode mean
    included: KernelBench reports the mean, so a claim in that mode must hold
    for it. A mode whose pooled mean misses while its median holds is listed
    with its per-repeat means, so that a spike in one repeat reads as one.
    """
    timed = [r for r in results if r.get("speedup")]
    if not timed:
        return [], []
    worst, misses = None, []
    for r in timed:
        for mode, value in r["speedup"].items():
            if value is None:
                continue
            if worst is None or value < worst[0]:
                worst = (value, f"{r['pair']} {r['shape']} {mode}")
            if value < SLOWER_TOLERANCE:
                detail = ""
                if mode == "kernelbench_mean":
                    modes = [r[v].get("modes", {}).get("kernelbench") for v in ("before", "after")]
                    if all(modes):
                        by_repeat = timing.mean_speedup_by_repeat(*modes)
                        detail = f" (by repeat {', '.join(f'{x:.2f}x' for x in by_repeat)})"
                misses.append(f"{r['pair']} {r['shape']} {mode} {value:.2f}x{detail}")
    assert worst is not None
    check = {
        "check": f"every timed pair, shape and mode ({len(timed)} pairs x shapes): after >= "
        f"{SLOWER_TOLERANCE}x its before's speed (worst: {worst[1]})",
        "value": worst[0],
        "target": SLOWER_TOLERANCE,
        "ok": not misses,
    }
    notes = [f"after slower than its before by more than 5%: {', '.join(misses)}"] if misses else []
    return [check], notes


def _acceptance(results, shapes_out):
    """The library's own targets, checked against this run's numbers."""
    checks, notes = [], []
    by = {(r["pair"], r["shape"]): r for r in results}
    seed = by.get(("seed_all_fixes", "seed"))
    if seed and seed["speedup"]:
        s = seed["speedup"]["graph"]
        checks.append(
            {
                "check": "seed shape: seed_all_fixes graph speedup >= 10x",
                "value": s,
                "target": 10.0,
                "ok": bool(s >= 10.0),
            }
        )
        floor = shapes_out["seed"]["dram_floor_us"]
        t = seed["after"]["graph_us"]
        checks.append(
            {
                "check": "seed shape: seed_all_fixes after graph time <= 2x DRAM floor (3.0 TB/s)",
                "value": _round(t / floor),
                "target": 2.0,
                "ok": bool(t <= 2 * floor),
            }
        )
        if t > 2 * floor:
            copy = shapes_out["seed"].get("copy_same_bytes_graph_us")
            notes.append(
                f"seed shape: the all-fixes kernel takes {t:.2f} us in a CUDA graph, "
                f"{t / floor:.2f}x the DRAM floor of {floor:.2f} us (target 2x)"
                + (
                    f"; a device-to-device copy moving the same {shapes_out['seed']['bytes']} bytes "
                    f"takes {copy:.2f} us in the same harness ({t / copy:.2f}x of it)"
                    if copy
                    else ""
                )
            )
        if s < 10.0:
            notes.append(
                f"seed shape: the all-fixes speedup over the seed kernel is {s:.2f}x in CUDA-graph time (target 10x)"
            )
    host_check, host_notes = _host_cost_check(results)
    checks += host_check
    notes += host_notes
    slower_check, slower_notes = _no_after_slower_check(results)
    checks += slower_check
    notes += slower_notes
    large = by.get(("seed_all_fixes", "large"))
    int_mm = (shapes_out.get("large") or {}).get("int_mm")
    if large and large["speedup"] and int_mm:
        t, ref_t = large["after"]["graph_us"], int_mm["graph_us"]
        checks.append(
            {
                "check": "large shape: seed_all_fixes after graph time <= torch._int_mm + torch epilogue",
                "value": _round(t / ref_t),
                "target": 1.0,
                "ok": bool(t <= ref_t),
            }
        )
        if t > ref_t:
            notes.append(
                f"large shape: the all-fixes kernel takes {t:.1f} us vs {ref_t:.1f} us for "
                f"torch._int_mm + torch epilogue (CUDA graph)"
            )
    return checks, notes


def format_table(rec) -> str:
    """Plain-text table of a record (also used by the renderer)."""
    rows = [
        (
            "pair",
            "shape",
            "ok",
            "err before/after",
            "before graph/eager us",
            "after graph/eager us",
            "speedup graph/eager",
            "reference graph us",
        )
    ]

    def num(v, fmt="{:.1f}"):
        return "-" if v is None else fmt.format(v)

    for r in rec["results"]:
        b, a, ref = r["before"], r["after"], r["reference"]
        sp = r["speedup"] or {}
        rows.append(
            (
                r["pair"],
                f"{r['shape']} {r['dims']}",
                "ok" if r["ok"] else "FAIL",
                f"{b['rel_err']:.1e}/{a['rel_err']:.1e}",
                f"{num(b['graph_us'])}/{num(b['eager_us'])}",
                f"{num(a['graph_us'])}/{num(a['eager_us'])}",
                f"{num(sp.get('graph'), '{:.2f}x')}/{num(sp.get('eager'), '{:.2f}x')}",
                num(ref["graph_us"]),
            )
        )
    widths = [max(len(str(row[c])) for row in rows) for c in range(len(rows[0]))]
    lines = ["  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    extra = []
    for name, s in rec["shapes"].items():
        if s.get("dram_floor_us") is not None:
            line = f"{name} {s['dims']}: DRAM floor {s['dram_floor_us']:.2f} us at {rec['settings']['stated_dram_tb_s']} TB/s"
            if s.get("int_mm"):
                line += f"; torch._int_mm + torch epilogue {s['int_mm']['graph_us']:.1f} us graph / {s['int_mm']['eager_us']:.1f} us eager"
            extra.append(line)
    for c in rec.get("acceptance", []):
        extra.append(f"{'PASS' if c['ok'] else 'MISS'}: {c['check']} (value {c['value']})")
    return "\n".join(lines + ([""] + extra if extra else []))


@click.command("verify", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--rule", "rules", multiple=True, metavar="CODE", help="Pairs whose rules include CODE (repeatable).")
@click.option("--pair", "pair_ids", multiple=True, metavar="ID", help="Only this pair (repeatable).")
@click.option("--shape", "shapes", multiple=True, metavar="NAME", help="Only this shape (repeatable).")
@click.option("--interpret", is_flag=True, help="Correctness only, on the CPU, in the Triton interpreter.")
@click.option("--record", type=click.Path(dir_okay=False), default=None, help="Write a JSON measurement record.")
@click.option(
    "--trials",
    type=click.IntRange(1, 100),
    default=3,
    show_default=True,
    help="Correctness trials (fresh random inputs) per pair and shape.",
)
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
def verify_command(rules, pair_ids, shapes, interpret, record, trials, quiet):
    """Check and time kernlint's reference-fix kernel library (before vs. after per rule)."""
    try:
        code, _ = run_verify(
            rules=rules,
            pair_ids=pair_ids,
            shapes=shapes,
            interpret=interpret,
            record=record,
            trials=trials,
            quiet=quiet,
        )
    except VerifyError as e:
        click.echo(f"kernlint verify: {e}", err=True)
        sys.exit(2)
    sys.exit(code)


if __name__ == "__main__":
    verify_command(prog_name="kernlint verify")
