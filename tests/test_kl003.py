"""KL003 hardcoded-launch-config: on the seed, and on how tile sizes are chosen."""

from __future__ import annotations

import textwrap

from conftest import FIXTURES
from kernlint.engine import Settings, lint_source

SEED = FIXTURES / "seed" / "kernel.py"

KERNEL = """
import triton
import triton.language as tl
@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    offs_k = tl.arange(0, BLOCK_K)
    acc += tl.dot(tl.load(a_ptr + offs_k), tl.load(b_ptr + offs_k))
"""


def kl003(source: str, path: str = "example.py"):
    result = lint_source(path, textwrap.dedent(source), Settings(select=frozenset({"KL003"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL003"]


def test_seed_launch_is_reported_with_its_fixed_values() -> None:
    found = kl003(SEED.read_text(), str(SEED))
    assert [(f.code, f.span.line, f.span.column, f.severity.value) for f in found] == [("KL003", 122, 5, "warning")]
    message = found[0].message
    assert "`int8_matmul_rowwise_dequant_kernel`" in message
    assert "BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, num_warps=4, num_stages=3" in message


def test_seed_plan_autotunes_with_the_kernels_own_names() -> None:
    plan = kl003(SEED.read_text(), str(SEED))[0].plan
    assert 'key=["M", "N", "K"]' in plan
    assert 'triton.Config({"BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 128}, num_warps=4, num_stages=4)' in plan
    assert 'triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32}, num_warps=8, num_stages=3)' in plan
    # The launch's own config first, then the set's four.
    assert plan.count("triton.Config(") == 5
    assert 'configs=[triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4, num_stages=3), ' in plan
    assert "`@triton.jit` of `int8_matmul_rowwise_dequant_kernel`" in plan
    assert "remove `BLOCK_M=`, `BLOCK_N=`, `BLOCK_K=`, `num_warps=`, `num_stages=` from the launch at line 122" in plan
    assert "the grid `grid` already reads the block sizes from META" in plan


def test_hand_fixed_seed_is_silent() -> None:
    path = FIXTURES / "seed" / "kernel_fixed.py"
    assert kl003(path.read_text(), str(path)) == []


def test_tuple_grid_gets_a_meta_lambda_and_size_keys_come_from_the_signature() -> None:
    found = kl003(
        KERNEL.replace("M, N, K,", "size_m, size_n, size_k,") + "def run(a, b, c, M, N, K):\n"
        "    mm[(triton.cdiv(M, 64), triton.cdiv(N, 64))](a, b, c, M, N, K, 64, 64, 32)\n"
    )
    assert [(f.span.line, f.span.column) for f in found] == [(10, 5)]
    assert "BLOCK_M=64, BLOCK_N=64, BLOCK_K=32)" in found[0].message
    assert 'key=["size_m", "size_n", "size_k"]' in found[0].plan
    assert 'lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]),)' in found[0].plan


def test_a_grid_that_reads_the_tile_names_keeps_its_own_form_with_meta() -> None:
    # One axis of cdiv(M, BM) * cdiv(N, BN) programs (the kernel splits the program id itself): the plan keeps
    # one axis, the tile names read from META, rather than proposing a 2-D grid the kernel does not decode.
    found = kl003(
        KERNEL + "def run(a, b, c, M, N, K):\n"
        "    BM, BN = 64, 128\n"
        "    grid = (triton.cdiv(M, BM) * triton.cdiv(N, BN),)\n"
        "    mm[grid](a, b, c, M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=32)\n"
    )
    assert len(found) == 1
    assert 'make the grid `lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)`' in (
        found[0].plan
    )


def test_one_computed_tile_size_means_the_author_chose_by_problem() -> None:
    found = kl003(
        KERNEL + "def run(a, b, c, M, N, K):\n"
        "    mm[(1,)](a, b, c, M, N, K, BLOCK_M=64, BLOCK_N=triton.next_power_of_2(N), BLOCK_K=32)\n"
        "def run_table(a, b, c, M, N, K):\n"
        "    cfg = TABLE[M]\n"
        "    mm[(1,)](a, b, c, M, N, K, BLOCK_M=cfg['BM'], BLOCK_N=64, BLOCK_K=32, num_warps=4)\n"
        "def run_kwargs(a, b, c, M, N, K, **cfg):\n"
        "    mm[(1,)](a, b, c, M, N, K, num_warps=4, **cfg)\n"
    )
    assert found == []


def test_module_constant_reassigned_is_not_fixed() -> None:
    found = kl003(
        KERNEL + "BM = 64\n"
        "if FAST:\n"
        "    BM = 128\n"
        "def run(a, b, c, M, N, K):\n"
        "    mm[(1,)](a, b, c, M, N, K, BLOCK_M=BM, BLOCK_N=BM, BLOCK_K=32)\n"
    )
    assert found == []


def test_names_imported_from_triton_language_are_resolved() -> None:
    found = kl003(
        """
        from triton import jit
        from triton.language import arange, constexpr, dot, load
        @jit
        def mm(a_ptr, TILE_M: constexpr, TILE_K: constexpr):
            a = load(a_ptr + arange(0, TILE_M)[:, None] * TILE_K + arange(0, TILE_K)[None, :])
            acc = dot(a, a)
        def run(a):
            mm[(1,)](a, TILE_M=32, TILE_K=32, num_stages=2)
        """
    )
    assert [(f.span.line, f.span.column) for f in found] == [(9, 5)]
    assert "TILE_M=32, TILE_K=32, num_stages=2" in found[0].message
    assert '"TILE_M": 16, "TILE_K": 128' in found[0].plan


def test_project_autotuners_dimensions_and_dtype_tables() -> None:
    found = kl003(
        """
        import triton
        import triton.language as tl
        from lib import libtuner, cfgs
        TILES = {"fp16": (64, 32)}
        @triton.jit
        def attn(q_ptr, BLOCK: tl.constexpr, D: tl.constexpr, BM: tl.constexpr = 16):
            q = tl.load(q_ptr + tl.arange(0, BLOCK)[:, None] + tl.arange(0, D)[None, :] + tl.arange(0, BM))
            acc = tl.dot(q, tl.trans(q))
        @libtuner(configs=cfgs("mm"), key=["M"])
        @triton.jit
        def mm(a_ptr, M, BLOCK_M: tl.constexpr, GROUP_M: tl.constexpr):
            acc = tl.dot(tl.load(a_ptr + tl.arange(0, BLOCK_M)), tl.load(a_ptr))
        def launch(q, M):
            b, s, d = q.shape
            BLOCK = 64
            attn[(b, s)](q, BLOCK=BLOCK, D=d, num_warps=8 if s > 1024 else 4)
            attn[(b, s)](q, BLOCK=TILES[q.dtype][0], D=d, BM=TILES[q.dtype][1])
            attn[(b, s)](q, BLOCK=PICK[s], D=d)
            mm[(1,)](q, M, GROUP_M=8)
        """
    )
    assert [(f.span.line, f.span.column) for f in found] == [(17, 5), (18, 5)]
    assert "BLOCK=64" in found[0].message and "(per dtype)" in found[1].message
    assert "CUDA graph" in found[0].plan


CONV = """
import torch
import triton
import triton.language as tl
@triton.jit
def conv(x_ptr, w_ptr, y_ptr, C_in, L, C_out, BLOCK_CO: tl.constexpr, BLOCK_L: tl.constexpr, BLOCK_CI: tl.constexpr):
    co = tl.program_id(1) * BLOCK_CO + tl.arange(0, BLOCK_CO)
    pos = tl.program_id(0) * BLOCK_L + tl.arange(0, BLOCK_L)
    acc = tl.zeros((BLOCK_CO, BLOCK_L), dtype=tl.float32)
    for ci0 in range(0, C_in, BLOCK_CI):
        ci = ci0 + tl.arange(0, BLOCK_CI)
        w = tl.load(w_ptr + co[:, None] * C_in + ci[None, :], mask=ci[None, :] < C_in, other=0.0)
        x = tl.load(x_ptr + ci[:, None] * L + pos[None, :], mask=ci[:, None] < C_in, other=0.0)
        acc += tl.dot(w, x)
    tl.store(y_ptr + co[:, None] * L + pos[None, :], acc)
class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(128, CHANNELS))
    def forward(self, x):
        C_in, L = x.shape
        y = torch.empty(128, L, device=x.device)
        conv[(L // 128, 2)](x, self.w, y, C_in, L, 128, BLOCK_CO=64, BLOCK_L=128, BLOCK_CI=16)
        return y
def get_inputs():
    return [torch.randn(CHANNELS, 1 << 20)]
def get_init_inputs():
    return []
"""


def test_a_convolutions_plan_maps_its_tile_names_by_the_products_roles_and_keeps_its_own_config() -> None:
    """BLOCK_CO, BLOCK_L, BLOCK_CI size the tl.dot's M, N and K (the weight [CO, CI] is A): the plan's configs
    give each its role's size, the launch's own config first, and the key names the kernel's sizes."""
    (found,) = kl003(CONV.replace("CHANNELS", "64"))
    assert (
        'configs=[triton.Config({"BLOCK_CO": 64, "BLOCK_L": 128, "BLOCK_CI": 16}, num_warps=4, num_stages=3), '
        'triton.Config({"BLOCK_CO": 16, "BLOCK_L": 64, "BLOCK_CI": 128}, num_warps=4, num_stages=4)'
    ) in found.plan
    assert 'key=["C_in", "L", "C_out"]' in found.plan


def test_a_k_tile_deeper_than_the_channels_it_walks_is_priced_with_its_masked_zeros() -> None:
    """16 input channels under the plan's BLOCK_K of 32 to 128 multiply zeros past the 16th: priced so, no
    config of the set beats the launch's own (measured on an H200: fresh3's eg02 ran 2.2x slower autotuned
    over them without its own); priced as if the channels filled the deeper tiles, they would."""
    from dataclasses import replace

    from kernlint import cost
    from kernlint.model import build_model
    from kernlint.source import parse

    source = textwrap.dedent(CONV.replace("CHANNELS", "16"))
    (op,) = [op for op in build_model("k.py", source, parse(source)).entry_point.ops if op.kind == "triton"]
    assert (op.dot_tile[:3], op.dot_k_extent) == ((64, 128, 16), 16)
    c = cost.calibration().constants
    (tuned,) = cost.autotune((op,), op.line, op.line)
    assert cost.gpu_us(tuned, c) == cost.gpu_us(op, c)  # its own config stays the best
    (unpadded,) = cost.autotune((replace(op, dot_k_extent=0),), op.line, op.line)
    assert cost.gpu_us(unpadded, c) < cost.gpu_us(op, c)
    assert kl003(source)[0].expected_speedup["for_this_file"]["graph"] == 1.0


def test_tile_sizes_a_helper_receives_from_its_callers_constants_are_fixed() -> None:
    """The launch in a helper whose tile parameters the file's one caller sets from constants: the config is
    as fixed as if the launch spelled them (the helper is no tuner)."""
    found = kl003(
        KERNEL
        + """
def _launch(a, b, c, M, N, K, BM, BN):
    mm[(triton.cdiv(M, BM), triton.cdiv(N, BN))](a, b, c, M, N, K, BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=32)
def matmul(a, b, c):
    BLOCK_M = 128
    _launch(a, b, c, a.shape[0], b.shape[1], a.shape[1], BLOCK_M, 64)
"""
    )
    assert [(f.span.line, f.span.column) for f in found] == [(11, 5)]
    assert "BLOCK_M=128, BLOCK_N=64, BLOCK_K=32" in found[0].message
