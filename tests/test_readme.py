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
    text = "".join(
        p.read_text() for p in [ROOT / "README.md", ROOT / ".pre-commit-hooks.yaml", *ROOT.glob("docs/*.md")]
    )
    revs = set(re.findall(r"rev: (\S+)", text)) | set(re.findall(r"kernlint/kernlint@([\w.-]+)", text))
    assert revs, "the README pins no revision"
    for rev in revs:
        proc = subprocess.run(
            ["git", "merge-base", "--is-ancestor", rev, "HEAD"], cwd=ROOT, capture_output=True, timeout=60
        )
        assert proc.returncode == 0, f"{rev} is not a commit of this history"


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as -."""
    import re

    anchors = set()
    fence = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", title)))
    return anchors


def test_the_readme_is_short_and_every_link_in_it_and_the_docs_resolves() -> None:
    """Issue 28: the README was 892 lines and docs/ was not linked. A
    relative link must name a file of this repository (and a heading of it,
    after `#`); a web link must at least be one."""
    import re

    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 250
    for doc in ("docs/usage.md", "docs/ci.md", "docs/rules.md", "docs/measurements.md", "docs/realworld.md"):
        assert f"]({doc})" in readme, doc
    for page in [ROOT / "README.md", *sorted(ROOT.glob("docs/*.md"))]:
        text = page.read_text()
        prose = re.sub(r"```.*?```", "", text, flags=re.S)
        links = re.findall(r"\]\(([^)\s]+)\)", re.sub(r"`[^`\n]*`", "", prose))
        for link in links:
            if not re.search(r"[A-Za-z]", link.partition("#")[0] or link):
                continue  # `jit_fn[grid](...)` in generated prose: code, not a link
            if link.startswith(("http://", "https://")):
                assert re.match(r"https?://[\w.-]+\.\w+/", link), (page.name, link)
                continue
            target, _, anchor = link.partition("#")
            path = (page.parent / target).resolve() if target else page
            assert path.is_file(), (page.name, link)
            if anchor:
                assert anchor in _anchors(path.read_text()), (page.name, link)


def test_the_readme_explains_its_three_words() -> None:
    readme = (ROOT / "README.md").read_text()
    for word in ("**KernelBench** is", "**seed prompt** is", "**architect** is"):
        assert word in readme, word
