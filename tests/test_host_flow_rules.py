"""KL004, KL005, KL006 and the host-flow facts they ask (model/host_flow.py):
exact (code, line, column) on their fixtures, the verdict of a KernelBench
GRU, and the loop / tensor-vs-number facts."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
from kernlint import advice
from kernlint.engine import Settings, lint_source
from kernlint.model import build_model

ROOT = Path(__file__).resolve().parent.parent


def findings(path: Path, code: str) -> list[tuple[str, int, int]]:
    result = lint_source(str(path), path.read_text(encoding="utf-8"), Settings(select=frozenset({code})))
    return sorted((f.code, f.span.line, f.span.column) for f in result.findings)


def test_kl004_positions() -> None:
    assert findings(ROOT / "fixtures/rules/kl004_unfused_epilogue.py", "KL004") == [
        ("KL004", 19, 5),
        ("KL004", 33, 13),
        ("KL004", 42, 27),
        ("KL004", 83, 15),
        ("KL004", 96, 21),
    ]


def test_kl005_positions() -> None:
    assert findings(ROOT / "fixtures/rules/kl005_per_step_launch_loop.py", "KL005") == [
        ("KL005", 30, 9),
        ("KL005", 39, 9),
    ]


def test_kl006_positions() -> None:
    assert findings(ROOT / "fixtures/rules/kl006_host_sync_in_hot_path.py", "KL006") == [
        ("KL006", 15, 9),
        ("KL006", 31, 12),
        ("KL006", 34, 16),
        ("KL006", 35, 9),
    ]


def test_kernelbench_gru_verdict_is_kl005() -> None:
    path = ROOT / "fixtures/kernelbench/gru_per_step.py"
    result = lint_source(str(path), path.read_text(encoding="utf-8"))
    assert [(f.code, f.span.line, f.span.column) for f in result.findings] == [("KL005", 34, 9)]
    verdict = advice.verdict(str(path), result.findings)
    assert verdict["worth_optimizing"] == "yes"
    assert verdict["reason"].startswith("KL005 per-step-launch-loop at line 34")
    assert "a tensor dimension" in verdict["reason"]


def _model(source: str):
    source = textwrap.dedent(source)
    return build_model("x.py", source, cst.parse_module(source))


def test_loop_kinds() -> None:
    model = _model(
        """
        import torch
        SEQ = 512
        class M(torch.nn.Module):
            def forward(self, x, n, seq_len):
                T, B, _ = x.shape
                for a in range(T): pass
                for b in range(x.size(1)): pass
                for c in range(seq_len): pass
                for d in range(SEQ): pass
                for e in range(3): pass
                for f in (x, x): pass
                for g in range(n): pass
                for h in x: pass
        """
    )
    forward = model.function("M.forward")
    kinds = [loop.kind for loop in model.loops(forward)]
    assert kinds == ["data", "data", "data", "data", "constant", "constant", "unknown", "data"]


def test_numbers_and_tensors() -> None:
    model = _model(
        """
        import torch
        class M(torch.nn.Module):
            def forward(self, x, flag=False):
                n = x.shape[0]
                k = x.numel() // 2
                m = len(x)
                y = torch.relu(x)
                s = y.sum() > 0
                return n, k, m, y, s, flag
        """
    )
    forward = model.function("M.forward")
    values = {target: value for target, value, _ in forward.assignments}
    assert all(model.is_number(values[name], forward) for name in ("n", "k", "m"))
    assert not any(model.is_tensor(values[name], forward) for name in ("n", "k", "m"))
    assert model.is_tensor(values["y"], forward) and model.is_tensor(values["s"], forward)
    assert not model.is_tensor(cst.Name("flag"), forward)
