"""KL002 per-call-relayout: on the seed, and on the forms the spec names."""

from __future__ import annotations

import textwrap

from conftest import FIXTURES
from kernlint.engine import Settings, lint_source

SEED = FIXTURES / "seed" / "kernel.py"


def kl002(source: str, path: str = "example.py"):
    result = lint_source(path, textwrap.dedent(source), Settings(select=frozenset({"KL002"})))
    assert not [f for f in result.findings if f.code == "KL999"], result.findings
    return [f for f in result.findings if f.code == "KL002"]


def test_seed_weight_transpose_is_a_warning_at_the_copy() -> None:
    found = kl002(SEED.read_text(), str(SEED))
    assert [(f.code, f.span.line, f.span.column, f.severity.value) for f in found] == [("KL002", 112, 9, "warning")]
    finding = found[0]
    assert finding.span.end_column == 9 + len("weight_int8.t().contiguous()")
    for text in (
        "`weight_int8.t().contiguous()`",
        "`fused_int8_rowwise_dequant_matmul`",
        "nn.Parameter `ModelNew.weight_int8`",
        "passed from ModelNew.forward",
        "every call",
    ):
        assert text in finding.message, text
    assert finding.kernel == "fused_int8_rowwise_dequant_matmul"


def test_seed_plan_passes_the_weight_with_swapped_strides_to_the_kernel() -> None:
    plan = kl002(SEED.read_text(), str(SEED))[0].plan
    assert "`weight_int8` itself as `b_ptr` of `int8_matmul_rowwise_dequant_kernel`" in plan
    assert "`weight_int8.stride(1), weight_int8.stride(0)` as `stride_bk, stride_bn`" in plan
    assert "delete `b = weight_int8.t().contiguous()`" in plan


def test_hand_fixed_seed_is_silent() -> None:
    path = FIXTURES / "seed" / "kernel_fixed.py"
    assert kl002(path.read_text(), str(path)) == []


def test_activation_transpose_is_info_with_a_strides_plan() -> None:
    found = kl002(
        """
        import torch
        class Attn(torch.nn.Module):
            def forward(self, q):
                return q.transpose(1, 2).contiguous()
        """
    )
    assert [(f.span.line, f.span.column, f.severity.value) for f in found] == [(5, 16, "info")]
    assert "`q` is an activation" in found[0].message
    assert "strides" in found[0].plan


def test_parameter_in_forward_plans_a_registered_buffer() -> None:
    found = kl002(
        """
        import torch.nn as nn
        class Lin(nn.Module):
            def __init__(self, w):
                super().__init__()
                self.weight = nn.Parameter(w)
            def forward(self, x):
                return x @ self.weight.t().contiguous()
        """
    )
    assert [(f.span.line, f.span.column, f.severity.value) for f in found] == [(8, 20, "warning")]
    assert "nn.Parameter `Lin.weight`" in found[0].message
    assert 'register_buffer("weight_t", self.weight.t().contiguous(), persistent=False)' in found[0].plan


def test_recast_of_a_parameter_names_the_target_dtype_and_skips_noops() -> None:
    found = kl002(
        """
        import torch
        import torch.nn as nn
        class Lin(nn.Module):
            def __init__(self):
                super().__init__()
                self.w = nn.Parameter(torch.randn(8, 8))
                self.b = nn.Parameter(torch.randn(8, dtype=torch.float16))
            def forward(self, x):
                return x @ self.w.half() + self.b.to(torch.float16) + self.b.float()
        """
    )
    assert [(f.span.line, f.span.column) for f in found] == [(10, 20), (10, 63)]
    assert "re-casts to float16 `self.w`" in found[0].message
    assert "re-casts to float32 `self.b`" in found[1].message


def test_cache_guards_silence_the_copy_and_unguarded_copies_still_fire() -> None:
    found = kl002(
        """
        import torch.nn as nn
        class Lin(nn.Module):
            def __init__(self, w):
                super().__init__()
                self.w = nn.Parameter(w)
                self._wt = None
            def forward(self, x):
                if self._wt is None or self._wt.device != x.device:
                    self._wt = self.w.t().contiguous()
                else:
                    y = self.w.t().contiguous()
                if not hasattr(self, "_w2"):
                    self._w2 = self.w.T.contiguous()
                return x @ self._wt
        """
    )
    assert [f.span.line for f in found] == [12]


def test_helper_called_only_from_init_is_preparation() -> None:
    found = kl002(
        """
        import triton
        import triton.language as tl
        import torch.nn as nn
        @triton.jit
        def pack_kernel(w_ptr, BLOCK: tl.constexpr):
            pass
        def relayout(w):
            wt = w.t().contiguous()
            pack_kernel[(1,)](wt, BLOCK=16)
            return wt
        class Lin(nn.Module):
            def __init__(self, w):
                super().__init__()
                self.w = nn.Parameter(w)
                self.register_buffer("wt", relayout(self.w))
        """
    )
    assert found == []


def test_seed_reference_upcast_into_matmul_is_left_to_kl016() -> None:
    path = FIXTURES / "seed" / "reference.py"
    assert kl002(path.read_text(), str(path)) == []


def test_round_trip_and_identity_transposes_are_silent() -> None:
    assert (
        kl002(
            """
        import torch
        import triton
        @triton.jit
        def k(q_ptr, s):
            pass
        def rope(q, k_):
            q = q.transpose(1, 2)
            q = q.contiguous()
            k_t = k_.transpose(1, 2).contiguous()
            same = k_.transpose(2, 2).contiguous()
            k[(1,)](q, q.stride(1))
            k[(1,)](k_t, same.stride(1))
            return q.transpose(1, 2), k_t.transpose(2, 1)
        """
        )
        == []
    )


def test_severity_follows_the_certainty_of_the_fix() -> None:
    found = kl002(
        """
        import torch
        import triton
        @triton.jit
        def mm(a_ptr, b_ptr, s0, s1):
            pass
        @triton.jit
        def rows(b_ptr):
            pass
        class Lin(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                return x
            @staticmethod
            def backward(ctx, grad):
                (x, weight) = ctx.saved_tensors
                xt = x.t().contiguous()
                gt = grad.t().contiguous()
                return _wgrad(gt, xt), weight.t().contiguous()
        def _wgrad(g, x):
            return g @ x
        def matmul(a, b):
            b = b.t().contiguous()
            mm[(1,)](a, b, b.stride(0), b.stride(1))
        def linear(x, w1):
            w = w1.t().contiguous()
            rows[(1,)](w)
            return Lin.apply(x, w)
        """
    )
    got = [(f.span.line, f.severity.value, f.confidence) for f in found]
    assert got == [(18, "info", "medium"), (19, "info", "medium"), (23, "warning", "high"), (26, "info", "medium")]
    messages = {f.span.line: f.message for f in found}
    assert "takes its strides, so the copy is pure waste" in messages[23]
    assert "a guess from its name" in messages[19] and "a guess from its name" in messages[26]
    assert "`grad` is an activation" in messages[18]


def test_the_weight_of_a_module_a_helper_is_handed_reads_as_a_weight_by_its_name() -> None:
    """`lin.weight` where `lin` is an nn.Linear passed to a helper: no module parameter the model can name,
    but an attribute named `weight`: a guessed weight, said as one (not "an activation")."""
    found = kl002(
        """
        import torch
        def linear(x, lin):
            wt = lin.weight.t().contiguous()
            return x @ wt
        class Head(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(64, 64)
            def forward(self, x):
                return linear(x, self.fc)
        """
    )
    assert [(f.code, f.span.line) for f in found] == [("KL002", 4)]
    assert "`lin.weight` is a module's attribute named like a weight" in found[0].message
