"""`--fix` never loses code, through the whole run (discovery, worker
processes, time budget), whatever fails: the original bytes stay, the reason
is one line on stderr, no temporary file is left behind, and the other files
are still fixed. (tests/test_fix.py covers fixes.write_atomic itself.)"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from conftest import run_kernlint
from kernlint import fixes
from kernlint.engine import Settings
from kernlint.runner import run

TF32 = b"import triton.language as tl\nacc = tl.dot(a, b, allow_tf32=True)\n"
FIXED = b'import triton.language as tl\nacc = tl.dot(a, b, input_precision="tf32")\n'


def folder_with(tmp_path: Path, **files: bytes) -> Path:
    for name, data in files.items():
        (tmp_path / f"{name}.py").write_bytes(data)
    return tmp_path


def listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def fix_run(folder: Path, monkeypatch, settings: Settings = Settings()):
    monkeypatch.chdir(folder)
    return run(["."], settings, fix="fix")


def test_a_read_only_file_is_left_alone_and_the_others_are_fixed(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, a_locked=TF32, b_open=TF32)
    os.chmod(folder / "a_locked.py", 0o444)
    proc = run_kernlint("--fix", ".", cwd=folder)
    assert proc.stderr.decode().splitlines() == [
        "kernlint: error: a_locked.py: not fixed: the file is read-only; it was left as it was",
        "Applied 1 fix.",
    ]
    assert proc.returncode == 2
    assert (folder / "a_locked.py").read_bytes() == TF32
    assert (folder / "b_open.py").read_bytes() == FIXED
    assert listing(folder) == ["a_locked.py", "b_open.py"]


def test_a_file_edited_while_its_fix_was_computed_is_not_overwritten(tmp_path: Path, monkeypatch) -> None:
    folder = folder_with(tmp_path, k=TF32)
    real_fix_bytes = fixes.fix_bytes

    def fix_while_someone_edits(path, data, settings=Settings()):
        outcome = real_fix_bytes(path, data, settings)
        with open(path, "ab") as handle:  # the editor saves meanwhile
            handle.write(b"# saved by the editor\n")
        return outcome

    monkeypatch.setattr(fixes, "fix_bytes", fix_while_someone_edits)
    outcome = fix_run(folder, monkeypatch)
    assert outcome.errors == (
        "k.py: not fixed: the file changed on disk while kernlint was fixing it; it was left as it was (run again)",
    )
    assert outcome.exit_code == 2 and outcome.fixed == 0
    assert (folder / "k.py").read_bytes() == TF32 + b"# saved by the editor\n"
    assert listing(folder) == ["k.py"]


def test_a_file_edited_between_the_temporary_write_and_the_rename_is_not_overwritten(
    tmp_path: Path, monkeypatch
) -> None:
    folder = folder_with(tmp_path, k=TF32)
    real_chmod = fixes.os.chmod

    def chmod_then_edit(path, mode, *args, **kwargs):
        real_chmod(path, mode, *args, **kwargs)
        if str(path).endswith(".kernlint-tmp"):
            (folder / "k.py").write_bytes(TF32 + b"# late edit\n")

    monkeypatch.setattr(fixes.os, "chmod", chmod_then_edit)
    outcome = fix_run(folder, monkeypatch)
    assert outcome.errors == (
        "k.py: not fixed: the file changed on disk while kernlint was fixing it; it was left as it was (run again)",
    )
    assert (folder / "k.py").read_bytes() == TF32 + b"# late edit\n"
    assert listing(folder) == ["k.py"]


def _fail(error: int, message: str):
    def failing(*args, **kwargs):
        raise OSError(error, message)

    return failing


@pytest.mark.parametrize(
    "target, replacement",
    [
        ("replace", _fail(28, "No space left on device")),
        ("fsync", _fail(5, "Input/output error")),
        ("chmod", _fail(1, "Operation not permitted")),
        ("fdopen", _fail(24, "Too many open files")),
    ],
    ids=["rename", "fsync", "chmod", "open-temporary"],
)
def test_a_failing_disk_write_keeps_the_original_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch, target: str, replacement
) -> None:
    folder = folder_with(tmp_path, k=TF32)
    monkeypatch.setattr(fixes.os, target, replacement)
    outcome = fix_run(folder, monkeypatch)
    (line,) = outcome.errors
    assert line.startswith("k.py: not fixed: cannot write the fix: ")
    assert line.endswith("; the file was left as it was")
    assert outcome.exit_code == 2 and outcome.fixed == 0
    assert (folder / "k.py").read_bytes() == TF32
    assert listing(folder) == ["k.py"]
    # The finding is still reported, since the file was not fixed.
    assert [(f.path, f.code) for f in outcome.report.findings] == [("k.py", "KL014")]


def test_no_temporary_file_can_be_created(tmp_path: Path, monkeypatch) -> None:
    folder = folder_with(tmp_path, k=TF32)
    monkeypatch.setattr(fixes.tempfile, "mkstemp", _fail(13, "Permission denied"))
    outcome = fix_run(folder, monkeypatch)
    assert outcome.errors == ("k.py: not fixed: cannot write the fix: Permission denied; the file was left as it was",)
    assert (folder / "k.py").read_bytes() == TF32


def test_nothing_is_written_for_a_file_with_a_parse_error(tmp_path: Path) -> None:
    broken = TF32 + b"def f(:\n"
    folder = folder_with(tmp_path, broken=broken)
    before = os.stat(folder / "broken.py")
    proc = run_kernlint("--fix", "broken.py", cwd=folder)
    assert proc.stdout.decode().splitlines()[0] == (
        "broken.py:3:7: KL000 [parse-error] cannot analyze this file: syntax error: invalid syntax"
    )
    assert proc.returncode == 1 and proc.stderr == b""
    after = os.stat(folder / "broken.py")
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert (folder / "broken.py").read_bytes() == broken
    assert listing(folder) == ["broken.py"]


def test_nothing_is_written_for_an_undecodable_file(tmp_path: Path) -> None:
    data = TF32 + b"# caf\xe9\n"
    folder = folder_with(tmp_path, latin=data)
    proc = run_kernlint("--fix", "latin.py", cwd=folder)
    assert b"KL000" in proc.stdout
    assert (folder / "latin.py").read_bytes() == data


def test_a_fix_that_runs_out_of_time_writes_nothing(tmp_path: Path, monkeypatch) -> None:
    folder = folder_with(tmp_path, a_slow=TF32, b_quick=TF32)
    real_fix_bytes = fixes.fix_bytes

    def slow_for_one(path, data, settings=Settings()):
        if "a_slow" in path:
            time.sleep(30)
        return real_fix_bytes(path, data, settings)

    monkeypatch.setattr(fixes, "fix_bytes", slow_for_one)
    started = time.monotonic()
    outcome = fix_run(folder, monkeypatch, Settings(timeout_per_file=1))
    assert time.monotonic() - started < 15
    assert [(f.path, f.code) for f in outcome.report.findings] == [("a_slow.py", "KL902")]
    assert (folder / "a_slow.py").read_bytes() == TF32
    assert (folder / "b_quick.py").read_bytes() == FIXED
    assert listing(folder) == ["a_slow.py", "b_quick.py"]


def test_a_worker_killed_just_before_the_rename_loses_nothing(tmp_path: Path, monkeypatch) -> None:
    """The worst moment to die: the fixed file is written beside the
    original, not yet renamed over it. The original stays, and the run
    removes the orphaned temporary file."""
    folder = folder_with(tmp_path, k=TF32)

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(fixes.os, "replace", die)
    outcome = fix_run(folder, monkeypatch)
    (finding,) = outcome.report.findings
    assert (finding.path, finding.code) == ("k.py", "KL999")
    assert "the worker process was killed by SIGKILL" in finding.message
    assert outcome.exit_code == 2
    assert (folder / "k.py").read_bytes() == TF32
    assert listing(folder) == ["k.py"]
