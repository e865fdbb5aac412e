"""Fixtures that document themselves: in fixtures/rules/, a line reported by
kernlint carries `# expect: CODE` (several: `# expect: KL001, KL014`), and a
line that must stay silent may carry `# ok: CODE`. The findings of each file
must be exactly the annotated (code, line) pairs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import every_performance_rule
from kernlint.engine import lint_source

FIXTURE_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "rules"
EXPECT = re.compile(r"#\s*expect:\s*(KL\d{3}(?:\s*,\s*KL\d{3})*)")
OK = re.compile(r"#\s*ok:\s*(KL\d{3}(?:\s*,\s*KL\d{3})*)")


def annotations(text: str, pattern: re.Pattern[str]) -> set[tuple[str, int]]:
    found = set()
    for number, line in enumerate(text.splitlines(), start=1):
        match = pattern.search(line)
        if match:
            found.update((code.strip(), number) for code in match.group(1).split(","))
    return found


FILES = sorted(FIXTURE_DIR.rglob("*.py"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(FIXTURE_DIR)))
def test_fixture_findings_match_annotations(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    result = lint_source(str(path), text, every_performance_rule())
    reported = {(f.code, f.span.line) for f in result.findings}
    expected = annotations(text, EXPECT)
    assert reported == expected, f"\nmissing: {sorted(expected - reported)}\nunexpected: {sorted(reported - expected)}"
    assert not (annotations(text, OK) & reported)


def test_fixture_directory_is_not_empty() -> None:
    assert FILES, "fixtures/rules/ has no fixtures"
