"""The command line's contract: subcommands, exit codes, stdin."""

from __future__ import annotations

import json

from conftest import FIXTURES, run_kernlint
from kernlint import schemas
from kernlint.registry import all_rules

SEED = str(FIXTURES / "seed" / "kernel.py")
CLEAN = "import triton\n\nx = 1\n"


def test_help_lists_the_subcommands() -> None:
    proc = run_kernlint("--help")
    assert proc.returncode == 0
    for word in ("check", "rule", "rules", "schema"):
        assert word in proc.stdout.decode()


def test_rule_prints_the_docs_of_a_code_or_a_name() -> None:
    by_code = run_kernlint("rule", "KL014")
    by_name = run_kernlint("rule", "deprecated-allow-tf32")
    assert by_code.returncode == 0
    assert by_code.stdout == by_name.stdout
    text = by_code.stdout.decode()
    assert text.startswith("# KL014 deprecated-allow-tf32")
    assert "## Why is this bad?" in text


def test_unknown_rule_is_a_usage_error() -> None:
    proc = run_kernlint("rule", "KL777")
    assert proc.returncode == 2
    assert b"unknown rule 'KL777'" in proc.stderr


def test_rules_table_has_one_row_per_rule() -> None:
    proc = run_kernlint("rules")
    lines = proc.stdout.decode().splitlines()
    assert len(lines) == 1 + len(all_rules())
    assert lines[1].startswith("KL000")


def test_schema_prints_valid_json_schemas() -> None:
    for name in ("json", "advice"):
        proc = run_kernlint("schema", name)
        assert json.loads(proc.stdout) == schemas.load(name)


def test_exit_codes_follow_ruff(tmp_path) -> None:
    clean = tmp_path / "clean.py"
    clean.write_text(CLEAN)
    assert run_kernlint(str(clean)).returncode == 0
    assert run_kernlint(SEED).returncode == 1
    assert run_kernlint("--exit-zero", SEED).returncode == 0
    missing = run_kernlint(str(tmp_path / "nope.py"))
    assert missing.returncode == 2
    assert missing.stderr.decode().strip().endswith("nope.py: no such file or directory")
    assert run_kernlint("--format", "nonsense", SEED).returncode == 2


def test_parse_error_is_a_finding_not_a_crash(tmp_path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("import triton\n\ndef f(:\n    pass\n")
    proc = run_kernlint(str(broken))
    assert proc.returncode == 1
    assert (
        proc.stdout.decode().splitlines()[0]
        == f"{broken}:3:7: KL000 [parse-error] cannot analyze this file: syntax error: invalid syntax"
    )


def test_stdin_with_a_filename(tmp_path) -> None:
    source = (FIXTURES / "seed" / "kernel.py").read_bytes()
    proc = run_kernlint("-", "--stdin-filename", "pkg/kernel.py", "--format", "json", stdin=source)
    document = json.loads(proc.stdout)
    assert {f["path"] for f in document["findings"]} == {"pkg/kernel.py"}


def test_explicit_check_form_for_a_path_named_like_a_subcommand(tmp_path) -> None:
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "k.py").write_text("import triton.language as tl\nc = tl.dot(a, b, allow_tf32=True)\n")
    proc = run_kernlint("check", "rules", cwd=tmp_path)
    assert (
        proc.stdout.decode().splitlines()[0]
        == "rules/k.py:2:18: KL014 [deprecated-allow-tf32] `allow_tf32=` in tl.dot is deprecated; use `input_precision=` instead"
    )


def test_select_and_ignore_take_codes_or_names() -> None:
    only = json.loads(run_kernlint("--format", "json", "--select", "deprecated-allow-tf32", SEED).stdout)
    assert {f["code"] for f in only["findings"]} == {"KL014"}
    rest = json.loads(run_kernlint("--format", "json", "--ignore", "KL014,KL001", SEED).stdout)
    assert "KL014" not in {f["code"] for f in rest["findings"]}
    assert "KL001" not in {f["code"] for f in rest["findings"]}
