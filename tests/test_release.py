"""The release: `python -m build` makes an sdist and a wheel from this
working tree, and the wheel, installed in a clean virtual environment, lints
the README's example from a folder outside the checkout with the output the
README shows (so the rules, the schemas and the measurement records that the
verdict's speedup comes from are all inside it). The version is written once
(analyzer/kernlint/version.py) and CHANGELOG.md has its section.

The build runs without isolation (setuptools and build come with the test
extra), and the clean venv gets kernlint's own dependencies through a .pth
file naming this venv's site-packages: no index is needed, while the wheel
itself is the only kernlint the clean venv can import.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT
from kernlint.version import __version__

pytest.importorskip("build")
if shutil.which("git") is None:
    pytest.skip("git is not installed", allow_module_level=True)

EXAMPLE = "fixtures/seed/kernel.py"


def readme_block(marker: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(re.escape(marker) + r"\n```text\n(.*?)```", text, re.S)
    assert match, marker
    return match.group(1)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sdist and wheel of the working tree as git sees it (tracked files and
    untracked ones it does not ignore), built in a copy so that the build's
    own files never land in the checkout."""
    tree = tmp_path_factory.mktemp("tree")
    names = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.split(b"\0")
    for name in filter(None, (n.decode() for n in names)):
        if (ROOT / name).is_file():
            (tree / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, tree / name)
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(tree)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out


def test_build_makes_an_sdist_and_a_wheel_with_the_data_inside(dist: Path) -> None:
    wheel = dist / f"kernlint-{__version__}-py3-none-any.whl"
    sdist = dist / f"kernlint-{__version__}.tar.gz"
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        "kernlint/cli.py",
        "kernlint/rules/kl001_upcast_before_dot.py",
        "kernlint/schemas/json.schema.json",
        "kernlint/schemas/advice.schema.json",
        "kernlint/kernels/measurements/h100.json",
        "kernlint/kernels/record.schema.json",
        "kernlint/py.typed",
        f"kernlint-{__version__}.dist-info/licenses/LICENSE",
    ):
        assert name in names, name
    in_sdist = set(tarfile.open(sdist).getnames())
    for name in ("LICENSE", "CHANGELOG.md", "README.md", "setup.py", "analyzer/kernlint/version.py"):
        assert f"kernlint-{__version__}/{name}" in in_sdist, name


def test_the_wheel_in_a_clean_venv_reproduces_the_readme_example(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    purelib = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    # Without dependencies: those come from this venv through deps.pth,
    # after the wheel on sys.path.
    wheel = dist / f"kernlint-{__version__}-py3-none-any.whl"
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check", str(wheel)],
        check=True,
        timeout=300,
    )
    (purelib / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    project = tmp_path / "project"
    (project / "fixtures" / "seed").mkdir(parents=True)
    shutil.copy(ROOT / EXAMPLE, project / EXAMPLE)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update({"NO_COLOR": "1"})

    def installed(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*args], capture_output=True, text=True, cwd=project, env=env, timeout=120)

    where = installed(str(python), "-c", "import kernlint.cli; print(kernlint.cli.__file__)")
    assert where.stdout.startswith(str(purelib)), where.stdout + where.stderr
    assert installed(str(venv / "bin" / "kernlint"), "--version").stdout == f"kernlint, version {__version__}\n"
    proc = installed(str(venv / "bin" / "kernlint"), EXAMPLE)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == readme_block(f"<!-- output: kernlint {EXAMPLE} -->")
    assert proc.stderr == ""


def test_the_version_is_written_once_and_the_changelog_has_it() -> None:
    assert "version =" not in (ROOT / "pyproject.toml").read_text(encoding="utf-8").split("[project]")[1].split("[")[0]
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"\n## {__version__} " in changelog
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").split()[:3] == ["Apache", "License", "Version"]
