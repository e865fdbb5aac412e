"""One model of `kernlint verify FILE`, run in its own process.

    python -P -m kernlint.kernels.verify_child '<json settings>'

The parent (`kernlint.kernels.verify_file`) starts one child for the
reference `Model` and, after it, one for `ModelNew`, each under a time limit.
This module executes the user's file named in the settings, and nothing
else: it imports torch and triton first, then loads that one file by path
(its folder is not put on sys.path, `-P` keeps the working directory off it).

The reference child draws the inputs (KernelBench's seeding: seed 42 for
`get_init_inputs()` and the weights, per-trial seeds drawn from seed 42 for
`get_inputs()`), runs `Model`, and saves inputs and outputs in the work
folder; the candidate child loads them, runs `ModelNew` and compares.  Both
time their model in every mode of `kernlint.kernels.timing` when on a GPU.

The child reports through `<workdir>/<role>.json`, rewritten after each phase
so that a parent that kills it on timeout still knows how far it got.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

SEED = 42  # KernelBench's seed_num
# KernelBench's get_tolerance_for_precision (atol = rtol), by the reference output's dtype.
TOLERANCES = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}
DEFAULT_TOLERANCE = 1e-4


class UserFileError(Exception):
    """The file is not in KernelBench form (status "invalid")."""


def _write(workdir: str, role: str, result: dict) -> None:
    path = os.path.join(workdir, f"{role}.json")
    with open(path + ".tmp", "w") as handle:
        json.dump(result, handle)
    os.replace(path + ".tmp", path)


def _load_user_file(path: str, role: str):
    import importlib.util

    name = f"kernlint_verify_{role}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # triton.jit and dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _need(module, name: str, path: str, what: str):
    value = getattr(module, name, None)
    if value is None:
        raise UserFileError(f"{os.path.basename(path)} defines no {name}{what}")
    return value


def _set_seed(torch, seed: int) -> None:
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(seed)


def _to(torch, values, device):
    # KernelBench also casts every tensor to its `precision` (fp32 by default);
    # that would turn an int8 problem into an fp32 one, so dtypes are kept.
    return [v.to(device) if isinstance(v, torch.Tensor) else v for v in values]


def _tensors(torch, value) -> list:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors(torch, v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors(torch, v)]
    return []


def _cpu(torch, value):
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, (list, tuple)):
        return type(value)(_cpu(torch, v) for v in value)
    return value


def _memory(torch, model, inputs, output) -> dict:
    """Bytes the call must read (inputs, parameters, buffers) and write (outputs), each storage once."""
    seen: set[tuple[int, int]] = set()

    def nbytes(tensors) -> int:
        total = 0
        for t in tensors:
            key = (t.untyped_storage().data_ptr(), t.storage_offset())
            if key in seen:
                continue
            seen.add(key)
            total += t.numel() * t.element_size()
        return total

    read = nbytes(_tensors(torch, list(inputs)) + list(model.parameters()) + list(model.buffers()))
    written = nbytes(_tensors(torch, output))
    return {"bytes_read": read, "bytes_written": written}


def _gemm_dims(torch, model, inputs, output) -> dict | None:
    """M, K, N when the call looks like out[M, N] = A[M, K] @ W (W [N, K] or [K, N], an input or a parameter)."""
    outs = _tensors(torch, output)
    if len(outs) != 1 or outs[0].dim() != 2:
        return None
    M, N = outs[0].shape
    operands = [
        t for t in _tensors(torch, list(inputs)) + list(model.parameters()) + list(model.buffers()) if t.dim() == 2
    ]
    for a in operands:
        if a.shape[0] != M:
            continue
        K = a.shape[1]
        for w in operands:
            if w is not a and tuple(w.shape) in ((N, K), (K, N)):
                return {"M": int(M), "K": int(K), "N": int(N)}
    return None


def _compare(torch, ref_out, new_out, tolerance: float | None = None) -> dict:
    """KernelBench's check (torch.allclose(ref, new, atol=tol, rtol=tol), tol by the output dtype, or
    `tolerance` for every output where given), with the max absolute and relative error; NaN/Inf anywhere
    fails."""
    refs, news = _tensors(torch, ref_out), _tensors(torch, new_out)
    if len(refs) != len(news):
        return {"ok": False, "why": f"{len(news)} output tensors, expected {len(refs)}"}
    worst: dict = {"ok": True, "why": None, "max_abs_err": 0.0, "max_rel_err": 0.0, "tolerance": None}
    for r, n in zip(refs, news):
        tol = tolerance or TOLERANCES.get(str(r.dtype).removeprefix("torch."), DEFAULT_TOLERANCE)
        worst["tolerance"] = tol if worst["tolerance"] is None else min(worst["tolerance"], tol)
        if tuple(r.shape) != tuple(n.shape):
            return {**worst, "ok": False, "why": f"output shape {tuple(n.shape)}, expected {tuple(r.shape)}"}
        rd, nd = r.detach().cpu().double(), n.detach().cpu().double()
        if not bool(torch.isfinite(nd).all()):
            bad = int((~torch.isfinite(nd)).sum())
            return {
                **worst,
                "ok": False,
                "max_abs_err": None,
                "max_rel_err": None,
                "why": f"{bad} NaN/Inf output element(s)",
            }
        if not bool(torch.isfinite(rd).all()):
            return {
                **worst,
                "ok": False,
                "max_abs_err": None,
                "max_rel_err": None,
                "why": "the reference output has NaN/Inf",
            }
        diff = (nd - rd).abs()
        max_abs = float(diff.max()) if diff.numel() else 0.0
        # Relative to the largest reference element: elementwise ratios explode where the reference is near 0.
        scale = float(rd.abs().max()) if rd.numel() else 0.0
        max_rel = max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else None)  # None: all-zero reference
        worst["max_abs_err"] = max(worst["max_abs_err"], max_abs)
        worst["max_rel_err"] = (
            None if max_rel is None or worst["max_rel_err"] is None else max(worst["max_rel_err"], max_rel)
        )
        if not bool(torch.allclose(rd, nd, atol=tol, rtol=tol)):
            worst["ok"] = False
            worst["why"] = f"outside atol = rtol = {tol:g}"
    return worst


def _time(torch, model, inputs, result: dict, notes: list) -> None:
    from kernlint.kernels import timing

    def call():
        return model(*inputs)

    modes: dict[str, dict | None] = {}
    for mode, run in (
        ("graph", lambda: timing.graph(call)),
        ("eager", lambda: timing.eager(call)),
        ("kernelbench", lambda: timing.cuda_events(torch, call, flush=True)),
        ("events_no_flush", lambda: timing.cuda_events(torch, call, flush=False)),
    ):
        try:
            modes[mode] = run().as_dict()
        except Exception as error:  # noqa: BLE001 - a mode the model cannot run in is a note, not a crash
            torch.cuda.synchronize()
            modes[mode] = None
            notes.append(f"{mode} timing failed: {_last_line(error)}")
    result["timing"] = modes


def _last_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[-1]}" if text else type(error).__name__


def run(settings: dict) -> int:
    role, path, workdir = settings["role"], settings["path"], settings["workdir"]
    interpret = settings["interpret"]
    result: dict = {"role": role, "phase": "import", "status": None, "detail": None, "notes": []}
    started = time.time()
    _write(workdir, role, result)
    os.environ["TRITON_INTERPRET"] = "1" if interpret else "0"
    import torch
    import triton  # noqa: F401 - before the user's file, so a file named triton.py beside it is not taken

    device = "cpu" if interpret else "cuda"
    try:
        module = _load_user_file(path, role)
        cls = _need(module, settings["class_name"], path, "")
        result["phase"] = "init"
        _write(workdir, role, result)
        if role == "reference":
            get_inputs = _need(module, "get_inputs", path, "()")
            get_init_inputs = _need(module, "get_init_inputs", path, "()")
            _set_seed(torch, SEED)
            init = get_init_inputs()
            torch.save(init, os.path.join(workdir, "init.pt"))
        else:
            init = torch.load(os.path.join(workdir, "init.pt"), weights_only=False)
        with torch.no_grad():
            _set_seed(torch, SEED)
            model = cls(*_to(torch, init, device)).to(device)
        result["phase"] = "correctness"
        _write(workdir, role, result)
        if role == "reference":
            _set_seed(torch, SEED)
            seeds = [int(torch.randint(0, 2**32 - 1, (1,)).item()) for _ in range(settings["trials"])]
        checks = []
        with torch.no_grad():
            for trial in range(settings["trials"]):
                data_file = os.path.join(workdir, f"trial{trial}.pt")
                if role == "reference":
                    _set_seed(torch, seeds[trial])
                    inputs = get_inputs()
                else:
                    saved = torch.load(data_file, weights_only=False)
                    inputs = saved["inputs"]
                inputs_dev = _to(torch, inputs, device)
                out = model(*inputs_dev)
                if device == "cuda":
                    torch.cuda.synchronize()
                if role == "reference":
                    torch.save({"inputs": inputs, "output": _cpu(torch, out)}, data_file)
                else:
                    checks.append(_compare(torch, saved["output"], out, settings.get("tolerance")))
                if trial == 0:
                    result["memory"] = _memory(torch, model, inputs_dev, out)
                    if role == "reference":
                        result["gemm"] = _gemm_dims(torch, model, inputs_dev, out)
        if role == "candidate":
            failed = [c for c in checks if not c["ok"]]
            result["correctness"] = {
                "trials": len(checks),
                "passed": len(checks) - len(failed),
                "max_abs_err": None
                if any(c.get("max_abs_err") is None for c in checks)
                else max((c["max_abs_err"] for c in checks), default=0.0),
                "max_rel_err": None
                if any(c.get("max_rel_err") is None for c in checks)
                else max((c["max_rel_err"] for c in checks), default=0.0),
                "tolerance": checks[0]["tolerance"] if checks else None,
            }
            if failed:
                result["status"] = "wrong"
                result["detail"] = f"{len(failed)} of {len(checks)} trials failed: {failed[0]['why']}"
        if settings["time"] and result["status"] is None:
            result["phase"] = "timing"
            _write(workdir, role, result)
            from kernlint.kernels import timing

            if role == "reference":
                result["copy_tb_s"] = timing.copy_bandwidth_tb_s(torch)
                _set_seed(torch, SEED)
                perf_inputs = get_inputs()
                torch.save(perf_inputs, os.path.join(workdir, "perf.pt"))
            else:
                perf_inputs = torch.load(os.path.join(workdir, "perf.pt"), weights_only=False)
            with torch.no_grad():
                _time(torch, model, _to(torch, perf_inputs, device), result, result["notes"])
        result["status"] = result["status"] or "ok"
    except UserFileError as error:
        result["status"], result["detail"] = "invalid", str(error)
    except Exception as error:  # noqa: BLE001 - the user's code failed: its last line is the result
        result["status"], result["detail"] = "crash", _last_line(error)
        result["traceback_tail"] = traceback.format_exc().strip().splitlines()[-6:]
    result["phase"] = "done"
    result["elapsed_s"] = round(time.time() - started, 2)
    _write(workdir, role, result)
    return 0


if __name__ == "__main__":
    sys.exit(run(json.loads(sys.argv[1])))
