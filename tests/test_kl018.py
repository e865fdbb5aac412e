"""KL018 fp32-dot-without-tf32: the switch it reports, the plan's tolerance
warning, the deliberate choice (info), and what stays silent."""

from __future__ import annotations

import textwrap

from kernlint.engine import Settings, lint_source


def kl018(source: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL018"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL018"]


GEMM = """
import torch
import triton
import triton.language as tl
@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    c = tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], c)
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        c = torch.empty(64, 64, device=a.device)
        matmul[(1,)](a, b, c, BM=64, BN=64, BK=32)
        return c
"""


def test_ieee_on_gemm_tiles_is_an_algorithm_replacement_warning_at_the_argument() -> None:
    found = kl018(GEMM)
    assert [
        (f.code, f.span.line, f.span.column, f.span.end_column, f.severity.value, f.category.value) for f in found
    ] == [("KL018", 10, 22, 44, "warning", "algorithm-replacement")]
    assert '`matmul` sets `input_precision="ieee"`' in found[0].message
    assert "tiles of at least 32" in found[0].message and "8x slower than TF32" in found[0].message
    assert "1e-3 relative" in found[0].plan and "tolerance" in found[0].plan
    assert found[0].confidence == "medium"


def test_known_fp32_host_tensors_raise_the_confidence() -> None:
    source = GEMM.replace(
        "        matmul[(1,)](a, b, c",
        "        a = torch.randn(64, 32, device='cuda')\n        b = torch.randn(32, 64, device='cuda')\n        matmul[(1,)](a, b, c",
    )
    found = kl018(source)
    assert [f.confidence for f in found] == ["high"]
    assert "on fp32 operands" in found[0].message


def test_a_comment_naming_the_precision_makes_it_info() -> None:
    found = kl018(GEMM.replace("    c = tl.dot(", "    # exact fp32 needed for the solver\n    c = tl.dot("))
    assert [(f.span.line, f.severity.value) for f in found] == [(11, "info")]
    assert "chosen on purpose" in found[0].message


def test_narrow_operands_small_or_unknown_tiles_and_library_launchers_are_silent() -> None:
    assert (
        kl018(
            GEMM.replace(
                "tl.load(a_ptr + rm[:, None] * BK + rk[None, :])",
                "tl.load(a_ptr + rm[:, None] * BK + rk[None, :]).to(tl.bfloat16)",
            )
        )
        == []
    )
    assert kl018(GEMM.replace("BM=64", "BM=8")) == []
    assert kl018(GEMM.replace("BM=64", "BM=a.shape[0]")) == []
    assert kl018(GEMM.replace('input_precision="ieee"', 'input_precision="tf32"')) == []
    library = GEMM.replace(
        "class ModelNew(torch.nn.Module):\n    def forward(self, a, b):", "def mm(a, b):\n    if True:"
    )
    assert kl018(library) == []


def test_allow_tf32_false_is_reported_beside_kl014() -> None:
    source = GEMM.replace('input_precision="ieee"', "allow_tf32=False")
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL014", "KL018"})))
    assert sorted((f.code, f.span.line) for f in result.findings) == [("KL014", 10), ("KL018", 10)]
