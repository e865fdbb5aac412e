"""Time KernelBench-style files on a GPU: each file's `ModelNew` against its own `Model`, KernelBench's way
(a 256 MiB L2-flushing fill before each call, CUDA events around one forward, the mean of TRIALS calls after
3 warm-up calls), with the output's largest error relative to the reference's largest value. One JSON line
per file; a worker process is reused across files and restarted after a timeout or crash.

    python scripts/time_files.py OUT.jsonl FILE...      (PER_FILE_S, TRIALS from the environment)

Lighter than `kernlint verify FILE` (one mode, no repeats, a 1e-2 relative-error check instead of
KernelBench's 1e-4 allclose): it times a corpus of a hundred files within one device call. Each file starts
from torch's own TF32 defaults, so a file that switches TF32 on at import cannot change the next file's
reference. It imports and runs the files it is given: run it only on files you trust.
"""

import json
import multiprocessing as mp
import os
import sys
import time

PER_FILE_S = float(os.environ.get("PER_FILE_S", "120"))
TRIALS = int(os.environ.get("TRIALS", "20"))


def _time(model, inputs, torch, flush):
    for _ in range(3):
        model(*inputs)
    torch.cuda.synchronize()
    times = []
    for _ in range(TRIALS):
        flush.fill_(1)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        model(*inputs)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1000.0)
    return sum(times) / len(times)


def _one(path, torch, flush):
    import importlib.util

    # Each file starts from torch's defaults: a file that sets TF32 at import (as KernelBench runs it, for both
    # models) must not leak the setting into the next file's reference.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = True
    torch.set_float32_matmul_precision("highest")
    name = "blind_" + os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    torch.manual_seed(42)
    init = module.get_init_inputs()
    torch.manual_seed(42)
    ref = module.Model(*init).cuda()
    torch.manual_seed(42)
    new = module.ModelNew(*init).cuda()
    torch.manual_seed(7)
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in module.get_inputs()]
    with torch.no_grad():
        out_ref = ref(*inputs)
        out_new = new(*inputs)
        torch.cuda.synchronize()
        if isinstance(out_ref, (tuple, list)):
            out_ref, out_new = out_ref[0], out_new[0]
        err = float((out_new.float() - out_ref.float()).abs().max()) if out_ref.shape == out_new.shape else float("inf")
        scale = float(out_ref.float().abs().max()) or 1.0
        ref_us = _time(ref, inputs, torch, flush)
        new_us = _time(new, inputs, torch, flush)
    del ref, new, inputs, out_ref, out_new
    torch.cuda.empty_cache()
    return {"ref_us": ref_us, "new_us": new_us, "speedup": ref_us / new_us, "max_abs_err": err, "rel_err": err / scale}


def worker(conn):
    import torch

    flush = torch.empty(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
    while True:
        path = conn.recv()
        if path is None:
            return
        try:
            result = _one(path, torch, flush)
            result["status"] = "ok"
        except Exception as error:  # noqa: BLE001
            result = {"status": "error", "detail": (type(error).__name__ + ": " + str(error))[:300]}
            try:
                torch.cuda.synchronize()
            except Exception:  # noqa: BLE001
                conn.send(dict(result, fatal=True))
                return
        conn.send(result)


def main():
    out_path, files = sys.argv[1], sys.argv[2:]
    ctx = mp.get_context("spawn")
    proc = conn = None
    with open(out_path, "a") as out:
        for path in files:
            if proc is None or not proc.is_alive():
                conn, child = ctx.Pipe()
                proc = ctx.Process(target=worker, args=(child,), daemon=True)
                proc.start()
            begin = time.time()
            conn.send(path)
            if conn.poll(PER_FILE_S):
                try:
                    result = conn.recv()
                except EOFError:
                    result = {"status": "crash"}
                    proc = None
            else:
                result = {"status": "timeout"}
                proc.kill()
                proc.join()
                proc = None
            if result.get("fatal"):
                proc.join(5)
                proc = None
            result.update(file=path, seconds=round(time.time() - begin, 1))
            out.write(json.dumps(result) + "\n")
            out.flush()
            print(json.dumps(result), flush=True)
    if proc is not None and proc.is_alive():
        conn.send(None)


if __name__ == "__main__":
    main()
