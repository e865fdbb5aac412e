"""`kernlint verify FILE [--reference REF]`: measure a user's KernelBench file against its reference.

FILE holds `ModelNew` (and `Model`, unless `--reference` names the file that
holds it) plus `get_inputs()` and `get_init_inputs()` (taken from the file
that holds `Model`).  This is the one place kernlint EXECUTES code: the
named files only, each model in its own child process
(`kernlint.kernels.verify_child`) under `--timeout`.  The parent process
never imports the user's files; it

  * lints FILE (no execution) and puts beside each finding the library's
    measured claim for its rule (`kernlint.claims`);
  * asks kernlint's model whether FILE's kernels are GEMMs (`tl.dot`) with
    known operand dtypes, for the compute floor (`PEAK_TFLOPS` below);
  * runs the reference child, then the candidate child, and turns a timeout,
    a crash (its last error line), a wrong result or a file not in
    KernelBench form into a result row and exit code 1.

Linting needs kernlint's own dependencies (libcst among them). Where they
are missing, `--static-only` on a machine that has them
writes the lint findings and GEMM facts as JSON without executing anything,
and `--static FILE` reads them back (checked against FILE's sha256); without
either, the record says the lint was skipped and why.

torch is imported in the parent only to ask whether a GPU is present.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import importlib.util
import json
import os
import platform
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click
from kernlint.kernels import timing

SCHEMA_FILE = "file_record.schema.json"
SCHEMA_VERSION = 1
TOOL = "kernlint verify file"
DEFAULT_TIMEOUT_S = 600.0
DEFAULT_TRIALS = 5  # KernelBench's num_correct_trials (scripts/eval_from_generations.py)

# Dense tensor-core (and plain FP32) peaks in TFLOPS (TOPS for int8), without
# sparsity. Source: NVIDIA H100 Tensor Core GPU datasheet (H100 SXM and H100
# PCIe columns; the datasheet's figures are "with sparsity", halved here),
# NVIDIA H200 datasheet (same compute as H100 SXM), NVIDIA A100 datasheet.
PEAK_SOURCE = "NVIDIA H100/H200/A100 datasheets, dense (sparsity figures halved)"
PEAK_TFLOPS = {
    "H100 SXM": {"fp32": 67.0, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4, "fp8": 1978.9, "int8": 1978.9},
    "H100 PCIe": {"fp32": 51.0, "tf32": 378.0, "fp16": 756.0, "bf16": 756.0, "fp8": 1513.0, "int8": 1513.0},
    "H200": {"fp32": 67.0, "tf32": 494.7, "fp16": 989.4, "bf16": 989.4, "fp8": 1978.9, "int8": 1978.9},
    "A100": {"fp32": 19.5, "tf32": 156.0, "fp16": 312.0, "bf16": 312.0, "int8": 624.0},
}
# kernlint.model dtype names -> the column of PEAK_TFLOPS that multiplies them.
DOT_PEAK_COLUMN = {
    "int8": "int8",
    "uint8": "int8",
    "float16": "fp16",
    "bfloat16": "bf16",
    "float8_e4m3fn": "fp8",
    "float8_e5m2": "fp8",
    "tf32": "tf32",
    "float32": "fp32",
}
STATUSES = ("ok", "wrong", "crash", "timeout", "invalid", "not-run")
LINT_UNAVAILABLE = (
    "lint skipped: kernlint's lint dependencies are not installed here; run `kernlint verify FILE --static-only > static.json` "
    "where kernlint is installed and pass `--static static.json`"
)


class VerifyError(Exception):
    """A usage problem: one line on stderr, exit code 2."""


def _sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _round(v, nd=4):
    return None if v is None else float(f"{v:.{nd}g}")


# --------------------------------------------------------------------------
# static facts: lint findings with claims, GEMM dtypes (no execution)


def gemm_facts(path: str, text: str) -> dict | None:
    """The tl.dot operand dtype of FILE's kernels, when kernlint's model knows it and every dot agrees.

    fp32 operands multiply as TF32 unless `input_precision="ieee"` or
    `allow_tf32=False` (Triton's default on NVIDIA GPUs is tf32).
    """
    import libcst as cst
    from kernlint.model import build_model
    from kernlint.model.syntax import keyword, positional
    from kernlint.source import parse

    model = build_model(path, text, parse(text))
    found = []
    for kernel in model.kernel_list:
        for call in model.kernel_uses(kernel, "dot"):
            args = positional(call)
            a = args[0] if args else keyword(call, "input")
            b = args[1] if len(args) > 1 else keyword(call, "other")
            facts = [model.kernel_value_dtype(kernel, x) if x is not None else None for x in (a, b)]
            dtypes: set[str | None] = {f.dtype if f else None for f in facts}
            dtype = dtypes.pop() if len(dtypes) == 1 else None
            if dtype == "float32":
                precision = keyword(call, "input_precision")
                allow = keyword(call, "allow_tf32")
                ieee = (isinstance(precision, cst.SimpleString) and precision.evaluated_value == "ieee") or (
                    isinstance(allow, cst.Name) and allow.value == "False"
                )
                tf32x3 = isinstance(precision, cst.SimpleString) and precision.evaluated_value == "tf32x3"
                dtype = None if tf32x3 else ("float32" if ieee else "tf32")
            found.append(
                {
                    "kernel": kernel.name,
                    "line": model.line_of(call),
                    "dtype": dtype,
                    "evidence": [f.evidence for f in facts if f],
                }
            )
    if not found:
        return None
    dtypes = {str(f["dtype"]) if f["dtype"] else None for f in found}
    return {"dtype": dtypes.pop() if len(dtypes) == 1 else None, "dots": found}


def static_facts(path: str) -> dict:
    """Lint FILE and read its GEMM facts; raises ImportError when a module
    linting needs is missing."""
    from kernlint import claims, config
    from kernlint.runner import run

    try:
        found = config.find_config([path])
        settings = config.resolve(config.load_config(found) if found else config.Config())
        note = f"lint settings from {found}" if found else None
    except config.ConfigError as error:
        settings, note = config.resolve(config.Config()), f"lint with default settings: {error}"
    outcome = run([path], settings)
    findings = []
    for f in outcome.report.findings:
        claim = claims.expected_speedup(f.code)
        findings.append(
            {
                "code": f.code,
                "name": f.name,
                "line": f.span.line,
                "column": f.span.column,
                "message": f.message,
                "claim": None if claim is None else claim.get("summary"),
            }
        )
    text = Path(path).read_text(encoding="utf-8")
    return {
        "tool": "kernlint verify --static-only",
        "file": path,
        "sha256": _sha256(path),
        "findings": findings,
        "gemm": gemm_facts(path, text),
        "notes": [note] if note else [],
        "errors": list(outcome.errors),
    }


def reference_estimates(path: str) -> list[dict]:
    """The cost model's estimate (kernlint.cost) for each performance finding
    of `path`, the file before the fix: linted, never executed."""
    from kernlint.runner import run

    out = []
    for f in run([path]).report.findings:
        estimate = (f.expected_speedup or {}).get("for_this_file")
        if not f.category.is_performance or not estimate:
            continue
        entry = {"code": f.code, "line": f.span.line, "status": estimate["status"]}
        if estimate["status"] == "estimated":
            entry.update({mode: estimate.get(mode) for mode in ("kernelbench", "eager", "graph")})
        else:
            entry["reason"] = estimate.get("reason", "")
        out.append(entry)
    return out


def _load_static(static_file: str, path: str) -> dict:
    try:
        data = json.loads(Path(static_file).read_text())
    except (OSError, ValueError) as error:
        raise VerifyError(f"--static {static_file}: cannot read: {error}") from None
    if not isinstance(data, dict) or data.get("tool") != "kernlint verify --static-only":
        raise VerifyError(f"--static {static_file}: not written by `kernlint verify FILE --static-only`")
    if data.get("sha256") != _sha256(path):
        raise VerifyError(f"--static {static_file}: written for other contents of {data.get('file')} (sha256 differs)")
    return data


# --------------------------------------------------------------------------
# children


def _kernlint_roots() -> list[str]:
    """The path roots kernlint was imported from, for the child's PYTHONPATH.
    Only real folders: an editable install's namespace path holds a
    placeholder entry whose parent would be "." (the user's folder, whose
    json.py or traceback.py would then run); such an install reaches the
    child through the same interpreter's import hook instead."""
    import kernlint

    return [str(Path(p).resolve().parent) for p in kernlint.__path__ if os.path.isabs(p) and os.path.isdir(p)]


def _run_child(settings: dict, timeout: float) -> dict:
    """Run one model's child; always returns a result dict with a status."""
    workdir, role = settings["workdir"], settings["role"]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(_kernlint_roots() + [os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    }
    err_path = os.path.join(workdir, f"{role}.stderr")
    started = time.time()
    with open(err_path, "wb") as err, open(os.path.join(workdir, f"{role}.stdout"), "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-P", "-m", "kernlint.kernels.verify_child", json.dumps(settings)],
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        try:
            code = proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the child's own session: it and what it started
            code = proc.wait()
            timed_out = True
    result_path = os.path.join(workdir, f"{role}.json")
    try:
        result = json.loads(Path(result_path).read_text())
    except (OSError, ValueError):
        result = {"role": role, "phase": "start", "status": None, "detail": None, "notes": []}
    result["elapsed_s"] = round(time.time() - started, 2)
    if timed_out:
        result["status"] = "timeout"
        result["detail"] = f"no result within --timeout {timeout:g} s (it was in its {result['phase']} phase)"
    elif result.get("phase") != "done" or code != 0:
        result["status"] = "crash"
        result["detail"] = _crash_line(err_path, code)
    return result


def _crash_line(err_path: str, code: int) -> str:
    lines = [ln.strip() for ln in Path(err_path).read_text(errors="replace").splitlines() if ln.strip()]
    if code < 0:
        try:
            how = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit code {code}"
    return f"{how}: {lines[-1]}" if lines else how


# --------------------------------------------------------------------------
# the run


def _environment(interpret: bool) -> dict:
    import torch
    import triton

    env = {
        "gpu": "cpu (Triton interpreter)" if interpret else torch.cuda.get_device_name(0),
        "cuda": torch.version.cuda,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "interpret": interpret,
    }
    return env


def peak_for(gpu: str) -> tuple[str, dict] | None:
    name = gpu.casefold()
    if "h100" in name:
        key = "H100 PCIe" if "pcie" in name else "H100 SXM"
    elif "h200" in name:
        key = "H200"
    elif "a100" in name:
        key = "A100"
    else:
        return None
    return key, PEAK_TFLOPS[key]


def _model_row(result: dict, role: str, class_name: str, path: str) -> dict:
    return {
        "role": role,
        "class": class_name,
        "path": path,
        "status": result.get("status") or "crash",
        "detail": result.get("detail"),
        "correctness": result.get("correctness"),
        "timing": result.get("timing"),
        "memory": result.get("memory"),
        "compute": None,
        "notes": list(result.get("notes", [])),
        "elapsed_s": result.get("elapsed_s"),
    }


def _command_line(file, reference, params) -> str:
    parts = ["kernlint", "verify", file]
    if reference:
        parts += ["--reference", reference]
    for flag in ("interpret",):
        if params.get(flag):
            parts.append(f"--{flag}")
    for name in ("trials", "timeout", "tolerance", "static", "record"):
        if params.get(name) is not None:
            parts += [f"--{name}", str(params[name])]
    return shlex.join(parts)


def run_verify_file(
    file: str,
    *,
    reference: str | None = None,
    interpret: bool = False,
    trials: int = DEFAULT_TRIALS,
    timeout: float = DEFAULT_TIMEOUT_S,
    static_file: str | None = None,
    record: str | None = None,
    output_format: str = "text",
    tolerance: float | None = None,
    quiet: bool = False,
) -> tuple[int, dict]:
    for label, p in (("FILE", file), ("--reference", reference), ("--static", static_file)):
        if p is not None and not Path(p).is_file():
            raise VerifyError(f"{label} {p}: no such file")
    for label, p in (("FILE", file), ("--reference", reference)):
        if p is not None and not p.endswith(".py"):
            raise VerifyError(f"{label} {p}: not a Python file (.py)")
    missing = [m for m in ("torch", "triton") if importlib.util.find_spec(m) is None]
    if missing:
        raise VerifyError(f"{' and '.join(missing)} not installed: pip install 'kernlint[kernels]'")
    static = _load_static(static_file, file) if static_file else None
    import torch

    if not interpret and not torch.cuda.is_available():
        raise VerifyError(
            "no CUDA GPU found: pass --interpret to check correctness on the CPU "
            "with the Triton interpreter (small shapes, no timing)"
        )
    started = time.time()
    notes: list[str] = []
    lint = {"source": "linted here", "note": None}
    if static is None:
        try:
            static = static_facts(file)
        except ImportError:
            lint = {"source": "skipped", "note": LINT_UNAVAILABLE}
            notes.append(LINT_UNAVAILABLE)
    else:
        lint = {"source": f"read from --static {static_file}", "note": None}
    if static:
        notes += static.get("notes", []) + [f"lint: {e}" for e in static.get("errors", [])]
    estimates = None
    if reference is not None:
        try:
            estimates = reference_estimates(reference)
        except ImportError:
            estimates = None  # the lint dependencies are missing here: said by `lint` above

    ref_path = reference or file
    with tempfile.TemporaryDirectory(prefix="kernlint-verify-") as workdir:
        common = {
            "workdir": workdir,
            "interpret": interpret,
            "trials": trials,
            "time": not interpret,
            "tolerance": tolerance,
        }
        _progress(quiet, f"kernlint verify: running Model from {ref_path} (timeout {timeout:g} s)")
        ref_result = _run_child(
            {**common, "role": "reference", "path": os.path.abspath(ref_path), "class_name": "Model"}, timeout
        )
        ref_row = _model_row(ref_result, "reference", "Model", ref_path)
        if ref_row["status"] == "ok":
            _progress(quiet, f"kernlint verify: running ModelNew from {file}")
            new_result = _run_child(
                {**common, "role": "candidate", "path": os.path.abspath(file), "class_name": "ModelNew"}, timeout
            )
        else:
            new_result = {"status": "not-run", "detail": "the reference Model produced no outputs to compare with"}
        new_row = _model_row(new_result, "candidate", "ModelNew", file)

    copy_tb_s = ref_result.get("copy_tb_s")
    env = _environment(interpret)
    for row in (ref_row, new_row):
        mem = row["memory"]
        if mem:
            mem["floor_us"] = (
                _round((mem["bytes_read"] + mem["bytes_written"]) / (copy_tb_s * 1e12) * 1e6) if copy_tb_s else None
            )
    dims = ref_result.get("gemm")
    gemm = (static or {}).get("gemm")
    if new_row["status"] != "not-run":
        new_row["compute"] = _compute_floor(env["gpu"], gemm, dims, interpret, notes) if static else None

    speedup = None
    if ref_row["timing"] and new_row["timing"] and new_row["status"] == "ok":
        speedup = {}
        for mode in timing.MODES:
            r, n = ref_row["timing"].get(mode), new_row["timing"].get(mode)
            if r and n:
                speedup[mode] = _round(r["median_us"] / n["median_us"])
                if mode == "kernelbench":
                    speedup["kernelbench_mean"] = _round(r["mean_us"] / n["mean_us"])
    ok = ref_row["status"] == "ok" and new_row["status"] == "ok"
    if interpret:
        notes.insert(0, "correctness only: no timing was taken under --interpret")
    rec = {
        "schema_version": SCHEMA_VERSION,
        "tool": TOOL,
        "command": _command_line(
            file,
            reference,
            {
                "interpret": interpret,
                "trials": trials,
                "timeout": timeout,
                "tolerance": tolerance,
                "static": static_file,
                "record": record,
            },
        ),
        "date": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        "environment": env,
        "file": {"path": file, "sha256": _sha256(file)},
        "reference": {"path": ref_path, "sha256": _sha256(ref_path)},
        "settings": {
            "trials": trials,
            "seed": 42,
            "timeout_s": timeout,
            "correctness": (
                "KernelBench's check: torch.allclose(ref, new, atol=tol, rtol=tol) on every trial, fresh "
                "get_inputs() per trial (seeds drawn from seed 42), weights from seed 42 in both models; "
                + (
                    f"tol {tolerance:g} for every output (--tolerance); "
                    if tolerance is not None
                    else "tol by the reference output dtype: float32 1e-4, float16/bfloat16 1e-2, others 1e-4; "
                )
                + "NaN/Inf in the output fail; dtypes are kept (KernelBench would cast every tensor to fp32)"
            ),
            "error_metric": "max abs err = max |new - ref|; max rel err = max |new - ref| / max |ref|, over all trials",
            "timing": None if interpret else dict(timing.DESCRIPTIONS, repeats=timing.REPEATS),
            "memory_floor": "(bytes of inputs, parameters and buffers read + bytes of outputs written) / the "
            "device-to-device copy rate measured in this run",
            "compute_floor": f"2*M*N*K / the dense tensor-core peak for the kernel's tl.dot dtype ({PEAK_SOURCE})",
            "measured_copy_tb_s": _round(copy_tb_s),
        },
        "models": [ref_row, new_row],
        "gemm_dims": dims,
        "speedup": speedup,
        "lint": lint,
        "findings": None if static is None else static["findings"],
        "estimates": estimates,
        "ok": ok,
        "notes": notes,
        "elapsed_s": round(time.time() - started, 1),
    }
    if record:
        try:
            validate_record(rec)
        except ImportError:
            _progress(quiet, "kernlint verify: jsonschema not installed: record written without validation")
        Path(record).parent.mkdir(parents=True, exist_ok=True)
        Path(record).write_text(json.dumps(rec, indent=1) + "\n")
    click.echo(json.dumps(rec, indent=1) if output_format == "json" else format_text(rec))
    return (0 if ok else 1), rec


def _compute_floor(gpu: str, gemm: dict | None, dims: dict | None, interpret: bool, notes: list) -> dict | None:
    if not gemm:
        return None
    if gemm["dtype"] is None:
        notes.append("compute floor: the tl.dot operand dtypes are unknown or differ between dots")
        return None
    if dims is None:
        notes.append("compute floor: the call's shapes do not show one [M, K] x [K, N] product")
        return None
    flops = 2 * dims["M"] * dims["N"] * dims["K"]
    column = DOT_PEAK_COLUMN.get(gemm["dtype"])
    found = None if interpret else peak_for(gpu)
    peak = found[1].get(column) if found and column else None
    if not interpret and peak is None:
        notes.append(f"compute floor: no {gemm['dtype']} peak for {gpu} in the table")
    return {
        "dtype": gemm["dtype"],
        "flops": flops,
        "peak_table": found[0] if found else None,
        "peak_tflops": peak,
        "floor_us": _round(flops / (peak * 1e12) * 1e6) if peak else None,
    }


def _progress(quiet: bool, msg: str) -> None:
    if not quiet:
        click.echo(msg, err=True)


def load_schema() -> dict:
    from importlib import resources

    return json.loads(resources.files("kernlint.kernels").joinpath(SCHEMA_FILE).read_text())


def validate_record(rec: dict) -> None:
    import jsonschema

    jsonschema.validate(rec, load_schema())


# --------------------------------------------------------------------------
# text


def _num(v, fmt="{:.1f}") -> str:
    return "-" if v is None else fmt.format(v)


def format_text(rec: dict) -> str:
    env = rec["environment"]
    ref, new = rec["models"]
    lines = [f"kernlint verify {rec['file']['path']} against {rec['reference']['path']} on {env['gpu']}"]
    header = [
        "model",
        "status",
        "correct",
        "max abs err",
        "max rel err",
        "graph us",
        "eager us",
        "KernelBench mean/median us",
        "events no flush us",
        "memory floor us",
        "compute floor us",
    ]
    rows = [header]
    for m in (ref, new):
        t = m["timing"] or {}
        c = m["correctness"]
        kb = t.get("kernelbench")
        rows.append(
            [
                f"{m['class']} ({os.path.basename(m['path'])})",
                m["status"],
                "reference" if m["role"] == "reference" else (f"{c['passed']}/{c['trials']}" if c else "-"),
                _num(c and c["max_abs_err"], "{:.2e}"),
                _num(c and c["max_rel_err"], "{:.2e}"),
                _num((t.get("graph") or {}).get("median_us"), "{:.2f}"),
                _num((t.get("eager") or {}).get("median_us"), "{:.2f}"),
                f"{kb['mean_us']:.2f}/{kb['median_us']:.2f}" if kb else "-",
                _num((t.get("events_no_flush") or {}).get("median_us"), "{:.2f}"),
                _num((m["memory"] or {}).get("floor_us"), "{:.2f}"),
                _num((m["compute"] or {}).get("floor_us"), "{:.2f}"),
            ]
        )
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(header))]
    lines += ["  ".join(str(v).ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
    for m in (ref, new):
        if m["detail"]:
            lines.append(f"{m['class']}: {m['status']}: {m['detail']}")
    sp = rec["speedup"]
    if sp:
        lines.append("speedup Model/ModelNew: " + ", ".join(f"{k} {v:.2f}x" for k, v in sp.items()))
    for e in rec.get("estimates") or []:
        if e["status"] == "estimated":
            shown = ", ".join(f"{m} {e[m]:.2f}x" for m in ("graph", "eager", "kernelbench") if e.get(m) is not None)
            lines.append(f"kernlint's estimate for fixing {e['code']} (line {e['line']}) of the reference: {shown}")
        else:
            lines.append(f"kernlint's estimate for fixing {e['code']} (line {e['line']}): unknown, {e['reason']}")
    mem = new["memory"] or ref["memory"]
    if mem:
        copy = rec["settings"]["measured_copy_tb_s"]
        lines.append(
            f"bytes: Model reads {ref['memory']['bytes_read'] if ref['memory'] else '-'} and writes "
            f"{ref['memory']['bytes_written'] if ref['memory'] else '-'}"
            + (
                f"; ModelNew reads {new['memory']['bytes_read']} and writes {new['memory']['bytes_written']}"
                if new["memory"]
                else ""
            )
            + (f"; device-to-device copy {copy:.2f} TB/s in this run" if copy else "")
        )
    comp = new["compute"]
    if comp:
        lines.append(
            f"compute: {comp['flops']} flop of {comp['dtype']} tl.dot"
            + (f" at {comp['peak_tflops']:g} T/s ({comp['peak_table']}, {PEAK_SOURCE})" if comp["peak_tflops"] else "")
        )
    if rec["findings"] is not None:
        lines.append(f"findings in {rec['file']['path']} ({rec['lint']['source']}): {len(rec['findings'])}")
        for f in rec["findings"]:
            lines.append(
                f"  {f['line']}:{f['column']} {f['code']} [{f['name']}]: library claim: "
                f"{f['claim'] or 'none (not a performance rule)'}"
            )
    for n in rec["notes"]:
        lines.append(f"note: {n}")
    lines.append("result: " + ("correct" if rec["ok"] else "FAILED"))
    return "\n".join(lines)


# --------------------------------------------------------------------------
# the command (the library run and FILE mode)


class _OneLineErrors(click.Command):
    """Usage errors as one line and exit code 2 (click would print usage and a hint too)."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as error:
            click.echo(f"kernlint verify: {error.format_message()}", err=True)
            sys.exit(2)


HELP = """Measure kernels on a GPU: the bundled library, or FILE against its reference.

\b
Without FILE: check and time kernlint's reference-fix library (before vs. after per rule).
With FILE: THIS EXECUTES FILE (and the file --reference names), and nothing else.
  FILE holds ModelNew, and Model unless --reference names the file holding
  it, with get_inputs() and get_init_inputs().  Each model runs in a child
  process under --timeout.  Reports correctness (KernelBench's tolerances),
  the time of both models in every timing mode, the memory floor and, for a
  tl.dot GEMM of known dtype, the compute floor, and FILE's lint findings with
  the library's measured claim for each rule.
  Exit 0: correct; 1: wrong, crash, timeout or invalid file (a result row
  says which); 2: bad arguments, no GPU without --interpret.
Linting (`kernlint FILE`) never executes anything; only `verify FILE` does.
"""


@click.command("verify", cls=_OneLineErrors, help=HELP, context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("file", required=False)
@click.option(
    "--reference",
    metavar="REF",
    default=None,
    help="The file that holds Model, get_inputs, get_init_inputs (executed).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="SECONDS",
    help=f"FILE: time limit per model's child process (default {DEFAULT_TIMEOUT_S:g}).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="FILE: print the table or the JSON record.",
)
@click.option(
    "--static-only", is_flag=True, help="FILE: write FILE's lint findings and GEMM facts as JSON; execute nothing."
)
@click.option(
    "--static",
    "static_file",
    metavar="JSON",
    default=None,
    help="FILE: take lint findings and GEMM facts from --static-only's JSON (for a machine where kernlint cannot lint).",
)
@click.option(
    "--rule", "rules", multiple=True, metavar="CODE", help="Library: pairs whose rules include CODE (repeatable)."
)
@click.option("--pair", "pair_ids", multiple=True, metavar="ID", help="Library: only this pair (repeatable).")
@click.option("--shape", "shapes", multiple=True, metavar="NAME", help="Library: only this shape (repeatable).")
@click.option(
    "--interpret", is_flag=True, help="Correctness only, on the CPU, in the Triton interpreter (small shapes)."
)
@click.option("--record", type=click.Path(dir_okay=False), default=None, help="Write a JSON measurement record.")
@click.option(
    "--trials",
    type=click.IntRange(1, 100),
    default=None,
    help=f"Correctness trials with fresh random inputs (library default 3, FILE default {DEFAULT_TRIALS}).",
)
@click.option(
    "--tolerance",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    metavar="TOL",
    help="FILE: atol = rtol for every output instead of KernelBench's by dtype (fp32 1e-4): 1e-2 is KernelBench "
    "v0/v0.1's check, which TF32 products pass.",
)
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
def verify_command(
    file,
    reference,
    timeout,
    output_format,
    static_only,
    static_file,
    rules,
    pair_ids,
    shapes,
    interpret,
    record,
    trials,
    tolerance,
    quiet,
):
    from kernlint.kernels import verify as library

    try:
        if file is None:
            for flag, value in (
                ("--reference", reference),
                ("--timeout", timeout),
                ("--static", static_file),
                ("--static-only", static_only),
                ("--format json", output_format == "json"),
                ("--tolerance", tolerance),
            ):
                if value:
                    raise VerifyError(f"{flag} needs FILE (kernlint verify FILE {flag.split()[0]} ...)")
            code, _ = library.run_verify(
                rules=rules,
                pair_ids=pair_ids,
                shapes=shapes,
                interpret=interpret,
                record=record,
                trials=trials or 3,
                quiet=quiet,
            )
            sys.exit(code)
        for flag, value in (("--rule", rules), ("--pair", pair_ids), ("--shape", shapes)):
            if value:
                raise VerifyError(f"{flag} selects library pairs; it does not apply to verify FILE")
        if static_only:
            if not Path(file).is_file():
                raise VerifyError(f"FILE {file}: no such file")
            try:
                click.echo(json.dumps(static_facts(file), indent=1))
            except ImportError:
                raise VerifyError(
                    "--static-only needs kernlint's linter and its dependencies (pip install kernlint)"
                ) from None
            sys.exit(0)
        code, _ = run_verify_file(
            file,
            reference=reference,
            interpret=interpret,
            trials=trials or DEFAULT_TRIALS,
            timeout=timeout or DEFAULT_TIMEOUT_S,
            static_file=static_file,
            record=record,
            output_format=output_format,
            tolerance=tolerance,
            quiet=quiet,
        )
    except (VerifyError, library.VerifyError) as error:
        click.echo(f"kernlint verify: {error}", err=True)
        sys.exit(2)
    sys.exit(code)


if __name__ == "__main__":
    verify_command(prog_name="kernlint verify")
