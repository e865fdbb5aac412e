"""A Triton tl.dot GEMM's rate by the layout of its B operand: B [K, N] row-major (N contiguous, as the
calibration's triton_dot_tile_* probes read it) against B read transposed out of a weight [N, K] (K contiguous,
as a kernel reads an nn.Linear weight), 4096^3, fp16 and fp32 as TF32, at a few tile configs.

Run on the GPU machine: `python bench/dot_layout.py`; bench/dot_layout_h100.md holds one run.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def dot_gemm(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    stride_bk,
    stride_bn,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
        b = tl.load(b_ptr + (k + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn)
        acc += tl.dot(a, b)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(c_ptr.dtype.element_ty))


CONFIGS = ((64, 64, 32, 4, 3), (128, 64, 32, 4, 3), (128, 128, 32, 4, 3), (128, 128, 32, 8, 3), (128, 256, 64, 8, 3))


def time_us(a, b, c, strides, config) -> float:
    n = a.shape[0]
    bm, bn, bk, warps, stages = config

    def run():
        dot_gemm[(n // bm, n // bn)](
            a, b, c, n, n, n, *strides, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, num_warps=warps, num_stages=stages
        )

    return triton.testing.do_bench_cudagraph(run, return_mode="median") * 1e3


def main() -> None:
    n = 4096
    for dtype in (torch.float16, torch.float32):
        a = torch.randn(n, n, device="cuda", dtype=dtype)
        b_rows = torch.randn(n, n, device="cuda", dtype=dtype)  # B[k, n] at b_rows[k, n]
        weight = torch.randn(n, n, device="cuda", dtype=dtype)  # B[k, n] at weight[n, k]
        c = torch.empty(n, n, device="cuda", dtype=dtype)
        label = "tf32" if dtype == torch.float32 else "fp16"
        for config in CONFIGS:
            row = []
            for b, strides in ((b_rows, (n, 1)), (weight, (1, n))):
                try:
                    us = time_us(a, b, c, strides, config)
                    row.append(f"{us:8.1f} us {2 * n**3 / us / 1e6:6.0f} TFLOPS")
                except Exception as error:  # a config whose tiles do not fit shared memory
                    row.append(f"failed: {type(error).__name__}")
            bm, bn, bk, warps, stages = config
            print(f"{label} {bm}x{bn}x{bk} w{warps} s{stages}: B row-major {row[0]} | B K-major (weight) {row[1]}")


if __name__ == "__main__":
    main()
