"""KL017 jit-in-hot-path: where it reports a kernel made per call, what its plan
names, and the one-time builders it must leave alone."""

from __future__ import annotations

import textwrap

from kernlint.engine import Settings, lint_source


def kl017(source: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL017"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL017"]


NESTED = """
import torch
import triton
import triton.language as tl
class ModelNew(torch.nn.Module):
    def forward(self, x, scale):
        BLOCK = 256
        @triton.jit
        def k(x_ptr, n):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * scale, mask=offs < n)
        k[(triton.cdiv(x.numel(), BLOCK),)](x, x.numel())
        return x
"""


def test_nested_kernel_in_forward_is_a_launch_reduction_warning_at_its_decorator() -> None:
    found = kl017(NESTED)
    assert [(f.code, f.span.line, f.span.column, f.severity.value, f.category.value) for f in found] == [
        ("KL017", 8, 9, "warning", "launch-reduction")
    ]
    assert "`k` is defined inside `ModelNew.forward`" in found[0].message
    assert "compiles `k` again" in found[0].message
    assert "Move `k` with its decorators to module level, above `ModelNew`" in found[0].plan
    assert "pass `BLOCK`, `scale` (read from `ModelNew.forward`) as arguments" in found[0].plan


def test_one_kernel_per_call_form_even_when_jit_is_wrapped_by_autotune() -> None:
    found = kl017(
        """
        import triton
        def launch(x, body):
            k = triton.autotune(configs=[triton.Config({"B": 64})], key=["n"])(triton.jit(body))
            k[(1,)](x, x.numel())
        """
    )
    assert [(f.span.line, f.span.column) for f in found] == [(4, 9)]
    assert "builds a Triton kernel inside `launch`" in found[0].message
    assert "module-level `@triton.jit` function" in found[0].plan


def test_builders_that_run_once_are_silent() -> None:
    once = NESTED.replace("    def forward(self, x, scale):", "    def build(self, x, scale):")
    assert kl017(once.replace("        k[(triton.cdiv(x.numel(), BLOCK),)](x, x.numel())\n", "")) == []
    cached = """
    import triton
    import triton.language as tl
    import torch.nn as nn
    class ModelNew(nn.Module):
        def forward(self, x):
            if self._k is None:
                self._k = triton.jit(self.body)
            self._k[(1,)](x)
            return x
    """
    assert kl017(cached) == []


def test_a_kernel_at_module_level_is_silent() -> None:
    source = """
    import torch
    import triton
    import triton.language as tl
    @triton.jit
    def k(x_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        tl.store(x_ptr + offs, 0, mask=offs < n)
    class ModelNew(torch.nn.Module):
        def forward(self, x):
            k[(1,)](x, x.numel(), BLOCK=1024)
            return x
    """
    assert kl017(source) == []
