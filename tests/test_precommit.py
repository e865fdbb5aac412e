"""The real pre-commit tool runs kernlint's hook (`.pre-commit-hooks.yaml`)
from this checkout: `pre-commit try-repo` installs kernlint into an isolated
environment (dependencies from PyPI) the way users' pre-commit does, then
runs it on the staged files of a throwaway git repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT

pytest.importorskip("pre_commit")
if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)
if not (ROOT / ".git").exists():
    pytest.skip(f"{ROOT} is not a git checkout; pre-commit try-repo needs one", allow_module_level=True)

try:
    import pytest_timeout  # noqa: F401

    pytestmark = pytest.mark.timeout(900)
except ImportError:  # the subprocess timeouts below still bound it
    pass

CLEAN = "def add(x, y):\n    return x + y\n"


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Shared by the tests here, so the hook environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def git_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True, exist_ok=True)

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True, timeout=60)

    git("init", "-q")
    git("config", "user.email", "test@example.com")
    git("config", "user.name", "kernlint test")
    git("config", "commit.gpgsign", "false")
    for name, text in files.items():
        (path / name).write_text(text, encoding="utf-8")
    git("add", *files)
    return path


def try_repo(repo: Path, home: Path, *files: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update({"PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"})
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "kernlint", "--files", *files],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_hook_fails_on_a_staged_bad_kernel_and_shows_the_finding(tmp_path: Path, pre_commit_home: Path) -> None:
    seed = (FIXTURES / "seed" / "kernel.py").read_text(encoding="utf-8")
    repo = git_repo(tmp_path / "project", {"kernel.py": seed})
    proc = try_repo(repo, pre_commit_home, "kernel.py")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "kernlint" in output and "Failed" in output, output
    assert "- exit code: 1" in output, output
    assert "kernel.py:54:37: KL014 [deprecated-allow-tf32]" in output, output


def test_hook_passes_on_a_clean_file(tmp_path: Path, pre_commit_home: Path) -> None:
    repo = git_repo(tmp_path / "project", {"clean.py": CLEAN})
    proc = try_repo(repo, pre_commit_home, "clean.py")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "Passed" in output, output


def readme_snippet() -> str:
    """The `.pre-commit-config.yaml` the README tells users to write."""
    import re

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"`\.pre-commit-config\.yaml`:\n\n```yaml\n(.*?)```", text, re.S)
    assert match, "README has no pre-commit snippet"
    return match.group(1)


def test_the_readmes_snippet_runs_verbatim_with_this_checkout_as_the_repository(
    tmp_path: Path, pre_commit_home: Path
) -> None:
    """The snippet's `rev` is a commit of this repository (issue 28: it
    pinned a tag, v0.1.0, that does not exist); only the URL is swapped for
    this checkout, as a fork or mirror would be."""
    snippet = readme_snippet()
    assert "repo: https://github.com/kernlint/kernlint\n" in snippet
    config = snippet.replace("https://github.com/kernlint/kernlint", str(ROOT))
    seed = (FIXTURES / "seed" / "kernel.py").read_text(encoding="utf-8")
    repo = git_repo(tmp_path / "project", {"kernel.py": seed, ".pre-commit-config.yaml": config})
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update({"PRE_COMMIT_HOME": str(pre_commit_home), "PRE_COMMIT_COLOR": "never", "NO_COLOR": "1"})
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "--files", "kernel.py"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "- hook id: kernlint" in output and "- exit code: 1" in output, output
    assert "kernel.py:54:37: KL014 [deprecated-allow-tf32]" in output, output
