"""The timing modes of `kernlint verify`, shared by the library run and by `kernlint verify FILE`.

How a GPU call is timed changes what it appears to cost, so every number
names its mode:

  * ``graph``: ``triton.testing.do_bench_cudagraph``: the call captured in a
    CUDA graph and replayed: GPU time, no Python launch overhead.
  * ``eager``: ``triton.testing.do_bench`` of ``EAGER_BATCH`` back-to-back
    calls, divided by the batch: steady-state eager calls, launch overhead
    included (one call per rep would hide the launch behind do_bench's own
    L2-flush memset).
  * ``kernelbench``: KernelBench's default method reproduced
    (``time_execution_with_cuda_event`` in ScalingIntelligence/KernelBench
    ``src/kernelbench/timing.py``, as called by ``eval_kernel_against_ref``
    with ``scripts/eval_from_generations.py``'s defaults): 3 warm-up calls
    (each followed by a synchronize), ``torch.cuda.empty_cache()``, then
    1 + 100 trials, the first discarded; each trial synchronizes, flushes L2
    by filling a freshly allocated 256 MiB int64 tensor, records a CUDA event,
    makes ONE call, records an event and synchronizes.  KernelBench reports
    the mean; the median is recorded beside it.
  * ``events_no_flush``: the same events around one call without the flush.
    Without a fill in front of it the GPU is idle when the call starts, so the
    time between the events is the host's launch cost whenever that exceeds
    the GPU time: it shows host overhead directly.

Each mode is repeated (``repeats``) and every repeat's summary is kept, so a
record shows the run-to-run spread and not only one number.

torch and triton are passed in or imported inside functions: the lint CLI
imports kernlint.kernels modules to register `kernlint verify`.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass

EAGER_BATCH = 10
GRAPH_REP_MS = 100
EAGER_WARMUP_MS = 25
EAGER_REP_MS = 200
REPEATS = 3
# KernelBench's defaults: time_execution_with_cuda_event(num_warmup=3,
# discard_first=1) and eval_from_generations.py's num_perf_trials = 100.
KERNELBENCH_WARMUP = 3
KERNELBENCH_TRIALS = 100
KERNELBENCH_DISCARD_FIRST = 1
# KernelBench's clear_l2_cache: torch.empty((32, 1024, 1024), dtype=torch.int64).fill_(42), 256 MiB.
KERNELBENCH_FLUSH_SHAPE = (32, 1024, 1024)

DESCRIPTIONS = {
    "graph": f"triton.testing.do_bench_cudagraph(rep={GRAPH_REP_MS} ms): per-call time of CUDA-graph replays "
    "(GPU time, no launch overhead)",
    "eager": f"triton.testing.do_bench(warmup={EAGER_WARMUP_MS} ms, rep={EAGER_REP_MS} ms) of {EAGER_BATCH} "
    f"back-to-back calls / {EAGER_BATCH} (launch overhead included)",
    "kernelbench": f"KernelBench's default cuda_event timing: {KERNELBENCH_WARMUP} warm-up calls, then "
    f"{KERNELBENCH_DISCARD_FIRST} + {KERNELBENCH_TRIALS} trials (first discarded) of CUDA events "
    "around one call, L2 flushed by a 256 MiB int64 fill before each trial; KernelBench reports the mean",
    "events_no_flush": f"as kernelbench but without the L2 flush ({KERNELBENCH_TRIALS} trials): an idle GPU at each "
    "call, so host launch cost shows directly",
}
MODES = tuple(DESCRIPTIONS)


@dataclass(frozen=True)
class ModeTime:
    """One mode's samples (µs per call), pooled over `repeats`, and each repeat's median and mean."""

    mode: str
    samples_us: tuple[float, ...]
    repeat_medians_us: tuple[float, ...]
    repeat_means_us: tuple[float, ...]

    @property
    def median_us(self) -> float:
        return statistics.median(self.samples_us)

    @property
    def mean_us(self) -> float:
        return statistics.fmean(self.samples_us)

    def as_dict(self) -> dict:
        s = self.samples_us
        return {
            "median_us": _round(self.median_us),
            "mean_us": _round(self.mean_us),
            "std_us": _round(statistics.pstdev(s)) if len(s) > 1 else 0.0,
            "min_us": _round(min(s)),
            "max_us": _round(max(s)),
            "samples": len(s),
            "repeat_medians_us": [_round(v) for v in self.repeat_medians_us],
            "repeat_means_us": [_round(v) for v in self.repeat_means_us],
        }


def mean_speedup_by_repeat(before: dict, after: dict) -> list[float]:
    """Before's mean over after's mean, repeat by repeat (a mode's dict from `as_dict`).

    Repeats are timed interleaved, so repeat i of before and of after saw the
    same machine: one repeat far from the others is a spike in that repeat
    (a stalled host, another process on the GPU), not a property of the
    kernel, and the pooled mean, which KernelBench reports, carries it whole.
    """
    return [_round(b / a) for b, a in zip(before["repeat_means_us"], after["repeat_means_us"])]


def _round(v: float, nd: int = 4) -> float:
    return float(f"{v:.{nd}g}")


def _summarize(mode: str, repeats: list[list[float]]) -> ModeTime:
    return ModeTime(
        mode,
        tuple(v for r in repeats for v in r),
        tuple(statistics.median(r) for r in repeats),
        tuple(statistics.fmean(r) for r in repeats),
    )


def merge(parts: list[ModeTime]) -> ModeTime:
    """One mode's ModeTimes from separate runs (each run a repeat), pooled into one."""
    if not parts or len({p.mode for p in parts}) != 1:
        raise ValueError("merge needs ModeTimes of one mode")
    return ModeTime(
        parts[0].mode,
        tuple(v for p in parts for v in p.samples_us),
        tuple(v for p in parts for v in p.repeat_medians_us),
        tuple(v for p in parts for v in p.repeat_means_us),
    )


def graph(fn: Callable[[], object], *, repeats: int = REPEATS, rep_ms: int = GRAPH_REP_MS) -> ModeTime:
    import triton.testing as tt

    runs = [[ms * 1e3 for ms in tt.do_bench_cudagraph(fn, rep=rep_ms, return_mode="all")] for _ in range(repeats)]
    return _summarize("graph", runs)


def eager(
    fn: Callable[[], object],
    *,
    repeats: int = REPEATS,
    batch: int = EAGER_BATCH,
    warmup_ms: int = EAGER_WARMUP_MS,
    rep_ms: int = EAGER_REP_MS,
) -> ModeTime:
    import triton.testing as tt

    def calls():
        for _ in range(batch):
            fn()

    runs = [
        [ms * 1e3 / batch for ms in tt.do_bench(calls, warmup=warmup_ms, rep=rep_ms, return_mode="all")]
        for _ in range(repeats)
    ]
    return _summarize("eager", runs)


def clear_l2_cache(torch, device) -> None:
    """KernelBench's clear_l2_cache: allocate 256 MiB of int64, fill it, drop it."""
    dummy = torch.empty(KERNELBENCH_FLUSH_SHAPE, dtype=torch.int64, device=device)
    dummy.fill_(42)
    del dummy


def cuda_events(
    torch,
    fn: Callable[[], object],
    *,
    flush: bool,
    repeats: int = REPEATS,
    num_warmup: int = KERNELBENCH_WARMUP,
    num_trials: int = KERNELBENCH_TRIALS,
    discard_first: int = KERNELBENCH_DISCARD_FIRST,
    device=None,
) -> ModeTime:
    """KernelBench's time_execution_with_cuda_event (flush=True), or the same without the flush."""
    device = torch.cuda.current_device() if device is None else device
    runs = []
    with torch.cuda.device(device):
        for _ in range(repeats):
            for _ in range(num_warmup):
                fn()
                torch.cuda.synchronize(device=device)
            torch.cuda.empty_cache()
            times = []
            for trial in range(num_trials + discard_first):
                torch.cuda.synchronize(device=device)
                start = torch.cuda.Event(enable_timing=True)
                end = torch.cuda.Event(enable_timing=True)
                if flush:
                    clear_l2_cache(torch, device)
                start.record()
                fn()
                end.record()
                torch.cuda.synchronize(device=device)
                if trial >= discard_first:
                    times.append(start.elapsed_time(end) * 1e3)
            runs.append(times)
    return _summarize("kernelbench" if flush else "events_no_flush", runs)


def all_modes(torch, fn: Callable[[], object], *, repeats: int = REPEATS) -> dict[str, ModeTime]:
    """Every mode for one call, in MODES order (each a ModeTime)."""
    return {
        "graph": graph(fn, repeats=repeats),
        "eager": eager(fn, repeats=repeats),
        "kernelbench": cuda_events(torch, fn, flush=True, repeats=repeats),
        "events_no_flush": cuda_events(torch, fn, flush=False, repeats=repeats),
    }


def copy_bandwidth_tb_s(torch) -> float:
    """Device-to-device copy rate in TB/s (bytes read + bytes written) of a 1 GiB copy, median."""
    import triton.testing as tt

    n = 1 << 28
    src = torch.empty(n, device="cuda", dtype=torch.float32).uniform_()
    dst = torch.empty_like(src)
    ms = tt.do_bench(lambda: dst.copy_(src), warmup=25, rep=200, return_mode="median")
    src = dst = None  # free 2 GiB before the caller's next allocation
    torch.cuda.empty_cache()
    return 2 * 4 * n / (ms * 1e-3) / 1e12
