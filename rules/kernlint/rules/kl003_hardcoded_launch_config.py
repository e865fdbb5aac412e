from __future__ import annotations

import re
from collections.abc import Iterator

import libcst as cst
from kernlint.findings import Category, Severity
from kernlint.model import FileModel, Kernel, Launch
from kernlint.model.syntax import walk
from kernlint.model.tuning import AUTOTUNE_CONFIGS, CHOSEN, DEFAULT_NUM_STAGES, DEFAULT_NUM_WARPS, DIMENSION, PADDED
from kernlint.registry import Invalid, Report, Rule, Valid

OPTIONS = ("num_warps", "num_stages")
# Tile roles read from a constexpr's name: BLOCK_M, BLOCK_SIZE_M, TILE_M, BM.
ROLE = re.compile(r"(?:^|_|^B|^T)([MNK])$")
SIZE_NAME = re.compile(r"^(?:[mnk]|(?:size|n|num|dim)_?[mnk]|[mnk]_?(?:size|dim))$", re.IGNORECASE)
# Configs for skinny (few rows, long K) through square problems, per role (the model's set, which the cost
# model prices the fix at).
CONFIGS = tuple(({"M": m, "N": n, "K": k}, warps, stages) for m, n, k, warps, stages in AUTOTUNE_CONFIGS)


class HardcodedLaunchConfig(Rule):
    """
    ## What it does
    Finds a launch of a Triton kernel that uses `tl.dot` where the constexprs
    that size its tiles (those in the shape of `tl.arange`, `tl.zeros`,
    `tl.full` or a block pointer, whatever their names: `BLOCK_M`, `TILE_K`,
    `BM`, `GROUP_SIZE_M`) and `num_warps`/`num_stages` are fixed in the source
    (literals, module constants, names assigned once from those, or constexpr
    defaults in the kernel signature), while the kernel has no
    `@triton.autotune` and no `@triton.heuristics` that picks those values.

    ## Why is this bad?
    The best tile shape of a GEMM depends on the problem: a skinny batch
    (M = 1..64) wants a small BLOCK_M and a long BLOCK_K, a large square one
    wants 128x128 tiles and more warps. One fixed config is tuned for at most
    one of them, and leaves SMs idle when the grid of fixed tiles is smaller
    than the GPU.

    It stays silent on kernels without `tl.dot` (elementwise and reductions),
    on autotuned kernels (`@triton.autotune`, a name bound to a
    `triton.autotune(...)` call, or a project's own autotuner decorator that
    takes `configs=` and `key=`, such as FlagGems' `@libtuner`), and when any
    tile size is chosen per problem (`triton.next_power_of_2(N)`, a
    size-keyed table or dict lookup, a function, a branch on the sizes).
    It still fires when a tile constexpr is fixed while others are problem
    dimensions themselves (`BLOCK=64` beside `D=d, H=h` from `q.shape`),
    when the tiles come from a table keyed only on the dtype, and when the
    tiles are fixed but `num_warps`/`num_stages` are branched on a shape.
    `GROUP_M`-style swizzle constexprs never make a finding on their own.

    Its plan autotunes over the launch's own config and four others, from
    skinny to square, each tile size given by its role in the product (read
    from the tl.dot's operand tiles: a convolution's `w [BLOCK_OC, BLOCK_IC]
    @ x [BLOCK_IC, BLOCK_P]` names M, K and N), keyed on the kernel's size
    arguments. Its estimate prices each config at the file's shapes, a K
    tile deeper than what its loop walks (16 input channels per tap under
    BLOCK_K 32) with the masked zeros it multiplies. On an H200, nine GEMM
    files nobody here wrote, fixed so, measured 0.95-1.52x where it estimated
    1.00-1.64x (all but one on the right side of 1.2x); fresh3's eg02, whose
    16 channels per tap the set's deeper tiles waste, ran 2.2x slower
    autotuned without its own config, which the set now keeps
    (`checks/h200/fixed_plans_h200.jsonl`).

    ## Example
    ```python
    @triton.jit
    def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, ..., BLOCK_M: tl.constexpr, ...):
        ...
        acc += tl.dot(a, b)

    matmul_kernel[grid](a, b, c, M, N, K, ..., BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4)
    ```

    ## Use instead
    ```python
    @triton.autotune(
        configs=[
            triton.Config({"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 128}, num_warps=4, num_stages=4),
            triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 64}, num_warps=4, num_stages=3),
            triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, num_warps=8, num_stages=3),
        ],
        key=["M", "N", "K"],
    )
    @triton.jit
    def matmul_kernel(...): ...

    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))
    matmul_kernel[grid](a, b, c, M, N, K, ...)
    ```

    The autotuner's own dispatch costs host time on every call (tens of
    microseconds in Triton 3.x: it rebuilds its key and merges the config
    before Triton's launch path runs). Where that matters, resolve the
    config once per problem key and launch the compiled kernel directly
    afterwards (kernlint's reference fixes do this in
    `kernlint/kernels/_launch.py`: the first call of a key goes through the
    autotuner, later calls hand the arguments to the compiled kernel). Where
    the shapes are small enough that launch overhead dominates the GPU time,
    capture the call in a CUDA graph (`torch.cuda.graphs`:
    `g = torch.cuda.CUDAGraph(); with torch.cuda.graph(g): out = f(x)`, then
    `g.replay()`, or `torch.compile(f, mode="reduce-overhead")`), which
    removes the host cost of every launch in it.

    ## Fix safety
    No automatic fix: the config set should be measured on the target GPU, and
    the grid must read the block sizes from `META`.
    """

    code = "KL003"
    name = "hardcoded-launch-config"
    category = Category.TUNING
    severity = Severity.WARNING
    summary = "A tl.dot kernel is launched with fixed tile sizes and no autotuning."
    bottleneck = (
        "One fixed tile shape for every problem size: skinny GEMMs waste most of each tile and "
        "large ones under-use the tensor cores or leave SMs idle."
    )
    method = (
        "Autotune the kernel over a config set covering skinny and square shapes, keyed on the "
        "problem sizes, and let the grid read the chosen block sizes from META."
    )
    priority = 30
    fix_effect = "autotune"

    VALID = [
        # Elementwise kernel: no tl.dot.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
                offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
                tl.store(y_ptr + offs, tl.load(x_ptr + offs) + 1, mask=offs < n)
            def launch(x, y):
                add[(1,)](x, y, x.numel(), BLOCK=1024, num_warps=4)
            """
        ),
        # Autotuned (stacked over heuristics); the launch passes no config.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.autotune(configs=[triton.Config({"BLOCK_M": 64}, num_warps=4)], key=["M"])
            @triton.heuristics({"EVEN_K": lambda a: a["K"] % 32 == 0})
            @triton.jit
            def mm(a_ptr, b_ptr, M, K, BLOCK_M: tl.constexpr, EVEN_K: tl.constexpr):
                offs = tl.arange(0, BLOCK_M)
                acc = tl.dot(tl.load(a_ptr + offs), tl.load(b_ptr + offs))
            def launch(a, b, M, K):
                mm[lambda META: (triton.cdiv(M, META["BLOCK_M"]),)](a, b, M, K)
            """
        ),
        # Block sizes computed from the problem.
        Valid(
            """
            import triton
            from triton import language as lang
            from triton import jit
            @jit
            def mm(a_ptr, b_ptr, N, BLOCK_N: lang.constexpr):
                offs = lang.arange(0, BLOCK_N)
                acc = lang.dot(lang.load(a_ptr + offs), lang.load(b_ptr + offs))
            def launch(a, b, N):
                BLOCK_N = triton.next_power_of_2(N)
                mm[(1,)](a, b, N, BLOCK_N=BLOCK_N, num_warps=4)
            """
        ),
        # A size-keyed table picks the config.
        Valid(
            """
            import triton
            import triton.language as tl
            CONFIGS = {(1, 4096): (16, 128), (4096, 4096): (128, 64)}
            @triton.jit(debug=False)
            def mm(a_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
                acc = tl.zeros((BLOCK_M, BLOCK_M), dtype=tl.float32)
                acc += tl.dot(tl.load(a_ptr + tl.arange(0, BLOCK_K)), acc)
            def launch(a, M, K):
                bm, bk = CONFIGS[(M, K)]
                mm[(1,)](a, M, K, BLOCK_M=CONFIGS[(M, K)][0], BLOCK_K=pick_k(K))
            """
        ),
        # Chosen by a branch on the problem size.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, M, BLOCK_M: tl.constexpr):
                offs = tl.arange(0, BLOCK_M)
                acc = tl.dot(tl.load(a_ptr + offs), tl.load(a_ptr + offs))
            def launch(a, M):
                if M <= 64:
                    BLOCK_M = 16
                else:
                    BLOCK_M = 128
                mm[(1,)](a, M, BLOCK_M=BLOCK_M)
            """
        ),
        # A heuristic picks the tile size.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.heuristics({"BLOCK_M": lambda args: 16 if args["M"] < 64 else 128})
            @triton.jit
            def mm(a_ptr, M, BLOCK_M: tl.constexpr):
                offs = tl.arange(0, BLOCK_M)
                acc = tl.dot(tl.load(a_ptr + offs), tl.load(a_ptr + offs))
            def launch(a, M):
                mm[(1,)](a, M, num_warps=4)
            """
        ),
        # A project's autotuner decorator (configs= and key=), a name bound to
        # triton.autotune(...); only the swizzle group is passed.
        Valid(
            """
            import triton
            import triton.language as tl
            from mylib import tuner, get_configs
            tune = triton.autotune(configs=get_configs(), key=["M"])
            @tuner(configs=get_configs("mm"), key=["M", "N"], strategy=["log"])
            @triton.jit
            def mm(a_ptr, M, N, BLOCK_M: tl.constexpr, GROUP_M: tl.constexpr):
                acc = tl.dot(tl.load(a_ptr + tl.arange(0, BLOCK_M)), tl.load(a_ptr))
            @tune
            @triton.jit
            def mm2(a_ptr, M, BLOCK_M: tl.constexpr):
                acc = tl.dot(tl.load(a_ptr + tl.arange(0, BLOCK_M)), tl.load(a_ptr))
            def launch(a, M, N):
                mm[(1,)](a, M, N, GROUP_M=8)
                mm2[(1,)](a, M)
            """
        ),
        # A reduction kernel with fixed blocks is KL015's business, not this rule's.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def row_sum(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
                offs = tl.arange(0, BLOCK)
                tl.store(y_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < N), axis=0))
            def launch(x, y, N):
                row_sum[(1,)](x, y, N, BLOCK=256, num_warps=8, num_stages=2)
            """
        ),
        # A tile capped for small problems is picked per problem.
        Valid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, M, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
                a = tl.load(a_ptr + tl.arange(0, BLOCK_M)[:, None] + tl.arange(0, BLOCK_K)[None, :])
                acc = tl.dot(a, tl.trans(a))
            def launch(a, M):
                mm[(1,)](a, M, BLOCK_M=min(64, triton.next_power_of_2(M)), BLOCK_K=32)
            """
        ),
    ]

    INVALID = [
        # The seed's shape: literals at the launch.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def mm(a_ptr, b_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
                offs_k = tl.arange(0, BLOCK_K)
                acc += tl.dot(tl.load(a_ptr + offs_k), tl.load(b_ptr + offs_k))
            def launch(a, b, M, N, K):
                grid = (triton.cdiv(M, 64), triton.cdiv(N, 64))
                mm[grid](a, b, M, N, K, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=3)
            """,
            line=11,
            column=5,
        ),
        # Module constants, other names, `from triton import language as lang`.
        Invalid(
            """
            import triton
            from triton import language as lang
            BM = 128
            TILE = 32
            @triton.jit
            def mm(a_ptr, M, K, TM: lang.constexpr, TILE_K: lang.constexpr):
                acc = lang.zeros((TM, TILE_K), dtype=lang.float32)
                acc = lang.dot(acc, acc)
            def launch(a, M, K):
                mm[(1,)](a, M, K, BM, TILE)
            """,
            line=11,
            column=5,
        ),
        # `@jit` from `from triton import jit`, defaults in the signature.
        Invalid(
            """
            from triton import jit
            import triton.language as tl
            @jit
            def mm(a_ptr, M, N, BLOCK_M: tl.constexpr = 64, BLOCK_N: tl.constexpr = 64):
                acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
                acc = tl.dot(acc, acc)
            def launch(a, M, N):
                mm[(4,)](a, M, N)
            """,
            line=9,
            column=5,
        ),
        # `@triton.jit(...)` with arguments; local names assigned once.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit(do_not_specialize=["M"])
            def mm(a_ptr, M, BLOCK_M: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
                acc = tl.zeros((BLOCK_M, BLOCK_M), dtype=tl.float32)
                acc = tl.dot(acc, acc)
            def launch(a, M):
                BLOCK_M = 64
                grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]),)
                mm[grid](a, M, BLOCK_M=BLOCK_M, GROUP_SIZE_M=8)
            """,
            line=11,
            column=5,
        ),
        # Block pointers, and heuristics that only decide EVEN_K.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.heuristics({"EVEN_K": lambda args: args["K"] % 32 == 0})
            @triton.jit
            def mm(a_ptr, M, K, s0, s1, BM: tl.constexpr, BK: tl.constexpr, EVEN_K: tl.constexpr):
                p = tl.make_block_ptr(a_ptr, (M, K), (s0, s1), (0, 0), (BM, BK), (1, 0))
                a = tl.load(p)
                acc = tl.dot(a, tl.trans(a))
            def launch(a, M, K):
                mm[(1,)](a, M, K, a.stride(0), a.stride(1), BM=64, BK=64, num_warps=4)
            """,
            line=11,
            column=5,
        ),
        # The dot lives in a jit helper the kernel calls; only num_warps fixed at the launch
        # beside the signature defaults.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def _mma(a, b):
                return tl.dot(a, b)
            @triton.jit
            def mm(a_ptr, K, BLOCK_K: tl.constexpr = 32):
                offs = tl.arange(0, BLOCK_K)
                a = tl.load(a_ptr + offs)
                acc = _mma(a, a)
            class Op:
                def run(self, a, K):
                    mm[(1,)](a, K, num_warps=2, num_stages=2)
            """,
            line=14,
            column=9,
        ),
        # A fixed block beside constexprs that are problem dimensions; num_warps
        # branched on a shape; tiles from a table keyed only on the dtype.
        Invalid(
            """
            import triton
            import triton.language as tl
            TILES = {"fp16": (64, 32)}
            @triton.jit
            def attn(q_ptr, BLOCK: tl.constexpr, D: tl.constexpr, BM: tl.constexpr = 16):
                q = tl.load(q_ptr + tl.arange(0, BLOCK)[:, None] + tl.arange(0, D)[None, :] + tl.arange(0, BM))
                acc = tl.dot(q, tl.trans(q))
            def launch(q):
                b, s, d = q.shape
                BLOCK = 64
                warps = 8 if s > 1024 else 4
                attn[(b, s)](q, BLOCK=BLOCK, D=d, num_warps=warps)
                attn[(b, s)](q, BLOCK=TILES[q.dtype][0], D=d, BM=TILES[q.dtype][1])
            """,
            line=13,
            column=5,
        ),
        # A head count padded up for tl.dot is a dimension, not a choice: BLOCK is still fixed.
        Invalid(
            """
            import triton
            import triton.language as tl
            @triton.jit
            def attn(q_ptr, H: tl.constexpr, BLOCK: tl.constexpr):
                q = tl.load(q_ptr + tl.arange(0, H)[:, None] + tl.arange(0, BLOCK)[None, :])
                acc = tl.dot(q, tl.trans(q))
            def launch(q, h):
                attn[(q.shape[0],)](q, H=max(16, triton.next_power_of_2(h)), BLOCK=16, num_warps=8)
            """,
            line=9,
            column=5,
        ),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        for launch in model.launches:
            kernel = launch.kernel
            if model.autotuner(kernel) is not None or not model.kernel_uses(kernel, "dot", "dot_scaled"):
                continue
            tiles = model.tile_constexprs(kernel)
            if "*" in kernel.heuristics or any(name in kernel.heuristics for name in (*tiles, *OPTIONS)):
                continue
            fixed = self._fixed_values(model, launch, tiles)
            if fixed and any(name in tiles and _role(name) != "GROUP" for name, _ in fixed):
                yield self._report(model, launch, tiles, fixed)

    def _fixed_values(
        self, model: FileModel, launch: Launch, tiles: tuple[str, ...]
    ) -> list[tuple[str, object]] | None:
        """(name, value) of every tile constexpr and option fixed in the
        source, or None when any tile size is chosen some other way."""
        fixed: list[tuple[str, object]] = []
        kernel = launch.kernel
        for name in tiles:
            argument = launch.arguments.get(name)
            if argument is None:
                if launch.has_star_args:
                    return None
                param = kernel.param(name)
                default = param.default if param is not None else None
                home = model.home_of(kernel)  # the defining module, for an imported kernel
                value = home.constant_value(default, home.top) if default is not None else None
                if value is None:
                    continue  # not passed: set elsewhere (or a launch error)
            else:
                origin = model.argument_origin(launch.caller, argument)
                if origin == CHOSEN or (origin == PADDED and _role(name) is not None):
                    return None  # picked per problem: a branch, a table, a function, BLOCK_N spanning N
                if origin in (DIMENSION, PADDED):
                    continue  # a problem size itself (`D=d`, a head count padded for tl.dot), not a choice
                value = model.constant_at_call_sites(launch.caller, argument)
                if value is None:
                    value = f"{model.code(argument)} (per dtype)"
            fixed.append((name, value))
        for option in OPTIONS:
            argument = launch.options.get(option)
            if argument is not None:
                value = model.constant_value(argument, launch.caller)
                if value is not None:
                    fixed.append((option, value))
        return fixed

    def _report(
        self, model: FileModel, launch: Launch, tiles: tuple[str, ...], fixed: list[tuple[str, object]]
    ) -> Report:
        kernel = launch.kernel
        values = ", ".join(f"{name}={value}" for name, value in fixed)
        message = (
            f"`{kernel.name}` (uses tl.dot) is launched with a fixed config ({values}) and has no "
            f"@triton.autotune, so every problem size runs the same tiles"
        )
        keys = _size_keys(model, kernel)
        roles = _roles(model, kernel, tiles)
        texts = [_config_text(tiles, roles, dict(fixed), tile) for tile in CONFIGS]
        # The launch's own config stays in the set, so the autotuner never picks worse than it (a deeper K tile
        # than a convolution's channels per tap multiplies masked zeros: measured 2.2x slower without it).
        own = _own_config_text(tiles, dict(fixed))
        configs = ", ".join(([own] if own and own not in texts else []) + texts)
        given = [name for name, _ in fixed if name in launch.arguments or name in launch.options]
        remove = (
            f"remove {', '.join(f'`{name}=`' for name in given)} from the launch at line {model.line_of(launch.node)}"
            if given
            else f"drop the constexpr defaults of {', '.join(f'`{n}`' for n in tiles)} from the signature"
        )
        plan = (
            f"Add `@triton.autotune(configs=[{configs}], key={keys})` above the `@triton.jit` of `{kernel.name}`"
            f"{_defined_in(model, kernel)}, "
            f"covering skinny (small BLOCK_M, long BLOCK_K) and square shapes; {remove}; "
            f"{_grid_advice(model, launch, tiles)}. The autotuner's dispatch costs host time on every call: "
            f"resolve the config once per problem key and launch the compiled kernel directly afterwards, and "
            f"where the shapes are small enough that launch overhead dominates, capture the call in a CUDA graph "
            f'(`torch.cuda.graph`, or `torch.compile(mode="reduce-overhead")`).'
        )
        return Report(node=launch.node, message=message, plan=plan)


def _role(name: str) -> str | None:
    if "GROUP" in name.upper():
        return "GROUP"
    match = ROLE.search(name.upper())
    return match.group(1) if match else None


def _roles(model: FileModel, kernel: Kernel, tiles: tuple[str, ...]) -> dict[str, str | None]:
    """Each tile constexpr's role in the product: read from the tl.dot's operand tiles where they are sized by
    the constexprs themselves (a convolution's `w [BLOCK_OC, BLOCK_IC] @ x [BLOCK_IC, BLOCK_P]`: M, K and N),
    else from the name (BLOCK_M, TILE_N, BK)."""
    roles: dict[str, str | None] = {name: _role(name) for name in tiles}
    sizes = model.dot_tile(kernel)
    if sizes is not None:
        named = {size.value: role for size, role in zip(sizes, "MNK") if isinstance(size, cst.Name)}
        if len(set(named.values())) == 3 and all(name in tiles for name in named):
            roles.update(named)
    return roles


def _config_text(
    tiles: tuple[str, ...],
    roles: dict[str, str | None],
    fixed: dict[str, object],
    tile: tuple[dict[str, int], int, int],
) -> str:
    sizes, warps, stages = tile
    entries = []
    for name in tiles:
        role = roles.get(name)
        value: object = sizes.get(role or "") if role != "GROUP" else 8
        if value is None:
            value = fixed.get(name)
        if value is not None:
            entries.append(f'"{name}": {value!r}')
    return f"triton.Config({{{', '.join(entries)}}}, num_warps={warps}, num_stages={stages})"


def _own_config_text(tiles: tuple[str, ...], fixed: dict[str, object]) -> str | None:
    """The launch's fixed config as a `triton.Config`, where every tile size is a number (Triton's defaults
    for the options it does not name); None otherwise."""
    values = [fixed.get(name) for name in tiles]
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return None
    warps = fixed.get("num_warps", DEFAULT_NUM_WARPS)
    stages = fixed.get("num_stages", DEFAULT_NUM_STAGES)
    entries = ", ".join(f'"{name}": {value!r}' for name, value in zip(tiles, values))
    return f"triton.Config({{{entries}}}, num_warps={warps}, num_stages={stages})"


def _defined_in(model: FileModel, kernel: Kernel) -> str:
    home = model.home_of(kernel)
    return "" if home is model else f" (in `{home.path}`)"


def _size_keys(model: FileModel, kernel: Kernel) -> str:
    """The kernel's problem-size parameters, as an autotune key."""
    names = [p.name for p in kernel.params if not p.constexpr and SIZE_NAME.match(p.name)]
    if not names:
        # No M/N/K: the kernel's other integer arguments (a convolution's channels and sides), not its pointers
        # or strides.
        names = [
            p.name
            for p in kernel.params
            if not p.constexpr
            and not p.name.endswith("_ptr")
            and not p.name.lower().startswith("stride_")
            and p.name not in ("x", "y", "out")
        ]
    return "[" + ", ".join(f'"{n}"' for n in (names or ["M", "N", "K"])) + "]"


def _grid_from_meta(model: FileModel, launch: Launch, tiles: tuple[str, ...]) -> str | None:
    """The launch's own grid with each tile size it reads spelled `META["BLOCK_M"]` (a 1-D grid of
    `cdiv(M, BLOCK_M) * cdiv(N, BLOCK_N)` programs stays one axis), where the launch passes each tile as a name
    the grid also reads; None otherwise."""
    grid: cst.BaseExpression | None = launch.grid
    if isinstance(grid, cst.Name):
        grid = model.assigned_value(launch.caller, grid.value, before=launch.node)
    if not isinstance(grid, (cst.Tuple, cst.BinaryOperation, cst.Call)):
        return None
    names = {}
    for tile in tiles:
        argument = launch.arguments.get(tile)
        if isinstance(argument, cst.Name):
            names[argument.value] = tile
    read = {node.value for node in walk(grid) if isinstance(node, cst.Name)}
    if not names or not set(names) & read:
        return None

    class _ToMeta(cst.CSTTransformer):
        def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
            tile = names.get(original_node.value)
            if tile is None:
                return updated_node
            return cst.Subscript(
                value=cst.Name("META"),
                slice=[cst.SubscriptElement(slice=cst.Index(value=cst.SimpleString(f'"{tile}"')))],
            )

    rewritten = grid.visit(_ToMeta())
    return cst.Module(body=[]).code_for_node(rewritten) if isinstance(rewritten, cst.CSTNode) else None


def _grid_advice(model: FileModel, launch: Launch, tiles: tuple[str, ...]) -> str:
    grid = launch.grid
    if isinstance(grid, cst.Name):
        value = model.assigned_value(launch.caller, grid.value, before=launch.node)
        defined = next(
            (f for f in model.functions if f.name == grid.value and f.node is not None and f.params[:1] == ("META",)),
            None,
        )
        if defined is not None or isinstance(value, cst.Lambda):
            return f"the grid `{grid.value}` already reads the block sizes from META, keep it"
    if isinstance(grid, cst.Lambda):
        return "the grid lambda already reads the block sizes from META, keep it"
    rewritten = _grid_from_meta(model, launch, tiles)
    if rewritten is not None:
        return f"make the grid `lambda META: {rewritten}` so it follows the chosen config"
    blocks = [t for t in tiles if _role(t) in ("M", "N")]
    if blocks:
        dims = ", ".join(f'triton.cdiv({"M" if _role(t) == "M" else "N"}, META["{t}"])' for t in blocks)
        return f"make the grid `lambda META: ({dims},)` so it follows the chosen config"
    return "make the grid a `lambda META: ...` that reads the block sizes from META"
