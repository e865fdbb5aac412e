from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel, Launch
from kernlint.model.kernel_loops import DotLoop, TileOrder
from kernlint.model.syntax import keyword, positional
from kernlint.registry import Invalid, Report, Rule, Valid

# H100 L2 (50 MB); a B operand this small stays resident whatever the order.
L2_BYTES = 50 * 1024 * 1024
# Bytes per element assumed for the B operand when sizing it (fp16/bf16).
ELEMENT_BYTES = 2
# Programs resident at once on an H100 (132 SMs): a grid this small runs in
# one wave, so no tile order can make a difference.
ONE_WAVE = 132


class MissingL2Swizzle(Rule):
    """
    ## What it does
    Finds matmul kernels (a `tl.dot` in a loop over K, both operands loaded
    in the loop) whose output tile comes straight from the program id in
    row-major order: `pid_m = tl.program_id(0)`, `pid_n = tl.program_id(1)`
    (any spelling: `axis=`, a tuple assignment, inline in the offsets or a
    block pointer's `offsets=`), or `pid // num_pid_n` and `pid % num_pid_n`,
    with no grouping of rows of tiles (`GROUP_M` / `GROUP_SIZE_M` style, or
    `tl.swizzle2d`).

    A kernel is a matmul here when each operand follows its own
    program-id-derived tile index (rows of A, columns of B); attention
    kernels (one index for the query block, a loop over keys) and GEMVs are
    not.

    It stays silent when:
    - the tile indices are grouped (any name on their way from
      `tl.program_id` mentions "group", both tile indices come from it
      through a modulo and a floor division, as the grouped order's
      arithmetic does under any names, or `tl.swizzle2d` computes them);
    - the kernel is persistent (the K loop is inside a loop over tiles,
      which orders them itself), or a helper function computes the tile
      coordinates;
    - the known problem shape makes the grid too small to matter: every
      launch passes constant sizes (literals or constants) and B, bounded
      by the two largest sizes times 2 bytes, fits in the H100's 50 MB L2;
      or the grid is a constant of at most 132 programs (one wave);
    - the grid has a third axis (`tl.program_id(2)`): a batch or head axis,
      as in chunked linear-attention kernels, where each program's operands
      are one head's slices that stay in L2 whatever the tile order.

    ## Why is this bad?
    Programs run roughly in launch order. In row-major order the programs
    that run together share one row of A tiles but sweep every column of
    B; once B (or the swept operand) no longer fits in L2, each new row of
    tiles reads all of B from DRAM again. Grouping GROUP_M rows of tiles
    makes the concurrently running programs share both A rows and B
    columns, so most operand reads hit L2.

    ## Example
    ```python
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    ```

    ## Use instead
    ```python
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    ```
    with a one-dimensional grid `(cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N),)`
    and `GROUP_M: tl.constexpr` (8 is the usual value).

    ## Fix safety
    No automatic fix: the grid changes shape along with the kernel.

    ## Measured speedup
    From the `kl009_missing_l2_swizzle` pair's record (`kernlint rule
    KL009` prints it with the GPU and shapes).
    """

    code = "KL009"
    name = "missing-l2-swizzle"
    category = Category.MEMORY_LAYOUT
    severity = Severity.INFO
    summary = "A matmul kernel maps program ids to output tiles in row-major order, without grouping for L2 reuse."
    bottleneck = (
        "Concurrently running programs share one row of A tiles but sweep all of B, so once B outgrows L2 "
        "every row of output tiles re-reads B from DRAM."
    )
    method = (
        "Launch a 1-D grid and regroup the program id into GROUP_M rows of tiles (the Triton tutorial "
        "swizzle), so programs that run together share A rows and B columns in L2."
    )
    priority = 70

    VALID = [
        # A third grid axis over batch x heads: each head's operands are small and stay in L2.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def chunk_dv_kernel(q, do, dv, T, K: tl.constexpr, V: tl.constexpr, BT: tl.constexpr, BV: tl.constexpr):
                i_v = tl.program_id(0)
                i_t = tl.program_id(1)
                i_bh = tl.program_id(2)
                acc = tl.zeros([BT, BV], dtype=tl.float32)
                for i_k in range(0, K, 64):
                    a = tl.load(q + i_bh * T * K + i_t * BT * K + i_k + tl.arange(0, BT)[:, None] * K + tl.arange(0, 64)[None, :])
                    b = tl.load(do + i_bh * T * V + i_k * V + i_v * BV + tl.arange(0, 64)[:, None] * V + tl.arange(0, BV)[None, :])
                    acc += tl.dot(a, b)
                tl.store(dv + i_bh * T * V + i_t * BT * V + i_v * BV + tl.arange(0, BT)[:, None] * V + tl.arange(0, BV)[None, :], acc)
            """
        ),
        # The tutorial's grouped order.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
                pid = tl.program_id(axis=0)
                num_pid_m = tl.cdiv(M, BLOCK_M)
                num_pid_n = tl.cdiv(N, BLOCK_N)
                num_pid_in_group = GROUP_SIZE_M * num_pid_n
                group_id = pid // num_pid_in_group
                first_pid_m = group_id * GROUP_SIZE_M
                group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
                pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
                pid_n = (pid % num_pid_in_group) // group_size_m
                offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
                offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
                for k in range(0, K, BLOCK_K):
                    a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
                    b = tl.load(b_ptr + (k + offs_k)[:, None] * N + offs_n[None, :])
                    acc += tl.dot(a, b)
            """
        ),
        # The same grouped order under short names: known by its arithmetic (a modulo and a floor division
        # on the way to both tile indices).
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GM: tl.constexpr):
                pid = tl.program_id(0)
                n_m = tl.cdiv(M, BM)
                n_n = tl.cdiv(N, BN)
                width = GM * n_n
                m0 = (pid // width) * GM
                gsz = min(n_m - m0, GM)
                pm = m0 + (pid % width) % gsz
                pn = (pid % width) // gsz
                rm = pm * BM + tl.arange(0, BM)
                rn = pn * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
                    b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :])
                    acc += tl.dot(a, b)
            """
        ),
        # tl.swizzle2d orders the tiles.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                pid_m, pid_n = tl.swizzle2d(tl.program_id(0), tl.program_id(1), tl.num_programs(0), tl.num_programs(1), 8)
                offs_m = pid_m * BM + tl.arange(0, BM)
                offs_n = pid_n * BN + tl.arange(0, BN)
                offs_k = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    acc += tl.dot(tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :] + k), tl.load(b_ptr + (offs_k[:, None] + k) * N + offs_n[None, :]))
            """
        ),
        # Persistent: each program walks tiles in a loop and orders them itself.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, NUM_SMS: tl.constexpr):
                num_pid_n = tl.cdiv(N, BN)
                num_tiles = tl.cdiv(M, BM) * num_pid_n
                for tile_id in range(tl.program_id(0), num_tiles, NUM_SMS):
                    pid_m = tile_id // num_pid_n
                    pid_n = tile_id % num_pid_n
                    offs_m = pid_m * BM + tl.arange(0, BM)
                    offs_n = pid_n * BN + tl.arange(0, BN)
                    offs_k = tl.arange(0, BK)
                    acc = tl.zeros((BM, BN), dtype=tl.float32)
                    for k in range(0, K, BK):
                        a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :] + k)
                        b = tl.load(b_ptr + (offs_k[:, None] + k) * N + offs_n[None, :])
                        acc += tl.dot(a, b)
            """
        ),
        # The known shape is small: B (512 x 512 fp16) fits in L2.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                pid_m = tl.program_id(0)
                pid_n = tl.program_id(1)
                offs_m = pid_m * BM + tl.arange(0, BM)
                offs_n = pid_n * BN + tl.arange(0, BN)
                offs_k = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :] + k, mask=offs_m[:, None] < M)
                    b = tl.load(b_ptr + (offs_k[:, None] + k) * N + offs_n[None, :], mask=offs_n[None, :] < N)
                    acc += tl.dot(a, b)

            def run(a, b):
                mm[(triton.cdiv(512, 64), triton.cdiv(512, 64))](a, b, 512, 512, 512, BM=64, BN=64, BK=32)
            """
        ),
        # Attention: the query block comes from the program id, keys from the loop.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def attn(q_ptr, k_ptr, v_ptr, N_CTX, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):
                start_m = tl.program_id(0)
                off_hz = tl.program_id(1)
                offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
                offs_n = tl.arange(0, BLOCK_N)
                offs_d = tl.arange(0, D)
                q = tl.load(q_ptr + off_hz * N_CTX * D + offs_m[:, None] * D + offs_d[None, :])
                acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
                for start_n in range(0, N_CTX, BLOCK_N):
                    k = tl.load(k_ptr + off_hz * N_CTX * D + (start_n + offs_n)[None, :] * D + offs_d[:, None])
                    v = tl.load(v_ptr + off_hz * N_CTX * D + (start_n + offs_n)[:, None] * D + offs_d[None, :])
                    p = tl.exp(tl.dot(q, k))
                    acc += tl.dot(p.to(tl.float16), v)
            """
        ),
        # A jit helper computes the tile coordinates (it may group them).
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def tile_coords(pid, M, N, BM: tl.constexpr, BN: tl.constexpr):
                return pid // tl.cdiv(N, BN), pid % tl.cdiv(N, BN)

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                pid_m, pid_n = tile_coords(tl.program_id(0), M, N, BM, BN)
                offs_m = pid_m * BM + tl.arange(0, BM)
                offs_n = pid_n * BN + tl.arange(0, BN)
                offs_k = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    acc += tl.dot(tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :] + k), tl.load(b_ptr + (offs_k[:, None] + k) * N + offs_n[None, :]))
            """
        ),
        # One row block per program and the whole B resident: a GEMV-like kernel.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mv(a_ptr, b_ptr, N, K, BM: tl.constexpr, BK: tl.constexpr):
                offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
                offs_k = tl.arange(0, BK)
                acc = tl.zeros((BM, 16), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :] + k)
                    b = tl.load(b_ptr + (offs_k[:, None] + k) * 16 + tl.arange(0, 16)[None, :])
                    acc += tl.dot(a, b)
            """
        ),
        # One column of tiles (the grid's N axis is 1; N fits one BLOCK_N): B's panel is read once
        # whatever the order, so there is nothing for a swizzle to reuse.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def proj(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                pid_m = tl.program_id(0)
                pid_n = tl.program_id(1)
                rm = pid_m * BM + tl.arange(0, BM)
                rn = pid_n * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    acc += tl.dot(tl.load(a_ptr + rm[:, None] * K + rk[None, :] + k),
                                  tl.load(b_ptr + (rk[:, None] + k) * N + rn[None, :]))

            def project(a, b):
                proj[(triton.cdiv(a.shape[0], 128), 1)](a, b, a.shape[0], 96, a.shape[1], BM=128, BN=128, BK=32)

            @triton.jit
            def proj1d(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                pid = tl.program_id(0)
                tiles_n = tl.cdiv(N, BN)
                rm = (pid // tiles_n) * BM + tl.arange(0, BM)
                rn = (pid % tiles_n) * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    acc += tl.dot(tl.load(a_ptr + rm[:, None] * K + rk[None, :] + k),
                                  tl.load(b_ptr + (rk[:, None] + k) * N + rn[None, :]))

            def project1d(a, b):
                proj1d[(triton.cdiv(a.shape[0], 64),)](a, b, a.shape[0], 64, a.shape[1], BM=64, BN=64, BK=32)
            """
        ),
    ]
    INVALID = [
        # Two grid axes, `axis=` keywords, pointer arithmetic.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
                pid_m = tl.program_id(axis=0)
                pid_n = tl.program_id(axis=1)
                offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
                offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
                offs_k = tl.arange(0, BLOCK_K)
                a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
                b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
                for k in range(0, tl.cdiv(K, BLOCK_K)):
                    acc += tl.dot(tl.load(a_ptrs), tl.load(b_ptrs))
                    a_ptrs += BLOCK_K
                    b_ptrs += BLOCK_K * N
            """,
            line=7,
            column=13,
        ),
        # One axis split with // and %.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
                pid = tl.program_id(0)
                num_pid_n = tl.cdiv(N, BLOCK_N)
                pid_m = pid // num_pid_n
                pid_n = pid % num_pid_n
                offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
                offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
                for k in range(0, K, BLOCK_K):
                    a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
                    b = tl.load(b_ptr + (k + offs_k)[:, None] * N + offs_n[None, :])
                    acc += tl.dot(a, b)
            """,
            line=7,
            column=11,
        ),
        # A tuple assignment and block pointers advanced along K.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, sam, sak, sbk, sbn, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                pid_m, pid_n = tl.program_id(0), tl.program_id(1)
                a_blk = tl.make_block_ptr(a_ptr, (M, K), (sam, sak), (pid_m * BM, 0), (BM, BK), (1, 0))
                b_blk = tl.make_block_ptr(b_ptr, (K, N), (sbk, sbn), (0, pid_n * BN), (BK, BN), (1, 0))
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for _ in range(0, K, BK):
                    acc += tl.dot(tl.load(a_blk), tl.load(b_blk))
                    a_blk = tl.advance(a_blk, (0, BK))
                    b_blk = tl.advance(b_blk, (BK, 0))
            """,
            line=7,
            column=20,
        ),
        # Program ids inline in the offsets; `from triton import language as lang`.
        Invalid(
            """
            import triton
            from triton import language as lang

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BM: lang.constexpr, BN: lang.constexpr, BK: lang.constexpr):
                offs_m = lang.program_id(0) * BM + lang.arange(0, BM)
                offs_n = lang.program_id(1) * BN + lang.arange(0, BN)
                offs_k = lang.arange(0, BK)
                acc = lang.zeros((BM, BN), dtype=lang.float32)
                for k in range(0, K, BK):
                    a = lang.load(a_ptr + offs_m[:, None] * K + offs_k[None, :] + k)
                    b = lang.load(b_ptr + (offs_k[:, None] + k) * N + offs_n[None, :])
                    acc = lang.dot(a, b, acc)
            """,
            line=7,
            column=14,
        ),
        # Autotune configs and an EVEN_K heuristic do not order the tiles.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.autotune(configs=[triton.Config({"BM": 128, "BN": 128, "BK": 32}, num_warps=8)], key=["M", "N", "K"])
            @triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BK"] == 0})
            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, EVEN_K: tl.constexpr):
                pid_n = tl.program_id(0)
                pid_m = tl.program_id(1)
                offs_m = pid_m * BM + tl.arange(0, BM)
                offs_n = pid_n * BN + tl.arange(0, BN)
                offs_k = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :] + k)
                    b = tl.load(b_ptr + (offs_k[:, None] + k) * N + offs_n[None, :])
                    acc += tl.dot(a, b)
            """,
            line=9,
            column=13,
        ),
        # tl.static_range K loop, names from `triton.language`, a large known shape.
        Invalid(
            """
            import triton
            from triton.language import arange, constexpr, dot, load, program_id, zeros

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BM: constexpr, BN: constexpr, BK: constexpr, K_TILES: constexpr):
                pid = program_id(0)
                pid_m = pid // (N // BN)
                pid_n = pid % (N // BN)
                offs_m = pid_m * BM + arange(0, BM)
                offs_n = pid_n * BN + arange(0, BN)
                offs_k = arange(0, BK)
                acc = zeros((BM, BN), dtype=float)
                for kt in static_range(K_TILES):
                    a = load(a_ptr + offs_m[:, None] * K + offs_k[None, :] + kt * BK)
                    b = load(b_ptr + (offs_k[:, None] + kt * BK) * N + offs_n[None, :])
                    acc += dot(a, b)

            def run(a, b):
                mm[(64 * 64,)](a, b, 8192, 8192, 8192, BM=128, BN=128, BK=64, K_TILES=128)
            """,
            line=7,
            column=11,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for kernel in model.kernel_list:
            for dot_loop in model.dot_loops(kernel):
                if not dot_loop.streams_both:
                    continue
                order = model.tile_order(kernel, dot_loop)
                if order.kind != "row-major" or not order.program_ids:
                    continue
                if (
                    # A third grid axis is a batch or a head (fla's chunked
                    # kernels: program_id(2) = batch x head): each program's
                    # operands are one head's slices, head-dim wide, which
                    # stay in L2 whatever order the tiles run in.
                    model.grid_axes(kernel) >= 3
                    or self._too_small_to_matter(model, kernel, dot_loop, order)
                    or _row_tile_below_mma(model, kernel, dot_loop)
                    or _one_line_of_tiles(model, kernel, order)
                ):
                    continue
                yield self._report(model, kernel, dot_loop, order)
                break

    @staticmethod
    def _too_small_to_matter(model: FileModel, kernel: Kernel, dot_loop: DotLoop, order: TileOrder) -> bool:
        launches = model.launches_of(kernel)
        if not launches:
            return False
        grids = [_constant_grid(model, launch) for launch in launches]
        if all(grid is not None and grid <= ONE_WAVE for grid in grids):
            return True
        # Every runtime size of the kernel must be known; B (K x N) is
        # bounded by the product of the two largest, so the judgement errs
        # towards reporting.
        pointers = {p for loop in model.kernel_loops(kernel) for load in loop.loads for p in load.pointers}
        sizes = [p.name for p in kernel.params if not p.constexpr and p.name not in pointers and _is_size(p.name)]
        if not sizes:
            return False
        largest: list[int] = []
        for name in sizes:
            values = model.constexpr_values(kernel, name)
            if not values.known or not all(isinstance(v, int) for v in values.values):
                return False
            largest.append(max(v for v in values.values if isinstance(v, int)))
        largest.sort(reverse=True)
        footprint = largest[0] * (largest[1] if len(largest) > 1 else 1) * ELEMENT_BYTES
        return footprint <= L2_BYTES

    def _report(self, model: FileModel, kernel: Kernel, dot_loop: DotLoop, order: TileOrder) -> Report:
        first = order.program_ids[0]
        group = next((n for n in kernel.constexprs if "GROUP" in n.upper()), None)
        message = (
            f"`{kernel.name}` maps `{model.code(first)}` straight to its output tile (row-major order, no GROUP_M "
            f"grouping); programs that run together sweep all of B, which is re-read from DRAM once it outgrows L2"
        )
        plan = (
            f"Launch `{kernel.name}` on a 1-D grid of cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N) programs and regroup "
            f"`tl.program_id(0)` into {group or 'GROUP_M (a new constexpr, 8 is typical)'} rows of tiles before "
            f"computing the tile indices at line {model.line_of(first)} (the tutorial's `group_id = pid // "
            f"(GROUP_M * num_pid_n)` swizzle)."
        )
        return Report(node=first, message=message, plan=plan)


def _is_size(name: str) -> bool:
    lowered = name.lower()
    return not (lowered.startswith("stride") or lowered.endswith("_stride") or lowered.endswith("ptr"))


def _constant_grid(model: FileModel, launch: Launch) -> int | None:
    grid = launch.grid
    if isinstance(grid, cst.Name):
        assigned = model.assigned_value(launch.caller, grid.value, before=launch.node)
        grid = assigned if assigned is not None else grid
    if not isinstance(grid, (cst.Tuple, cst.List)):
        whole = model.constant_value(grid, launch.caller)
        return whole if isinstance(whole, int) else None
    total = 1
    for element in grid.elements:
        value = model.constant_value(element.value, launch.caller)
        if not isinstance(value, int):
            return None
        total *= value
    return total


def _row_tile_below_mma(model: FileModel, kernel: Kernel, dot_loop: DotLoop) -> bool:
    """A's row tile is known to be under 16 rows (a GEMV through tl.dot):
    each program then streams its own slice of B once, so tile order does
    not decide L2 reuse; the tile itself is the problem (KL015)."""
    for dot in dot_loop.dots:
        operand = next(iter(positional(dot)), None) or keyword(dot, "input")
        if operand is None:
            continue
        for tile in model.tile_ranges(kernel, operand) or ():
            if tile.axis != 0:
                continue
            values = model.int_values(kernel, tile.size)
            if values and 0 < max(values) < 16:
                return True
    return False


def _one_line_of_tiles(model: FileModel, kernel: Kernel, order: TileOrder) -> bool:
    """The launches make a single row or a single column of output tiles,
    as far as the file says statically (issue 27): a grid axis that feeds a
    tile index is 1 (or `cdiv(N, BLOCK_N)` with N <= BLOCK_N) in every
    launch, or the kernel counts a tile dimension `tl.cdiv(N, BLOCK_N)` that
    is 1 at every known N and BLOCK_N. With one line of tiles every operand
    tile is read once whatever the order, so grouping has nothing to reuse."""

    def in_kernel(node: cst.BaseExpression) -> tuple[int, int] | None:
        return _kernel_bound(model, kernel, node.value) if isinstance(node, cst.Name) else None

    for value in model.kernel_values(kernel, model.depends_on_names(kernel, order.a_indices | order.b_indices)):
        if _count_at_most_one(model, value, in_kernel):
            return True
    launches = model.launches_of(kernel)
    if not launches:
        return False
    return any(
        axis is not None and all(_grid_axis_is_one(model, kernel, launch, axis) for launch in launches)
        for axis in (_axis(call) for call in order.program_ids)
    )


def _axis(call: cst.Call) -> int | None:
    value = keyword(call, "axis")
    if value is None:
        args = positional(call)
        value = args[0] if args else None
    return int(value.value) if isinstance(value, cst.Integer) else None


def _grid_axis_is_one(model: FileModel, kernel: Kernel, launch: Launch, axis: int) -> bool:
    grid = launch.grid
    if isinstance(grid, cst.Name):
        assigned = model.assigned_value(launch.caller, grid.value, before=launch.node)
        grid = assigned if assigned is not None else grid
    if isinstance(grid, cst.Lambda):
        grid = grid.body
    if not isinstance(grid, (cst.Tuple, cst.List)):
        return False
    if axis >= len(grid.elements):
        return axis > 0  # an axis the grid leaves out is 1

    def on_host(node: cst.BaseExpression) -> tuple[int, int] | None:
        # `META["BLOCK_N"]` in a grid lambda: the kernel's own values of it.
        if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            key = node.slice[0].slice.value
            name = key.evaluated_value if isinstance(key, cst.SimpleString) else None
            return _kernel_bound(model, kernel, name) if isinstance(name, str) else None
        value = model.constant_value(node, launch.caller)
        return (value, value) if isinstance(value, int) and not isinstance(value, bool) else None

    element = grid.elements[axis].value
    return on_host(element) == (1, 1) or _count_at_most_one(model, element, on_host)


def _kernel_bound(model: FileModel, kernel: Kernel, name: str) -> tuple[int, int] | None:
    """The least and largest value a kernel parameter takes over the known
    launches and configs, when every one is known."""
    values = model.constexpr_values(kernel, name)
    numbers = [v for v in values.values if isinstance(v, int) and not isinstance(v, bool)]
    if not values.known or not numbers or len(numbers) != len(values.values):
        return None
    return min(numbers), max(numbers)


def _count_at_most_one(model: FileModel, node: cst.BaseExpression, bound) -> bool:
    """`cdiv(n, block)` (`tl.cdiv`, `triton.cdiv`) whose largest n is at
    most its least block."""
    if not (isinstance(node, cst.Call) and (model.qualname(node.func) or "").endswith(".cdiv")):
        return False
    args = positional(node)
    if len(args) != 2:
        return False
    n, block = bound(args[0]), bound(args[1])
    return n is not None and block is not None and n[1] <= block[0]
