"""--fix and --diff: only the safe fix's span changes, bytes elsewhere stay
exact, a second --fix is a no-op, and nothing is written when it would not
be safe to."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from conftest import FIXTURES, run_kernlint
from kernlint import fixes
from kernlint.engine import Settings
from kernlint.findings import Category, FileResult, Finding, Fix, Severity, Span
from kernlint.fixes import FixWriteError, apply_fixes, fix_file, write_atomic

SEED = FIXTURES / "seed" / "kernel.py"
OLD, NEW = b"allow_tf32=True", b'input_precision="tf32"'
TF32 = b"import triton.language as tl\nx = tl.dot(a, b, allow_tf32=True)\n"


def test_fix_on_the_seed_kernel_rewrites_allow_tf32_and_nothing_else(tmp_path: Path) -> None:
    original = SEED.read_bytes()
    assert original.count(OLD) == 1
    target = tmp_path / "kernel.py"
    target.write_bytes(original)
    proc = run_kernlint("--fix", str(target))
    assert b"Applied 1 fix." in proc.stderr
    fixed = target.read_bytes()
    start = original.index(OLD)
    assert fixed[:start] == original[:start]
    assert fixed[start : start + len(NEW)] == NEW
    assert fixed[start + len(NEW) :] == original[start + len(OLD) :]
    assert b"KL014" not in proc.stdout  # the report shows what is left
    again = run_kernlint("--fix", str(target))
    assert target.read_bytes() == fixed
    assert b"Applied" not in again.stderr
    assert again.returncode == proc.returncode  # the other findings remain
    assert run_kernlint("--diff", str(target)).returncode == 0


def test_diff_prints_the_change_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "k.py"
    target.write_bytes(TF32)
    proc = run_kernlint("--diff", "k.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.decode() == (
        "--- k.py\n+++ k.py\n@@ -1,2 +1,2 @@\n import triton.language as tl\n"
        '-x = tl.dot(a, b, allow_tf32=True)\n+x = tl.dot(a, b, input_precision="tf32")\n'
    )
    assert proc.stderr.decode() == "Would apply 1 fix.\n"
    assert target.read_bytes() == TF32
    target.write_bytes(b"x = 1\n")
    clean = run_kernlint("--diff", "k.py", cwd=tmp_path)
    assert (clean.returncode, clean.stdout) == (0, b"")


@pytest.mark.parametrize(
    "original",
    [
        TF32.replace(b"\n", b"\r\n"),
        b"\xef\xbb\xbf" + TF32,
        b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + TF32,
        TF32.rstrip(b"\n"),
        b"import triton.language as tl\r\nx = tl.dot(a, b, allow_tf32=True)\ny = 'mixed'\r\n",
    ],
)
def test_fix_keeps_encoding_bom_and_line_endings(tmp_path: Path, original: bytes) -> None:
    target = tmp_path / "k.py"
    target.write_bytes(original)
    outcome = fix_file(str(target), original, Settings())
    assert outcome.written and outcome.applied == 1, outcome.error
    assert target.read_bytes() == original.replace(OLD, NEW)


def test_fix_keeps_permissions_and_follows_symlinks(tmp_path: Path) -> None:
    real = tmp_path / "real.py"
    real.write_bytes(TF32)
    os.chmod(real, 0o640)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    outcome = fix_file(str(link), TF32)
    assert outcome.written
    assert link.is_symlink()
    assert real.read_bytes() == TF32.replace(OLD, NEW)
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".kernlint-tmp")] == []


def test_read_only_file_is_left_alone_with_the_reason(tmp_path: Path) -> None:
    target = tmp_path / "k.py"
    target.write_bytes(TF32)
    os.chmod(target, 0o444)
    proc = run_kernlint("--fix", "k.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "k.py: not fixed: the file is read-only; it was left as it was" in proc.stderr.decode()
    assert target.read_bytes() == TF32
    assert b"KL014" in proc.stdout  # still reported, since it was not fixed


def test_file_changed_since_it_was_read_is_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "k.py"
    target.write_bytes(TF32 + b"# edited meanwhile\n")
    outcome = fix_file(str(target), TF32)
    assert not outcome.written
    assert "changed on disk" in outcome.error
    assert target.read_bytes() == TF32 + b"# edited meanwhile\n"


def test_a_failed_write_leaves_the_original_and_no_temporary_file(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "k.py"
    target.write_bytes(TF32)

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fixes.os, "replace", full_disk)
    outcome = fix_file(str(target), TF32)
    assert not outcome.written
    assert outcome.error == "cannot write the fix: No space left on device; the file was left as it was"
    assert target.read_bytes() == TF32
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py"]
    with pytest.raises(FixWriteError):
        write_atomic(str(target), b"x", expected=TF32)


def test_nothing_is_written_for_a_file_with_a_parse_error(tmp_path: Path) -> None:
    broken = b"x = tl.dot(a, b, allow_tf32=True)\ndef f(:\n"
    target = tmp_path / "k.py"
    target.write_bytes(broken)
    proc = run_kernlint("--fix", "k.py", cwd=tmp_path)
    assert b"KL000" in proc.stdout
    assert target.read_bytes() == broken


def test_a_fix_that_would_not_parse_is_dropped(tmp_path: Path, monkeypatch) -> None:
    target = tmp_path / "k.py"
    target.write_bytes(b"x = 1\n")
    bad = Finding(
        "KL014",
        "deprecated-allow-tf32",
        Category.API,
        Severity.INFO,
        "m",
        "k.py",
        Span(1, 1, 1, 2),
        fix=Fix("break it", ((0, 1, "def"),)),
    )
    monkeypatch.setattr(fixes, "lint_source", lambda path, text, settings=None: FileResult(path, (bad,), source=text))
    monkeypatch.setattr(
        fixes, "lint_bytes", lambda path, data, settings=None: FileResult(path, (bad,), source=data.decode())
    )
    outcome = fix_file(str(target), b"x = 1\n")
    assert not outcome.written and outcome.applied == 0
    assert "would leave code that does not parse" in outcome.error
    assert target.read_bytes() == b"x = 1\n"


def test_overlapping_fixes_wait_for_the_next_pass() -> None:
    first = Fix("a", ((0, 3, "abc"),))
    overlapping = Fix("b", ((2, 4, "zz"),))
    later = Fix("c", ((5, 6, "Q\n"),))
    text, applied = apply_fixes("012345678", [later, overlapping, first], newline="\r\n")
    assert (text, applied) == ("abc34Q\r\n678", 2)


def test_fix_from_stdin_prints_the_fixed_source() -> None:
    proc = run_kernlint("--fix", "-", "--stdin-filename", "k.py", stdin=TF32)
    assert proc.stdout == TF32.replace(OLD, NEW)
    assert proc.returncode == 0


def test_fix_removes_unused_suppressions(tmp_path: Path) -> None:
    target = tmp_path / "k.py"
    target.write_bytes(b"x = 1  # noqa: KL014, E501\n# kernlint: ignore[KL014]\ny = 2  # noqa\n")
    proc = run_kernlint("--fix", "--report-unused-suppressions", "k.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert target.read_bytes() == b"x = 1  # noqa: E501\ny = 2\n"
