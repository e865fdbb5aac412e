"""KL019 scalar-programs: the launch it reports, the plan's grid, and the
kernels and grids it must leave alone."""

from __future__ import annotations

import textwrap

from kernlint.engine import Settings, lint_source


def kl019(source: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL019"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL019"]


SCALAR = """
import torch
import triton
import triton.language as tl
@triton.jit
def add(a_ptr, b_ptr, c_ptr):
    i = tl.program_id(0)
    tl.store(c_ptr + i, tl.load(a_ptr + i) + tl.load(b_ptr + i))
class ModelNew(torch.nn.Module):
    def forward(self, a, b):
        c = torch.empty_like(a)
        add[(a.numel(),)](a, b, c)
        return c
"""


def test_one_program_per_element_is_a_launch_reduction_warning_at_the_launch() -> None:
    found = kl019(SCALAR)
    assert [(f.code, f.span.line, f.span.column, f.severity.value, f.category.value) for f in found] == [
        ("KL019", 12, 9, "warning", "memory-layout")
    ]
    assert "`add` loads and stores one element per address" in found[0].message
    assert "grid `a.numel()`" in found[0].message
    assert "triton.cdiv(a.numel(), BLOCK)" in found[0].plan and "tl.arange(0, BLOCK)" in found[0].plan


def test_count_through_names_and_a_grid_lambda() -> None:
    named = SCALAR.replace("        add[(a.numel(),)]", "        n = a.numel()\n        grid = (n,)\n        add[grid]")
    assert [f.span.line for f in kl019(named)] == [14]
    assert [f.span.line for f in kl019(SCALAR.replace("add[(a.numel(),)]", "add[lambda meta: (a.numel(),)]"))] == [12]


def test_block_grids_vector_addresses_and_other_grids_are_silent() -> None:
    assert kl019(SCALAR.replace("add[(a.numel(),)]", "add[(triton.cdiv(a.numel(), 256),)]")) == []
    assert kl019(SCALAR.replace("add[(a.numel(),)]", "add[(a.numel() // 256,)]")) == []
    assert kl019(SCALAR.replace("add[(a.numel(),)]", "add[(a.shape[0],)]")) == []
    vector = SCALAR.replace("i = tl.program_id(0)", "i = tl.program_id(0) * 4 + tl.arange(0, 4)")
    assert kl019(vector) == []


def test_a_store_only_kernel_is_not_reported() -> None:
    source = SCALAR.replace("tl.store(c_ptr + i, tl.load(a_ptr + i) + tl.load(b_ptr + i))", "tl.store(c_ptr + i, 0.0)")
    assert kl019(source) == []
