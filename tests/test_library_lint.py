"""The linter and the reference-fix library agree: each pair's `before`
shows its rule(s) and nothing unexpected, each `after` is clean."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import every_performance_rule
from kernlint.engine import lint_source
from kernlint.kernels import PAIRS, pair_meta

KERNELS = Path(pair_meta(PAIRS[0]).__file__).resolve().parents[1]


def codes(path: Path) -> set[str]:
    return {f.code for f in lint_source(str(path), path.read_text(encoding="utf-8"), every_performance_rule()).findings}


@pytest.mark.parametrize("pair", PAIRS)
def test_before_reports_the_pairs_rules_and_nothing_else(pair: str) -> None:
    meta = pair_meta(pair)
    found = codes(KERNELS / pair / "before.py")
    assert set(meta.RULES) <= found
    assert found <= set(meta.RULES) | set(meta.BEFORE_MAY_ALSO_REPORT)


@pytest.mark.parametrize("pair", PAIRS)
def test_after_is_clean(pair: str) -> None:
    assert codes(KERNELS / pair / "after.py") == set()


@pytest.mark.parametrize("helper", sorted(p.name for p in KERNELS.glob("_*.py")))
def test_library_helpers_are_clean(helper: str) -> None:
    assert codes(KERNELS / helper) == set()
