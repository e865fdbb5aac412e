"""A Triton product written without tl.dot (KL020's multiply-add loop) at several accumulator tiles, with its
A column read a row apart per lane (the calibration's `triton_fma_gemm` probe: A [M, K] row-major) or
coalesced (A stored [K, M]: a column of A is a contiguous run, as a direct convolution's pixels are).

Run on the GPU machine: `python bench/fma_tiles.py [OUT.json]`. Prints one row per variant: time (CUDA graph
replay, median of do_bench_cudagraph) and TFLOPS; bench/fma_tiles_h200.md holds one run.
"""

import json
import sys

import torch
import triton
import triton.language as tl

M, N, K = 4096, 4096, 1024
TILES = ((32, 32, 4), (64, 64, 4), (64, 64, 8), (128, 64, 4), (128, 64, 8), (64, 128, 4), (128, 128, 8))


@triton.jit
def fma_gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_m = offs_m < M
    mask_n = offs_n < N
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K):
        a = tl.load(a_ptr + offs_m * stride_am + k * stride_ak, mask=mask_m, other=0.0)
        b = tl.load(b_ptr + k * N + offs_n, mask=mask_n, other=0.0)
        acc += a[:, None] * b[None, :]
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=mask_m[:, None] & mask_n[None, :])


def main() -> None:
    a = torch.randn(M, K, device="cuda")
    at = a.t().contiguous()  # [K, M]: a column of A is contiguous
    b = torch.randn(K, N, device="cuda")
    c = torch.empty(M, N, device="cuda")
    ref = a @ b
    rows = []
    for bm, bn, warps in TILES:
        for layout, (src, sm, sk) in {"strided": (a, K, 1), "coalesced": (at, 1, M)}.items():
            grid = (triton.cdiv(M, bm), triton.cdiv(N, bn))

            def run(src=src, sm=sm, sk=sk, grid=grid, bm=bm, bn=bn, warps=warps):
                fma_gemm[grid](src, b, c, M, N, K, sm, sk, BLOCK_M=bm, BLOCK_N=bn, num_warps=warps)

            run()
            err = (c - ref).abs().max().item()
            us = triton.testing.do_bench_cudagraph(run, rep=100) * 1e3
            tflops = 2 * M * N * K / us / 1e6
            rows.append(
                {
                    "tile": f"{bm}x{bn}",
                    "warps": warps,
                    "a": layout,
                    "us": round(us, 1),
                    "tflops": round(tflops, 2),
                    "max_err": err,
                }
            )
            print(f"| {bm}x{bn} | w{warps} | A {layout:9s} | {us:9.1f} us | {tflops:6.2f} TFLOPS |", flush=True)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as handle:
            json.dump({"gpu": torch.cuda.get_device_name(), "M": M, "N": N, "K": K, "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
