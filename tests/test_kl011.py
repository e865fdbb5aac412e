"""KL011 per-call-allocation: exact places, and the tensors that must stay fresh per call."""

from __future__ import annotations

import textwrap

from kernlint.engine import Settings, lint_source


def kl011(source: str, path: str = "example.py"):
    result = lint_source(path, textwrap.dedent(source), Settings(select=frozenset({"KL011"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL011"]


def test_reports_the_whole_expression_with_a_register_buffer_plan() -> None:
    found = kl011(
        """
        import torch
        class M(torch.nn.Module):
            def forward(self, x):
                idx = torch.arange(16).to(x.device)
                return x[:, idx]
        """
    )
    assert [(f.code, f.span.line, f.span.column, f.severity.value) for f in found] == [("KL011", 5, 15, "info")]
    assert found[0].span.end_column == 44  # through `.to(x.device)`
    assert "`torch.arange(16).to(x.device)` in `M.forward`" in found[0].message
    assert "host-to-device copy" in found[0].message
    assert 'self.register_buffer("idx", torch.arange(16), persistent=False)' in found[0].plan


def test_a_launcher_outside_a_module_is_told_to_cache_per_device() -> None:
    found = kl011(
        """
        import torch
        import triton
        import triton.language as tl
        @triton.jit
        def k(x_ptr, w_ptr):
            tl.load(w_ptr)
        def launch(x):
            w = torch.ones(4, device=x.device)
            k[(1,)](x, w)
        """
    )
    assert [(f.span.line, f.span.column) for f in found] == [(9, 9)]
    assert "an allocation and a fill kernel" in found[0].message
    assert "@functools.cache def w(device)" in found[0].plan


def test_tensors_that_must_be_fresh_are_silent() -> None:
    assert (
        kl011(
            """
        import torch
        import triton
        import triton.language as tl
        @triton.jit
        def k(x_ptr, c_ptr):
            tl.atomic_add(c_ptr, 1)
        def helper(t):
            t.fill_(2)
        def launch(x):
            counter = torch.zeros(1, device=x.device)
            k[(1,)](x, counter)
            scratch = torch.zeros(4, device=x.device)
            helper(scratch)
            addrs = []
            addrs.append(x.data_ptr())
            ptrs = torch.tensor(addrs, device=x.device)
            out = torch.ones(4, device=x.device)
            torch.mul(x[:4], 2, out=out)
            return out, ptrs
        """
        )
        == []
    )


def test_a_function_only_called_on_a_cache_miss_is_cold() -> None:
    assert (
        kl011(
            """
        import torch
        class Rope(torch.nn.Module):
            def _build(self):
                self.cos = torch.arange(4096, device="cuda").float().cos()
            def forward(self, x):
                if not hasattr(self, "cos"):
                    self._build()
                return x * self.cos[: x.shape[1]]
        """
        )
        == []
    )


def test_constructor_attributes_are_fixed_but_reassigned_ones_are_not() -> None:
    source = """
        import torch
        class M(torch.nn.Module):
            def __init__(self, n):
                super().__init__()
                self.n = n
                self.step = 0
            def forward(self, x):
                self.step += 1
                a = torch.arange(self.n, device=x.device)
                b = torch.full((4,), self.step, device=x.device)
                return x + a.sum() + b.sum()
        """
    assert [(f.span.line, f.span.column) for f in kl011(source)] == [(10, 13)]
