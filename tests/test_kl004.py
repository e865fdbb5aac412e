"""KL004 unfused-epilogue on GEMM and convolution producers (issue 27): modules
built in `__init__` by class, the functional forms, and tails with
normalizations and reductions; and the rebinding that ends a chain."""

from __future__ import annotations

import textwrap
from pathlib import Path

from kernlint.engine import Settings, lint_source

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "kl004_unfused_epilogue.py"


def kl004(source: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL004"})))
    assert not [f for f in result.findings if f.code == "KL999"]
    return [f for f in result.findings if f.code == "KL004"]


def test_fixture_findings_are_exact() -> None:
    result = lint_source(str(FIXTURE), FIXTURE.read_text(encoding="utf-8"), Settings(select=frozenset({"KL004"})))
    assert [(f.span.line, f.span.column) for f in result.findings] == [(19, 5), (33, 13), (42, 27), (83, 15), (96, 21)]
    conv, linear = result.findings[3], result.findings[4]
    assert conv.message == (
        "The result of `self.conv` (nn.Conv3d) in `ConvScaleAct.forward` goes through 3 separate elementwise ops "
        "(`+ self.bias`, `* 0.25`, `F.silu`), each a kernel that reads and writes the whole output"
    )
    assert conv.plan.startswith(
        "Keep `self.conv` (nn.Conv3d) on cuDNN and replace `+ self.bias`, `* 0.25`, `F.silu` with one Triton kernel"
    )
    assert linear.message == (
        "The result of `self.fc` (nn.Linear) in `LinearNormMean.forward` goes through 3 separate "
        "elementwise/normalization/reduction ops (`self.bn`, `F.group_norm`, `torch.logsumexp`), each a kernel "
        "that reads and writes the whole output"
    )
    assert linear.plan.startswith("Replace `self.fc` (nn.Linear) and `self.bn`, `F.group_norm`, `torch.logsumexp`")


def test_linear_multiplier_leaky_relu_is_reported_with_the_module_and_ops() -> None:
    [finding] = kl004(
        """
        import torch.nn as nn
        import torch.nn.functional as F
        class Model(nn.Module):
            def __init__(self, k, n, slope):
                super().__init__()
                self.gemm = nn.Linear(k, n)
                self.slope = slope
            def forward(self, x, m):
                x = self.gemm(x)
                x = x * m
                x = F.leaky_relu(x, self.slope)
                return x
        """
    )
    assert (finding.span.line, finding.span.column) == (10, 13)
    assert "`self.gemm` (nn.Linear)" in finding.message and "(`* m`, `F.leaky_relu`)" in finding.message
    assert "epilogue" in finding.plan


def test_each_functional_producer() -> None:
    found = kl004(
        """
        import torch
        import torch.nn.functional as F
        class Model(torch.nn.Module):
            def forward(self, x, w, b, c):
                p = F.linear(x, w) * 2.0
                q = F.conv1d(x, w) + b
                r = F.conv2d(x, w).clamp(min=0)
                s = F.conv3d(x, w).mul(c)
                t = torch.addmm(b, x, w).sigmoid()
                u = torch.bmm(x, w) - c
                v = torch.baddbmm(b, x, w).tanh()
                z = F.conv_transpose1d(x, w) / c
                return p, q, r, s, t, u, v, z
        """
    )
    assert [f.span.line for f in found] == [6, 7, 8, 9, 10, 11, 12, 13]
    convs = [f for f in found if "on cuDNN" in f.plan]
    assert [f.span.line for f in convs] == [7, 8, 9, 13]


def test_swish_and_mish_spelled_out() -> None:
    [finding] = kl004(
        """
        import torch
        import torch.nn as nn
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(3, 16, 3)
            def forward(self, x):
                x = self.conv(x)
                x = x * torch.sigmoid(x)
                return x * torch.tanh(torch.nn.functional.softplus(x))
        """
    )
    assert (finding.span.line, finding.span.column) == (9, 13)
    assert "`* torch.sigmoid(x)`, `torch.sigmoid`" in finding.message


def test_silent_without_a_full_size_elementwise_op() -> None:
    assert not kl004(
        """
        import torch
        import torch.nn as nn
        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(8, 8)
                self.conv = nn.Conv2d(3, 3, 1)
            def forward(self, x, y):
                a = self.fc(x).mean(dim=1)
                b = torch.logsumexp(self.fc(x), dim=-1) * 2.0
                c = self.conv(y)
                c = torch.cat([c, y], dim=1)
                return a, b, c * 3.0, self.fc(x).half()
        """
    )


def test_a_conv_bias_is_reported_where_a_helper_launches_the_next_kernel_into_the_callers_buffer() -> None:
    """The launch moved into a module function that returns nothing: the conv's output reaches the kernel
    through the helper's parameter, and the message names both."""
    found = kl004(
        """
        import torch
        import torch.nn as nn
        import triton
        import triton.language as tl
        @triton.jit
        def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)
        def _launch(src, dst, n):
            relu_kernel[(triton.cdiv(n, 1024),)](src.contiguous(), dst, n, BLOCK=1024)
        class ModelNew(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(16, 32, 3)
            def forward(self, x):
                y = self.conv(x)
                out = torch.empty_like(y)
                _launch(y, out, y.numel())
                return out
        """
    )
    assert [(f.span.line, f.span.column) for f in found] == [(17, 13)]
    assert "the next kernel, `relu_kernel` (launched by `_launch`), reads that output again" in found[0].message
