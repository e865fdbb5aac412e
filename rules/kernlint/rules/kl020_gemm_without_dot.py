from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel
from kernlint.model.products import Product, multiply_add_products
from kernlint.registry import Invalid, Report, Rule, Valid


class GemmWithoutDot(Rule):
    """
    ## What it does
    Finds a `@triton.jit` kernel without any `tl.dot` whose loop accumulates
    products of two loaded operands, the shape of a GEMM or a convolution
    written as multiply-adds: an outer product per K step
    (`acc += a[:, None] * b[None, :]`), a broadcast product reduced with
    `tl.sum` (`acc += tl.sum(w * x[None, :], axis=1)`), a dot product per
    output element (`acc += tl.sum(a * b)`, or `acc += a * b` summed after
    the loop), or scalar weights times
    vectors in a direct convolution's channel and window loops
    (`acc += x_vals * tl.load(w_ptr + ...)`).

    It reports only products whose two operands are loaded in the loop from
    different pointers, each at an address that depends on a program-id
    value the other does not (A on the output's rows, B on its columns; the
    input on the output's positions, the weight on its channel), so that
    the product is shared work a tile multiply reuses. It stays silent on
    elementwise products of two tiles at the same positions (a norm's
    backward `dw += dy * x`, a loss's `tl.sum(p * q)` over one row), on a
    matrix-vector product whose vector does not depend on the program
    (memory-bound: tensor cores do not help), and on kernels that already
    call `tl.dot`.

    ## Why is this bad?
    Multiply-adds written as `*` and `+` run on the CUDA cores as FMA
    instructions; only `tl.dot` reaches the tensor cores, which on an H100
    do about 15x the fp32 FMA rate in fp16 and 7x in TF32. A per-step outer
    product also reloads both operands from cache every K step instead of
    staging tiles in shared memory. A GEMM or convolution written this way
    runs one to two orders of magnitude below cuBLAS/cuDNN.

    The estimate for the file prices the kernel as written by its loads
    (every tap of every loop counted) and its multiply-adds, and the
    rewrite at the Triton tile rate; a convolution's rewrite, an implicit
    GEMM gathering its tiles, at no more than cuDNN's measured rate for that
    convolution. On an H200, fresh5's gb05 (a 3x3x1 conv3d over 3 channels,
    0.53x of cuDNN) rewritten with tl.dot measured 1.52x, against 1.81x
    estimated so (4.28x at the tile rate).

    ## Example
    ```python
    for k in range(0, K):
        a = tl.load(a_ptr + offs_m * stride_am + k * stride_ak, mask=mask_m)
        b = tl.load(b_ptr + k * stride_bk + offs_n * stride_bn, mask=mask_n)
        acc += a[:, None] * b[None, :]
    ```

    ## Use instead
    ```python
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    ```

    ## Fix safety
    No automatic fix: the loop becomes a tiled K loop over `BLOCK_K`
    slices (a convolution an implicit GEMM over C x KH x KW), with masks on
    every edge.

    ## Measured speedup
    Read from the measurement record of the pair
    `kernels/kernlint/kernels/kl020_gemm_without_dot/` (`kernlint rule KL020` prints it);
    "unmeasured" until that pair has been measured on a GPU.
    """

    code = "KL020"
    name = "gemm-without-dot"
    category = Category.ALGORITHM_REPLACEMENT
    severity = Severity.WARNING
    summary = "A GEMM or convolution kernel computes its products as multiply-adds without tl.dot: no tensor cores."
    bottleneck = (
        "Compute on the CUDA cores: the product's multiply-adds run as FMA instructions (and reload their operands "
        "every step), while the tensor cores, which tl.dot alone reaches, stay idle."
    )
    method = (
        "Replace the multiply-add loop by tiled tl.dot: BLOCK_M x BLOCK_K and BLOCK_K x BLOCK_N tiles per K step "
        "(a convolution as an implicit GEMM over C x KH x KW), fp32 accumulation."
    )
    priority = 12
    fix_effect = "tensor_cores"

    VALID = [
        # Group-norm statistics of a scaled activation: a product inside the sigmoid, then summed and squared.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def stats(y_ptr, b_ptr, s_ptr, mean_ptr, C, HW, CPG, BLOCK: tl.constexpr):
                pid = tl.program_id(0)
                n = pid // (C // CPG)
                g = pid % (C // CPG)
                base = y_ptr + (n * C + g * CPG) * HW
                s = tl.zeros([BLOCK], dtype=tl.float32)
                sq = tl.zeros([BLOCK], dtype=tl.float32)
                for start in range(0, CPG * HW, BLOCK):
                    offs = start + tl.arange(0, BLOCK)
                    m = offs < CPG * HW
                    c = g * CPG + offs // HW
                    v = tl.load(base + offs, mask=m, other=0.0)
                    b = tl.load(b_ptr + c, mask=m, other=0.0)
                    sc = tl.load(s_ptr + c, mask=m, other=0.0)
                    v = tl.sigmoid((v + b) * sc)
                    s += v
                    sq += v * v
                tl.store(mean_ptr + pid, tl.sum(s, axis=0) + tl.sum(sq, axis=0))
            """
        ),
        # A recurrence: a state updated by rank-1 products and a decay, its output stored every step (a scan).
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def recur(k_ptr, v_ptr, q_ptr, o_ptr, T, BK: tl.constexpr, BV: tl.constexpr):
                i_k = tl.program_id(0) * BK + tl.arange(0, BK)
                i_v = tl.program_id(1) * BV + tl.arange(0, BV)
                h = tl.zeros((BK, BV), dtype=tl.float32)
                for t in range(T):
                    k = tl.load(k_ptr + t * BK + i_k)
                    v = tl.load(v_ptr + t * BV + i_v)
                    h = h * 0.9
                    h += k[:, None] * v[None, :]
                    tl.store(o_ptr + t * BV + i_v, tl.sum(h * tl.load(q_ptr + t * BK + i_k)[:, None], 0))
            """
        ),
        # Two tiles at the same block-pointer coordinates multiplied and summed: an inner product, not a GEMM.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def frobenius(h, dh, out, K, V, BK: tl.constexpr, BV: tl.constexpr):
                i_n = tl.program_id(0)
                h_ptr = h + i_n * K * V
                dh_ptr = dh + i_n * K * V
                acc = 0.0
                for i_k in range(tl.cdiv(K, BK)):
                    p_h = tl.make_block_ptr(h_ptr, (K, V), (V, 1), (i_k * BK, 0), (BK, BV), (1, 0))
                    p_dh = tl.make_block_ptr(dh_ptr, (K, V), (V, 1), (i_k * BK, 0), (BK, BV), (1, 0))
                    acc += tl.sum(tl.sum(tl.load(p_h) * tl.load(p_dh), axis=1))
                tl.store(out + i_n, acc)
            """
        ),
        # A tiled GEMM with tl.dot.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
                offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
                offs_k = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, K, BK):
                    a = tl.load(a_ptr + offs_m[:, None] * K + (k + offs_k)[None, :])
                    b = tl.load(b_ptr + (k + offs_k)[:, None] * 64 + offs_n[None, :])
                    acc = tl.dot(a, b, acc)
                tl.store(c_ptr + offs_m[:, None] * 64 + offs_n[None, :], acc)
            """
        ),
        # A norm's weight gradient: an elementwise product of two tiles at the same columns, summed over rows.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def dw(dy_ptr, x_ptr, dw_ptr, M, N, BLOCK: tl.constexpr):
                cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for row in range(M):
                    acc += tl.load(dy_ptr + row * N + cols) * tl.load(x_ptr + row * N + cols)
                tl.store(dw_ptr + cols, acc)
            """
        ),
        # A loss over one row: both operands at the same row and columns.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def kl(p_ptr, q_ptr, out_ptr, N, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                total = 0.0
                for start in range(0, N, BLOCK):
                    offs = start + tl.arange(0, BLOCK)
                    p = tl.load(p_ptr + row * N + offs)
                    q = tl.load(q_ptr + row * N + offs)
                    total += tl.sum(p * tl.log(p / q))
                tl.store(out_ptr + row, total)
            """
        ),
        # A matrix-vector product: the vector is the same for every program (memory-bound, no tensor-core gain).
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mv(a_ptr, x_ptr, y_ptr, K, BM: tl.constexpr, BK: tl.constexpr):
                rows = tl.program_id(0) * BM + tl.arange(0, BM)
                acc = tl.zeros((BM,), dtype=tl.float32)
                for k in range(0, K, BK):
                    cols = k + tl.arange(0, BK)
                    a = tl.load(a_ptr + rows[:, None] * K + cols[None, :])
                    x = tl.load(x_ptr + cols)
                    acc += tl.sum(a * x[None, :], axis=1)
                tl.store(y_ptr + rows, acc)
            """
        ),
        # A scale loaded once before the loop, not a streamed operand.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def scaled_sum(x_ptr, s_ptr, y_ptr, N, BLOCK: tl.constexpr):
                col = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                s = tl.load(s_ptr + tl.program_id(1))
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for r in range(N):
                    acc += tl.load(x_ptr + r * N + col) * s
                tl.store(y_ptr + col, acc)
            """
        ),
        # A product of a loaded tile with itself (a sum of squares).
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def sumsq(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                row = tl.program_id(0)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for start in range(0, N, BLOCK):
                    v = tl.load(x_ptr + row * N + start + tl.arange(0, BLOCK))
                    acc += v * v
                tl.store(y_ptr + row, tl.sum(acc))
            """
        ),
        # A neighborhood's weighted sum: both operands follow the query rows themselves (the weights at the
        # row, the values a few rows around it), a banded product, not a GEMM's rows x columns.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def neighborhood(a_ptr, v_ptr, o_ptr, S, D: tl.constexpr, KS: tl.constexpr, BM: tl.constexpr):
                rows = tl.program_id(0) * BM + tl.arange(0, BM)
                cols = tl.arange(0, D)
                acc = tl.zeros((BM, D), dtype=tl.float32)
                for j in range(KS):
                    keys = tl.minimum(rows + j, S - 1)
                    w = tl.load(a_ptr + rows * KS + j)
                    v = tl.load(v_ptr + keys[:, None] * D + cols[None, :])
                    acc += w[:, None] * v
                tl.store(o_ptr + rows[:, None] * D + cols[None, :], acc)
            """
        ),
    ]
    INVALID = [
        # A depthwise and a pointwise convolution fused: each channel's depthwise result, computed in
        # registers, multiplied into the pointwise sum as a rank-1 update on the CUDA cores.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def dw_pw(x_ptr, wd_ptr, wp_ptr, out_ptr, C_IN, HW, C_OUT: tl.constexpr, BLOCK_P: tl.constexpr):
                offs_p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
                offs_co = tl.arange(0, C_OUT)
                acc = tl.zeros((BLOCK_P, C_OUT), dtype=tl.float32)
                for ci in range(0, C_IN):
                    dw = tl.zeros((BLOCK_P,), dtype=tl.float32)
                    for k in tl.static_range(3):
                        xv = tl.load(x_ptr + ci * HW + offs_p + k, mask=offs_p + k < HW, other=0.0)
                        dw += xv * tl.load(wd_ptr + ci * 3 + k)
                    wp = tl.load(wp_ptr + offs_co * C_IN + ci)
                    acc += dw[:, None] * wp[None, :]
                tl.store(out_ptr + offs_co[None, :] * HW + offs_p[:, None], acc, mask=offs_p[:, None] < HW)
            """,
            line=15,
        ),
        # A 1x1 convolution whose program computes every output channel (`offs_co` has no program id): the
        # channel vector indexes the weight and the store, the pixel block the input.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def conv1x1(x_ptr, w_ptr, y_ptr, HW, C_in, C_out, BP: tl.constexpr, BCO: tl.constexpr):
                offs_p = tl.program_id(0) * BP + tl.arange(0, BP)
                offs_co = tl.arange(0, BCO)
                acc = tl.zeros((BP, BCO), dtype=tl.float32)
                for ci in range(C_in):
                    xv = tl.load(x_ptr + ci * HW + offs_p)
                    wv = tl.load(w_ptr + offs_co * C_in + ci)
                    acc += xv[:, None] * wv[None, :]
                tl.store(y_ptr + offs_co[None, :] * HW + offs_p[:, None], acc)
            """,
            line=12,
            column=9,
        ),
        # A direct convolution with one output per lane over a flattened (n, c_out, h, w) index: the input
        # follows its position part, the weight its channel part, both split out with `%` and `//`.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def conv(x_ptr, w_ptr, y_ptr, C_in, C_out, H, W, total, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                ok = offs < total
                ow = offs % W
                oh = (offs // W) % H
                oc = (offs // (W * H)) % C_out
                n = offs // (W * H * C_out)
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for ic in range(C_in):
                    for t in tl.static_range(9):
                        ih = oh + t // 3 - 1
                        iw = ow + t % 3 - 1
                        inside = ok & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
                        xv = tl.load(x_ptr + ((n * C_in + ic) * H + ih) * W + iw, mask=inside, other=0.0)
                        wv = tl.load(w_ptr + (oc * C_in + ic) * 9 + t, mask=ok, other=0.0)
                        acc += xv * wv
                tl.store(y_ptr + offs, acc, mask=ok)
            """,
            line=20,
            column=13,
        ),
        # A convolution over every output channel whose minimum is stored: the channel vector has no program
        # id and is reduced away before the store, yet it is the product's second output axis.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def conv_min(x_ptr, w_ptr, y_ptr, HW, C_in, C_out, BP: tl.constexpr, BCO: tl.constexpr):
                offs_p = tl.program_id(0) * BP + tl.arange(0, BP)
                offs_co = tl.arange(0, BCO)
                acc = tl.zeros((BP, BCO), dtype=tl.float32)
                for ci in range(C_in):
                    xv = tl.load(x_ptr + ci * HW + offs_p)
                    wv = tl.load(w_ptr + offs_co * C_in + ci, mask=offs_co < C_out, other=0.0)
                    acc += xv[:, None] * wv[None, :]
                acc = tl.where((offs_co < C_out)[None, :], acc, float("inf"))
                tl.store(y_ptr + offs_p, tl.min(acc, axis=1))
            """,
            line=12,
            column=9,
        ),
        # An outer product per K step.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr):
                offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
                offs_n = tl.program_id(1) * BN + tl.arange(0, BN)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(K):
                    a = tl.load(a_ptr + offs_m * K + k)
                    b = tl.load(b_ptr + k * N + offs_n)
                    acc += a[:, None] * b[None, :]
                tl.store(c_ptr + offs_m[:, None] * N + offs_n[None, :], acc)
            """,
            line=12,
            column=9,
        ),
        # One output element per program: a dot product of a row of A and a column of B.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, N, K, BK: tl.constexpr):
                pid = tl.program_id(0)
                row = pid // N
                col = pid % N
                acc = 0.0
                for k in range(0, K, BK):
                    offs = k + tl.arange(0, BK)
                    a = tl.load(a_ptr + row * K + offs)
                    b = tl.load(b_ptr + offs * N + col)
                    acc += tl.sum(a * b)
                tl.store(c_ptr + pid, acc)
            """,
            line=14,
            column=9,
        ),
        # A linear layer per batch row: a weight tile times the row, reduced with tl.sum.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def linear(x_ptr, w_ptr, y_ptr, N, K, BN: tl.constexpr, BK: tl.constexpr):
                row = tl.program_id(0)
                cols = tl.program_id(1) * BN + tl.arange(0, BN)
                acc = tl.zeros((BN,), dtype=tl.float32)
                for k in range(0, K, BK):
                    ks = k + tl.arange(0, BK)
                    x = tl.load(x_ptr + row * K + ks)
                    w = tl.load(w_ptr + cols[:, None] * K + ks[None, :])
                    acc = acc + tl.sum(w * x[None, :], axis=1)
                tl.store(y_ptr + row * N + cols, acc)
            """,
            line=13,
            column=9,
        ),
        # A direct convolution: scalar weights times vectors of output positions.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def conv(x_ptr, w_ptr, y_ptr, C, H, W, KS: tl.constexpr, BLOCK: tl.constexpr):
                oc = tl.program_id(1)
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                oh = offs // W
                ow = offs % W
                acc = tl.zeros((BLOCK,), dtype=tl.float32)
                for c in range(C):
                    for kh in range(KS):
                        for kw in range(KS):
                            xv = tl.load(x_ptr + c * H * W + (oh + kh) * W + ow + kw)
                            wv = tl.load(w_ptr + ((oc * C + c) * KS + kh) * KS + kw)
                            acc += xv * wv
                tl.store(y_ptr + oc * H * W + offs, acc)
            """,
            line=16,
            column=17,
        ),
        # Scalar loads in a K loop, written acc = acc + a * b.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, N, K):
                i = tl.program_id(0)
                j = tl.program_id(1)
                acc = 0.0
                for k in range(K):
                    acc = acc + tl.load(a_ptr + i * K + k) * tl.load(b_ptr + k * N + j)
                tl.store(c_ptr + i * N + j, acc)
            """,
            line=10,
            column=9,
        ),
        # A batched GEMM as a broadcast product reduced over K.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def bmm(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
                m = tl.program_id(0) * BM + tl.arange(0, BM)
                n = tl.program_id(1) * BN + tl.arange(0, BN)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k0 in range(0, K, BK):
                    k = k0 + tl.arange(0, BK)
                    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
                    b = tl.load(b_ptr + k[:, None] * 128 + n[None, :])
                    acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)
                tl.store(c_ptr + m[:, None] * 128 + n[None, :], acc)
            """,
            line=13,
            column=9,
        ),
        # A vector of partial products per output element, summed after the loop.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(A, B, C, N, K, BK: tl.constexpr):
                pid = tl.program_id(0)
                row = pid // N
                col = pid % N
                acc = tl.zeros((BK,), dtype=tl.float32)
                for k in range(0, K, BK):
                    ks = k + tl.arange(0, BK)
                    acc += tl.load(A + row * K + ks) * tl.load(B + ks * N + col)
                tl.store(C + pid, tl.sum(acc, axis=0))
            """,
            line=12,
            column=9,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for kernel in model.kernel_list:
            products = multiply_add_products(model, kernel)
            # A load through a pointer that is not a parameter (a name the kernel never received) names nothing.
            if products and all(load.pointers for load in products[0].loads):
                # One finding per kernel: its fix rewrites the whole loop nest.
                yield _report(model, kernel, products[0])


def _report(model: FileModel, kernel: Kernel, found: Product) -> Report:
    left, right = found.loads
    operands = f"`{left.pointers[0]}` and `{right.pointers[0]}`"
    message = (
        f"`{kernel.name}` has no tl.dot: its loop accumulates {found.form} of loads from {operands} into "
        f"`{found.accumulator}` as multiply-adds, so this GEMM/convolution runs as FMA instructions on the CUDA "
        f"cores and never uses the tensor cores"
    )
    plan = (
        f"Rewrite `{kernel.name}` as a tiled tl.dot GEMM: give each program a BLOCK_M x BLOCK_N output tile, load "
        f"a BLOCK_M x BLOCK_K tile from `{left.pointers[0]}` and a BLOCK_K x BLOCK_N tile from "
        f"`{right.pointers[0]}` per K step (a convolution: K runs over C x KH x KW, an implicit GEMM whose "
        f"addresses come from the output position and the window offset), `{found.accumulator} = "
        f"tl.dot(a, b, {found.accumulator})` in fp32, masks on M, N and K, and @triton.autotune over the tiles."
    )
    return Report(node=found.statement, message=message, plan=plan)
