"""KL008 multipass-softmax: positions, messages, and what counts as one pass."""

from __future__ import annotations

import textwrap

from conftest import FIXTURES
from kernlint.engine import Settings, lint_source

PASS = """
    for off in range(0, N, BLOCK):
        x = tl.load(x_ptr + row * N + off + cols, mask=off + cols < N, other=-float("inf"))
        {body}
"""
HEAD = """
import triton
import triton.language as tl

@triton.jit
def softmax(x_ptr, y_ptr, N, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = -float("inf")
    s = 0.0
"""


def kl008(source: str, path: str = "example.py"):
    result = lint_source(path, textwrap.dedent(source), Settings(select=frozenset({"KL008"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL008"]


def kernel(*bodies: str) -> str:
    return HEAD + "".join(PASS.format(body=body) for body in bodies)


def test_three_passes_report_the_first_loop_with_every_line() -> None:
    found = kl008(
        kernel(
            "m = tl.maximum(m, tl.max(x, 0))",
            "s += tl.sum(tl.exp(x - m), 0)",
            "tl.store(y_ptr + off + cols, tl.exp(x - m) / s)",
        )
    )
    assert [(f.code, f.span.line, f.span.column) for f in found] == [("KL008", 12, 5)]
    assert "`softmax` reads the same row of `x_ptr`" in found[0].message
    assert "3 passes (loops at lines 12, 16, 20)" in found[0].message


def test_four_passes_are_one_finding() -> None:
    found = kl008(
        kernel(
            "m = tl.maximum(m, tl.max(x, 0))",
            "s += tl.sum(tl.exp(x - m), 0)",
            "s += 0.0",
            "tl.store(y_ptr + off + cols, x)",
        )
    )
    assert [(f.span.line, f.span.column) for f in found] == [(12, 5)]
    assert "4 passes" in found[0].message


def test_exp_before_max_or_no_exp_is_not_softmax() -> None:
    assert kl008(kernel("s += tl.sum(tl.exp(x), 0)", "s += 1.0", "m = tl.maximum(m, tl.max(x, 0))")) == []
    assert (
        kl008(kernel("m = tl.maximum(m, tl.max(x, 0))", "s += tl.sum(x, 0)", "tl.store(y_ptr + off + cols, x / s)"))
        == []
    )


def test_two_passes_are_fine() -> None:
    assert kl008(kernel("m = tl.maximum(m, tl.max(x, 0))", "tl.store(y_ptr + off + cols, tl.exp(x - m))")) == []


def test_fixture_positions() -> None:
    path = FIXTURES / "rules" / "kl008_multipass_softmax.py"
    found = kl008(path.read_text(), str(path))
    assert [(f.code, f.span.line, f.span.column) for f in found] == [("KL008", 12, 5), ("KL008", 80, 5)]
    assert (
        "`softmax_three_kernels` reads `x` in 3 separate kernels (`row_max`, `row_exp_sum`, `normalize`)"
        in found[1].message
    )


HOST_KERNELS = """
import torch
import triton
import triton.language as tl

@triton.jit
def row_max(x_ptr, m_ptr, N, BLOCK: tl.constexpr):
    tl.store(m_ptr, tl.max(tl.load(x_ptr + tl.arange(0, BLOCK)), 0))

@triton.jit
def row_exp(x_ptr, m_ptr, y_ptr, N, BLOCK: tl.constexpr):
    tl.store(y_ptr + tl.arange(0, BLOCK), tl.exp(tl.load(x_ptr + tl.arange(0, BLOCK)) - tl.load(m_ptr)))
"""


def test_host_launches_in_different_branches_are_alternatives_not_passes() -> None:
    source = HOST_KERNELS + (
        "def run(x, m, y, mode):\n"
        "    if mode == 0:\n"
        "        row_max[(1,)](x, m, 8, BLOCK=8)\n"
        "    elif mode == 1:\n"
        "        row_exp[(1,)](x, m, y, 8, BLOCK=8)\n"
        "    else:\n"
        "        row_exp[(1,)](x, m, y, 8, BLOCK=8)\n"
    )
    assert kl008(source) == []
    sequential = HOST_KERNELS + (
        "def run(x, m, y):\n"
        "    row_max[(1,)](x, m, 8, BLOCK=8)\n"
        "    row_exp[(1,)](x, m, y, 8, BLOCK=8)\n"
        "    row_exp[(1,)](x, m, y, 8, BLOCK=8)\n"
    )
    assert [(f.span.line, f.span.column) for f in kl008(sequential)] == [(14, 5)]


def test_scalar_loads_over_a_tiny_matrix_are_not_row_passes() -> None:
    source = """
    import triton
    import triton.language as tl

    @triton.jit
    def sinkhorn(p_ptr, N: tl.constexpr):
        for row in tl.static_range(N):
            m = tl.load(p_ptr + row * N)
            for col in tl.static_range(N):
                m = tl.maximum(m, tl.load(p_ptr + row * N + col))
            s = 0.0
            for col in tl.static_range(N):
                s += tl.exp(tl.load(p_ptr + row * N + col) - m)
            for col in tl.static_range(N):
                tl.store(p_ptr + row * N + col, tl.exp(tl.load(p_ptr + row * N + col) - m) / s)
    """
    assert kl008(source) == []
