"""Where a pair's time goes: the GPU time of each kernel its before and after launch, per call.

    python -m kernlint.kernels.breakdown --pair kl007_masked_attention [--shape seq1k] [--calls 20] [--out F.json]

For each pair (all of them without --pair) and each of its record shapes (SHAPES), the before's and the
after's forward run once to warm up (compiles, autotuning), then `calls` times under torch.profiler with
CUDA activity; each kernel's device time is summed by kernel name and divided by `calls`. The table
prints the kernels largest first, with their share of the call. It is what the cost model's per-op terms
(`kernlint --format json`: `largest_terms`) are checked against: which op of a file runs slower than
estimated, where the whole call's measurement only says that one does.

The profiler adds no time to a kernel's own duration; the sum of the kernels is the GPU's busy time, not
a KernelBench or eager time (no host cost, no gaps between kernels).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict

from kernlint.kernels.verify import _load, _make_models, _select

WARMUP_CALLS = 3


def _kernel_times(torch, fn, calls: int) -> list[tuple[str, float, int]]:
    """(kernel name, GPU µs per call, launches per call), largest first, for `calls` calls of `fn`."""
    from torch.profiler import ProfilerActivity, profile

    with torch.no_grad():
        for _ in range(WARMUP_CALLS):
            fn()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                fn()
            torch.cuda.synchronize()
    total: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        total[event.name] += event.device_time_total if hasattr(event, "device_time_total") else event.cuda_time
        count[event.name] += 1
    rows = [(name, us / calls, count[name] // calls) for name, us in total.items()]
    return sorted(rows, key=lambda r: -r[1])


def run(pairs: tuple[str, ...], shapes: tuple[str, ...], calls: int, path: str | None = None) -> dict:
    """The breakdown of each pair and shape; written to `path` after each one (a run cut short keeps what
    it measured)."""
    import torch

    if not torch.cuda.is_available():
        raise SystemExit("breakdown: no CUDA GPU found (the profile is of GPU kernels)")
    torch.set_num_threads(1)
    for shared in ("_configs", "_epilogue", "_launch", "_int8_linear", "_int8_gemm"):
        _load(shared, False)
    out = {
        "tool": "kernlint.kernels.breakdown",
        "command": " ".join(["python -m kernlint.kernels.breakdown", *sys.argv[1:]]),
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "gpu": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "calls": calls,
        "pairs": [],
    }
    for pair in _select((), pairs):
        ref = _load(f"{pair}.reference", False)
        before, after = _load(f"{pair}.before", False), _load(f"{pair}.after", False)
        for name in shapes or tuple(ref.SHAPES):
            if name not in ref.SHAPES:
                continue
            dims = ref.SHAPES[name]
            models = _make_models(torch, ref, before, after, dims, "cuda", 0)
            inputs = ref.get_inputs(dims, device="cuda", generator=torch.Generator().manual_seed(5))
            entry = {"pair": pair, "shape": name}
            for role in ("before", "after"):
                try:
                    rows = _kernel_times(torch, lambda m=models[role], i=inputs: m(*i), calls)
                except Exception as error:  # noqa: BLE001 - one failing pair does not end the run
                    entry[role] = {"error": f"{type(error).__name__}: {error}"[:300]}
                    continue
                entry[role] = {
                    "gpu_us": round(sum(us for _, us, _ in rows), 2),
                    "kernels": [{"name": n[:160], "us": round(us, 2), "launches": k} for n, us, k in rows],
                }
            out["pairs"].append(entry)
            print(format_entry(entry), flush=True)
            if path:
                _write(out, path)
            models = inputs = None  # freed before the next shape's tensors are made
            torch.cuda.empty_cache()
    return out


def _write(result: dict, path: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(result, handle, indent=1)
        handle.write("\n")


def format_entry(entry: dict) -> str:
    lines = [f"## {entry['pair']} {entry['shape']}"]
    for role in ("before", "after"):
        side = entry.get(role, {})
        if "error" in side:
            lines.append(f"{role}: {side['error']}")
            continue
        lines.append(f"{role}: {side['gpu_us']:.1f} us of GPU time per call")
        for kernel in side["kernels"]:
            share = kernel["us"] / side["gpu_us"] if side["gpu_us"] else 0.0
            lines.append(f"  {kernel['us']:9.1f} us {share:5.0%} x{kernel['launches']}  {kernel['name'][:110]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kernlint.kernels.breakdown", description=__doc__.split("\n")[0])
    parser.add_argument("--pair", action="append", default=[], help="a pair of the library (repeatable; all without)")
    parser.add_argument("--shape", action="append", default=[], help="a shape of its SHAPES (repeatable)")
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--out", help="write the breakdown as JSON here too")
    args = parser.parse_args(argv)
    result = run(tuple(args.pair), tuple(args.shape), args.calls, args.out)
    if args.out:
        _write(result, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
