"""A Triton implicit-GEMM convolution's tl.dot rate by the layouts of its operands, TF32 and tf32x3, beside a
plain 4096^3 GEMM's: a 3x3 Conv2d(64, 128) over 16x64x128x128 fp32, A gathered from the input as NCHW (a tile's
rows adjacent pixels of a channel plane: unit stride along M, through `% W` and `// W`) or as NHWC (channels
contiguous: unit stride along K), B read from the weight made once as (C_out, kh, kw, C_in) (K contiguous) or as
(kh, kw, C_in, C_out) (N contiguous). CUDA-graph medians (`triton.testing.do_bench_cudagraph`).

Run on the GPU machine: `python bench/conv_layout.py` (writes conv_layout.json to $OUT or here);
bench/conv_layout_h200.md holds one run.
"""

import functools
import json
import os

import torch
import triton
import triton.language as tl


@triton.jit
def conv(
    x_ptr,
    w_ptr,
    y_ptr,
    N,
    C_in,
    H,
    W,
    C_out,
    sxn,
    sxc,
    sxh,
    sxw,
    swo,
    swi,
    swt,
    KS: tl.constexpr,
    PREC: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    m_ok = offs_m < N * H * W
    ow = offs_m % W
    oh = (offs_m // W) % H
    n = offs_m // (W * H)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for kh in tl.static_range(KS):
        for kw in tl.static_range(KS):
            ih = oh + kh - KS // 2
            iw = ow + kw - KS // 2
            valid = m_ok & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            pix = n.to(tl.int64) * sxn + ih * sxh + iw * sxw
            for c0 in range(0, C_in, BK):
                ci = c0 + offs_k
                a = tl.load(x_ptr + pix[:, None] + ci[None, :] * sxc, mask=valid[:, None], other=0.0)
                b = tl.load(w_ptr + offs_n[None, :] * swo + ci[:, None] * swi + (kh * KS + kw) * swt)
                acc = tl.dot(a, b, acc, input_precision=PREC)
    tl.store(y_ptr + offs_m[:, None] * C_out + offs_n[None, :], acc, mask=m_ok[:, None])


@triton.jit
def gemm(
    a_ptr,
    b_ptr,
    c_ptr,
    M,
    N,
    K,
    sam,
    sak,
    sbk,
    sbn,
    PREC: tl.constexpr,
    BM: tl.constexpr,
    BN: tl.constexpr,
    BK: tl.constexpr,
):
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + offs_m[:, None] * sam + (k + offs_k)[None, :] * sak)
        b = tl.load(b_ptr + (k + offs_k)[:, None] * sbk + offs_n[None, :] * sbn)
        acc = tl.dot(a, b, acc, input_precision=PREC)
    tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)


def _row(kind: str, prec: str, a: str, b: str, tile: tuple[int, ...], flops: int, run) -> dict:
    try:
        ms = triton.testing.do_bench_cudagraph(run)
    except Exception as error:  # a config the GPU cannot run: recorded, not fatal
        return {"kind": kind, "prec": prec, "a": a, "b": b, "tile": list(tile), "us": None, "error": str(error)[:200]}
    return {
        "kind": kind,
        "prec": prec,
        "a": a,
        "b": b,
        "tile": list(tile),
        "us": ms * 1e3,
        "tflops": flops / (ms * 1e-3) / 1e12,
    }


def main() -> None:
    out = []
    batch, c_in, c_out, side, taps = 16, 64, 128, 128, 3
    x_nchw = torch.randn(batch, c_in, side, side, device="cuda")
    x_nhwc = x_nchw.permute(0, 2, 3, 1).contiguous()
    w = torch.randn(c_out, c_in, taps, taps, device="cuda")
    w_k = w.permute(0, 2, 3, 1).contiguous()  # (C_out, kh, kw, C_in): K contiguous
    w_n = w.permute(2, 3, 1, 0).contiguous()  # (kh, kw, C_in, C_out): N contiguous
    y = torch.empty(batch * side * side, c_out, device="cuda")
    flops = 2 * batch * side * side * c_out * c_in * taps * taps
    inputs = {
        "A-Mgather": (x_nchw, (c_in * side * side, side * side, side, 1)),
        "A-K": (x_nhwc, (side * side * c_in, 1, side * c_in, c_in)),
    }
    weights = {"B-K": (w_k, (taps * taps * c_in, 1, c_in)), "B-N": (w_n, (1, c_out, c_in * c_out))}
    for prec in ("tf32", "tf32x3"):
        for a_name, (x, sx) in inputs.items():
            for b_name, (weight, sw) in weights.items():
                for bm, bn, bk, warps in ((128, 128, 32, 8), (128, 64, 32, 4)):
                    grid = (triton.cdiv(batch * side * side, bm), triton.cdiv(c_out, bn))
                    run = functools.partial(
                        conv[grid],
                        x,
                        weight,
                        y,
                        batch,
                        c_in,
                        side,
                        side,
                        c_out,
                        *sx,
                        *sw,
                        KS=taps,
                        PREC=prec,
                        BM=bm,
                        BN=bn,
                        BK=bk,
                        num_warps=warps,
                    )
                    out.append(_row("conv", prec, a_name, b_name, (bm, bn, bk, warps), flops, run))
                    print(out[-1], flush=True)
    m = n = k = 4096
    a = torch.randn(m, k, device="cuda")
    b = torch.randn(k, n, device="cuda")
    c = torch.empty(m, n, device="cuda")
    operands_a = {"A-K": (a, (k, 1)), "A-M": (a.t().contiguous(), (1, m))}
    operands_b = {"B-N": (b, (n, 1)), "B-K": (b.t().contiguous(), (1, k))}
    for a_name, (aa, sa) in operands_a.items():
        for b_name, (bb, sb) in operands_b.items():
            for bm, bn, bk, warps in ((128, 128, 32, 8), (128, 64, 32, 4)):
                run = functools.partial(
                    gemm[(m // bm, n // bn)],
                    aa,
                    bb,
                    c,
                    m,
                    n,
                    k,
                    *sa,
                    *sb,
                    PREC="tf32",
                    BM=bm,
                    BN=bn,
                    BK=bk,
                    num_warps=warps,
                )
                out.append(_row("gemm", "tf32", a_name, b_name, (bm, bn, bk, warps), 2 * m * n * k, run))
                print(out[-1], flush=True)
    with open(os.path.join(os.environ.get("OUT", "."), "conv_layout.json"), "w") as handle:
        json.dump(out, handle, indent=1)


if __name__ == "__main__":
    main()
