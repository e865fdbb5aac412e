"""KL015 small-dot-tile: which dimension is small, the int8 K minimum, and
the tiles it must leave alone."""

from __future__ import annotations

import textwrap

from kernlint.engine import Settings, lint_source

KERNEL = """
import torch
import triton
import triton.language as tl
@triton.jit
def mm(a_ptr, b_ptr, c_ptr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    if BLOCK_K > 32:
        a = tl.load(a_ptr + offs_m[:, None] * BLOCK_K + offs_k[None, :])
    else:
        a = tl.load(a_ptr + offs_m[:, None] * BLOCK_K + offs_k[None, :], mask=offs_k[None, :] < 8)
    b = tl.load(b_ptr + offs_k[:, None] * BLOCK_N + offs_n[None, :])
    tl.store(c_ptr + offs_m[:, None] * BLOCK_N + offs_n[None, :], tl.dot(a, b))
def go(x, w, c):
    {asserts}mm[(1,)](x, w, c, {config})
"""


def kl015(config: str, asserts: str = ""):
    source = textwrap.dedent(KERNEL).replace("{config}", config).replace("{asserts}", asserts)
    result = lint_source("example.py", source, Settings(select=frozenset({"KL015"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL015"]


def test_one_row_tile_is_reported_as_a_gemv_at_the_dot() -> None:
    found = kl015("BLOCK_M=1, BLOCK_N=64, BLOCK_K=64")
    assert [(f.code, f.span.line, f.span.column, f.severity.value) for f in found] == [("KL015", 15, 67, "info")]
    assert "an M tile dimension `BLOCK_M` = 1 (minimum 16)" in found[0].message
    assert "a 1-row tile is a GEMV" in found[0].message
    assert "reduction without tl.dot" in found[0].plan and "`mm`" in found[0].plan


def test_small_n_and_k_are_named_by_role() -> None:
    found = kl015("BLOCK_M=16, BLOCK_N=8, BLOCK_K=8")
    assert len(found) == 1
    assert "a K tile dimension `BLOCK_K` = 8" in found[0].message
    assert "an N tile dimension `BLOCK_N` = 8" in found[0].message
    assert "Raise `BLOCK_K`, `BLOCK_N` to at least 16" in found[0].plan


def test_int8_needs_k_of_32_only_when_the_host_says_int8() -> None:
    int8 = "assert x.dtype == torch.int8\n    assert w.dtype == torch.int8\n    "
    found = kl015("BLOCK_M=16, BLOCK_N=16, BLOCK_K=16", int8)
    assert len(found) == 1 and "`BLOCK_K` = 16 (minimum 32 for int8)" in found[0].message
    assert kl015("BLOCK_M=16, BLOCK_N=16, BLOCK_K=16") == []
    assert kl015("BLOCK_M=16, BLOCK_N=16, BLOCK_K=32", int8) == []


def test_tiles_at_the_minimum_or_unknown_are_silent() -> None:
    assert kl015("BLOCK_M=16, BLOCK_N=16, BLOCK_K=16") == []
    assert kl015("BLOCK_M=block, BLOCK_N=16, BLOCK_K=16") == []
