"""Hostile and broken input: each case has one exact outcome (finding,
position, message, exit code, stderr line), and no traceback ever reaches
the user."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES, run_kernlint
from kernlint.cli import main
from kernlint.deep import deep_call
from kernlint.engine import lint_bytes, lint_source
from kernlint.source import MAX_BRACKET_DEPTH, NESTING_MESSAGES, _bracket_depth, _nesting_check, _surely_shallow

TF32 = b"import triton.language as tl\nacc = tl.dot(a, b, allow_tf32=True)\n"
TF32_MESSAGE = "`allow_tf32=` in tl.dot is deprecated; use `input_precision=` instead"


def found(data: bytes) -> list[tuple[str, int, int, str]]:
    return [(f.code, f.span.line, f.span.column, f.message) for f in lint_bytes("bad.py", data).findings]


# ---- decoding and line structure -------------------------------------------


def test_syntax_error_is_kl000_at_its_line_and_column() -> None:
    assert found(b"import triton\n\ndef f(:\n    pass\n") == [
        ("KL000", 3, 7, "cannot analyze this file: syntax error: invalid syntax")
    ]


def test_invalid_utf8_is_kl000_at_the_bad_byte() -> None:
    assert found(b'x = 1\ny = "caf\xe9"\n') == [
        ("KL000", 2, 9, "cannot analyze this file: not valid utf-8: invalid continuation byte")
    ]


def test_an_unknown_coding_cookie_is_kl000() -> None:
    (finding,) = found(b"# -*- coding: no-such-codec -*-\nx = 1\n")
    assert finding[:3] == ("KL000", 1, 1)
    assert finding[3].startswith("cannot analyze this file: unreadable encoding declaration: unknown encoding")


def test_a_latin1_coding_cookie_is_honoured() -> None:
    data = b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + TF32
    assert found(data) == [("KL014", 4, 20, TF32_MESSAGE)]


def test_utf8_bom_lints_normally_with_the_same_columns() -> None:
    assert found(b"\xef\xbb\xbf" + TF32) == found(TF32) == [("KL014", 2, 20, TF32_MESSAGE)]


@pytest.mark.parametrize("newline", [b"\r\n", b"\r"], ids=["crlf", "cr-only"])
def test_crlf_and_cr_line_endings_keep_positions(newline: bytes) -> None:
    data = newline.join([b"import triton.language as tl", b"", b"acc = tl.dot(a, b, allow_tf32=True)", b""])
    assert data.count(newline) == 3 and (newline == b"\r" or b"\r\r" not in data)
    assert found(data) == [("KL014", 3, 20, TF32_MESSAGE)]


def test_mixed_line_endings_keep_positions() -> None:
    data = b"import triton.language as tl\r\nx = 1\ry = 2\nacc = tl.dot(a, b, allow_tf32=True)\r\n"
    assert found(data) == [("KL014", 4, 20, TF32_MESSAGE)]


def test_tabs_count_as_one_column() -> None:
    data = b"import triton.language as tl\nif True:\n\tacc = tl.dot(a,\tb, allow_tf32=True)\n"
    assert found(data) == [("KL014", 3, 21, TF32_MESSAGE)]


@pytest.mark.parametrize(
    "data",
    [b"", b"\n\n\n", b"   ", b"# just a comment", b"\xef\xbb\xbf"],
    ids=["empty", "newlines", "spaces", "comment-no-newline", "bom-only"],
)
def test_empty_and_blank_files_pass(data: bytes) -> None:
    assert found(data) == []


def test_binary_file_with_nul_bytes_is_kl000_at_the_first_nul() -> None:
    assert found(b"x = 1\n\x00\x01\x02\xff") == [
        ("KL000", 2, 1, "cannot analyze this file: binary file: contains a NUL byte, not Python source")
    ]


def test_a_real_binary_blob_is_kl000() -> None:
    blob = bytes(range(256)) * 64
    (finding,) = found(blob)
    assert finding[0] == "KL000" and "binary file" in finding[3]


# ---- deep nesting ---------------------------------------------------------

DEEP_BRACKETS = "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n"


@pytest.mark.parametrize(
    "source, message",
    [
        # Over CPython's 200-bracket limit: CPython's parser refuses it.
        (DEEP_BRACKETS, "cannot analyze this file: too deeply nested: too many nested parentheses"),
        (
            "x = " + "[" * 5000 + "]" * 5000 + "\n",
            "cannot analyze this file: too deeply nested: too many nested parentheses",
        ),
        (
            "x = f" + "(f" * 3000 + ")" * 3000 + "\n",
            "cannot analyze this file: too deeply nested: too many nested parentheses",
        ),
        # Deeper than CPython's own parser goes.
        (
            "x = " + "-" * 100_000 + "1\n",
            "cannot analyze this file: too deeply nested: Python's own parser gives up on this file",
        ),
        (
            "x = a" + ".b" * 100_000 + "\n",
            "cannot analyze this file: too deeply nested: Python's own parser gives up on this file",
        ),
        (
            "if a:\n pass\n" + "elif a:\n pass\n" * 100_000,
            "cannot analyze this file: too deeply nested: Python's own parser gives up on this file",
        ),
    ],
    ids=["parens", "lists", "calls", "unary", "attributes", "elif-chain"],
)
def test_nesting_too_deep_to_analyze_is_kl000(source: str, message: str) -> None:
    result = lint_source("deep.py", source)
    assert [(f.code, f.span.line, f.message) for f in result.findings] == [("KL000", 1, message)]


def test_a_chain_cpython_accepts_is_analyzed_however_long() -> None:
    # The model walks libcst's tree without recursion, and the reported
    # argument is placed from its own code (model.positions), not from the
    # statement's, whose code generation would recurse 100,000 levels: a
    # 100,000-term `and` chain reports its finding.
    source = (
        "import triton.language as tl\nx = tl.dot(a, b, allow_tf32=True) and " + " and ".join(["a"] * 100_000) + "\n"
    )
    result = lint_source("deep.py", source)
    assert [(f.code, f.span.line, f.span.column) for f in result.findings] == [("KL014", 2, 18)]


def test_a_deep_statement_without_findings_does_not_stop_the_others() -> None:
    # Positions are generated only for the statements that report, so the
    # 100,000-term `and` chain is never generated.
    source = (
        "import triton.language as tl\ndef f(a, b):\n    return tl.dot(a, b, allow_tf32=True)\n"
        "x = " + " and ".join(["a"] * 100_000) + "\n"
    )
    result = lint_source("deep.py", source)
    assert [(f.code, f.span.line, f.span.column) for f in result.findings] == [("KL014", 3, 25)]


def test_deep_nesting_without_a_finding_is_analyzed() -> None:
    """The model's traversals are iterative (issue 14): a 100,000-term `and`
    chain, which a recursive visitor could not walk, is analyzed,
    and nothing is reported (there is nothing to report)."""
    result = lint_source("deep.py", "import torch\nx = " + " and ".join(["a"] * 100_000) + "\n")
    assert result.findings == ()


@pytest.mark.parametrize(
    "expression",
    [
        " + ".join(["a"] * 3000),  # 3000 levels of BinaryOperation
        "[" * 150 + "]" * 150,  # within CPython's bracket limit
        "f" + "(f" * 150 + ")" * 150,
        " ".join(["'s'"] * 2000),  # implicit string concatenation
        " if a else ".join(["b"] * 1000),
    ],
    ids=["sum-3000", "lists-150", "calls-150", "strings-2000", "conditional-1000"],
)
def test_nesting_python_accepts_is_analyzed(expression: str) -> None:
    """Deeper than the default recursion limit allows, but analyzed: the
    engine runs in a thread with a big stack and a raised limit. The rule
    still finds the finding after the deep line."""
    source = f"x = {expression}\n" + TF32.decode()
    result = lint_source("deep.py", source)
    assert [(f.code, f.span.line, f.span.column) for f in result.findings] == [("KL014", 3, 20)]


def test_a_deep_file_python_accepts_is_fixed_too() -> None:
    """The fix's own re-parse runs with the same stack and limit as the lint
    (it used to refuse a 4000-term sum that the lint had analyzed)."""
    from kernlint.fixes import fix_text

    source = "x = " + " + ".join(["a"] * 4000) + "\n" + TF32.decode()
    fixed, applied, remaining, error = fix_text("deep.py", source)
    assert (applied, error, remaining.findings) == (1, None, ())
    assert fixed == source.replace("allow_tf32=True", 'input_precision="tf32"')


def test_recursion_error_inside_a_rule_is_kl000_not_a_crash(monkeypatch) -> None:
    from kernlint.registry import rule_by_code_or_name

    def recurse(self, model):
        return recurse(self, model)

    monkeypatch.setattr(rule_by_code_or_name("KL014"), "check", recurse)
    before = sys.getrecursionlimit()
    result = lint_source("deep.py", TF32.decode())
    assert [(f.code, f.message) for f in result.findings] == [
        ("KL000", "cannot analyze this file: too deeply nested to analyze (the recursion limit was reached)")
    ]
    assert sys.getrecursionlimit() == before  # the raised limit does not leak


def test_deep_nesting_through_the_cli_is_one_finding_and_exit_1(tmp_path) -> None:
    (tmp_path / "deep.py").write_text(DEEP_BRACKETS)
    (tmp_path / "fine.py").write_bytes(TF32)
    proc = run_kernlint("deep.py", "fine.py", cwd=tmp_path)
    assert proc.stdout.decode().splitlines()[:2] == [
        # CPython's own position: the 201st bracket.
        "deep.py:1:205: KL000 [parse-error] cannot analyze this file: too deeply nested: too many nested parentheses",
        f"fine.py:2:20: KL014 [deprecated-allow-tf32] {TF32_MESSAGE}",
    ]
    assert proc.stderr == b"" and proc.returncode == 1


# ---- the command line: paths ----------------------------------------------


def test_a_syntax_error_does_not_stop_the_other_files(tmp_path) -> None:
    (tmp_path / "a_broken.py").write_text("def f(:\n    pass\n")
    (tmp_path / "b_kernel.py").write_bytes(TF32)
    proc = run_kernlint(".", cwd=tmp_path)
    assert proc.stdout.decode().splitlines()[:3] == [
        "a_broken.py:1:7: KL000 [parse-error] cannot analyze this file: syntax error: invalid syntax",
        f"b_kernel.py:2:20: KL014 [deprecated-allow-tf32] {TF32_MESSAGE}",
        "Found 2 findings (1 error, 1 info) in 2 of 2 files.",
    ]
    assert proc.returncode == 1 and proc.stderr == b""


def test_a_nonexistent_path_is_one_line_on_stderr_and_exit_2(tmp_path) -> None:
    proc = run_kernlint("nothere.py", cwd=tmp_path)
    assert proc.stderr.decode() == "kernlint: error: nothere.py: no such file or directory\n"
    assert proc.stdout == b"" and proc.returncode == 2


def test_a_nonexistent_path_beside_a_real_one_still_lints_the_real_one(tmp_path) -> None:
    (tmp_path / "k.py").write_bytes(TF32)
    proc = run_kernlint("nothere.py", "k.py", cwd=tmp_path)
    assert proc.stderr.decode() == "kernlint: error: nothere.py: no such file or directory\n"
    assert proc.stdout.decode().startswith(f"k.py:2:20: KL014 [deprecated-allow-tf32] {TF32_MESSAGE}\n")
    assert proc.returncode == 2


def test_a_directory_without_python_passes_with_ruffs_warning(tmp_path) -> None:
    (tmp_path / "notes.md").write_text("# notes\n")
    (tmp_path / "data.txt").write_bytes(TF32)
    proc = run_kernlint(".", cwd=tmp_path)
    assert proc.stdout.decode() == ""
    assert proc.stderr.decode() == "kernlint: warning: No Python files found under the given path(s)\n"
    assert proc.returncode == 0


def test_non_py_names_passed_explicitly_are_linted(tmp_path) -> None:
    (tmp_path / "kernel.txt").write_bytes(TF32)
    (tmp_path / "script").write_bytes(b"#!/usr/bin/env python\n" + TF32)
    (tmp_path / "README").write_text("This is prose, not Python.\n")  # invalid at the end
    proc = run_kernlint("kernel.txt", "script", "README", cwd=tmp_path)
    assert proc.stdout.decode().splitlines() == [
        "README:1:27: KL000 [parse-error] cannot analyze this file: syntax error: invalid syntax",
        f"kernel.txt:2:20: KL014 [deprecated-allow-tf32] {TF32_MESSAGE}",
        f"script:3:20: KL014 [deprecated-allow-tf32] {TF32_MESSAGE}",
        "Found 3 findings (1 error, 2 info) in 3 of 3 files.",
    ]
    assert proc.returncode == 1


def test_a_file_symlink_loop_is_one_line_and_exit_2(tmp_path) -> None:
    os.symlink("self.py", tmp_path / "self.py")
    os.symlink("b.py", tmp_path / "a.py")
    os.symlink("a.py", tmp_path / "b.py")
    (tmp_path / "k.py").write_bytes(TF32)
    proc = run_kernlint("self.py", cwd=tmp_path)
    assert proc.stderr.decode() == "kernlint: error: self.py: symbolic link loop\n"
    assert proc.stdout == b"" and proc.returncode == 2
    proc = run_kernlint(".", cwd=tmp_path)
    assert proc.stderr.decode().splitlines() == [
        "kernlint: error: ./a.py: symbolic link loop",
        "kernlint: error: ./b.py: symbolic link loop",
        "kernlint: error: ./self.py: symbolic link loop",
    ]
    assert "k.py:2:20: KL014" in proc.stdout.decode() and proc.returncode == 2


def test_a_directory_symlink_to_its_parent_is_not_followed(tmp_path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "k.py").write_bytes(TF32)
    os.symlink("..", tmp_path / "pkg" / "up")
    os.symlink(".", tmp_path / "pkg" / "here")
    proc = run_kernlint(".", cwd=tmp_path)
    assert proc.stdout.decode().splitlines() == [
        f"pkg/k.py:2:20: KL014 [deprecated-allow-tf32] {TF32_MESSAGE}",
        "Found 1 finding (1 info) in 1 of 1 file.",
    ]
    assert proc.returncode == 1
    # Named explicitly, the link is a directory to walk, once.
    proc = run_kernlint("pkg/up", cwd=tmp_path)
    assert proc.stdout.decode().splitlines()[-1] == "Found 1 finding (1 info) in 1 of 1 file."


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="running as root: a 0o000 file is still readable; test_an_unreadable_file_simulated covers the path",
)
def test_an_unreadable_file_is_one_line_and_exit_2(tmp_path) -> None:
    secret = tmp_path / "secret.py"
    secret.write_bytes(TF32)
    secret.chmod(0)
    try:
        proc = run_kernlint("secret.py", cwd=tmp_path)
    finally:
        secret.chmod(0o644)
    assert proc.stderr.decode() == "kernlint: error: secret.py: cannot read: Permission denied\n"
    assert proc.returncode == 2


def test_an_unreadable_file_simulated(tmp_path, monkeypatch) -> None:
    """Root reads 0o000 files, so the refusal is simulated at open()."""
    import builtins

    from kernlint.runner import run

    (tmp_path / "secret.py").write_bytes(TF32)
    (tmp_path / "open.py").write_bytes(TF32)
    real_open = builtins.open

    def refusing_open(file, *args, **kwargs):
        if str(file).endswith("secret.py"):
            raise PermissionError(13, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", refusing_open)
    monkeypatch.chdir(tmp_path)
    outcome = run(["secret.py", "open.py"])
    assert outcome.errors == ("secret.py: cannot read: Permission denied",)
    assert [(f.path, f.code) for f in outcome.report.findings] == [("open.py", "KL014")]
    assert outcome.exit_code == 2


# ---- internal errors -----------------------------------------------------


def test_an_exception_in_a_rule_is_kl999_naming_file_and_rule_and_exit_2(tmp_path, monkeypatch) -> None:
    from kernlint.registry import rule_by_code_or_name

    def broken(self, model):
        raise ValueError("boom")

    monkeypatch.setattr(rule_by_code_or_name("KL014"), "check", broken)
    (tmp_path / "k.py").write_bytes(TF32)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["k.py"])
    line = result.stdout.splitlines()[0]
    assert line.startswith(
        "k.py:1:1: KL999 [internal-error] internal error in KL014 (deprecated-allow-tf32) on this file: "
        "ValueError: boom at test_bad_input.py:"
    )
    assert line.endswith(
        "the other rules still ran. Please report it at https://github.com/kernlint/kernlint/issues with this file"
    )
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_an_unexpected_exception_is_one_stderr_line_and_exit_2(tmp_path, monkeypatch) -> None:
    import kernlint.cli

    def explode(*args, **kwargs):
        raise RuntimeError("something unforeseen\nsecond line")

    monkeypatch.setattr(kernlint.cli, "run", explode)
    (tmp_path / "k.py").write_bytes(TF32)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["k.py"])
    assert result.exit_code == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "kernlint: internal error while checking k.py: RuntimeError: something unforeseen at test_bad_input.py:"
    )
    assert line.endswith(
        "; this is a bug in kernlint, please report it at https://github.com/kernlint/kernlint/issues "
        "with the command and the files it ran on"
    )


def test_an_exception_while_rendering_names_the_format(tmp_path, monkeypatch) -> None:
    import kernlint.cli

    def explode(*args, **kwargs):
        raise KeyError("missing")

    monkeypatch.setattr(kernlint.cli, "render", explode)
    (tmp_path / "k.py").write_bytes(TF32)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--format", "json", "k.py"])
    assert result.exit_code == 2
    assert result.stderr.startswith("kernlint: internal error while writing the json report: KeyError: 'missing' at ")


def test_usage_errors_stay_click_errors(tmp_path) -> None:
    proc = run_kernlint("--no-such-flag", cwd=tmp_path)
    assert proc.returncode == 2
    last = proc.stderr.decode().splitlines()[-1]
    assert last.startswith("Error: No such option") and "--no-such-flag" in last


def test_the_seed_still_lints_after_all_this() -> None:
    assert lint_bytes("kernel.py", (FIXTURES / "seed" / "kernel.py").read_bytes()).findings


def test_an_unexpected_exception_in_another_command_names_the_command(monkeypatch) -> None:
    import kernlint.cli

    def explode(*args, **kwargs):
        raise RuntimeError("lookup failed")

    monkeypatch.setattr(kernlint.cli, "rule_by_code_or_name", explode)
    result = CliRunner().invoke(main, ["rule", "KL014"])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "kernlint: internal error while running `kernlint rule`: RuntimeError: lookup failed at "
    )
    assert len(result.stderr.splitlines()) == 1


def test_code_python_warns_about_prints_no_warning(tmp_path) -> None:
    """kernlint asks CPython's parser for its verdict; the SyntaxWarnings
    that parsing emits are not the user's business."""
    (tmp_path / "odd.py").write_text("x = 1()\nif x is 1:\n    y = '\\d'\n")
    proc = run_kernlint("odd.py", cwd=tmp_path, env={"PYTHONWARNINGS": "error"})
    assert proc.stdout.decode() == "All checks passed (1 file).\n"
    assert proc.stderr == b"" and proc.returncode == 0


# ---- skipping CPython's nesting check (issue 24) -------------------------

SHALLOW_WORST = (
    "async def g():\n if a:\n  pass\n"
    + " elif a:\n  pass\n" * 499
    + " elif a:\n"
    + "".join(" " * i + "if x:\n" for i in range(2, 89))
    + " " * 89
    + "x = "
    + "[lambda:" * 100
    + "a"
    + "]" * 100
    + "\n"
)


@pytest.mark.parametrize(
    "source",
    [
        DEEP_BRACKETS,
        "x = " + "(" * 101 + "1" + ")" * 101 + "\n",
        "".join(" " * i + "if x:\n" for i in range(95)) + " " * 95 + "pass\n",
        "if x:\n\tif y:\n\t\tpass\n",
        "if a:\n pass\n" + "elif a:\n pass\n" * 501,
        "x = (a +\n" + " a +\n" * 700 + " a)\n",
        "x = f'{" + "(" * 101 + "1" + ")" * 101 + "}'\n",
        "x = ')' + " + "(" * 101 + "1" + ")" * 101 + "\n",
        "x = 'unterminated\n",
        "x = )\n",
    ],
    ids=[
        "brackets",
        "101-brackets",
        "indent",
        "tabs",
        "elifs",
        "long-line",
        "f-string",
        "string-bracket",
        "quote",
        "stray",
    ],
)
def test_nesting_near_or_past_the_bounds_goes_to_cpythons_check(source: str) -> None:
    assert not _surely_shallow(source)


def test_cpython_accepts_the_worst_nesting_within_the_bounds() -> None:
    assert _surely_shallow(SHALLOW_WORST)
    deep_call(lambda: _nesting_check(SHALLOW_WORST))  # no SyntaxError, RecursionError or MemoryError


@pytest.mark.parametrize("path", sorted(Path(FIXTURES).rglob("*.py")), ids=lambda p: str(p.relative_to(FIXTURES)))
def test_a_file_surely_shallow_passes_cpythons_check(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if _surely_shallow(text):
        deep_call(lambda: _refuse_too_deep_by_cpython(text))


def _refuse_too_deep_by_cpython(text: str) -> None:
    try:
        _nesting_check(text)
    except SyntaxError as error:
        assert error.msg not in NESTING_MESSAGES
    assert _bracket_depth(text) <= MAX_BRACKET_DEPTH
