from __future__ import annotations

import math
import re
from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel
from kernlint.model.offsets import ARANGE, Address, OffsetProduct
from kernlint.model.syntax import positional
from kernlint.registry import Invalid, Report, Rule, Valid

INT32_LIMIT = 2**31
# Names of tensors that can outgrow 2**31 elements on their own: vocab-sized
# logits, KV caches, embedding tables. Matched on the pointer parameter, the
# stride/size arguments of the product and the kernel's name.
LARGE_SUBSTRINGS = ("logit", "vocab", "cross_entropy", "crossentropy", "embed", "lm_head")
LARGE_WORDS = frozenset({"wte", "emb"})
# The KV-cache names, apart: a kernel that names its cache (`key_cache`,
# `kv_cache_ptr`) says which tensor is the cache, so its other tensors (the
# new tokens' keys and values, `kv_c`) and its own name are no evidence.
CACHE_SUBSTRINGS = ("kv_cache", "kvcache", "k_cache", "v_cache", "paged")
CACHE_WORDS = frozenset({"kv", "cache", "past"})
# A rotary or learned position embedding holds one row per position, not per
# vocabulary entry: `emb` in `apply_rotary_pos_emb` is no embedding table.
POSITIONAL = ("rotary", "pos_emb", "position")
SEVERAL = "it is indexed over several program-id dimensions times runtime strides (batch x heads x rows)"
COUNT_NAMES = frozenset({"m", "b", "bs", "batch", "batch_size", "n_rows", "nrows", "rows", "num_rows"})
SIZE_CALLS = frozenset({"randn", "rand", "empty", "zeros", "ones", "full", "randint", "empty_strided"})


class Int32OffsetOverflow(Rule):
    """
    ## What it does
    Finds a pointer offset in a `@triton.jit` kernel that multiplies a value
    derived from `tl.program_id` (the program id itself, `pid_m, pid_n =
    ...`, or an offsets vector `pid * BLOCK + tl.arange(0, BLOCK)`) by a
    runtime stride or size argument, with neither factor promoted to 64 bits
    (`.to(tl.int64)`, `.cast(tl.int64)`, `tl.cast(x, tl.int64)`, a parameter
    annotated `tl.int64`), in a load, a store, an atomic, or the `base` of a
    block pointer, when the tensor behind that pointer can plausibly exceed
    2**31 elements.

    How the judgement is made (statically; nothing is run):
    - the offset selects two or more sub-tensors by scalar program-id values
      times runtime stride arguments (`off_b * stride_b + off_h * stride_h`):
      an activation indexed by batch x heads x sequence, or
    - the pointer, the stride or size argument, or the kernel is named for a
      tensor that is large on its own: vocab-sized logits (`logits`,
      `vocab`, a cross-entropy kernel), KV caches (`kv`, `cache`, `past`,
      paged attention), embedding tables (`embed`, `wte`, `emb`);
    - and no launch in the file binds the pointer to a tensor whose shape is
      known to hold fewer than 2**31 elements (`torch.randn(1024, 1024)`).

    It stays silent when a factor is promoted, on offsets bounded by a
    constexpr (`pid * BLOCK + tl.arange(0, BLOCK)` into a flat tensor), on
    strided 2-D tensors with no sign of being large (a GEMM's `offs_m[:, None]
    * stride_am`), on weights of known small size, on block-pointer offsets
    and strides (Triton computes those in 64 bits), and on program ids from
    helpers that return int64 (`tle.program_id`). Across several program-id
    dimensions it also spares a product whose stride is `t.stride(k)` at
    every launch beside a promoted one on `t.stride(j)`, j < k (a head index
    times the head stride inside a promoted batch x sequence row), and an
    address of one element per program-id tuple (a per-token loss). Rotary
    or position embeddings are no embedding table, and in a kernel that names
    its cache (`key_cache`) only that pointer counts as the cache.

    A kernel is reported once, at its first int32 product (the message
    lists the others), so one line silences it for the whole kernel:
    `# noqa: KL012` at the end of the reported line (or
    `# kernlint: ignore[KL012]` on its own line right above it).

    ## Why is this bad?
    `tl.program_id` and integer arguments below 2**31 are 32-bit in Triton,
    so `pid * stride` is computed in int32. Once `pid * stride` passes
    2**31 - 1 (row 16 385 of logits with a 131 072-token vocabulary) it wraps
    to a negative offset: the kernel silently reads or writes the wrong
    memory, or faults.

    ## Example
    ```python
    row = tl.program_id(0)
    logits_ptr += row * stride_row
    ```

    ## Use instead
    ```python
    row = tl.program_id(0).to(tl.int64)
    logits_ptr += row * stride_row
    ```

    ## Fix safety
    No automatic fix, although promoting the program id is always safe: the
    64-bit multiply costs a few extra instructions per program, nothing per
    element.
    """

    code = "KL012"
    name = "int32-offset-overflow"
    category = Category.HAZARD
    severity = Severity.WARNING
    summary = "A pointer offset multiplies a program id by a runtime stride in int32 on a tensor that can exceed 2**31 elements."
    priority = 20

    VALID = [
        # Promoted program id (the fix), `tl.program_id(axis=0)`.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def ce(logits_ptr, stride, n_cols, BLOCK: tl.constexpr):
                row = tl.program_id(axis=0).to(tl.int64)
                logits_ptr += row * stride
                cols = tl.arange(0, BLOCK)
                tl.store(logits_ptr + cols, tl.load(logits_ptr + cols, mask=cols < n_cols), mask=cols < n_cols)
            """
        ),
        # Offsets bounded by a constexpr block: a flat elementwise kernel.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
            """
        ),
        # A 2-D GEMM with nothing that says its tensors are large.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, c_ptr, stride_am, stride_bn, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
                pid_m, pid_n = tl.program_id(0), tl.program_id(1)
                offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
                offs_k = tl.arange(0, BLOCK_K)
                a = tl.load(a_ptr + offs_m[:, None] * stride_am + offs_k[None, :])
                b = tl.load(b_ptr + offs_k[:, None] + pid_n * BLOCK_K)
                tl.store(c_ptr + offs_m[:, None] * stride_am, tl.dot(a, b))
            """
        ),
        # Block pointers: offsets and strides are 64-bit; the base is promoted.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def attn(q_ptr, o_ptr, stride_z, stride_h, stride_m, N_CTX, H, BLOCK_M: tl.constexpr, D: tl.constexpr):
                off_hz = tl.program_id(1)
                off_z = (off_hz // H).to(tl.int64)
                off_h = (off_hz % H).to(tl.int64)
                base = off_z * stride_z + off_h * stride_h
                q = tl.make_block_ptr(q_ptr + base, (N_CTX, D), (stride_m, 1), (tl.program_id(0) * BLOCK_M, 0), (BLOCK_M, D), (1, 0))
                for i in tl.static_range(2):
                    q = tl.advance(q, (0, 0))
                tl.store(o_ptr + base + tl.arange(0, D), tl.sum(tl.load(q), axis=0))
            """
        ),
        # A KV cache whose stride argument is declared int64.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def write_kv(kv_cache_ptr, src_ptr, stride_slot: tl.int64, D: tl.constexpr):
                slot = tl.program_id(0)
                d = tl.arange(0, D)
                tl.store(kv_cache_ptr + slot * stride_slot + d, tl.load(src_ptr + d))
            """
        ),
        # An embedding table of known small size at every launch.
        Valid(
            """
            import torch
            import triton
            import triton.language as tl
            @triton.jit
            def embed_rows(embed_ptr, out_ptr, stride, D: tl.constexpr):
                row = tl.program_id(0)
                d = tl.arange(0, D)
                tl.store(out_ptr + d, tl.load(embed_ptr + row * stride + d))
            def run(out):
                table = torch.randn(1000, 64, device="cuda")
                embed_rows[(1000,)](table, out, table.stride(0), D=64)
            """
        ),
        # The program id comes from a helper that returns int64 already, from a heuristic kernel.
        Valid(
            """
            import triton
            import triton.language as tl
            from flag_gems.utils import triton_lang_extension as tle
            @triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n_cols"])})
            @triton.jit
            def softmax(logits_ptr, stride, n_cols, BLOCK: tl.constexpr):
                row = tle.program_id(0)
                cols = tl.arange(0, BLOCK)
                x = tl.load(logits_ptr + row * stride + cols, mask=cols < n_cols)
                tl.store(logits_ptr + row * stride + cols, x, mask=cols < n_cols)
            """
        ),
        # Batch x sequence promoted; the head index times the head stride left in
        # int32 stays inside one row (`q.stride(2)` is inner to `q.stride(1)`).
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def rope(q_ptr, row_stride, head_stride, D: tl.constexpr):
                row = tl.program_id(0).to(tl.int64)
                head = tl.program_id(1)
                d = tl.arange(0, D)
                ptrs = q_ptr + row * row_stride + head * head_stride + d
                tl.store(ptrs, tl.load(ptrs) * 2)
            def run(q):
                rope[(q.shape[0] * q.shape[1], q.shape[2])](q, q.stride(1), q.stride(2), D=64)
            """
        ),
        # One element per (batch, token): a per-token loss gradient is as small as the grid.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def token_loss_bwd(dloss_ptr, dx_ptr, stride_b, stride_l, L, D: tl.constexpr):
                b, l = tl.program_id(0), tl.program_id(1)
                dloss = tl.load(dloss_ptr + b * stride_b + l * stride_l)
                row = b.to(tl.int64) * L + l
                d = tl.arange(0, D)
                tl.store(dx_ptr + row * D + d, tl.zeros((D,), tl.float32) + dloss)
            """
        ),
        # A rotary position embedding: one row of cos per position, no embedding table.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def apply_rotary_pos_emb(q_ptr, cos_ptr, stride_tok, stride_pos, D: tl.constexpr):
                tok = tl.program_id(0)
                d = tl.arange(0, D)
                cos = tl.load(cos_ptr + tok * stride_pos + d)
                tl.store(q_ptr + tok * stride_tok + d, tl.load(q_ptr + tok * stride_tok + d) * cos)
            """
        ),
        # A kernel that names its cache: the new token's keys are no cache, and the
        # cache is addressed through the gathered slot.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def write_kv_cache(kv_ptr, kv_cache_ptr, slot_ptr, stride_tok, D: tl.constexpr):
                tok = tl.program_id(0)
                slot = tl.load(slot_ptr + tok)
                d = tl.arange(0, D)
                tl.store(kv_cache_ptr + slot * D + d, tl.load(kv_ptr + tok * stride_tok + d))
            """
        ),
    ]
    INVALID = [
        # Vocab-sized logits in a cross-entropy kernel, `ptr += row * stride`.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def cross_entropy_fwd(x_ptr, loss_ptr, x_stride, n_cols, BLOCK: tl.constexpr):
                row = tl.program_id(axis=0)
                x_ptr += row * x_stride
                cols = tl.arange(0, BLOCK)
                x = tl.load(x_ptr + cols, mask=cols < n_cols)
                tl.store(loss_ptr + row, tl.sum(x, axis=0))
            """,
            line=7,
            column=14,
        ),
        # Batch x heads activation: two program-id dimensions times runtime strides.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def rope(q_ptr, stride_b, stride_h, D: tl.constexpr):
                pid_b, pid_h = tl.program_id(0), tl.program_id(1)
                d = tl.arange(0, D)
                ptrs = q_ptr + pid_b * stride_b + pid_h * stride_h + d
                tl.store(ptrs, tl.load(ptrs) * 2)
            """,
            line=8,
            column=20,
        ),
        # A KV cache written through an offsets vector.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def store_kv(k_cache_ptr, k_ptr, stride_tok, n_tokens, BLOCK: tl.constexpr, D: tl.constexpr):
                pid = tl.program_id(0)
                toks = pid * BLOCK + tl.arange(0, BLOCK)
                d = tl.arange(0, D)
                k = tl.load(k_ptr + toks[:, None] * D + d[None, :], mask=toks[:, None] < n_tokens)
                tl.store(k_cache_ptr + toks[:, None] * stride_tok + d[None, :], k, mask=toks[:, None] < n_tokens)
            """,
            line=10,
            column=28,
        ),
        # Block pointer whose base is offset in int32 (batch x heads), autotuned.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.autotune(configs=[triton.Config({"BLOCK_M": 64}), triton.Config({"BLOCK_M": 128})], key=["N_CTX"])
            @triton.jit
            def attn(q_ptr, stride_z, stride_h, stride_m, N_CTX, H, BLOCK_M: tl.constexpr, D: tl.constexpr):
                off_hz = tl.program_id(1)
                off_z = off_hz // H
                off_h = off_hz % H
                q = tl.make_block_ptr(q_ptr + off_z * stride_z + off_h * stride_h, (N_CTX, D), (stride_m, 1),
                                      (tl.program_id(0) * BLOCK_M, 0), (BLOCK_M, D), (1, 0))
                tl.store(tl.advance(q, (0, 0)), tl.load(q))
            """,
            line=10,
            column=35,
        ),
        # Embedding rows gathered by program id, through `from triton import language as lang`.
        Invalid(
            """
            import triton
            from triton import language as lang
            @triton.jit
            def embedding_bwd(grad_ptr, weight_ptr, stride_w, D: lang.constexpr):
                token = lang.program_id(0)
                cols = lang.arange(0, D)
                for i in lang.static_range(2):
                    lang.atomic_add(weight_ptr + token * stride_w + cols, lang.load(grad_ptr + cols))
            """,
            line=9,
            column=38,
        ),
        # Logits by name; the promotion comes after the product, too late.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def scale(logits_ptr, stride, n_cols, BLOCK: tl.constexpr):
                pid = tl.program_id(0)
                offset = (pid * stride).to(tl.int64)
                cols = tl.arange(0, BLOCK)
                tl.store(logits_ptr + offset + cols, 0.0, mask=cols < n_cols)
            """,
            line=7,
            column=15,
        ),
        # The head promoted but not the batch x sequence row: the outer product wraps.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def rope(q_ptr, row_stride, head_stride, D: tl.constexpr):
                row = tl.program_id(0)
                head = tl.program_id(1).to(tl.int64)
                d = tl.arange(0, D)
                ptrs = q_ptr + row * row_stride + head * head_stride + d
                tl.store(ptrs, tl.load(ptrs) * 2)
            def run(q):
                rope[(q.shape[0] * q.shape[1], q.shape[2])](q, q.stride(1), q.stride(2), D=64)
            """,
            line=9,
            column=20,
        ),
        # Beside its per-token scalar, the kernel reads a row per (batch, token).
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def token_loss_bwd(dloss_ptr, x_ptr, stride_b, stride_l, stride_xb, stride_xl, D: tl.constexpr):
                b, l = tl.program_id(0), tl.program_id(1)
                dloss = tl.load(dloss_ptr + b * stride_b + l * stride_l)
                d = tl.arange(0, D)
                ptrs = x_ptr + b * stride_xb + l * stride_xl + d
                tl.store(ptrs, tl.load(ptrs) * dloss)
            """,
            line=9,
            column=20,
        ),
        # A position-embedding kernel that also gathers token embeddings (`wte`).
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def add_pos_emb(wte_ptr, out_ptr, ids_ptr, stride_w, D: tl.constexpr):
                tok = tl.program_id(0)
                d = tl.arange(0, D)
                row = tl.load(ids_ptr + tok)
                tl.store(out_ptr + d, tl.load(wte_ptr + tok * stride_w + d))
            """,
            line=9,
            column=45,
        ),
        # A kernel that names its cache and addresses it by the program id.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def write_kv_cache(kv_ptr, kv_cache_ptr, stride_tok, stride_slot, D: tl.constexpr):
                tok = tl.program_id(0)
                d = tl.arange(0, D)
                tl.store(kv_cache_ptr + tok * stride_slot + d, tl.load(kv_ptr + tok * stride_tok + d))
            """,
            line=8,
            column=29,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        entry_point = model.entry_point
        if entry_point is not None and entry_point.fits_int32:
            # A KernelBench file whose every tensor, at its own shapes, stays
            # under 2**31 elements cannot overflow an int32 offset (issue 25).
            return
        for kernel in model.kernel_list:
            reported: dict[int, tuple[OffsetProduct, list[str], str]] = {}
            for address in model.addresses(kernel):
                evidence = _evidence(model, kernel, address)
                if evidence is None:
                    continue
                structural = evidence == SEVERAL
                for product in address.products:
                    if product.promoted or (product.arguments and all(_count_name(a) for a in product.arguments)):
                        # `pid * rows_per_program` is a row number, not an element offset.
                        continue
                    if structural and ARANGE in model.offset_provenance(kernel, product.index):
                        # Rows of one batch/head: bounded once the batch and head offsets are 64-bit.
                        continue
                    if structural and (
                        _inner_to_promoted(model, kernel, address, product)
                        or model.one_element_per_program(kernel, address)
                    ):
                        continue
                    pointers = [p for p in address.pointers if not _known_small(model, kernel, p)]
                    if not pointers:
                        continue
                    entry = reported.setdefault(id(product.node), (product, [], evidence))
                    entry[1].extend(p for p in pointers if p not in entry[1])
            if reported:
                # One finding per kernel, at its first product: the fix (promote the
                # program ids) and the suppression are per kernel too.
                entries = sorted(reported.values(), key=lambda e: model.span(e[0].node))
                yield _report(model, kernel, entries)


def _count_name(name: str) -> bool:
    """A count of rows or programs (`n_rows`, `num_programs`, `M`, `batch`), as
    opposed to a stride or a row length."""
    lowered = name.lower()
    return lowered in COUNT_NAMES or lowered.startswith("num_") or lowered.endswith(("_rows", "_programs"))


def _large_name(name: str, cache_names: bool = True) -> bool:
    """`name` is that of a tensor that can outgrow 2**31 elements; the
    KV-cache names count only with `cache_names`."""
    lowered = name.lower()
    words = set(re.split(r"_+", lowered))
    if "rope" in words or any(p in lowered for p in POSITIONAL):
        words -= {"emb"}
        lowered = lowered.replace("embed", "")
    if any(s in lowered for s in LARGE_SUBSTRINGS) or LARGE_WORDS & words:
        return True
    return cache_names and (any(s in lowered for s in CACHE_SUBSTRINGS) or bool(CACHE_WORDS & words))


def _inner_to_promoted(model: FileModel, kernel: Kernel, address: Address, product: OffsetProduct) -> bool:
    """Every launch binds the product's stride to `t.stride(k)` and the
    stride of a promoted product of the same address to `t.stride(j)`,
    j < k: the int32 product (a head index times the head stride) stays
    inside one slice of the promoted dimension, below `t.stride(j)`, itself
    a 32-bit argument."""
    inner = model.stride_dims(kernel, product.arguments[0]) if len(product.arguments) == 1 else None
    if inner is None:
        return False
    for other in address.products:
        outer = model.stride_dims(kernel, other.arguments[0]) if other.promoted and len(other.arguments) == 1 else None
        if (
            outer
            and outer.keys() == inner.keys()
            and all(o[0] == inner[k][0] and o[1] < inner[k][1] for k, o in outer.items())
        ):
            return True
    return False


def _evidence(model: FileModel, kernel: Kernel, address: Address) -> str | None:
    """Why the tensor behind an address may exceed 2**31 elements, or None."""
    # Scalar program-id offsets select whole sub-tensors (a batch, a head);
    # offsets vectors (`offs_m[:, None]`) walk the rows and columns of a tile,
    # which every 2-D kernel does.
    scalars = {
        model.code(p.index).strip()
        for p in address.products
        if ARANGE not in model.offset_provenance(kernel, p.index) and any("stride" in a.lower() for a in p.arguments)
    }
    if len(scalars) >= 2:
        return SEVERAL
    # A kernel that names its cache: only the pointers that say `cache` are it.
    cache = any("cache" in p.name.lower() for p in kernel.params if not p.constexpr)
    named = [p for p in address.pointers if _large_name(p, not cache or "cache" in p.lower())]
    if named:
        return f"`{named[0]}` names a tensor that can be that large (logits, KV cache or embedding table)"
    arguments = [a for p in address.products for a in p.arguments if _large_name(a, not cache)]
    if arguments:
        return f"its size argument `{arguments[0]}` names a tensor that can be that large"
    if _large_name(kernel.name, not cache):
        # The kernel's name says it works on a large tensor; when one of its
        # pointers names that tensor (`logits`) and this address is not it,
        # the address is of a side tensor (a per-row loss or lse, issue 27).
        pointers = {load_pointer for load_pointer in address.pointers}
        named_params = [p.name for p in kernel.params if not p.constexpr and _large_name(p.name, not cache)]
        if named_params and not pointers & set(named_params):
            return None
        return f"`{kernel.name}` works on tensors that can be that large (logits, KV cache or embedding table)"
    return None


def _known_small(model: FileModel, kernel: Kernel, pointer: str) -> bool:
    """Every launch in the file binds `pointer` to a tensor created with a
    literal shape of fewer than 2**31 elements."""
    bound = model.host_argument(kernel, pointer)
    if not bound:
        return False
    for argument, launch in bound:
        numel = _numel(model, argument, launch.caller)
        if numel is None or numel >= INT32_LIMIT:
            return False
    return True


def _numel(model: FileModel, node: cst.BaseExpression, scope, depth: int = 0) -> int | None:
    if depth > 6:
        return None
    if isinstance(node, cst.Name):
        value = model.assigned_value(scope, node.value, before=node, strict=True)
        return None if value is None else _numel(model, value, scope, depth + 1)
    if not isinstance(node, cst.Call):
        return None
    name = model.qualname(node.func) or ""
    if name.startswith("torch.") and name.rsplit(".", 1)[-1] in SIZE_CALLS:
        dims = positional(node)
        if name.endswith("randint"):
            dims = dims[2:] if len(dims) > 2 else dims[-1:]
        if name.endswith("full"):
            dims = dims[:1]
        if len(dims) == 1 and isinstance(dims[0], (cst.Tuple, cst.List)):
            dims = [e.value for e in dims[0].elements]
        values = [model.constant_value(d, scope) for d in dims]
        if dims and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return math.prod(values)  # type: ignore[arg-type]
        return None
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in (
        "to",
        "cuda",
        "contiguous",
        "half",
        "float",
        "bfloat16",
    ):
        return _numel(model, node.func.value, scope, depth + 1)
    return None


def _report(model: FileModel, kernel: Kernel, entries: list[tuple[OffsetProduct, list[str], str]]) -> Report:
    product, _, evidence = entries[0]
    text = " ".join(model.code(product.node).split())
    arguments = ", ".join(f"`{a}`" for a in product.arguments) or "a runtime argument"
    pointers: list[str] = []
    for _, found, _ in entries:
        pointers.extend(p for p in found if p not in pointers)
    tensors = ", ".join(f"`{p}`" for p in pointers)
    others = sorted({model.line_of(e[0].node) for e in entries[1:]} - {model.line_of(product.node)})
    more = ""
    if len(entries) > 1:
        lines = ", ".join(str(line) for line in others)
        more = f" ({len(entries) - 1} more such product{'s' if len(entries) > 2 else ''} in this kernel{f', at line {lines}' if len(others) == 1 else f', at lines {lines}' if others else ''})"
    message = (
        f"`{text}` in `{kernel.name}` multiplies a program-id value by {arguments} in int32 to address {tensors}"
        f"{more}; {evidence}, so past 2**31 elements the offset wraps and the access goes out of bounds"
    )
    roots = []
    for entry in entries:
        root = " ".join(model.code(entry[0].index).split()).split("[")[0].strip("() ")
        if root not in roots:
            roots.append(root)
    plan = (
        f"Promote before the multiply: convert {', '.join(f'`{r}`' for r in roots[:4])} with `.to(tl.int64)` where "
        f"computed (for a program id, `tl.program_id(...).to(tl.int64)`), or the stride "
        f"({', '.join(f'`{a}.to(tl.int64)`' for a in product.arguments) or 'the stride'}). "
        f"If the tensors of `{kernel.name}` are known to stay below 2**31 elements, silence the kernel with "
        f"`# noqa: KL012` at the end of line {model.line_of(product.node)}."
    )
    return Report(node=product.node, message=message, plan=plan)
