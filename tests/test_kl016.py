"""KL016 upcast-before-torch-matmul: on the seed reference and the cases its spec names."""

from __future__ import annotations

import textwrap
from pathlib import Path

from kernlint.engine import Settings, lint_source

SEED = Path(__file__).resolve().parent.parent / "fixtures" / "seed" / "reference.py"


def kl016(source: str):
    result = lint_source("example.py", textwrap.dedent(source), Settings(select=frozenset({"KL016"})))
    assert not [f for f in result.findings if f.code == "KL999"]
    return [(f.span.line, f.span.column, f.confidence, f) for f in result.findings if f.code == "KL016"]


def test_seed_reference_reports_the_int8_matmul_in_fp32() -> None:
    result = lint_source(str(SEED), SEED.read_text(encoding="utf-8"))
    found = [(f.code, f.span.line, f.span.column, f.confidence) for f in result.findings if f.code == "KL016"]
    assert found == [("KL016", 61, 24, "high")]
    finding = next(f for f in result.findings if f.code == "KL016")
    assert finding.kernel == "forward"
    assert "`torch.matmul` in `Model.forward`" in finding.message
    assert "`x` (int8 from get_inputs() at line 95)" in finding.message
    assert "`self.weight_int8.t()` (int8, created with dtype=torch.int8 at line 31)" in finding.message
    assert "`torch._int_mm(x, self.weight_int8.t())`" in finding.plan
    assert "`scale_x`, `self.scale_w`" in finding.plan
    assert "more than 16 rows" in finding.plan


def test_only_one_known_narrow_source_is_medium_confidence() -> None:
    [(line, column, confidence, finding)] = kl016(
        """
        import torch
        def f(x, w):
            assert x.dtype == torch.int8
            return x.float() @ w.float()
        """
    )
    assert (line, column, confidence) == (5, 12, "medium")
    assert "`w` (dtype not known)" in finding.message
    # Without a known int8 partner, _int_mm is not offered as a drop-in.
    assert "torch._int_mm(x" not in finding.plan


def test_conversion_through_a_local_name_is_followed() -> None:
    [(line, column, confidence, finding)] = kl016(
        """
        import torch
        def f(x, w):
            assert x.dtype == torch.int8
            assert w.dtype == torch.int8
            xf = x.to(torch.float32)
            wt = w.float().t()
            return torch.matmul(xf, wt)
        """
    )
    assert (line, column, confidence) == (8, 12, "high")
    assert "`torch._int_mm(x, w)`" in finding.plan


def test_linear_plan_transposes_the_weight() -> None:
    [(_, _, _, finding)] = kl016(
        """
        import torch
        def f(x, w):
            assert x.dtype == torch.int8
            assert w.dtype == torch.int8
            return torch.nn.functional.linear(x.float(), w.float())
        """
    )
    assert "`torch._int_mm(x, w.t())`" in finding.plan


def test_fp64_or_fp32_sources_and_main_guard_stay_silent() -> None:
    assert (
        kl016(
            """
        import torch
        def f(x, w):
            assert x.dtype == torch.float64
            assert w.dtype == torch.int8
            return x.float() @ w.float()

        if __name__ == "__main__":
            a = torch.randint(-128, 127, (32, 32), dtype=torch.int8)
            b = torch.matmul(a.float(), a.float())
        """
        )
        == []
    )


def test_a_torch_module_function_is_not_a_tensor_conversion() -> None:
    # `torch.t(x)` is a function of the torch module, not a method of a tensor.
    assert (
        kl016(
            """
        import torch
        def f(x):
            assert x.dtype == torch.int8
            return torch.t(x) @ torch.t(x)
        """
        )
        == []
    )


def test_fp8_sources_get_a_scaled_mm_plan() -> None:
    [(line, column, confidence, finding)] = kl016(
        """
        import torch
        a = torch.empty(64, 64, dtype=torch.float8_e4m3fn)
        b = torch.empty(64, 64, dtype=torch.float8_e4m3fn)
        c = a.float() @ b.float().t()
        """
    )
    assert (line, column, confidence) == (5, 5, "high")
    assert "instead of an fp8 tensor-core GEMM" in finding.message
    assert "torch._scaled_mm" in finding.plan
