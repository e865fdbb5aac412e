"""kernlint never runs the code it reads.

A hostile folder holds files whose import (or mere presence on sys.path)
would create a sentinel file: module-level `open(..., "w")`, `os.system`,
`__import__`, `exec`; files named like the modules kernlint itself imports
(json.py, click.py, libcst.py, tokenize.py, ...), like pytest's and
Python's start-up hooks (conftest.py, sitecustomize.py, a .pth file), and
like a package's entry points (__init__.py, __main__.py, setup.py). kernlint
lints that folder from inside it, the way a CI job does, in every output
format, with --fix, --diff and stdin: no sentinel ever appears.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_kernlint
from kernlint.reporters import REPORTERS

# Modules kernlint imports while linting (or that a careless tool would):
# with the working directory first on sys.path, these would run instead.
SHADOWED_MODULES = (
    "json",
    "click",
    "libcst",
    "tokenize",
    "difflib",
    "jsonschema",
    "tomllib",
    "tempfile",
    "fnmatch",
    "typing",
    "dataclasses",
    "importlib_resources",
    "textwrap",
    "traceback",
    "ast",
    "io",
    "re",
    "pkgutil",
    "enum",
    "functools",
    "contextlib",
    "multiprocessing",
    "threading",
    "hashlib",
    "torch",
    "triton",
    "numpy",
)
STARTUP_NAMES = ("conftest", "sitecustomize", "usercustomize", "__init__", "__main__", "setup")


def payload(sentinel: Path, how: str) -> str:
    path = repr(str(sentinel))
    return {
        "open": f"open({path}, 'w').write('executed')\n",
        "system": f"import os\nos.system('touch ' + {path})\n",
        "import": f"__import__('os').system('touch ' + {path})\n",
        "exec": f"exec(\"open({path}, 'w').write('executed')\")\n",
        "pathlib": f"import pathlib\npathlib.Path({path}).touch()\n",
    }[how]


KERNEL = """
import triton
import triton.language as tl


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
    b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
    acc = tl.dot(a, b, allow_tf32=True)
    tl.store(c_ptr + offs[:, None] * BLOCK + offs[None, :], acc)


if __name__ == "__main__":
"""


def hostile_folder(root: Path) -> Path:
    """The folder and its files; every sentinel lives in root/sentinels."""
    folder = root / "repo"
    sentinels = root / "sentinels"
    folder.mkdir()
    sentinels.mkdir()
    for how in ("open", "system", "import", "exec", "pathlib"):
        body = payload(sentinels / f"kernel_{how}", how)
        main_guard = "    " + payload(sentinels / f"main_{how}", how).replace("\n", "\n    ").rstrip() + "\n"
        (folder / f"kernel_{how}.py").write_text(body + KERNEL + main_guard)
    for name in (*SHADOWED_MODULES, *STARTUP_NAMES):
        (folder / f"{name}.py").write_text(payload(sentinels / f"module_{name}", "open"))
    (folder / "evil.pth").write_text(payload(sentinels / "pth", "import").replace("\n", "; ").rstrip("; ") + "\n")
    (folder / "pkg").mkdir()
    (folder / "pkg" / "__init__.py").write_text(payload(sentinels / "pkg_init", "system"))
    (folder / "pkg" / "kernel.py").write_text(
        "from . import helper\n" + payload(sentinels / "pkg_kernel", "open") + KERNEL + "    pass\n"
    )
    (folder / "pyproject.toml").write_text('[tool.kernlint]\nselect = ["KL014", "KL001"]\n')
    return folder


def sentinels_of(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "sentinels").iterdir())


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    hostile_folder(root)
    return root


def test_the_payloads_do_run_when_python_imports_them(tmp_path) -> None:
    """The test would prove nothing if the payloads were inert."""
    folder = hostile_folder(tmp_path)
    # Each payload runs before the file's own `import triton` fails (the
    # folder's triton.py shadows the real one).
    imports = "\n".join(
        f"try:\n    import {m}\nexcept Exception:\n    pass"
        for m in ("kernel_open", "kernel_system", "kernel_import", "kernel_exec", "json")
    )
    subprocess.run([sys.executable, "-c", imports], cwd=folder, check=True, timeout=60)
    assert sentinels_of(tmp_path) == [
        "kernel_exec",
        "kernel_import",
        "kernel_open",
        "kernel_system",
        "module_json",
        "module_triton",
    ]


@pytest.mark.parametrize("output_format", sorted(REPORTERS))
def test_linting_in_every_format_runs_nothing(hostile: Path, output_format: str) -> None:
    proc = run_kernlint("--format", output_format, ".", cwd=hostile / "repo")
    assert sentinels_of(hostile) == []
    assert proc.returncode == 1, proc.stderr.decode()
    assert b"Traceback" not in proc.stderr


def test_the_lint_sees_the_kernels_it_did_not_run(hostile: Path) -> None:
    proc = run_kernlint("--select", "KL014", ".", cwd=hostile / "repo")
    lines = proc.stdout.decode().splitlines()
    assert [line.split(":")[0] for line in lines if "KL014" in line and ".py:" in line] == [
        "kernel_exec.py",
        "kernel_import.py",
        "kernel_open.py",
        "kernel_pathlib.py",
        "kernel_system.py",
        "pkg/kernel.py",
    ]
    assert sentinels_of(hostile) == []


def test_fix_diff_stdin_and_the_other_commands_run_nothing(tmp_path) -> None:
    folder = hostile_folder(tmp_path)
    before = (folder / "kernel_open.py").read_text()
    runs = [
        ("--diff", "."),
        ("--fix", "."),
        ("--fix", "--show-suppressed", "--report-unused-suppressions", "--format", "json", "."),
        ("--timeout-per-file", "0", "--fix", "."),
        ("rule", "KL014"),
        ("rules",),
        ("schema", "json"),
    ]
    for args in runs:
        proc = run_kernlint(*args, cwd=folder)
        assert b"Traceback" not in proc.stderr, (args, proc.stderr.decode())
        assert sentinels_of(tmp_path) == [], args
    stdin = run_kernlint("--fix", "--stdin-filename", "kernel_open.py", "-", stdin=before.encode(), cwd=folder)
    assert sentinels_of(tmp_path) == []
    assert b'input_precision="tf32"' in stdin.stdout
    # The fix really ran: the file changed, the payload is still in it, unexecuted.
    after = (folder / "kernel_open.py").read_text()
    assert after == before.replace("allow_tf32=True", 'input_precision="tf32"')
    assert sentinels_of(tmp_path) == []


def test_the_installed_console_script_runs_nothing(tmp_path) -> None:
    script = Path(sys.executable).parent / "kernlint"
    if not script.exists():
        pytest.skip(f"no console script beside {sys.executable}")
    folder = hostile_folder(tmp_path)
    proc = subprocess.run([str(script), "--fix", "."], cwd=folder, capture_output=True, timeout=120)
    assert (proc.returncode, proc.stderr) == (0, b"Applied 6 fixes.\n"), proc.stderr.decode()
    assert sentinels_of(tmp_path) == []


def test_verify_runs_a_file_only_when_it_is_named(tmp_path) -> None:
    """`kernlint verify` executes user code only as `verify FILE`, and then
    FILE alone: not its neighbours (json.py, torch.py, conftest.py, ... in
    the working directory), not its `__main__` block. A library pair name
    is never resolved to a file, and `--static-only` lints without running."""
    folder = hostile_folder(tmp_path)
    proc = run_kernlint("verify", "--interpret", "--pair", "kernel_open", cwd=folder)
    assert proc.returncode == 2
    assert "unknown pair 'kernel_open'" in proc.stderr.decode()
    proc = run_kernlint("verify", "--static-only", "kernel_open.py", cwd=folder)
    assert proc.returncode == 0, proc.stderr.decode()
    assert sentinels_of(tmp_path) == []
    proc = run_kernlint(
        "verify",
        "--interpret",
        "--timeout",
        "100",
        "--quiet",
        "kernel_open.py",
        cwd=folder,
        env={"TRITON_INTERPRET": "0"},
    )
    out = proc.stdout.decode()
    assert proc.returncode == 1, out + proc.stderr.decode()
    assert "Model: invalid: kernel_open.py defines no Model" in out
    assert b"Traceback" not in proc.stderr
    assert sentinels_of(tmp_path) == ["kernel_open"]


def test_linting_does_not_import_the_analyzed_files_in_process(tmp_path, monkeypatch) -> None:
    """The same through the Python API, with the folder on sys.path."""
    from kernlint.runner import run

    folder = hostile_folder(tmp_path)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.chdir(folder)
    modules_before = set(sys.modules)
    outcome = run(["."])
    assert sentinels_of(tmp_path) == []
    assert outcome.report.findings
    new = set(sys.modules) - modules_before
    assert not new & {*SHADOWED_MODULES, *STARTUP_NAMES, "kernel_open", "pkg", "pkg.kernel"}
    shutil.rmtree(folder)
