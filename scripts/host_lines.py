"""Where the host's time goes in one KernelBench-style call: each line of `ModelNew.forward` (or `Model.forward`
with --model Model), timed on the host with Python 3.12's sys.monitoring LINE events on forward's own code
only (a callee is not traced, so Triton's launcher runs at its own speed and is charged to the line that
launches it). Each call is made as KernelBench times one: after a 256 MiB L2-flushing fill, CUDA events
around the call (FLUSH=alloc: KernelBench's own fill, allocated and freed per call). One JSON line per file: the host time of the whole call, its KernelBench time, and each
line's mean host time, most expensive first.

    python scripts/host_lines.py OUT.jsonl FILE...      (needs a GPU and Python 3.12+)

It imports and runs the files it is given: run it only on files you trust.
"""

import importlib.util
import json
import os
import sys
import time

CALLS = int(os.environ.get("CALLS", "30"))
# FLUSH=alloc: allocate the fill's 256 MiB before each call and free it after, as KernelBench's clear_l2_cache
# does (and `kernlint verify`), instead of refilling one buffer: the caching allocator then hands the freed
# block to the call's own allocations.
FLUSH = os.environ.get("FLUSH", "keep")
# GRAD=1: autograd on, as `kernlint verify` and KernelBench call the models (no torch.no_grad()).
GRAD = os.environ.get("GRAD", "0") == "1"
# PRE=graph: time the call in a CUDA graph (kernlint.kernels.timing.graph, as `kernlint verify` does before its
# KernelBench mode) first, then profile: whether a graph capture changes what the eager calls after it cost.
PRE = os.environ.get("PRE", "")
TOOL = 3  # a sys.monitoring tool id no debugger or profiler claims (0-2 and 5 are reserved for those)


def _profile(path: str, class_name: str, torch) -> dict:
    name = "hostlines_" + os.path.basename(path)[:-3]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    torch.manual_seed(42)
    model = getattr(module, class_name)(*module.get_init_inputs()).cuda()
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in module.get_inputs()]
    code = type(model).forward.__code__
    flush = torch.empty(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
    spent: dict[int, float] = {}
    last: list = [None, 0]

    def on_line(_code, line):
        now = time.perf_counter_ns()
        if last[0] is not None:
            spent[last[0]] = spent.get(last[0], 0.0) + (now - last[1])
        last[0], last[1] = line, time.perf_counter_ns()

    mon = sys.monitoring
    mon.use_tool_id(TOOL, "kernlint-host-lines")
    mon.register_callback(TOOL, mon.events.LINE, on_line)
    host, kernelbench = [], []
    try:
        with torch.set_grad_enabled(GRAD):
            for _ in range(3):
                model(*inputs)
            torch.cuda.synchronize()
            if PRE == "graph":
                from kernlint.kernels import timing

                timing.graph(lambda: model(*inputs))
                torch.cuda.synchronize()
            mon.set_local_events(TOOL, code, mon.events.LINE)
            for _ in range(CALLS):
                if FLUSH == "alloc":
                    dummy = torch.empty(256 * 1024 * 1024 // 8, dtype=torch.int64, device="cuda")
                    dummy.fill_(42)
                    del dummy
                else:
                    flush.fill_(1)
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                began = time.perf_counter_ns()
                last[0] = None
                model(*inputs)
                finished = time.perf_counter_ns()
                if last[0] is not None:  # forward's last line runs until the call returns
                    spent[last[0]] = spent.get(last[0], 0.0) + (finished - last[1])
                end.record()
                torch.cuda.synchronize()
                host.append((finished - began) / 1e3)
                kernelbench.append(start.elapsed_time(end) * 1e3)
    finally:
        mon.set_local_events(TOOL, code, 0)
        mon.register_callback(TOOL, mon.events.LINE, None)
        mon.free_tool_id(TOOL)
    stream = torch.cuda.current_stream()
    source = open(path).read().splitlines()
    lines = sorted(spent.items(), key=lambda kv: -kv[1])
    return {
        "host_us": round(sum(host) / len(host), 1),
        "kernelbench_us": round(sum(kernelbench) / len(kernelbench), 1),
        "default_stream": stream == torch.cuda.default_stream(),
        "lines": [
            {"line": n, "host_us": round(ns / CALLS / 1e3, 2), "code": source[n - 1].strip()[:100]} for n, ns in lines
        ],
    }


def main() -> None:
    import torch

    args = sys.argv[1:]
    class_name = "ModelNew"
    if args[:1] == ["--model"]:
        class_name, args = args[1], args[2:]
    out_path, files = args[0], args[1:]
    with open(out_path, "a") as out:
        for path in files:
            try:
                result = dict(_profile(path, class_name, torch), status="ok")
            except Exception as error:  # noqa: BLE001
                result = {"status": "error", "detail": (type(error).__name__ + ": " + str(error))[:300]}
            result.update(file=path, model=class_name, flush=FLUSH, grad=GRAD, pre=PRE)
            out.write(json.dumps(result) + "\n")
            out.flush()
            print(json.dumps(result)[:2000], flush=True)


if __name__ == "__main__":
    main()
