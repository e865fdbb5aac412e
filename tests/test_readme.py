"""The README's first two commands and its shown outputs stay true."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_readme_opens_with_the_two_setup_commands() -> None:
    text = (ROOT / "README.md").read_text()
    blocks = text.split("```")
    commands = [line for line in blocks[1].splitlines() if line and not line.startswith(("#", "sh", "bash"))]
    assert commands[0].endswith(".venv/bin/kernlint fixtures/seed/kernel.py")
    assert commands[1] == "./scripts/test"
    assert "./scripts/test" in (ROOT / ".ci" / "run").read_text()


def test_readme_outputs_are_what_kernlint_prints_now() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "update_readme.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
