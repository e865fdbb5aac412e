"""Measure the constants of kernlint's cost model (`kernlint.cost`) on one GPU.

    kernels/kernlint/kernels/run_on_gpu.sh -m kernlint.kernels.calibrate --record calibration_h100.json

Every constant the cost model uses comes from a probe timed here, in the
same harness and modes as `kernlint verify` (`kernlint.kernels.timing`): a
probe is a small function of torch (or Triton) calls whose bytes and flops
are known, timed in CUDA-graph, eager and KernelBench mode. The record keeps
the probes' raw times; `kernlint.cost.derive_constants` turns them into the
model's constants when the record is read, so no constant is ever typed by
hand and a reader can check each one against the times it came from.

Probes (each name is a key of the record's "probes"):

  * ``copy_*``, ``add_fp16``: streaming bandwidth (bytes / graph time);
  * ``transpose_fp16``, ``transpose_fp32``: a transposed copy
    (``w.t().contiguous()``), which reads or writes with a stride;
  * ``copy_heads_fp16``, ``copy_heads_fp32``: a permuted copy that keeps the
    last axis (attention's heads put back, ``o.transpose(1, 2).contiguous()``
    over [32, 16, 2048, 64]): rows of 64 elements move whole;
  * ``gemm_*``: a large GEMM per execution path (fp32 FMA, tf32, fp16, bf16
    tensor cores, int8 ``torch._int_mm``); ``sdpa_fp16``: fused attention;
  * ``gemm_skinny_fp32``, ``gemm_skinny_fp16``: a GEMM of ``SKINNY_M`` rows
    against an 8192 x 8192 operand (a decode step), bound by reading that
    operand: the rate cuBLAS's kernels for so few rows reach;
  * ``gemm_int8_tn``: ``torch._int_mm`` on a weight stored [N, K] and passed
    as its ``.t()``, the layout cuBLASLt's int8 kernels take (an int8 linear
    layer's; ``gemm_int8``'s row-major B runs on a path ~6x slower);
  * ``triton_fma_gemm``: a Triton GEMM written without ``tl.dot`` (a 64x64
    tile per program adding the outer product of a column of A and a row of
    B at each k, fp32): what a product on the CUDA cores costs in Triton;
  * ``triton_dot_fp16``, ``triton_dot_tf32``, ``triton_dot_fp32``: a Triton
    GEMM with ``tl.dot`` and one fixed 128x128x32 tile (fp16 operands; fp32
    as TF32; fp32 with ``input_precision="ieee"``): what a kernel's own
    product runs at, well below cuBLAS's rate for the same path;
  * ``triton_dot_tile_{fp16,tf32}_{BM}x{BN}x{BK}_w{W}_s{S}``: the same 4096^3
    GEMM at each tile config of ``DOT_CONFIGS`` (tiles, warps, stages),
    graph mode only: a kernel's product at its own fixed tile, and the best
    of KL003's autotuning set at a file's shapes (its fix);
  * ``triton_strided_lanes_fp32``: column sums of a 1 GiB fp32 [16, 4096,
    4096], one program per column: a load whose lanes read elements a row
    apart (KL030's uncoalesced load);
  * ``triton_dot_tile_{fp16k,tf32k}_{BM}x{BN}x{BK}_w{W}_s{S}``: the same, B
    read K-major out of a weight [N, K] (as kernels read an nn.Linear
    weight), where TF32 runs about 3x faster than on a row-major B (first
    measured as a supplement: ``--only triton_dot_tile_tf32k_ --only
    triton_dot_tile_fp16k_`` adds probes to an existing record);
  * ``triton_dot_tile_{tf32m,tf32mk}_{BM}x{BN}x{BK}_w{W}_s{S}``: the same,
    A read M-major (A = a.t() of an a [K, M]: an implicit-GEMM convolution
    gathering NCHW pixels as A's rows), B row-major (``m``) or K-major
    (``mk``): on an H200 TF32 ran at about the row-major-B rate with B
    K-major, and about half of it with B row-major (fp16 does not care);
    supplement: ``--only triton_dot_tile_tf32m``;
  * ``triton_dot_programs_{fp16,tf32,fp16k,tf32k}_{BM}x{BN}x{BK}_w{W}_s{S}``:
    the same kernel at each config over ``DOT_PROGRAMS`` output tiles (one
    row of tiles, N = DOT_PROGRAMS x BN, K = ``DOT_PROGRAMS_K``), fewer
    programs than SMs: each program streams its slice of B as fast as the
    tiles its loop keeps in flight allow, far below an SM's share of the
    bandwidth (a decode-shaped GEMM whose grid leaves SMs idle); graph only;
  * ``triton_dot_smallk_{fp16,tf32,fp32}``: a tl.dot GEMM with K = 64 (16384 x
    64 @ 64 x 16384, tile ``SMALLK_TILE``), whose time is its output, not its
    product; the fp32 path with ``input_precision="ieee"`` beside TF32 (on an
    H200 the two take about the same time: the TF32 fix of such a kernel
    gains little);
  * ``triton_dot_store_{fp16,tf32,fp16k,tf32k}_{BM}x{BN}x{BK}_w{W}_s{S}``: the
    same small-K product at every config of ``DOT_CONFIGS`` (K = 64, or one
    BLOCK_K step), B row-major or K-major: the time per output byte of a
    tl.dot kernel whose K is a step or two, which bounds such a kernel in the
    cost model (`bw_dot_store_*`); graph only;
  * ``broadcast_mul_fp16``: ``a[:, None] * b`` in fp16 (a row scaling, a bias
    add): an elementwise op with a broadcast operand, which PyTorch runs
    unvectorized (~1.6 TB/s where a plain stream runs 3);
  * ``broadcast_mul_fp32``: the same broadcast op in fp32;
  * ``triton_stream_fp32``, ``triton_stream_fp16``: a Triton copy of 1 GiB,
    one ``STREAM_BLOCK``-element block per program: the rate of a Triton
    elementwise (fused) kernel over a full grid;
  * ``triton_stream_programs_N``: a Triton grid of N programs (N < SMs), each
    streaming its own row in ``STREAM_BLOCK``-element steps (load, store):
    the bandwidth one program reaches, for grids that leave SMs idle;
  * ``conv2d_kK``: a cuDNN fp32 3x3 convolution (TF32 allowed, torch's
    default) whose GEMM depth K (input channels x taps) is 27, 144 and 576:
    convolutions run far below a GEMM's rate, the more so as K shrinks;
  * ``conv3d_kK``, ``conv_transpose3d_kK``, ``conv_transpose2d_kK``: the same
    for a 3x3x3 convolution and for 3x3x3 and 3x3 transposed convolutions of
    stride 2 (KernelBench's level-2 shapes), without bias; K is input channels
    x taps, as the cost model counts it: cuDNN runs these families at rates
    of their own, far from a 2-D convolution's at the same depth;
  * ``triton_scalar_programs``: a grid of ``SCALAR_PROGRAMS`` programs of
    one fp32 element each (load, add, store): what scheduling one program
    costs, which such grids are bound by (KL019);
  * ``triton_scalar_loop_wide``, ``triton_scalar_loop_narrow``: one output per
    program, each looping over scalar loads down a column of a 3-D fp32
    tensor (a sum over its middle dimension written one element at a time),
    over a grid far larger than the GPU holds at once and over two programs
    per SM: the GPU-wide rate of such loops and one program's (KL019);
  * ``jit_per_call``: a ``@triton.jit`` kernel defined inside the call and
    launched once: the host cost of a kernel object made on every call
    (KL017), beyond ``tiny_triton_1``'s plain launch;
  * ``tiny_ops_N``: N one-element torch ops: the per-kernel GPU floor (graph),
    the host cost per torch op (eager) and how much of it KernelBench's L2
    flush hides (kernelbench); ``tiny_triton_N``: the same for Triton launches;
    ``tiny_autotuned_N``: for launches of an ``@triton.autotune`` kernel (the
    autotuner's own Python work on every call: its key, its cache lookup);
  * ``module_ops_N``: the same N ops in an ``nn.Module``'s forward, called as
    a harness calls a model: what a call costs beyond its ops;
  * ``tiny_view_N``: N views taken by indexing (``x[:, i]``, no kernel) and one
    op; ``tiny_setitem_N``: N assignments into such a view (``out[:, i] = v``:
    the indexing, then a copy kernel): what a step loop's indexing costs the host;
  * ``tiny_alloc_N``: N small allocations (``torch.zeros``);
  * ``tiny_empty_N``: N small allocations without a fill (``torch.empty``,
    a kernel's output buffer): host cost only, no kernel;
  * ``layer_conv_N``, ``layer_batchnorm_N``, ``layer_linear_N``: N calls of
    one small layer (a 3x3 conv and a train-mode BatchNorm2d over
    [2, 32, 56, 56], a Linear over [2, 256]) in a module's forward: a small
    network's per-layer GPU time (graph) and host cost (eager, KernelBench),
    both above a one-element op's (cuDNN's and the norm's several kernels,
    their Python and dispatch);
  * ``tiny_triton_args_N``: N launches of a Triton kernel of ``LAUNCH_ARGS``
    arguments (pointers, sizes, a float): a launch's host cost grows with its
    arguments (Triton checks and specializes each one on every call);
  * ``library_*`` (KL029): PyTorch's own CUDA kernels where they run far from
    the bytes they must move: ``library_{max,avg}_pool{1,2,3}d_kK_sS`` (one
    thread per output with generic index arithmetic; a max pool finds the
    argmax too), at two windows each, so that a pool's time is fitted per
    output and per tap; ``library_batch_norm`` (train mode),
    ``library_group_norm``, ``library_instance_norm``, ``library_layer_norm_rows_R``
    (R rows, one block each: 32768 rows of 4096, and 8 huge rows that leave most SMs idle),
    ``library_{softmax,log_softmax}_cols_C`` (rows of C elements: several
    passes where a row does not stay on chip), ``library_scan`` (cumsum along
    the last dimension), ``library_depthwise_conv2d_kK`` (a K x K depthwise
    nn.Conv2d with its bias, at K = 3 and 5: a time per output and per tap); each probe's ``bytes`` is what the cost model counts
    for the op, so its time over them is the kernel's own rate;
  * ``triton_max_pool2d``: the KL029 pair's index-free Triton 3x3 max pool:
    what a fixed window costs per tap in a Triton kernel (the fix's rate);
  * ``sync``: one tiny op and ``.item()``: the cost of a host sync;
  * ``triton_row_tile_fp32_{BLOCK}_w{W}``: a softmax over rows of BLOCK fp32
    elements, one program per row holding its whole row in one tile (a load of
    ``tl.arange(0, BLOCK)``, max, exp, sum, store), at W warps, over 256 MiB of
    rows: past about 128 elements per thread (BLOCK / (32 W)) the tile no
    longer fits in registers and spills to local memory; graph only.

torch and triton are imported only in `main`, on the GPU machine.
"""

from __future__ import annotations

import datetime as _dt
import json
import platform
import sys
import time

import click
from kernlint.kernels import timing

SCHEMA_VERSION = 1
TOOL = "kernlint calibrate"
# N = 1 is GPU-bound; the host-bound counts above it are fitted by least
# squares, so one noisy probe moves the per-op host cost little (two points,
# 8 and 32, gave 7 to 12 us per op between two leases).
TINY_COUNTS = (1, 8, 16, 32, 64)
REPEATS = 2
# Grids of fewer programs than the H100's 132 SMs, and the step each program streams its row in.
STREAM_PROGRAMS = (16, 64)
SKINNY_M = 16  # rows of the gemm_skinny_* probes
STREAM_BLOCK = 1024
# conv2d_kK probes: (input channels, output channels, input side), 3x3 kernels, batch CONV_BATCH.
CONV_PROBES = ((3, 64, 256), (16, 64, 256), (64, 128, 128))
CONV_BATCH = 64
# conv3d_kK / conv_transpose3d_kK / conv_transpose2d_kK probes: (input channels, output channels, input side) and
# the batch; 3-wide kernels, the transposed ones with stride 2, padding 1 and output padding 1 (their output
# twice the input's side), all without bias.
CONV3D_PROBES = ((3, 16, 64), (16, 32, 64), (64, 64, 32))
# (3 input channels: KernelBench level 2's transposed 3-D convolutions of an RGB-like input, depth 81, which the
# 16-channel probe's rate priced at a quarter of their measured time.)
CONV_TRANSPOSE3D_PROBES = ((3, 16, 32), (16, 32, 32), (64, 64, 16))
CONV_TRANSPOSE2D_PROBES = ((16, 32, 128), (64, 64, 64))
CONV_FAMILY_BATCH = 8
# triton_scalar_loop_* probes: (outer, rows looped over, inner) fp32; a program per (outer, inner) column.
# wide: 32,768 programs of 1,024 loads; narrow: 264 programs (two per SM) of 8,192 loads.
SCALAR_LOOP_SHAPES = {"wide": (8, 1024, 4096), "narrow": (1, 8192, 264)}
# layer_<kind>_N probes: N calls of one small layer in a module's forward (a 3x3 conv and a
# train-mode BatchNorm2d at [2, 32, 56, 56], a Linear at [2, 256]).
LAYER_COUNTS = (1, 8, 32)
LAYER_BATCH = 2
LAYER_CHANNELS = 32
LAYER_SIDE = 56
LAYER_FEATURES = 256
# library_* probes (KL029): 512 MiB fp32 inputs; pools at a non-overlapping and an overlapping window.
LIBRARY_POOL_INPUTS = {1: (32, 64, 65536), 2: (32, 64, 256, 256), 3: (8, 32, 64, 64, 64)}
LIBRARY_POOL_WINDOWS = ((2, 2), (3, 1))  # (kernel size, stride) on every pooled dimension
LIBRARY_NORM_INPUT = (32, 64, 256, 256)  # also the depthwise convolutions' input
LIBRARY_DEPTHWISE_KERNELS = (3, 5)  # kernel sizes of the library_depthwise_conv2d_kK probes (padding K // 2)
LIBRARY_LAYER_NORM_ROWS = 8  # rows of 64 x 256 x 256 elements (16 MiB each)
LIBRARY_SOFTMAX_COLS = (4096, 262144)  # 128 MiB of rows of either length
# fp16 rows: PyTorch runs rows of up to 1024 columns with a warp per row, longer ones with a block (its
# persistent or its looping kernel): the points where its choice changes.
LIBRARY_SOFTMAX_FP16_COLS = (512, 1024, 2048, 4096, 262144)
LIBRARY_SCAN_INPUT = (16384, 16384)
# Arguments in a launch's call, constexpr keywords included: tiny_triton_args_N (10 pointers, 8 ints, a float,
# a size, BLOCK) and tiny_triton_N (a pointer, BLOCK).
LAUNCH_ARGS = 21
TINY_LAUNCH_ARGS = 2
# The triton_dot_smallk_* probes' tile (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages).
SMALLK_TILE = (128, 128, 64, 8, 2)
# The operand paths of the triton_dot_tile_* and triton_dot_programs_* probes: (label, dtype, B read K-major).
DOT_PATHS = (
    ("fp16", "float16", False),
    ("tf32", "float32", False),
    ("fp16k", "float16", True),
    ("tf32k", "float32", True),
)
# The triton_dot_tile_* paths whose A is read M-major (TF32 only): (label, B read K-major).
DOT_PATHS_A_MMAJOR = (("tf32m", False), ("tf32mk", True))
# triton_dot_programs_*: output tiles (programs, one per SM) and the depth each one's loop streams.
DOT_PROGRAMS = 32
DOT_PROGRAMS_K = 16384
# triton_row_tile_* probes: (BLOCK, num_warps), 32 to 512 elements of the row per thread, and 256 MiB of rows.
# (Per-thread 1024 and up, BLOCK = 524288 at 16 warps, take minutes to compile: not probed.)
ROW_TILE_CONFIGS = ((4096, 4), (16384, 4), (32768, 4), (65536, 4), (65536, 16), (131072, 16), (262144, 16))
ROW_TILE_BYTES = 1 << 28
SCALAR_PROGRAMS = 1 << 22  # triton_scalar_programs: programs of one fp32 element each
STREAM_ROW = 1 << 22  # elements per program: 8 MiB of fp16 read and 8 MiB written
FMA_TILE = 64
DOT_TILE = (128, 128, 32)  # BLOCK_M, BLOCK_N, BLOCK_K of the triton_dot_* probes
# The tile configs of the triton_dot_tile_* probes, (BLOCK_M, BLOCK_N, BLOCK_K, num_warps, num_stages): those
# generated kernels fix (small square tiles, Triton's tutorial tiles, Triton's defaults of 4 warps and 3
# stages) and KL003's autotuning set (kernlint.model.tuning.AUTOTUNE_CONFIGS, written out: the GPU machine
# runs this without the lint engine's dependencies; tests/test_cost.py checks the set is here), whose best
# config at a file's shapes is the fix's rate.
DOT_CONFIGS = tuple(
    dict.fromkeys(
        (
            (16, 16, 16, 4, 3),
            (32, 32, 32, 4, 3),
            (64, 64, 32, 4, 3),
            (64, 64, 64, 4, 3),
            (64, 128, 32, 4, 3),
            (128, 64, 32, 4, 3),
            (128, 128, 32, 4, 3),
            (128, 128, 32, 8, 3),
            (128, 128, 64, 4, 4),
            (128, 256, 64, 8, 3),
            (64, 256, 32, 4, 4),
            (16, 64, 128, 4, 4),
            (32, 128, 64, 4, 4),
            (64, 64, 64, 4, 3),
            (128, 128, 32, 8, 3),
        )
    )
)


def _tile_facts(label: str, config: tuple[int, ...], b_kmajor: bool) -> dict:
    """The facts a tl.dot probe at one tile config records (its path, tile, warps and stages; GPU time only)."""
    bm, bn, bk, warps, stages = config
    return {
        "ops": 1,
        "path": label,
        "tile": [bm, bn, bk],
        "num_warps": warps,
        "num_stages": stages,
        **({"b_kmajor": True} if b_kmajor else {}),
        "triton_launches": 1,
        "gpu_only": True,
    }


def _probe_kernels(triton, tl):
    """The Triton kernels of the triton_* probes (also run, tiny, under the
    interpreter by tests/test_calibration.py)."""

    @triton.jit
    def stream_rows(x_ptr, y_ptr, N, BLOCK: tl.constexpr):  # type: ignore[name-defined]
        row = tl.program_id(0).to(tl.int64)
        for start in range(0, N, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            mask = offs < N
            tl.store(y_ptr + row * N + offs, tl.load(x_ptr + row * N + offs, mask=mask, other=0.0), mask=mask)

    @triton.jit
    def fma_gemm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):  # type: ignore[name-defined]
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        mask_m = offs_m < M
        mask_n = offs_n < N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K):
            a = tl.load(a_ptr + offs_m * K + k, mask=mask_m, other=0.0)
            b = tl.load(b_ptr + k * N + offs_n, mask=mask_n, other=0.0)
            acc += a[:, None] * b[None, :]
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc, mask=mask_m[:, None] & mask_n[None, :])

    @triton.jit
    def dot_gemm(
        a_ptr,
        b_ptr,
        c_ptr,
        M,
        N,
        K,
        BLOCK_M: tl.constexpr,  # type: ignore[name-defined]
        BLOCK_N: tl.constexpr,  # type: ignore[name-defined]
        BLOCK_K: tl.constexpr,  # type: ignore[name-defined]
        PRECISION: tl.constexpr,  # type: ignore[name-defined]
    ):
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
            b = tl.load(b_ptr + (k + offs_k)[:, None] * N + offs_n[None, :])
            acc += tl.dot(a, b, input_precision=PRECISION)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(c_ptr.dtype.element_ty))

    @triton.jit
    def dot_gemm_kmajor(
        a_ptr,
        w_ptr,
        c_ptr,
        M,
        N,
        K,
        BLOCK_M: tl.constexpr,  # type: ignore[name-defined]
        BLOCK_N: tl.constexpr,  # type: ignore[name-defined]
        BLOCK_K: tl.constexpr,  # type: ignore[name-defined]
        PRECISION: tl.constexpr,  # type: ignore[name-defined]
    ):
        # B[k, n] read out of a weight w[n, k] (nn.Linear's layout): K contiguous, as kernels read a weight.
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
            b = tl.load(w_ptr + offs_n[None, :] * K + (k + offs_k)[:, None])
            acc += tl.dot(a, b, input_precision=PRECISION)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(c_ptr.dtype.element_ty))

    @triton.jit
    def dot_gemm_strided(
        a_ptr,
        b_ptr,
        c_ptr,
        M,
        N,
        K,
        stride_am,
        stride_ak,
        stride_bk,
        stride_bn,
        BLOCK_M: tl.constexpr,  # type: ignore[name-defined]
        BLOCK_N: tl.constexpr,  # type: ignore[name-defined]
        BLOCK_K: tl.constexpr,  # type: ignore[name-defined]
    ):
        # A and B read through the strides they are handed (the A-M-major probes: A = a.t()).
        offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k in range(0, K, BLOCK_K):
            a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k + offs_k)[None, :] * stride_ak)
            b = tl.load(b_ptr + (k + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn)
            acc += tl.dot(a, b)
        tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc.to(c_ptr.dtype.element_ty))

    def dot(a, b, c, precision, tile=DOT_TILE, b_kmajor=False, a_mmajor=False):
        """c = a @ B, B given as b [K, N] (row-major), or with b_kmajor as a weight b [N, K] (B = b.t())."""
        M, K = a.shape
        N = b.shape[0] if b_kmajor else b.shape[1]
        options = {"num_warps": tile[3], "num_stages": tile[4]} if len(tile) == 5 else {}
        if a_mmajor:
            # a [K, M] read as A = a.t() (TF32, tl.dot's default), B as above.
            M, K = a.shape[1], a.shape[0]
            bk, bn = (1, K) if b_kmajor else (N, 1)
            dot_gemm_strided[(M // tile[0], N // tile[1])](
                a, b, c, M, N, K, 1, M, bk, bn, BLOCK_M=tile[0], BLOCK_N=tile[1], BLOCK_K=tile[2], **options
            )
            return c
        kernel = dot_gemm_kmajor if b_kmajor else dot_gemm
        kernel[(M // tile[0], N // tile[1])](
            a, b, c, M, N, K, BLOCK_M=tile[0], BLOCK_N=tile[1], BLOCK_K=tile[2], PRECISION=precision, **options
        )
        return c

    def stream(x, y, programs):
        stream_rows[(programs,)](x, y, x.numel() // programs, BLOCK=STREAM_BLOCK)
        return y

    def fma(a, b, c):
        M, K = a.shape
        N = b.shape[1]
        fma_gemm[(triton.cdiv(M, FMA_TILE), triton.cdiv(N, FMA_TILE))](
            a, b, c, M, N, K, BLOCK_M=FMA_TILE, BLOCK_N=FMA_TILE
        )
        return c

    return stream, fma, dot


def _strided_lanes_kernel(triton, tl):
    """The triton_strided_lanes_* probe's kernel: one program per (batch, column) of x [B, R, C], summing
    down its column in BLOCK-row steps, so a load's lanes read elements a row (C elements) apart."""

    @triton.jit
    def column_sums(x_ptr, out_ptr, R, C, BLOCK: tl.constexpr):  # type: ignore[name-defined]
        pid = tl.program_id(0)
        b = pid // C
        j = pid % C
        base = x_ptr + b.to(tl.int64) * R * C + j
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for start in range(0, R, BLOCK):
            rows = start + tl.arange(0, BLOCK)
            acc += tl.load(base + rows * C, mask=rows < R, other=0.0)
        tl.store(out_ptr + pid, tl.sum(acc, axis=0))

    def run(x, out):
        B, R, C = x.shape
        column_sums[(B * C,)](x, out, R, C, BLOCK=256)
        return out

    return run


def _row_tile_kernel(triton, tl):
    """The triton_row_tile_* probes' kernel: one program per row, the whole row in one tile."""

    @triton.jit
    def row_softmax(x_ptr, y_ptr, N, BLOCK: tl.constexpr):  # type: ignore[name-defined]
        row = tl.program_id(0).to(tl.int64)
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * N + offs, mask=offs < N, other=-float("inf"))
        e = tl.exp(x - tl.max(x, axis=0))
        tl.store(y_ptr + row * N + offs, e / tl.sum(e, axis=0), mask=offs < N)

    def run(x, y, warps):
        rows, n = x.shape
        row_softmax[(rows,)](x, y, n, BLOCK=n, num_warps=warps)
        return y

    return run


def _probes(torch, triton, tl):
    """(name, fn, facts) of every probe; facts: bytes moved, flops, ops, path."""
    dev = "cuda"
    probes = []

    def add(name, fn, **facts):
        probes.append((name, fn, facts))

    # Streaming: 1 GiB fp32 copy (read + write), a 256 Mi-element fp16 add (2 reads + 1 write).
    n = 1 << 28
    src = torch.empty(n, device=dev, dtype=torch.float32).uniform_()
    dst = torch.empty_like(src)
    add("copy_fp32_1g", lambda: dst.copy_(src), bytes=8 * n, ops=1)
    a16 = torch.randn(n, device=dev, dtype=torch.float16)
    b16 = torch.randn(n, device=dev, dtype=torch.float16)
    add("add_fp16", lambda: a16 + b16, bytes=6 * n, ops=1)
    # A mid-size copy (32 MiB): close to L2's size, what most layers move.
    m = 1 << 23
    src_m = torch.empty(m, device=dev, dtype=torch.float32).uniform_()
    dst_m = torch.empty_like(src_m)
    add("copy_fp32_32m", lambda: dst_m.copy_(src_m), bytes=8 * m, ops=1)

    # A broadcast elementwise op: 8192 x 8192 fp16 (256 MiB moved) times a column vector.
    bm = 8192
    col16 = torch.randn(bm, device=dev, dtype=torch.float16)
    mat16 = torch.randn(bm, bm, device=dev, dtype=torch.float16)
    add("broadcast_mul_fp16", lambda: col16[:, None] * mat16, bytes=2 * (2 * bm * bm + bm), ops=1)
    col32 = torch.randn(bm, device=dev, dtype=torch.float32)
    mat32 = torch.randn(bm, bm, device=dev, dtype=torch.float32)
    add("broadcast_mul_fp32", lambda: col32[:, None] * mat32, bytes=4 * (2 * bm * bm + bm), ops=1)

    # Transposed copies.
    w16 = torch.randn(8192, 8192, device=dev, dtype=torch.float16)
    add("transpose_fp16", lambda: w16.t().contiguous(), bytes=4 * 8192 * 8192, ops=1)
    w32 = torch.randn(8192, 8192, device=dev, dtype=torch.float32)
    add("transpose_fp32", lambda: w32.t().contiguous(), bytes=8 * 8192 * 8192, ops=1)
    # Permuted copies that keep the last axis: attention's [B, H, T, D] put back as [B, T, H, D].
    heads16 = torch.randn(32, 16, 2048, 64, device=dev, dtype=torch.float16)
    add("copy_heads_fp16", lambda: heads16.transpose(1, 2).contiguous(), bytes=4 * heads16.numel(), ops=1)
    heads32 = torch.randn(32, 16, 2048, 64, device=dev, dtype=torch.float32)
    add("copy_heads_fp32", lambda: heads32.transpose(1, 2).contiguous(), bytes=8 * heads32.numel(), ops=1)

    # GEMMs, one per execution path.
    s = 8192
    for name, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
        x = torch.randn(s, s, device=dev, dtype=dtype)
        y = torch.randn(s, s, device=dev, dtype=dtype)
        add(f"gemm_{name}", lambda x=x, y=y: x @ y, flops=2 * s**3, bytes=3 * 2 * s * s, ops=1, path=name)
    xf = torch.randn(s // 2, s // 2, device=dev)
    yf = torch.randn(s // 2, s // 2, device=dev)

    def fp32_gemm(tf32, a=xf, b=yf):
        def run():
            old = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = tf32
            try:
                return a @ b
            finally:
                torch.backends.cuda.matmul.allow_tf32 = old

        return run

    add("gemm_fp32", fp32_gemm(False), flops=2 * (s // 2) ** 3, bytes=3 * 4 * (s // 2) ** 2, ops=1, path="fp32")
    # A GEMM of SKINNY_M rows (a decode step): bound by reading its [K, N] operand, at the rate the
    # library's kernel for so few rows reaches (fp32 without TF32, torch's default; fp16).
    for name, dtype in (("fp32", torch.float32), ("fp16", torch.float16)):
        xs = torch.randn(SKINNY_M, s, device=dev, dtype=dtype)
        ws = torch.randn(s, s, device=dev, dtype=dtype)
        size = xs.element_size()
        add(
            f"gemm_skinny_{name}",
            (lambda xs=xs, ws=ws: xs @ ws) if name == "fp16" else fp32_gemm(False, xs, ws),
            flops=2 * SKINNY_M * s * s,
            bytes=size * (2 * SKINNY_M * s + s * s),
            rows=SKINNY_M,
            ops=1,
            path=name,
        )
    add("gemm_tf32", fp32_gemm(True), flops=2 * (s // 2) ** 3, bytes=3 * 4 * (s // 2) ** 2, ops=1, path="tf32")
    # cuDNN fp32 convolutions (TF32 allowed, torch's default) at three GEMM depths
    # K = input channels x kernel taps: their rate falls far below a GEMM's as K shrinks.
    for c_in, c_out, side in CONV_PROBES:
        conv = torch.nn.Conv2d(c_in, c_out, 3).to(dev)
        xc = torch.randn(CONV_BATCH, c_in, side, side, device=dev)
        out_elems = CONV_BATCH * c_out * (side - 2) ** 2
        add(
            f"conv2d_k{c_in * 9}",
            lambda conv=conv, xc=xc: conv(xc),
            flops=2 * out_elems * c_in * 9,
            bytes=4 * (xc.numel() + out_elems + conv.weight.numel()),
            reduction=c_in * 9,
            ops=1,
            path="tf32",
        )
    # The other families at a few depths, each counted as the cost model counts it: a GEMM over the output
    # positions (the input's, for a transposed convolution) x output channels x input channels x taps.
    families = (
        ("conv3d", torch.nn.Conv3d, CONV3D_PROBES, 3, {}),
        (
            "conv_transpose3d",
            torch.nn.ConvTranspose3d,
            CONV_TRANSPOSE3D_PROBES,
            3,
            {"stride": 2, "padding": 1, "output_padding": 1},
        ),
        (
            "conv_transpose2d",
            torch.nn.ConvTranspose2d,
            CONV_TRANSPOSE2D_PROBES,
            2,
            {"stride": 2, "padding": 1, "output_padding": 1},
        ),
    )
    for family, module, shapes, dims, options in families:
        for c_in, c_out, side in shapes:
            layer = module(c_in, c_out, 3, bias=False, **options).to(dev)
            xf = torch.randn(CONV_FAMILY_BATCH, c_in, *([side] * dims), device=dev)
            out_elems = layer(xf).numel()
            positions = CONV_FAMILY_BATCH * (side**dims if options else out_elems // (CONV_FAMILY_BATCH * c_out))
            depth = c_in * 3**dims
            add(
                f"{family}_k{depth}",
                lambda layer=layer, xf=xf: layer(xf),
                flops=2 * positions * c_out * depth,
                bytes=4 * (xf.numel() + out_elems + layer.weight.numel()),
                reduction=depth,
                ops=1,
                path="tf32",
            )
    xi = torch.randint(-128, 127, (s, s), device=dev, dtype=torch.int8)
    yi = torch.randint(-128, 127, (s, s), device=dev, dtype=torch.int8)
    add("gemm_int8", lambda: torch._int_mm(xi, yi), flops=2 * s**3, bytes=2 * s * s + 4 * s * s, ops=1, path="int8")
    wi = torch.randint(-128, 127, (s, s), device=dev, dtype=torch.int8)  # [N, K], as a linear layer stores it
    add(
        "gemm_int8_tn",
        lambda: torch._int_mm(xi, wi.t()),
        flops=2 * s**3,
        bytes=2 * s * s + 4 * s * s,
        ops=1,
        path="int8",
    )
    b, h, seq, d = 2, 16, 4096, 64
    q, k, v = (torch.randn(b, h, seq, d, device=dev, dtype=torch.float16) for _ in range(3))
    add(
        "sdpa_fp16",
        lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v),
        flops=4 * b * h * seq * seq * d,
        bytes=4 * 2 * b * h * seq * d,
        ops=1,
        path="attention_fp16",
    )

    stream, fma, dot = _probe_kernels(triton, tl)
    # A Triton tl.dot GEMM with one fixed tile, as a generated kernel writes
    # it (no autotuning): 4096^3, per operand type and precision.
    dm = 4096
    for name, dtype, precision in (
        ("triton_dot_fp16", torch.float16, "tf32"),
        ("triton_dot_tf32", torch.float32, "tf32"),
        ("triton_dot_fp32", torch.float32, "ieee"),
    ):
        da = torch.randn(dm, dm, device=dev, dtype=dtype)
        db = torch.randn(dm, dm, device=dev, dtype=dtype)
        dc = torch.empty(dm, dm, device=dev, dtype=dtype)
        add(
            name,
            lambda da=da, db=db, dc=dc, precision=precision: dot(da, db, dc, precision),
            flops=2 * dm**3,
            bytes=3 * dm * dm * da.element_size(),
            ops=1,
            path=name.rsplit("_", 1)[1],
            triton_launches=1,
        )
    # A small-K product (K = 64: one BLOCK_K step per tile), as a generated kernel for KernelBench's small-K
    # matmul writes it: what a tl.dot kernel's time is when its output, not its product, is the work (the
    # tile epilogue's store rate), per operand path.
    sm, sk = 16384, 64
    for name, dtype, precision in (
        ("triton_dot_smallk_fp16", torch.float16, "tf32"),
        ("triton_dot_smallk_tf32", torch.float32, "tf32"),
        ("triton_dot_smallk_fp32", torch.float32, "ieee"),
    ):
        sa = torch.randn(sm, sk, device=dev, dtype=dtype)
        sb = torch.randn(sk, sm, device=dev, dtype=dtype)
        sc = torch.empty(sm, sm, device=dev, dtype=dtype)
        add(
            name,
            lambda sa=sa, sb=sb, sc=sc, precision=precision: dot(sa, sb, sc, precision, SMALLK_TILE),
            flops=2 * sm * sm * sk,
            bytes=(2 * sm * sk + sm * sm) * sa.element_size(),
            out_bytes=sm * sm * sa.element_size(),
            ops=1,
            path=name.rsplit("_", 1)[1],
            triton_launches=1,
        )
    # The small-K product at every tile config of DOT_CONFIGS (K = 64, or one BLOCK_K step where that is
    # larger), fp16 operands and fp32 ones as TF32: the rate at which a tile epilogue of that config stores
    # its output (fp32 tiles of 128 x 128 store at about a quarter of the streaming rate, 64 x 64 ones near it).
    # B row-major ([K, N]) and K-major (a weight [N, K], the `k` paths): fp32 tiles multiply as TF32 several
    # times faster from a K-major B.
    for label, dtype_name, b_kmajor in DOT_PATHS:
        dtype = getattr(torch, dtype_name)
        kc = torch.empty(sm, sm, device=dev, dtype=dtype)
        for bm, bn, bk, warps, stages in DOT_CONFIGS:
            depth = max(sk, bk)
            ka = torch.randn(sm, depth, device=dev, dtype=dtype)
            kb = (
                torch.randn(sm, depth, device=dev, dtype=dtype)
                if b_kmajor
                else torch.randn(depth, sm, device=dev, dtype=dtype)
            )
            add(
                f"triton_dot_store_{label}_{bm}x{bn}x{bk}_w{warps}_s{stages}",
                lambda ka=ka, kb=kb, kc=kc, cfg=(bm, bn, bk, warps, stages), k=b_kmajor: dot(
                    ka, kb, kc, "tf32", cfg, k
                ),
                flops=2 * sm * sm * depth,
                bytes=(2 * sm * depth + sm * sm) * ka.element_size(),
                out_bytes=sm * sm * ka.element_size(),
                **_tile_facts(label, (bm, bn, bk, warps, stages), b_kmajor),
            )
    # The same GEMM at every tile config of DOT_CONFIGS, fp16 operands and fp32 ones as TF32: the rate of a
    # kernel's product at its own tile (GPU time only; a config whose tiles do not fit the SM's shared
    # memory for a path is left out of the record). Then the same configs with B read K-major out of a
    # weight [N, K] (the `k` paths), as a kernel reads an nn.Linear weight: the tensor cores' TF32 path runs
    # several times faster so than on a row-major B (fp16 about the same).
    for label, dtype_name, b_kmajor in DOT_PATHS:
        dtype = getattr(torch, dtype_name)
        ta = torch.randn(dm, dm, device=dev, dtype=dtype)
        tb = torch.randn(dm, dm, device=dev, dtype=dtype)
        tc = torch.empty(dm, dm, device=dev, dtype=dtype)
        for bm, bn, bk, warps, stages in DOT_CONFIGS:
            add(
                f"triton_dot_tile_{label}_{bm}x{bn}x{bk}_w{warps}_s{stages}",
                lambda ta=ta, tb=tb, tc=tc, cfg=(bm, bn, bk, warps, stages), k=b_kmajor: dot(
                    ta, tb, tc, "tf32", cfg, k
                ),
                flops=2 * dm**3,
                bytes=3 * dm * dm * ta.element_size(),
                **_tile_facts(label, (bm, bn, bk, warps, stages), b_kmajor),
            )
    # The same configs with A read M-major (TF32): an implicit-GEMM convolution gathering NCHW pixels as its A
    # rows reads A so, and the tensor cores' TF32 path wants both operands K-major.
    for label, b_kmajor in DOT_PATHS_A_MMAJOR:
        ta = torch.randn(dm, dm, device=dev)
        tb = torch.randn(dm, dm, device=dev)
        tc = torch.empty(dm, dm, device=dev)
        for bm, bn, bk, warps, stages in DOT_CONFIGS:
            add(
                f"triton_dot_tile_{label}_{bm}x{bn}x{bk}_w{warps}_s{stages}",
                lambda ta=ta, tb=tb, tc=tc, cfg=(bm, bn, bk, warps, stages), k=b_kmajor: dot(
                    ta, tb, tc, "tf32", cfg, k, a_mmajor=True
                ),
                flops=2 * dm**3,
                bytes=3 * dm * dm * ta.element_size(),
                **_tile_facts(label, (bm, bn, bk, warps, stages), b_kmajor),
                a_mmajor=True,
            )
    # The same configs over a grid of DOT_PROGRAMS output tiles, one row of them (M = BM): a GEMM whose grid
    # leaves SMs idle streams B at what each program's loop keeps in flight (its tiles and stages), the
    # rate per program that such a grid's time is priced at (a decode-shaped GEMM with a fixed 64-row tile).
    for label, dtype_name, b_kmajor in DOT_PATHS:
        dtype = getattr(torch, dtype_name)
        # One buffer per operand for every config (its largest), each config's operands contiguous views of it.
        most_m, most_n = max(c[0] for c in DOT_CONFIGS), DOT_PROGRAMS * max(c[1] for c in DOT_CONFIGS)
        flat_a = torch.randn(most_m * DOT_PROGRAMS_K, device=dev, dtype=dtype)
        flat_b = torch.randn(DOT_PROGRAMS_K * most_n, device=dev, dtype=dtype)
        flat_c = torch.empty(most_m * most_n, device=dev, dtype=dtype)
        for bm, bn, bk, warps, stages in DOT_CONFIGS:
            pn, pk = DOT_PROGRAMS * bn, DOT_PROGRAMS_K
            pa = flat_a[: bm * pk].view(bm, pk)
            pb = flat_b[: pn * pk].view(pn, pk) if b_kmajor else flat_b[: pk * pn].view(pk, pn)
            pc = flat_c[: bm * pn].view(bm, pn)
            add(
                f"triton_dot_programs_{label}_{bm}x{bn}x{bk}_w{warps}_s{stages}",
                lambda pa=pa, pb=pb, pc=pc, cfg=(bm, bn, bk, warps, stages), k=b_kmajor: dot(
                    pa, pb, pc, "tf32", cfg, k
                ),
                flops=2 * bm * pn * pk,
                bytes=(bm * pk + pk * pn + bm * pn) * pa.element_size(),
                programs=DOT_PROGRAMS,
                **_tile_facts(label, (bm, bn, bk, warps, stages), b_kmajor),
            )
    # Loads whose lanes are a row apart: column sums of a 1 GiB fp32 [16, 4096, 4096], one program per
    # column (adjacent programs read adjacent columns): what such a load moves per second (KL030).
    columns = _strided_lanes_kernel(triton, tl)
    xs = torch.randn(16, 4096, 4096, device=dev)
    sums = torch.empty(16 * 4096, device=dev)
    add(
        "triton_strided_lanes_fp32",
        lambda: columns(xs, sums),
        bytes=4 * (xs.numel() + sums.numel()),
        ops=1,
        lane_stride=4096,
        triton_launches=1,
        gpu_only=True,
    )
    # A whole row in one tile: its rate by the row's elements per thread (past the registers, spilled).
    row_tile = _row_tile_kernel(triton, tl)
    for block, warps in ROW_TILE_CONFIGS:
        rx = torch.randn(ROW_TILE_BYTES // (4 * block), block, device=dev)
        ry = torch.empty_like(rx)
        add(
            f"triton_row_tile_fp32_{block}_w{warps}",
            lambda rx=rx, ry=ry, warps=warps: row_tile(rx, ry, warps),
            bytes=2 * ROW_TILE_BYTES,
            programs=rx.shape[0],
            block=block,
            warps=warps,
            ops=1,
            triton_launches=1,
            gpu_only=True,
        )
    # A product on the CUDA cores in Triton: 4096 x 4096 outputs over K = 1024, fp32.
    fm, fn, fk = 4096, 4096, 1024
    fa = torch.randn(fm, fk, device=dev)
    fb = torch.randn(fk, fn, device=dev)
    fc = torch.empty(fm, fn, device=dev)
    add(
        "triton_fma_gemm",
        lambda: fma(fa, fb, fc),
        flops=2 * fm * fn * fk,
        bytes=4 * (fm * fk + fk * fn + fm * fn),
        ops=1,
        path="fma",
        triton_launches=1,
    )
    # A Triton elementwise kernel as one is usually written: one block of STREAM_BLOCK elements per
    # program over a 1 GiB copy (read and write), fp32 and fp16: a fused kernel's streaming rate.
    for name, dtype in (("fp32", torch.float32), ("fp16", torch.float16)):
        tx = torch.randn((1 << 29) // torch.tensor([], dtype=dtype).element_size(), device=dev, dtype=dtype)
        ty = torch.empty_like(tx)
        add(
            f"triton_stream_{name}",
            lambda tx=tx, ty=ty: stream(tx, ty, tx.numel() // STREAM_BLOCK),
            bytes=2 * tx.numel() * tx.element_size(),
            programs=tx.numel() // STREAM_BLOCK,
            block=STREAM_BLOCK,
            ops=1,
            triton_launches=1,
        )
    for programs in STREAM_PROGRAMS:
        sx = torch.randn(programs * STREAM_ROW, device=dev, dtype=torch.float16)
        sy = torch.empty_like(sx)
        add(
            f"triton_stream_programs_{programs}",
            lambda sx=sx, sy=sy, programs=programs: stream(sx, sy, programs),
            bytes=2 * 2 * programs * STREAM_ROW,
            programs=programs,
            block=STREAM_BLOCK,
            ops=1,
            triton_launches=1,
        )

    # One element per program over a grid of millions: what scheduling a
    # program costs when its own work is nothing (KL019's grids).
    scalar_n = SCALAR_PROGRAMS
    sa = torch.randn(scalar_n, device=dev, dtype=torch.float32)
    sb = torch.empty_like(sa)

    @triton.jit
    def _one_element(x_ptr, y_ptr):
        pid = tl.program_id(0)
        tl.store(y_ptr + pid, tl.load(x_ptr + pid) + 1.0)

    add(
        "triton_scalar_programs",
        lambda: _one_element[(scalar_n,)](sa, sb),
        bytes=2 * 4 * scalar_n,
        programs=scalar_n,
        ops=1,
        triton_launches=1,
    )

    # One output per program, each looping over scalar loads down a column (a sum over a middle
    # dimension written `for r in range(R): acc += tl.load(ptr + r * INNER)`, KL019's loops): a grid
    # far larger than the GPU holds at once, and one of SCALAR_LOOP_NARROW_PER_SM programs per SM.
    @triton.jit
    def _scalar_loop(x_ptr, y_ptr, R, INNER):
        pid = tl.program_id(0)
        base = x_ptr + (pid // INNER) * R * INNER + pid % INNER
        acc = 0.0
        for r in range(R):
            acc += tl.load(base + r * INNER)
        tl.store(y_ptr + pid, acc)

    for name, (outer, rows, inner) in SCALAR_LOOP_SHAPES.items():
        lx = torch.randn(outer, rows, inner, device=dev)
        ly = torch.empty(outer, inner, device=dev)
        add(
            f"triton_scalar_loop_{name}",
            lambda lx=lx, ly=ly, outer=outer, rows=rows, inner=inner: _scalar_loop[(outer * inner,)](
                lx, ly, rows, inner
            ),
            bytes=4 * lx.numel(),
            programs=outer * inner,
            ops=1,
            triton_launches=1,
        )

    # A @triton.jit kernel defined inside the call (KL017): a new kernel
    # object each time, so Triton's in-memory cache never hits and the call
    # reloads the binary from its disk cache before launching.
    jt = torch.ones(1, device=dev)

    def jit_per_call():
        @triton.jit
        def _fresh(ptr, BLOCK: tl.constexpr):  # type: ignore[name-defined]
            offs = tl.arange(0, BLOCK)
            tl.store(ptr + offs, tl.load(ptr + offs) + 1.0)

        _fresh[(1,)](jt, BLOCK=1)
        return jt

    add("jit_per_call", jit_per_call, triton_launches=1, compiles=1, bytes=8)

    # Launch-bound probes: N tiny ops, N tiny Triton launches, N tiny allocations, N views, N assignments
    # into a view.
    t = torch.ones(1, device=dev)
    grid4 = torch.ones(4, 4, device=dev)
    col4 = torch.ones(4, device=dev)

    @triton.jit
    def _tiny_kernel(ptr, BLOCK: tl.constexpr):  # type: ignore[name-defined]
        offs = tl.arange(0, BLOCK)
        tl.store(ptr + offs, tl.load(ptr + offs) + 1.0)

    @triton.autotune(
        configs=[triton.Config({"BLOCK": 1}, num_warps=1), triton.Config({"BLOCK": 2}, num_warps=1)], key=["n"]
    )
    @triton.jit
    def _tiny_autotuned_kernel(ptr, n, BLOCK: tl.constexpr):  # type: ignore[name-defined]
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(ptr + offs, tl.load(ptr + offs, mask=mask) + 1.0, mask=mask)

    for count in TINY_COUNTS:

        def autotuned(count=count):
            for _ in range(count):
                _tiny_autotuned_kernel[(1,)](t, 1)
            return t

        def ops(count=count):
            y = t
            for _ in range(count):
                y = y + 1.0
            return y

        def launches(count=count):
            for _ in range(count):
                _tiny_kernel[(1,)](t, BLOCK=1)
            return t

        def allocs(count=count):
            return [torch.zeros(16, device=dev) for _ in range(count)]

        class Ops(torch.nn.Module):
            # As a KernelBench harness calls it: through nn.Module.__call__.
            def forward(self, x, count=count):
                for _ in range(count):
                    x = x + 1.0
                return x

        def views(count=count):
            # `x[:, t]` in a step loop: a view (no kernel), then one op so the call has GPU work.
            for i in range(count):
                v = grid4[:, i & 3]
            return v + 1.0

        def setitems(count=count):
            # `out[:, t] = acc`: indexing, then a copy kernel into the view.
            for i in range(count):
                grid4[:, i & 3] = col4
            return grid4

        module = Ops()
        add(f"tiny_view_{count}", views, ops=1, views=count, bytes=8)
        add(f"tiny_setitem_{count}", setitems, ops=count, bytes=32 * count)
        add(f"tiny_ops_{count}", ops, ops=count, bytes=8 * count)
        add(f"module_ops_{count}", lambda module=module: module(t), ops=count, bytes=8 * count)
        add(f"tiny_triton_{count}", launches, triton_launches=count, arguments=TINY_LAUNCH_ARGS, bytes=8 * count)
        add(f"tiny_autotuned_{count}", autotuned, triton_launches=count, bytes=8 * count)
        add(f"tiny_alloc_{count}", allocs, allocs=count, bytes=64 * count)
        add(
            f"tiny_empty_{count}",
            lambda count=count: [torch.empty(16, device=dev) for _ in range(count)],
            allocs=count,
            bytes=0,
        )
    # Layers of a small network (a ResNet block at batch 2): what one costs the
    # host and the GPU where both are a few microseconds, above a one-element op.
    layers = {
        "conv": torch.nn.Conv2d(LAYER_CHANNELS, LAYER_CHANNELS, 3, padding=1, bias=False),
        "batchnorm": torch.nn.BatchNorm2d(LAYER_CHANNELS),  # train mode: batch statistics, as a KernelBench model
        "linear": torch.nn.Linear(LAYER_FEATURES, LAYER_FEATURES),
    }
    inputs = {
        "conv": torch.randn(LAYER_BATCH, LAYER_CHANNELS, LAYER_SIDE, LAYER_SIDE, device=dev),
        "linear": torch.randn(LAYER_BATCH, LAYER_FEATURES, device=dev),
    }
    inputs["batchnorm"] = inputs["conv"]
    for name, layer in layers.items():
        layer.to(dev)
        for count in LAYER_COUNTS:

            class Stack(torch.nn.Module):
                def __init__(self, layer=layer):
                    super().__init__()
                    self.layer = layer

                def forward(self, x, count=count):
                    for _ in range(count):
                        x = self.layer(x)
                    return x

            stack = Stack()
            add(f"layer_{name}_{count}", lambda stack=stack, x=inputs[name]: stack(x), ops=count, layer=name)

    @triton.jit
    def _many_args(a, b, c, d, e, f, g, h, i, j, s0, s1, s2, s3, s4, s5, s6, s7, eps, n, BLOCK: tl.constexpr):  # type: ignore[name-defined]
        offs = tl.arange(0, BLOCK)
        tl.store(b + offs, tl.load(a + offs, mask=offs < n) + eps, mask=offs < n)

    buffers = [torch.ones(16, device=dev) for _ in range(10)]
    for count in LAYER_COUNTS:

        def many_args(count=count):
            for _ in range(count):
                _many_args[(1,)](*buffers, 1, 2, 3, 4, 5, 6, 7, 8, 1e-5, 16, BLOCK=16)
            return buffers[1]

        add(f"tiny_triton_args_{count}", many_args, triton_launches=count, arguments=LAUNCH_ARGS, bytes=128 * count)
    _library_probes(torch, add)
    add("sync", lambda: (t + 1.0).item(), ops=1, syncs=1, bytes=8)
    return probes


def _library_probes(torch, add):
    """The library_* probes and triton_max_pool2d (KL029): each probe's facts
    are the bytes, outputs, taps and rows the cost model counts for the op."""
    from kernlint.kernels.kl029_slow_library_kernel.after import max_pool2d

    functional = torch.nn.functional
    dev = "cuda"
    for dims, shape in LIBRARY_POOL_INPUTS.items():
        x = torch.randn(*shape, device=dev)
        for kind in ("max", "avg"):
            pool = getattr(functional, f"{kind}_pool{dims}d")
            for size, stride in LIBRARY_POOL_WINDOWS:
                outputs = pool(x, size, stride).numel()
                add(
                    f"library_{kind}_pool{dims}d_k{size}_s{stride}",
                    lambda pool=pool, x=x, size=size, stride=stride: pool(x, size, stride),
                    bytes=4 * (x.numel() + outputs),
                    outputs=outputs,
                    taps=size**dims,
                    kernel=f"{kind}_pool{dims}d",
                    ops=1,
                )
        if dims == 2:
            outputs = max_pool2d(x).numel()
            add(
                "triton_max_pool2d",
                lambda x=x: max_pool2d(x),
                bytes=4 * (x.numel() + outputs),
                outputs=outputs,
                taps=9,
                ops=1,
                triton_launches=1,
            )
    x = torch.randn(*LIBRARY_NORM_INPUT, device=dev)
    channels = LIBRARY_NORM_INPUT[1]
    for size in LIBRARY_DEPTHWISE_KERNELS:
        # nn.Conv2d(groups=channels) with its bias, as a model builds it.
        depthwise = torch.nn.Conv2d(channels, channels, size, padding=size // 2, groups=channels).to(dev)
        outputs = x.numel()
        add(
            f"library_depthwise_conv2d_k{size}",
            lambda depthwise=depthwise: depthwise(x),
            bytes=4 * (x.numel() + outputs + depthwise.weight.numel() + channels),
            outputs=outputs,
            taps=size * size,
            kernel="depthwise_conv2d",
            ops=1,
        )
    norms = {
        # Train mode: statistics read the input, then normalizing reads and writes it (three passes).
        "batch_norm": (torch.nn.BatchNorm2d(channels), 3),
        "group_norm": (torch.nn.GroupNorm(8, channels), 2),
        "instance_norm": (torch.nn.InstanceNorm2d(channels), 2),
    }
    for name, (norm, passes) in norms.items():
        norm.to(dev)
        add(f"library_{name}", lambda norm=norm: norm(x), bytes=4 * passes * x.numel(), kernel=name, ops=1)
    rows = x[:LIBRARY_LAYER_NORM_ROWS].contiguous()
    layer_norm = torch.nn.LayerNorm(tuple(rows.shape[1:])).to(dev)
    wide = x.view(-1, x.shape[-1] * x.shape[-2] // 16)  # rows of 4096 elements: one block each, every SM busy
    layer_norm_wide = torch.nn.LayerNorm(wide.shape[-1]).to(dev)
    add(
        f"library_layer_norm_rows_{wide.shape[0]}",
        lambda: layer_norm_wide(wide),
        bytes=4 * 2 * wide.numel(),
        rows=wide.shape[0],
        kernel="layer_norm",
        ops=1,
    )
    add(
        f"library_layer_norm_rows_{LIBRARY_LAYER_NORM_ROWS}",
        lambda: layer_norm(rows),
        bytes=4 * 2 * rows.numel(),
        rows=LIBRARY_LAYER_NORM_ROWS,
        kernel="layer_norm",
        ops=1,
    )
    # fp32 rows, and fp16 ones (attention's scores): PyTorch picks its softmax kernel by the row's bytes.
    for dtype, tag, widths in (
        (torch.float32, "", LIBRARY_SOFTMAX_COLS),
        (torch.float16, "_fp16", LIBRARY_SOFTMAX_FP16_COLS),
    ):
        for cols in widths:
            z = torch.randn((1 << 25) // cols, cols, device=dev, dtype=dtype)
            for name in ("softmax", "log_softmax"):
                fn = getattr(torch, name)
                add(
                    f"library_{name}{tag}_cols_{cols}",
                    lambda fn=fn, z=z: fn(z, 1),
                    bytes=z.element_size() * 2 * z.numel(),
                    rows=z.shape[0],
                    elem=z.element_size(),
                    kernel=name,
                    ops=1,
                )
    s = torch.randn(*LIBRARY_SCAN_INPUT, device=dev)
    add("library_scan", lambda: torch.cumsum(s, 1), bytes=4 * 2 * s.numel(), rows=s.shape[0], kernel="scan", ops=1)


def _measure(torch, fn, facts):
    entry = dict(facts)
    fn()
    torch.cuda.synchronize()
    modes = {}
    if facts.get("gpu_only"):
        # A rate of the GPU's own (a tile config's product): the host's modes add nothing to it.
        entry["modes"] = {"graph": timing.graph(fn, repeats=REPEATS).as_dict()}
        return entry
    if not facts.get("syncs") and not facts.get("compiles"):
        # A sync cannot be captured; a compile's cost is the host's, which a graph replay never pays.
        modes["graph"] = timing.graph(fn, repeats=REPEATS)
    modes["eager"] = timing.eager(fn, repeats=REPEATS)
    modes["kernelbench"] = timing.cuda_events(torch, fn, flush=True, repeats=REPEATS)
    modes["events_no_flush"] = timing.cuda_events(torch, fn, flush=False, repeats=REPEATS)
    entry["modes"] = {mode: t.as_dict() for mode, t in modes.items()}
    return entry


@click.command("calibrate", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--record", type=click.Path(dir_okay=False), required=True, help="Write the calibration record here.")
@click.option(
    "--only",
    "only",
    multiple=True,
    help="Time only the probes whose name starts with this (repeatable), and add them to the existing "
    "--record: a supplement, listed in the record's `supplements` with its date and environment.",
)
def main(record: str, only: tuple[str, ...]) -> None:
    """Time the cost model's probes on this GPU and write the record."""
    import torch
    import triton
    import triton.language as tl
    from kernlint.kernels.verify import _environment

    if not torch.cuda.is_available():
        click.echo("kernlint calibrate: no CUDA GPU", err=True)
        sys.exit(2)
    started = time.time()
    env = _environment(torch, triton, False)
    out = {
        "schema_version": SCHEMA_VERSION,
        "tool": TOOL,
        "command": "python -m kernlint.kernels.calibrate --record " + record,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "environment": env,
        "settings": {"repeats": REPEATS, "timing": {mode: timing.DESCRIPTIONS[mode] for mode in timing.MODES}},
        "probes": {},
    }
    for name, fn, facts in _probes(torch, triton, tl):
        if only and not name.startswith(only):
            continue
        t0 = time.time()
        try:
            out["probes"][name] = _measure(torch, fn, facts)
        except Exception as error:  # noqa: BLE001 - Triton's OutOfResources and kin, for one tile config
            if not facts.get("gpu_only"):
                raise
            click.echo(f"{name}: skipped ({type(error).__name__}: {str(error).splitlines()[0][:120]})")
            continue
        times = {m: v["median_us"] for m, v in out["probes"][name]["modes"].items()}
        click.echo(f"{name}: " + ", ".join(f"{m} {v:.2f} us" for m, v in times.items()) + f" [{time.time() - t0:.0f}s]")
    out["elapsed_s"] = round(time.time() - started, 1)
    if only:
        # A supplement: these probes join the record's, which keep their own lease; the record says which
        # probes came later, when, and on what.
        with open(record, encoding="utf-8") as handle:
            base = json.load(handle)
        base["probes"].update(out["probes"])
        supplement = {k: out[k] for k in ("command", "date", "environment", "elapsed_s")}
        supplement["command"] += "".join(f" --only {prefix}" for prefix in only)
        base.setdefault("supplements", []).append({**supplement, "probes": sorted(out["probes"])})
        out = base
    with open(record, "w", encoding="utf-8") as handle:
        json.dump(out, handle, indent=1, sort_keys=False)
        handle.write("\n")
    # The constants themselves are derived whenever the record is read
    # (kernlint.cost.derive_constants); shown here for the log only.
    try:
        from kernlint.cost import derive_constants

        for key, value in derive_constants(out).items():
            click.echo(f"  {key} = {value}")
    except Exception as error:  # noqa: BLE001 - the record is written; the log line is a convenience
        click.echo(f"  (constants not derived here: {error})")
    click.echo(f"record written to {record} ({platform.node()})")


if __name__ == "__main__":
    main()
