"""The text pre-check (kernlint.source.may_hold_kernel_code) skips libcst for
files that name neither torch nor triton; it never hides a finding: every
fixture, seed file and library kernel lints the same with it and without."""

from __future__ import annotations

from pathlib import Path

import pytest
from kernlint import engine
from kernlint.engine import lint_source
from kernlint.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    [*(ROOT / "fixtures").rglob("*.py"), *(ROOT / "kernels" / "kernlint" / "kernels").rglob("*.py")],
    key=str,
)
EVERY_RULE = Settings(extend_select=frozenset({"KL900"}))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_pre_check_never_hides_a_finding(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = path.read_text(encoding="utf-8")
    with_check = lint_source(str(path), text, EVERY_RULE)
    monkeypatch.setattr(engine, "may_hold_kernel_code", lambda text: True)
    without = lint_source(str(path), text, EVERY_RULE)
    assert with_check.findings == without.findings
    assert with_check.suppressed == without.suppressed


def test_a_file_without_kernel_code_skips_libcst_but_keeps_its_syntax_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_libcst(text: str):
        raise AssertionError("libcst was asked to parse a file with no kernel code")

    monkeypatch.setattr(engine, "parse", no_libcst)
    assert (
        lint_source("plain.py", "def f(x):\n    return x.t().contiguous()  # noqa: KL002\n", EVERY_RULE)
        .findings[0]
        .code
        == "KL900"
    )
    monkeypatch.undo()
    broken = lint_source("broken.py", "def f(:\n    pass\n")
    assert [(f.code, f.span.line, f.span.column) for f in broken.findings] == [("KL000", 1, 7)]
