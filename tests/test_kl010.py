"""KL010 unconditional-k-mask: where the report lands, and the K loops it leaves alone."""

from __future__ import annotations

import textwrap

from kernlint.engine import Settings, lint_source

GEMM = """
import triton
import triton.language as tl

@triton.jit
def mm(a_ptr, b_ptr, K, BLOCK_K: tl.constexpr{extra}):
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((16, 16), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_k + k, mask={mask}, other=0.0)
        b = tl.load(b_ptr + offs_k + k, mask={mask}, other=0.0)
        acc += tl.dot(a, b)
"""


def kl010(source: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL010"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [(f.code, f.span.line, f.span.column) for f in result.findings if f.code == "KL010"], result.findings


def test_one_report_per_k_loop_at_the_first_masked_load() -> None:
    found, findings = kl010(GEMM.format(extra="", mask="offs_k + k < K"))
    assert found == [("KL010", 10, 13)]
    assert "`mm`" in findings[0].message and "line 10, 11" in findings[0].message
    assert "K loop at line 9" in findings[0].message
    assert '"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0' in findings[0].plan


def test_mask_chosen_by_a_named_constexpr_is_silent() -> None:
    found, _ = kl010(GEMM.format(extra=", EVEN_K: tl.constexpr", mask="None if EVEN_K else offs_k + k < K"))
    assert found == []
    found, _ = kl010(GEMM.format(extra=", NEED_MASK: tl.constexpr", mask="(offs_k + k < K) | (not NEED_MASK)"))
    assert found == []


def test_an_even_k_constexpr_that_does_not_touch_the_mask_does_not_help() -> None:
    found, _ = kl010(GEMM.format(extra=", EVEN_K: tl.constexpr", mask="offs_k + k < K"))
    assert found == [("KL010", 10, 13)]


def test_gemv_with_a_resident_vector_is_not_a_gemm_k_loop() -> None:
    found, _ = kl010(
        """
        import triton
        import triton.language as tl

        @triton.jit
        def gemv(w_ptr, x_ptr, N, BLOCK: tl.constexpr):
            offs = tl.arange(0, BLOCK)
            x = tl.load(x_ptr + offs[:, None] * BLOCK + offs[None, :])
            acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
            for n in range(0, N, BLOCK):
                w = tl.load(w_ptr + n + offs[:, None] * N + offs[None, :], mask=n + offs[None, :] < N)
                acc += tl.dot(w, x)
        """
    )
    assert found == []


def test_fixture_positions() -> None:
    from conftest import FIXTURES

    path = FIXTURES / "rules" / "kl010_unconditional_k_mask.py"
    result = lint_source(str(path), path.read_text(), Settings(select=frozenset({"KL010"})))
    assert [(f.code, f.span.line, f.span.column) for f in result.findings] == [("KL010", 13, 13), ("KL010", 48, 13)]
