"""Host cost of a torch matmul on a column slice of a weight (a strided view) against a contiguous weight.

Run on the GPU machine: `python bench/strided_host.py`; bench/strided_host_h100.md holds one run.
"""

import time
from collections.abc import Callable

import torch


def per_call(fn: Callable[[], object], n: int = 2000) -> float:
    """Wall microseconds per call of a loop of `n` calls, synchronized once at each end."""
    for _ in range(50):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / n * 1e6


def variants(x: torch.Tensor, w: torch.Tensor, k: int) -> dict[str, Callable[[], object]]:
    wc = w[:, :k].contiguous()
    return {
        "contiguous w.t()": lambda: x @ wc.t(),
        "slice w[:, :K].t()": lambda: x @ w[:, :k].t(),
        "slice view only": lambda: w[:, :k].t(),
        "F.linear slice": lambda: torch.nn.functional.linear(x, w[:, :k]),
        "slice .contiguous()": lambda: w[:, :k].contiguous(),
    }


def main() -> None:
    for m, k, n in ((16, 64, 64), (16, 4096, 4096)):
        x = torch.randn(m, k, device="cuda", dtype=torch.float16)
        w = torch.randn(n, 2 * k, device="cuda", dtype=torch.float16)
        for name, fn in variants(x, w, k).items():
            print(f"M={m} K={k} N={n} {name:22s} {per_call(fn):8.1f} us/call")


if __name__ == "__main__":
    main()
