"""scripts/new_rule.py writes a rule the registry finds, with the docs
headings, and a fixture; it never overwrites a file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "new_rule.py"


def new_rule(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args, "--root", str(root), "--no-docs"],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_new_rule_is_registered_with_its_headings_and_attributes(tmp_path: Path) -> None:
    proc = new_rule(tmp_path, "KL042", "slow-thing", "tuning")
    assert proc.returncode == 0, proc.stderr
    rule_file = tmp_path / "rules" / "kernlint" / "rules" / "kl042_slow_thing.py"
    fixture = tmp_path / "fixtures" / "rules" / "kl042_slow_thing.py"
    assert fixture.read_text().startswith('"""Fixture for KL042 (slow-thing)')
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('kl042', {str(rule_file)!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "rule = module.SlowThing\n"
        "print(rule.code, rule.name, rule.category.value, rule.severity.value, len(rule.VALID), len(rule.INVALID))\n"
        "print([line.strip() for line in rule.docs().splitlines() if line.startswith('## ')])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "KL042 slow-thing tuning warning 0 0"
    assert out[1] == str(
        [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "## Use instead",
            "## Fix safety",
            "## Measured speedup",
        ]
    )


def test_an_existing_code_or_file_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    assert new_rule(tmp_path, "KL042", "slow-thing", "tuning").returncode == 0
    again = new_rule(tmp_path, "KL042", "other-thing", "tuning")
    assert again.returncode == 2
    assert "KL042 is taken by kl042_slow_thing.py" in again.stderr
    assert not (tmp_path / "fixtures" / "rules" / "kl042_other_thing.py").exists()


def test_bad_arguments_are_refused(tmp_path: Path) -> None:
    assert new_rule(tmp_path, "K42", "x", "tuning").returncode == 2
    assert new_rule(tmp_path, "KL043", "Bad_Slug", "tuning").returncode == 2
    assert new_rule(tmp_path, "KL043", "ok", "not-a-category").returncode == 2
    assert list(tmp_path.iterdir()) == []
