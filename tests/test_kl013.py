"""KL013 non-pow2-arange: where it reports, what it says, and the bounds it
must leave alone (unknown, or a power of two among the known values)."""

from __future__ import annotations

import textwrap

from kernlint.engine import Settings, lint_source


def kl013(source: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL013"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL013"]


KERNEL = """
import triton
import triton.language as tl
@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 0, mask=offs < n)
"""


def test_every_launch_non_pow2_reports_at_the_arange_as_an_error() -> None:
    found = kl013(KERNEL + "def go(x, n):\n    k[(1,)](x, n, BLOCK=96)\n    k[(1,)](x, n, BLOCK=80)\n")
    assert [(f.code, f.span.line, f.span.column, f.severity.value, f.category.value) for f in found] == [
        ("KL013", 6, 12, "error", "hazard")
    ]
    assert "spans 80, 96 elements" in found[0].message
    assert "`k`" in found[0].message
    assert "`BLOCK` rounded up" in found[0].plan and "128 for 80" in found[0].plan
    assert found[0].expected_speedup is None


def test_one_power_of_two_launch_silences_it() -> None:
    assert kl013(KERNEL + "def go(x, n):\n    k[(1,)](x, n, BLOCK=96)\n    k[(1,)](x, n, BLOCK=64)\n") == []


def test_a_computed_launch_makes_the_bound_unknown() -> None:
    assert kl013(KERNEL + "def go(x, n, b):\n    k[(1,)](x, n, BLOCK=96)\n    k[(1,)](x, n, BLOCK=b)\n") == []


def test_star_args_and_config_lists_built_elsewhere_are_unknown() -> None:
    assert kl013(KERNEL + "def go(x, n, *a):\n    k[(1,)](x, n, *a)\n") == []
    tuned = KERNEL.replace("@triton.jit", "@triton.autotune(configs=CONFIGS, key=['n'])\n@triton.jit")
    assert kl013("CONFIGS = make()\n" + tuned) == []


def test_literal_with_a_start_reports_the_span_of_the_call() -> None:
    found = kl013(
        "import triton.language as tl\nimport triton\n@triton.jit\ndef k(p):\n    tl.store(p + tl.arange(4, 16), 0)\n"
    )
    assert [(f.span.line, f.span.column, f.span.end_column) for f in found] == [(5, 18, 34)]
    assert "spans 12 elements" in found[0].message


def test_unknown_size_module_or_runtime_argument_is_silent() -> None:
    source = (
        "import triton.language as tl\nimport triton\n@triton.jit\ndef k(p, n):\n    tl.store(p + tl.arange(0, n), 0)\n"
    )
    assert kl013(source) == []
    assert kl013(source.replace("tl.arange(0, n)", "tl.arange(0, unknown_global)")) == []
