"""KL009 missing-l2-swizzle: positions, the known-shape exemption, and tile orders."""

from __future__ import annotations

import textwrap

from conftest import FIXTURES
from kernlint.engine import Settings, lint_source

KERNEL = """
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_n = pid_n * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a_ptr + offs_m[:, None] * K + offs_k[None, :] + k), tl.load(b_ptr + (offs_k[:, None] + k) * N + offs_n[None, :]))
"""


def kl009(source: str, path: str = "example.py"):
    result = lint_source(path, textwrap.dedent(source), Settings(select=frozenset({"KL009"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL009"]


def test_tuple_of_program_ids_reports_the_first() -> None:
    found = kl009(KERNEL)
    assert [(f.code, f.span.line, f.span.column) for f in found] == [("KL009", 7, 20)]
    assert "`mm` maps `tl.program_id(0)` straight to its output tile" in found[0].message
    assert "GROUP_M (a new constexpr" in found[0].plan


def test_known_shapes_decide_whether_b_fits_in_l2() -> None:
    small = KERNEL + "def run(a, b):\n    mm[(g, g)](a, b, 2048, 2048, 2048, BM=64, BN=64, BK=32)\n"
    assert kl009(small) == []
    large = KERNEL + "def run(a, b):\n    mm[(g, g)](a, b, 8192, 8192, 8192, BM=64, BN=64, BK=32)\n"
    assert [(f.span.line, f.span.column) for f in kl009(large)] == [(7, 20)]
    mixed = small + "def run_large(a, b, n):\n    mm[(g, g)](a, b, n, n, n, BM=64, BN=64, BK=32)\n"
    assert len(kl009(mixed)) == 1


def test_one_wave_constant_grid_is_silent() -> None:
    assert kl009(KERNEL + "def run(a, b, n):\n    mm[(8, 16)](a, b, n, n, n, BM=64, BN=64, BK=32)\n") == []
    assert len(kl009(KERNEL + "def run(a, b, n):\n    mm[(64, 64)](a, b, n, n, n, BM=64, BN=64, BK=32)\n")) == 1


def test_fixture_positions() -> None:
    path = FIXTURES / "rules" / "kl009_missing_l2_swizzle.py"
    found = kl009(path.read_text(), str(path))
    assert [(f.code, f.span.line, f.span.column) for f in found] == [("KL009", 8, 13), ("KL009", 23, 11)]
