from __future__ import annotations

import re
from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel
from kernlint.model.kernel_loops import DotLoop
from kernlint.model.syntax import walk
from kernlint.registry import Activation, Invalid, Report, Rule, Valid

# Constexprs that switch a K mask off when K divides the block.
SWITCH = re.compile(r"EVEN|DIVISIBLE|DIVIABLE|DIVIDES|MASK|ALIGNED|BOUNDS", re.IGNORECASE)


class UnconditionalKMask(Rule):
    """
    ## What it does
    Finds the K loop of a `tl.dot` (the innermost loop around it, `range`,
    `tl.range` or `tl.static_range`) whose operand loads are masked along the
    loop's dimension on every iteration, in a kernel with no `EVEN_K`-style
    constexpr that drops the mask when K is a multiple of the block.

    A load is masked along K when its `mask=` reads the loop variable, a
    name the loop rebinds (`offs_k`, `k_remaining`), or a runtime size in the
    loop's bounds (`K` in `range(0, tl.cdiv(K, BLOCK_K))`); for a block
    pointer, when its `boundary_check` covers a dimension the loop
    `tl.advance`s along.

    It stays silent when:
    - the masked load sits under an `if` inside the loop (an `EVEN_K`
      switch with an unmasked branch, or a last-iteration branch);
    - the whole K loop is under an `if` on a constexpr;
    - the mask is chosen by a constexpr whose name says so (`EVEN_K`,
      `DIVISIBLE_K`, `MASK_K`, ...), e.g. `mask=k_mask if not EVEN_K else None`;
    - the loads are masked only on M or N (rows and columns outside the
      output tile), which do not change from one K step to the next;
    - a switch constexpr picks the mask in an `if` around its assignment
      (`if DIVISIBLE_K: mask = None`);
    - the K extent is read from memory in the kernel (a ragged per-program
      K, such as an expert's token segment), or the K terms of the mask
      read only constexprs (K itself a constexpr: the compiler knows K's divisibility
      exactly, so the mask is uniform over each block and the loads keep
      their full vector width; `if K % BLOCK_K` is free to write there);
      a term broadcast along the tile's M/N axis, such as a convolution's
      padding check `(ih < H)[:, None]` on the A rows, is not a K term.

    ## Why is this bad?
    A mask on K costs a compare and a select per element on every iteration
    and, more importantly, stops Triton from issuing wide vectorized (and
    on Hopper, TMA/async) loads for the tile, because each element may or
    may not be read. When K is a multiple of BLOCK_K, which it is for almost
    every production GEMM, all of that is wasted.

    ## Example
    ```python
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc += tl.dot(a, b)
    ```

    ## Use instead
    ```python
    @triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
    @triton.jit
    def kernel(..., BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
        ...
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            if EVEN_K:
                a = tl.load(a_ptrs)
                b = tl.load(b_ptrs)
            else:
                a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
                b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
            acc += tl.dot(a, b)
    ```
    Under autotuning, put `@triton.heuristics` below `@triton.autotune` so
    it sees each config's BLOCK_K.

    ## Fix safety
    No automatic fix: the heuristic must name the kernel's own K and block
    constexpr, and split-K kernels must test divisibility by
    `BLOCK_K * SPLIT_K`.

    ## Measured speedup
    From the `kl010_unconditional_k_mask` pair's record (`kernlint rule
    KL010` prints it with the GPU and shapes).
    """

    code = "KL010"
    name = "unconditional-k-mask"
    category = Category.TUNING
    severity = Severity.INFO
    # Opt-in (issue 25): its reference pair measures 1.0x in every mode at every shape, so by default it would only add noise
    # (ruff keeps such rules out of its defaults). `extend-select = ["KL010"]` turns it on.
    activation = Activation.OPT_IN
    summary = "Loads in a tl.dot K loop are masked on K every iteration; no EVEN_K fast path."
    bottleneck = (
        "Every K step evaluates a mask on K for each loaded element, which also blocks wide vectorized "
        "and asynchronous tile loads, even when K is a multiple of BLOCK_K and the mask is all true."
    )
    method = (
        "Add an EVEN_K constexpr set by @triton.heuristics (K % BLOCK_K == 0) and load the tiles "
        "unmasked under `if EVEN_K:`, keeping the masked loads for the ragged case."
    )
    priority = 60

    VALID = [
        # The EVEN_K switch: masked loads only in the else branch.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((16, 16), dtype=tl.float32)
                for k in range(0, tl.cdiv(K, BLOCK_K)):
                    if EVEN_K:
                        a = tl.load(a_ptr + offs_k)
                        b = tl.load(b_ptr + offs_k)
                    else:
                        a = tl.load(a_ptr + offs_k, mask=offs_k < K - k * BLOCK_K, other=0.0)
                        b = tl.load(b_ptr + offs_k, mask=offs_k < K - k * BLOCK_K, other=0.0)
                    acc += tl.dot(a, b)
            """
        ),
        # Masks on M and N only: they do not change along K.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
                pid_m = tl.program_id(axis=0)
                offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
                offs_n = tl.arange(0, BLOCK_N)
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
                for k in range(0, K, BLOCK_K):
                    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :] + k, mask=offs_m[:, None] < M)
                    b = tl.load(b_ptr + (offs_k[:, None] + k) * N + offs_n[None, :], mask=offs_n[None, :] < N)
                    acc += tl.dot(a, b)
            """
        ),
        # A constexpr-named mask switch inside the load.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, K, BLOCK_K: tl.constexpr, DIVISIBLE_K: tl.constexpr):
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((16, 16), dtype=tl.float32)
                for k in tl.range(0, K, BLOCK_K):
                    k_mask = offs_k < K - k
                    a = tl.load(a_ptr + offs_k + k, mask=k_mask if not DIVISIBLE_K else None)
                    b = tl.load(b_ptr + offs_k + k, mask=None if DIVISIBLE_K else k_mask)
                    acc += tl.dot(a, b)
            """
        ),
        # The whole K loop duplicated under a constexpr `if`: the even copy is unmasked.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, K, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((16, 16), dtype=tl.float32)
                if EVEN_K:
                    for k in range(0, K, BLOCK_K):
                        acc += tl.dot(tl.load(a_ptr + offs_k + k), tl.load(b_ptr + offs_k + k))
                else:
                    for k in range(0, K, BLOCK_K):
                        a = tl.load(a_ptr + offs_k + k, mask=offs_k + k < K, other=0.0)
                        b = tl.load(b_ptr + offs_k + k, mask=offs_k + k < K, other=0.0)
                        acc += tl.dot(a, b)
            """
        ),
        # The switch picks the masks in an `if` around their assignments.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, K, BLOCK_K: tl.constexpr, DIVISIBLE_K: tl.constexpr):
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((16, 16), dtype=tl.float32)
                for k in range(0, K, BLOCK_K):
                    if DIVISIBLE_K:
                        mask_k = None
                    else:
                        mask_k = offs_k + k < K
                    acc += tl.dot(tl.load(a_ptr + offs_k + k, mask=mask_k), tl.load(b_ptr + offs_k + k, mask=mask_k))
            """
        ),
        # A ragged K read from memory (an expert's token segment): no launch-time EVEN_K can hold.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def grouped(x_ptr, w_ptr, seg_ptr, BLOCK_K: tl.constexpr):
                e = tl.program_id(0)
                start = tl.load(seg_ptr + e)
                length = tl.load(seg_ptr + e + 1) - start
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((16, 16), dtype=tl.float32)
                for k in tl.range(0, length, BLOCK_K):
                    rows = start + k + offs_k
                    x = tl.load(x_ptr + rows, mask=k + offs_k < length, other=0.0)
                    w = tl.load(w_ptr + rows, mask=k + offs_k < length, other=0.0)
                    acc += tl.dot(x, w)
            """
        ),
        # K is a constexpr: the compiler knows its divisibility, the loads stay vectorized.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, K: tl.constexpr, BLOCK_K: tl.constexpr):
                offs_m = tl.program_id(0) * 16 + tl.arange(0, 16)
                row_mask = offs_m < M
                acc = tl.zeros((16, 16), dtype=tl.float32)
                for k0 in tl.range(0, K, BLOCK_K):
                    offs_k = k0 + tl.arange(0, BLOCK_K)
                    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :], mask=row_mask[:, None] & (offs_k < K)[None, :])
                    b = tl.load(b_ptr + offs_k, mask=offs_k < K, other=0.0)
                    acc += tl.dot(a, b)
            """
        ),
        # A convolution: the padding mask on the A rows changes per step but not along K.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def conv(x_ptr, w_ptr, H, W, C: tl.constexpr, KH: tl.constexpr, BLOCK_C: tl.constexpr):
                oh = (tl.program_id(0) * 16 + tl.arange(0, 16)) // W
                acc = tl.zeros((16, 16), dtype=tl.float32)
                for step in range(KH * (C // BLOCK_C)):
                    kh = step // (C // BLOCK_C)
                    offs_c = (step % (C // BLOCK_C)) * BLOCK_C + tl.arange(0, BLOCK_C)
                    ih = oh + kh - 1
                    in_mask = ((ih >= 0) & (ih < H))[:, None] & (offs_c < C)[None, :]
                    x = tl.load(x_ptr + (ih * W)[:, None] + offs_c[None, :], mask=in_mask, other=0.0)
                    w = tl.load(w_ptr + offs_c[:, None] * 16 + tl.arange(0, 16)[None, :], mask=(offs_c < C)[:, None])
                    acc += tl.dot(x, w)
            """
        ),
        # Peeled: unmasked full blocks in the loop, one masked tail after it.
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, K, BLOCK_K: tl.constexpr):
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((16, 16), dtype=tl.float32)
                k_full = (K // BLOCK_K) * BLOCK_K
                for k in range(0, k_full, BLOCK_K):
                    acc += tl.dot(tl.load(a_ptr + offs_k + k), tl.load(b_ptr + offs_k + k))
                a = tl.load(a_ptr + offs_k + k_full, mask=offs_k + k_full < K, other=0.0)
                b = tl.load(b_ptr + offs_k + k_full, mask=offs_k + k_full < K, other=0.0)
                acc += tl.dot(a, b)
            """
        ),
        # Block pointers checked only on the M/N dimension the loop does not advance.
        Valid(
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
                    a = tl.load(a_blk, boundary_check=(0,))
                    b = tl.load(b_blk, boundary_check=(1,))
                    acc += tl.dot(a, b)
                    a_blk = tl.advance(a_blk, (0, BK))
                    b_blk = tl.advance(b_blk, (BK, 0))
            """
        ),
        # Masked only in the last iteration (a runtime branch inside the loop).
        Valid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, K, BLOCK_K: tl.constexpr):
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((16, 16), dtype=tl.float32)
                n_k = tl.cdiv(K, BLOCK_K)
                for k in range(0, n_k):
                    if k == n_k - 1:
                        a = tl.load(a_ptr + offs_k + k * BLOCK_K, mask=offs_k + k * BLOCK_K < K, other=0.0)
                    else:
                        a = tl.load(a_ptr + offs_k + k * BLOCK_K)
                    acc += tl.dot(a, a)
            """
        ),
    ]
    INVALID = [
        # The tutorial form: masks on `K - k * BLOCK_K` in a cdiv loop.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, K, stride_ak, stride_bk, BLOCK_K: tl.constexpr):
                offs_k = tl.arange(0, BLOCK_K)
                a_ptrs = a_ptr + offs_k[None, :] * stride_ak
                b_ptrs = b_ptr + offs_k[:, None] * stride_bk
                acc = tl.zeros((16, 16), dtype=tl.float32)
                for k in range(0, tl.cdiv(K, BLOCK_K)):
                    a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
                    b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
                    acc += tl.dot(a, b)
                    a_ptrs += BLOCK_K * stride_ak
                    b_ptrs += BLOCK_K * stride_bk
            """,
            line=12,
            column=13,
        ),
        # Mask through a name the loop rebinds, combined with an M mask.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.jit
            def mm(a_ptr, b_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
                offs_m = tl.program_id(axis=0) * BLOCK_M + tl.arange(0, BLOCK_M)
                acc = tl.zeros((BLOCK_M, BLOCK_M), dtype=tl.float32)
                for k in range(0, K, BLOCK_K):
                    offs_k = k + tl.arange(0, BLOCK_K)
                    mask = (offs_m[:, None] < M) & (offs_k[None, :] < K)
                    a = tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :], mask=mask, other=0.0)
                    acc += tl.dot(a, tl.trans(a))
            """,
            line=12,
            column=13,
        ),
        # Block pointers with a boundary check on the advanced K dimension.
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
                    a = tl.load(a_blk, boundary_check=(0, 1))
                    b = tl.load(b_blk, boundary_check=(0, 1))
                    acc += tl.dot(a, b)
                    a_blk = tl.advance(a_blk, (0, BK))
                    b_blk = tl.advance(b_blk, (BK, 0))
            """,
            line=12,
            column=13,
        ),
        # tl.static_range over a constexpr K, loads inline in the dot.
        Invalid(
            """
            import triton
            from triton import language as lang

            @triton.jit
            def mm(a_ptr, b_ptr, K, BLOCK_K: lang.constexpr, K_TILES: lang.constexpr):
                offs_k = lang.arange(0, BLOCK_K)
                acc = lang.zeros((16, 16), dtype=lang.float32)
                for kt in lang.static_range(K_TILES):
                    k_offs = kt * BLOCK_K + offs_k
                    acc += lang.dot(lang.load(a_ptr + k_offs, mask=k_offs < K), lang.load(b_ptr + k_offs, mask=k_offs < K))
            """,
            line=11,
            column=25,
        ),
        # Autotuned block sizes, an unrelated heuristic: still no EVEN_K path.
        Invalid(
            """
            import triton
            import triton.language as tl

            @triton.autotune(configs=[triton.Config({"BLOCK_K": 32}), triton.Config({"BLOCK_K": 64})], key=["K"])
            @triton.heuristics({"USE_BIAS": lambda args: args["bias_ptr"] is not None})
            @triton.jit
            def mm(a_ptr, b_ptr, bias_ptr, K, BLOCK_K: tl.constexpr, USE_BIAS: tl.constexpr):
                offs_k = tl.arange(0, BLOCK_K)
                acc = tl.zeros((16, 16), dtype=tl.float32)
                for k in range(0, tl.cdiv(K, BLOCK_K)):
                    k_remaining = K - k * BLOCK_K
                    a = tl.load(a_ptr + offs_k + k * BLOCK_K, mask=offs_k < k_remaining, other=0.0)
                    acc = tl.dot(a, a, acc)
                if USE_BIAS:
                    acc += tl.load(bias_ptr)
            """,
            line=13,
            column=13,
        ),
        # The loop inside a row-block loop; `from triton.language import ...`.
        Invalid(
            """
            import triton
            from triton.language import arange, constexpr, dot, load, program_id, zeros

            @triton.jit
            def mm(a_ptr, b_ptr, M, K, BLOCK_K: constexpr):
                offs_k = arange(0, BLOCK_K)
                for row in range(program_id(0), M, 4):
                    acc = zeros((16, 16), dtype=float)
                    for k in range(0, K, BLOCK_K):
                        b = load(b_ptr + offs_k + k, mask=offs_k + k < K, other=0.0)
                        acc += dot(b, b)
            """,
            line=11,
            column=17,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for kernel in model.kernel_list:
            switches = {name for name in (*kernel.constexprs, *kernel.heuristics) if SWITCH.search(name)}
            for dot_loop in model.dot_loops(kernel):
                if not dot_loop.streams_both:
                    continue
                if any(_reads_constexpr(model, kernel, test) for test in dot_loop.loop.guarded_by):
                    continue
                if model.loaded_k_extent(kernel, dot_loop):
                    continue
                masked = [
                    load
                    for load in model.k_masked_loads(kernel, dot_loop)
                    if not (model.depends_on(kernel, load.mask) & switches if load.mask is not None else False)
                    and not _has_switch_ternary(model, kernel, load.mask)
                    and not _switched_by_if(model, kernel, load.mask, switches)
                    and not (load.mask is not None and not model.k_mask_runtime_sizes(kernel, dot_loop, load))
                ]
                if masked:
                    yield self._report(model, kernel, dot_loop, masked)

    def _report(self, model: FileModel, kernel: Kernel, dot_loop: DotLoop, masked: list) -> Report:
        masked = list({id(load): load for load in masked}.values())
        pointers = list(dict.fromkeys(_address_text(model, load) for load in masked))
        loop_line = model.line_of(dot_loop.loop.node)
        lines = ", ".join(str(model.line_of(load.call)) for load in masked)
        block = next((n for n in kernel.constexprs if "K" in n.upper() and "BLOCK" in n.upper()), None) or "BLOCK_K"
        message = (
            f"`{kernel.name}`: the loads of {', '.join(f'`{p}`' for p in pointers)} in the K loop at line {loop_line} "
            f"are masked on K on every iteration (line {lines}) and the kernel has no EVEN_K fast path"
        )
        plan = (
            f"Add `EVEN_K: tl.constexpr` to `{kernel.name}`, set it with "
            f'`@triton.heuristics({{"EVEN_K": lambda args: args["K"] % args["{block}"] == 0}})` '
            f"(below any @triton.autotune), and in the loop at line {loop_line} load the tiles without `mask=` "
            f"under `if EVEN_K:`, keeping the masked loads in the `else:` branch."
        )
        return Report(node=masked[0].call, message=message, plan=plan)


def _address_text(model: FileModel, load) -> str:
    address = load.call.args[0].value if load.call.args else load.call
    text = model.code(address)
    if len(text) <= 40 and "\n" not in text:
        return text
    return load.pointers[0] if load.pointers else "the tile"


def _reads_constexpr(model: FileModel, kernel: Kernel, test: cst.BaseExpression) -> bool:
    constexprs = set(kernel.constexprs) | set(kernel.heuristics)
    return bool(model.depends_on(kernel, test) & constexprs)


def _switched_by_if(model: FileModel, kernel: Kernel, mask: cst.BaseExpression | None, switches: set[str]) -> bool:
    """`if DIVISIBLE_K: mask_a = None` / `else: mask_a = offs_k < K`: a switch
    constexpr picks the mask in an `if` around its assignment."""
    if mask is None:
        return False
    tests = model.assignment_guards(kernel, model.depends_on(kernel, mask))
    return any(model.depends_on(kernel, test) & switches for test in tests)


def _has_switch_ternary(model: FileModel, kernel: Kernel, mask: cst.BaseExpression | None) -> bool:
    """`mask=k_mask if not EVEN_K else None`: a constexpr picks the mask."""
    if mask is None:
        return False
    return any(isinstance(node, cst.IfExp) and _reads_constexpr(model, kernel, node.test) for node in walk(mask))
