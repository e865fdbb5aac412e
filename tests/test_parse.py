"""kernlint.source.parse skips libcst's per-node checks while the parser
builds the tree (issue 14): the tree is the one libcst's own parse_module
gives, and nodes built after a parse, or after a parse that failed, are
checked again."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from kernlint.source import SourceError, parse

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    [*(ROOT / "fixtures").rglob("*.py"), *(ROOT / "kernels" / "kernlint" / "kernels").rglob("*.py")],
    key=str,
)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_tree_is_libcsts_own(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tree = parse(text)
    assert tree.deep_equals(cst.parse_module(text))
    assert tree.code == text


def test_the_parse_runs_no_node_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[str] = []
    monkeypatch.setattr(cst.Name, "_validate", lambda self: checked.append(self.value))
    cst.parse_module("x = y\n")
    assert checked == ["x", "y"]  # libcst's own parse checks every Name
    checked.clear()
    parse("x = y\n")
    assert checked == []


def test_a_node_built_after_a_parse_is_checked() -> None:
    parse("x = 1\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")


def test_a_node_built_after_a_failed_parse_is_checked() -> None:
    with pytest.raises(SourceError):
        parse("def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")
