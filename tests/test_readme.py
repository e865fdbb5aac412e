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


def test_every_revision_the_readme_pins_is_a_commit_of_this_history() -> None:
    """Issue 28: the snippets pinned `v0.1.0`, which did not exist. A pinned
    revision (pre-commit's `rev:`, a `git+...@REV` install, an action's
    `uses: ...@REV`) must be a commit that HEAD contains."""
    import re
    import shutil

    import pytest

    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout")
    text = (ROOT / "README.md").read_text()
    revs = set(re.findall(r"rev: (\S+)", text)) | set(re.findall(r"kernlint/kernlint@([\w.-]+)", text))
    assert revs, "the README pins no revision"
    for rev in revs:
        proc = subprocess.run(
            ["git", "merge-base", "--is-ancestor", rev, "HEAD"], cwd=ROOT, capture_output=True, timeout=60
        )
        assert proc.returncode == 0, f"{rev} is not a commit of this history"
