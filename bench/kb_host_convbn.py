"""Where the host time of fixtures/costmodel/kl004_convbn_after.py goes in KernelBench timing.

That validation file's fix (cuDNN's conv kept, the train-mode BatchNorm and ReLU in three Triton launches)
measured 0.67x of its before in KernelBench mode on both the H100 and the H200, 1.56x in a CUDA graph: a
single call after a sync took about 310 us (events without the flush), where its eager calls, back to back,
took 160 us each and the cost model's host costs give about 100. This times the file's forward cut down step
by step, and launches of trivial kernels (one kernel several times, several distinct kernels, a launch of
many arguments), in eager, KernelBench and events-without-flush timing (kernlint.kernels.timing).

Run on the GPU machine from the repository root: `python bench/kb_host_convbn.py [OUT.json]`;
`python bench/kb_host_convbn.py --profile` instead prints the after's host issue time per call (200 calls
back to back, with and without autograd recording) and torch.profiler's table of its ops' CPU time.
bench/kb_host_convbn_h200.md holds the runs. It imports the two fixture files (written here).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "kernels")]

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from kernlint.kernels import timing  # noqa: E402


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "fixtures" / "costmodel" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@triton.jit
def tiny_a(ptr, BLOCK: tl.constexpr):
    tl.store(ptr + tl.arange(0, BLOCK), tl.zeros((BLOCK,), dtype=tl.float32))


@triton.jit
def tiny_b(ptr, BLOCK: tl.constexpr):
    tl.store(ptr + tl.arange(0, BLOCK), tl.zeros((BLOCK,), dtype=tl.float32) + 1.0)


@triton.jit
def tiny_c(ptr, BLOCK: tl.constexpr):
    tl.store(ptr + tl.arange(0, BLOCK), tl.zeros((BLOCK,), dtype=tl.float32) + 2.0)


@triton.jit
def tiny_args(p0, p1, p2, p3, p4, p5, n0, n1, n2, f0, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(p0 + offs, tl.zeros((BLOCK,), dtype=tl.float32) + n0 + n1 + n2 + f0)


def variants() -> dict:
    after = _load("kl004_convbn_after")
    before = _load("kl004_convbn_before")
    torch.manual_seed(0)
    init = after.get_init_inputs()
    (x,) = [t.cuda() for t in after.get_inputs()]
    m_after = after.ModelNew(*init).cuda()
    m_before = before.ModelNew(*init).cuda()
    conv, norm = m_after.stage[0], m_after.stage[1]
    buf = torch.empty(1024, device="cuda")
    many = [torch.empty(1024, device="cuda") for _ in range(6)]

    def cut(steps: int):
        """The after's forward up to `steps` of its launches (1: the conv; 2: + statistics; 3: + normalize)."""

        def forward():
            y = conv(x)
            if steps == 1:
                return y
            N, C, H, W = y.shape
            HW = H * W
            stats = torch.zeros(2, C, device=y.device, dtype=torch.float32)
            after.channel_sums_kernel[(N * C, triton.cdiv(HW, after.CHUNK))](
                y, stats[0], stats[1], C, HW, CHUNK=after.CHUNK, BLOCK=after.BLOCK, num_warps=4
            )
            if steps == 2:
                return stats
            out = torch.empty_like(y)
            count = N * HW
            after.bn_relu_kernel[(N * C, triton.cdiv(HW, after.BLOCK))](
                y,
                out,
                stats[0],
                stats[1],
                norm.weight,
                norm.bias,
                C,
                HW,
                count,
                norm.eps,
                BLOCK=after.BLOCK,
                num_warps=4,
            )
            return out

        return forward

    return {
        "before (conv, BatchNorm2d, ReLU in torch)": lambda: m_before(x),
        "after (as committed)": lambda: m_after(x),
        "after without the running-statistics launch": cut(3),
        "conv, zeros, statistics launch": cut(2),
        "conv only": cut(1),
        "1 trivial launch": lambda: tiny_a[(1,)](buf, BLOCK=128),
        "3 launches of one trivial kernel": lambda: (
            tiny_a[(1,)](buf, BLOCK=128),
            tiny_a[(1,)](buf, BLOCK=128),
            tiny_a[(1,)](buf, BLOCK=128),
        ),
        "3 distinct trivial kernels": lambda: (
            tiny_a[(1,)](buf, BLOCK=128),
            tiny_b[(1,)](buf, BLOCK=128),
            tiny_c[(1,)](buf, BLOCK=128),
        ),
        "1 launch of 11 arguments": lambda: tiny_args[(1,)](*many, 3, 5, 7, 0.5, BLOCK=128),
        "3 launches of 11 arguments": lambda: (
            tiny_args[(1,)](*many, 3, 5, 7, 0.5, BLOCK=128),
            tiny_args[(1,)](*many, 3, 5, 7, 0.5, BLOCK=128),
            tiny_args[(1,)](*many, 3, 5, 7, 0.5, BLOCK=128),
        ),
        "torch.zeros(2, 128)": lambda: torch.zeros(2, 128, device="cuda"),
        "3 x torch.zeros(2, 128)": lambda: (
            torch.zeros(2, 128, device="cuda"),
            torch.zeros(2, 128, device="cuda"),
            torch.zeros(2, 128, device="cuda"),
        ),
    }


def _no_grad(fn):
    def call():
        with torch.no_grad():
            return fn()

    return call


def profile_after() -> None:
    """The after's host time per call, and which of its ops spend it (torch.profiler, CPU and CUDA)."""
    import time

    from torch.profiler import ProfilerActivity, profile

    after = _load("kl004_convbn_after")
    torch.manual_seed(0)
    model = after.ModelNew(*after.get_init_inputs()).cuda()
    (x,) = [t.cuda() for t in after.get_inputs()]
    for label, mode in (("autograd recording", torch.enable_grad), ("torch.no_grad()", torch.no_grad)):
        with mode():
            for _ in range(20):
                model(x)
            torch.cuda.synchronize()
            start = time.perf_counter()
            for _ in range(200):
                model(x)
            issued = time.perf_counter()
            torch.cuda.synchronize()
            print(f"{label}: host issue {(issued - start) / 200 * 1e6:.1f} us/call", flush=True)
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                for _ in range(50):
                    model(x)
                torch.cuda.synchronize()
            print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=14, max_name_column_width=40))


def main() -> None:
    if sys.argv[1:] == ["--profile"]:
        profile_after()
        return
    rows = []
    # Each variant with autograd recording and under torch.no_grad() (as kernlint verify and KernelBench time).
    cases = list(variants().items())
    cases += [(f"{name}, no_grad", _no_grad(fn)) for name, fn in cases]
    for name, fn in cases:
        fn()
        torch.cuda.synchronize()
        modes = {
            "graph": timing.graph(fn, repeats=2),
            "eager": timing.eager(fn, repeats=2),
            "kernelbench": timing.cuda_events(torch, fn, flush=True, repeats=2),
            "events_no_flush": timing.cuda_events(torch, fn, flush=False, repeats=2),
        }
        medians = {mode: round(t.median_us, 1) for mode, t in modes.items()}
        rows.append({"variant": name, **medians})
        print(f"| {name} | " + " | ".join(f"{medians[m]:.1f}" for m in modes) + " |", flush=True)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as handle:
            json.dump({"gpu": torch.cuda.get_device_name(), "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
