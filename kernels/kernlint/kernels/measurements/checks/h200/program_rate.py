"""One Triton program's streaming rate against its tile's bytes and warps, for grids of 16, 64 and 128
programs (fewer than an H200's 132 SMs): a copy kernel (load, store per step) and a load-and-sum loop, each
program walking its own 16 MiB row. A check of the cost model's single `bw_program` constant (calibrate's
triton_stream_programs_N probes: 2 KiB fp16 tiles, 4 warps), not read by kernlint.

    kernels/kernlint/kernels/run_on_gpu.sh kernels/kernlint/kernels/measurements/checks/h200/program_rate.py > OUT.jsonl

Prints one JSON line per (programs, element size, BLOCK, warps): GB/s per program for each kernel.
"""

import functools
import json

import torch
import triton
import triton.language as tl


@triton.jit
def stream_rows(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < N
        tl.store(y_ptr + row * N + offs, tl.load(x_ptr + row * N + offs, mask=mask, other=0.0), mask=mask)


@triton.jit
def sum_rows(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, N, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row * N + offs, mask=offs < N, other=0.0).to(tl.float32)
    tl.store(y_ptr + row, tl.sum(acc, axis=0))


def _launch(kernel, programs: int, args: tuple, block: int, warps: int) -> None:
    kernel[(programs,)](*args, BLOCK=block, num_warps=warps)


def _milliseconds(kernel, programs: int, args: tuple, block: int, warps: int) -> float:
    return triton.testing.do_bench(functools.partial(_launch, kernel, programs, args, block, warps), warmup=5, rep=30)


def main() -> None:
    row_bytes = 16 << 20
    for programs in (16, 64, 128):
        for dtype in (torch.float16, torch.float32):
            n = row_bytes // dtype.itemsize
            x = torch.randn(programs * n, device="cuda", dtype=dtype)
            y = torch.empty_like(x)
            s = torch.empty(programs, device="cuda", dtype=torch.float32)
            for block in (512, 1024, 2048, 4096, 8192):
                for warps in (4, 8, 16):
                    if programs == 128 and warps != 4 and block != 4096:
                        continue

                    copy_ms = _milliseconds(stream_rows, programs, (x, y, n), block, warps)
                    sum_ms = _milliseconds(sum_rows, programs, (x, s, n), block, warps)
                    row = {
                        "programs": programs,
                        "elem": dtype.itemsize,
                        "block": block,
                        "warps": warps,
                        "copy_gbs_per_program": 2 * row_bytes / copy_ms / 1e6,
                        "sum_gbs_per_program": row_bytes / sum_ms / 1e6,
                    }
                    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
