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


def test_unknown_size_module_or_runtime_argument_of_an_unlaunched_kernel_is_silent() -> None:
    # Not launched here: a helper's plain parameter may receive a constexpr from its caller.
    source = (
        "import triton.language as tl\nimport triton\n@triton.jit\ndef k(p, n):\n    tl.store(p + tl.arange(0, n), 0)\n"
    )
    assert kl013(source) == []
    assert kl013(source.replace("tl.arange(0, n)", "tl.arange(0, unknown_global)")) == []


RUNTIME = """
import triton
import triton.language as tl
@triton.jit
def k(p, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, n)
    tl.store(p + offs, 0)
def go(x):
    k[(4,)](x, x.numel(), BLOCK=64)
"""


def test_runtime_bound_of_a_launched_kernel_is_an_error_naming_the_argument() -> None:
    found = kl013(RUNTIME)
    assert [(f.code, f.span.line, f.span.column, f.severity.value) for f in found] == [("KL013", 7, 26, "error")]
    assert "runtime bound `n`" in found[0].message and "`k`" in found[0].message
    assert "triton.next_power_of_2(n)" in found[0].plan and "`offs < n`" in found[0].plan


def test_runtime_bound_through_a_local_or_a_program_id() -> None:
    local = RUNTIME.replace("offs = pid * BLOCK + tl.arange(0, n)", "width = n // 2\n    offs = tl.arange(0, width)")
    assert [(f.span.line, f.span.column) for f in kl013(local)] == [(8, 12)]
    assert "runtime bound `width`" in kl013(local)[0].message
    by_pid = RUNTIME.replace("tl.arange(0, n)", "tl.arange(pid, pid + 64)")
    assert [f.span.line for f in kl013(by_pid)] == [7]


def test_constexpr_bound_is_not_runtime() -> None:
    assert kl013(RUNTIME.replace("tl.arange(0, n)", "tl.arange(0, BLOCK)")) == []
    assert kl013(RUNTIME.replace("tl.arange(0, n)", "tl.arange(0, 2 * BLOCK)")) == []


AXES = """
import triton
from triton import language as lang
@triton.jit
def k(p, AXIS: lang.constexpr):
    a = lang.program_id(0)
    b = lang.program_id(axis=2)
    c = lang.program_id(3)
    d = lang.num_programs(axis=AXIS)
    lang.store(p + a + b + c + d, 0)
def go(x):
    k[(1, 1, 1)](x, AXIS=5)
"""


def test_grid_axis_past_two_is_an_error_for_program_id_and_num_programs() -> None:
    found = kl013(AXES)
    assert [(f.span.line, f.span.column, f.severity.value) for f in found] == [(8, 9, "error"), (9, 9, "error")]
    assert "grid axis 3" in found[0].message and "three axes" in found[0].message
    assert "`lang.num_programs(axis=AXIS)`" in found[1].message and "grid axis 5" in found[1].message
    assert "pid // d" in found[0].plan


def test_grid_axis_unknown_or_in_range_is_silent() -> None:
    assert kl013(AXES.replace("AXIS=5", "AXIS=1").replace("program_id(3)", "program_id(1)")) == []
    assert (
        kl013(
            AXES.replace("AXIS=5", "AXIS=axis")
            .replace("def go(x)", "def go(x, axis)")
            .replace("program_id(3)", "program_id(1)")
        )
        == []
    )
