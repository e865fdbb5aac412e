"""KL007 materialized-attention: where it lands, what it names, what it follows."""

from __future__ import annotations

import textwrap

from kernlint.engine import Settings, lint_source


def kl007(source: str, path: str = "example.py"):
    result = lint_source(path, textwrap.dedent(source), Settings(select=frozenset({"KL007"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL007"]


def test_reports_the_score_matmul_and_names_the_three_lines() -> None:
    found = kl007(
        """
        import torch
        class Attn(torch.nn.Module):
            def forward(self, q, k, v):
                scores = q @ k.transpose(-2, -1)
                scores = scores * 0.125
                attn = scores.softmax(dim=-1)
                return attn @ v
        """
    )
    assert [(f.code, f.span.line, f.span.column, f.severity.value) for f in found] == [("KL007", 5, 18, "warning")]
    message, plan = found[0].message, found[0].plan
    assert "`Attn.forward`" in message and "`q @ k.transpose(-2, -1)` (line 5)" in message
    assert "softmax (line 7)" in message and "`v` (line 8)" in message
    assert "scaled_dot_product_attention(q, k, v, scale=...)" in plan
    assert "lines 5-8" in plan


def test_two_heads_in_one_function_are_two_findings() -> None:
    found = kl007(
        """
        import torch
        def two(q1, k1, v1, q2, k2, v2):
            a = torch.softmax(q1 @ k1.mT, -1) @ v1
            s = torch.matmul(q2, k2.mT)
            b = torch.matmul(torch.softmax(s, -1), v2)
            return a + b
        """
    )
    assert [(f.span.line, f.span.column) for f in found] == [(4, 23), (5, 9)]


def test_a_reassigned_name_is_followed_to_the_value_before_it() -> None:
    # `s` is rebound to the softmax output; the matmul it feeds traces back
    # through the rebinding to the score matmul on line 4.
    found = kl007(
        """
        import torch
        def f(q, k, v):
            s = torch.bmm(q, k.transpose(1, 2))
            s = torch.softmax(s, -1)
            return torch.bmm(s, v)
        """
    )
    assert [(f.span.line, f.span.column) for f in found] == [(4, 9)]


def test_a_chain_broken_by_an_unrelated_op_is_silent() -> None:
    # A softmax of a sum of the scores and a gather is still the scores;
    # a topk of them is not a probability matrix multiplied by values.
    assert (
        kl007(
            """
        import torch
        def f(q, k, v):
            s = q @ k.transpose(-2, -1)
            top = torch.softmax(s, -1).topk(4).values
            return top @ v
        """
        )
        == []
    )


def test_tests_and_benchmark_files_are_silent() -> None:
    source = """
        import torch
        def attention(q, k, v):
            return torch.softmax(q @ k.transpose(-2, -1), -1) @ v
        """
    assert kl007(source, "tests/test_attention.py") == []
    assert kl007(source, "benchmark/bench_attn.py") == []
    assert [(f.span.line, f.span.column) for f in kl007(source, "model/attention.py")] == [(4, 26)]
