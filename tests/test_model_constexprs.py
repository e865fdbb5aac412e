"""FileModel.constexpr_values: the values a kernel's constexpr takes over
its launches and autotune configs, or what is not known of them."""

from __future__ import annotations

import textwrap

import libcst as cst
from kernlint.model import ConstexprValues, build_model

SOURCE = textwrap.dedent(
    """
    import triton, triton.language as tl
    BLOCK = 128
    @triton.autotune(configs=[triton.Config({"BLOCK_M": 64}), triton.Config({"BLOCK_M": 128})], key=["M"])
    @triton.jit
    def k(x_ptr, M, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, EVEN: tl.constexpr = True):
        pass
    @triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n"])})
    @triton.jit
    def h(x_ptr, n, BLOCK: tl.constexpr, WIDTH: tl.constexpr):
        pass
    def launch(x, n):
        k[(1,)](x, x.shape[0], BLOCK_N=BLOCK)
        k[(1,)](x, x.shape[0], BLOCK_N=n)
        h[(1,)](x, n, WIDTH=96)
    """
)


def values(kernel: str, name: str) -> ConstexprValues:
    model = build_model("t.py", SOURCE, cst.parse_module(SOURCE))
    found = next(k for k in model.kernel_list if k.name == kernel)
    return model.constexpr_values(found, name)


def test_autotune_configs_give_every_value() -> None:
    assert values("k", "BLOCK_M") == ConstexprValues(frozenset({64, 128}), True)


def test_a_computed_launch_argument_leaves_the_set_incomplete() -> None:
    assert values("k", "BLOCK_N") == ConstexprValues(frozenset({128}), False)


def test_an_unpassed_constexpr_takes_its_default() -> None:
    assert values("k", "EVEN") == ConstexprValues(frozenset({True}), True)


def test_a_heuristic_value_is_unknown_and_literal_launch_arguments_are_known() -> None:
    assert values("h", "BLOCK") == ConstexprValues(frozenset(), False)
    assert values("h", "WIDTH") == ConstexprValues(frozenset({96}), True)
