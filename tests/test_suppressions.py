"""Suppression comments: each form, where it applies, what it leaves alone,
--show-suppressed, and KL900 for suppressions that silence nothing."""

from __future__ import annotations

import json
import textwrap

import pytest
from conftest import run_kernlint
from kernlint.engine import Settings, lint_source
from kernlint.suppressions import scan

DOT = "tl.dot(a, b, allow_tf32=True)"
ALL = Settings()
UNUSED = Settings(extend_select=frozenset({"KL900"}))


def lint(body: str, settings: Settings = ALL) -> list[tuple[str, int, int]]:
    source = "import triton.language as tl\n" + textwrap.dedent(body)
    return [(f.code, f.span.line, f.span.column) for f in lint_source("k.py", source, settings).findings]


def suppressed(body: str, settings: Settings = ALL) -> list[tuple[str, int, str | None]]:
    source = "import triton.language as tl\n" + textwrap.dedent(body)
    return [(f.code, f.span.line, f.suppressed_by) for f in lint_source("k.py", source, settings).suppressed]


def test_unsuppressed_baseline() -> None:
    assert lint(f"x = {DOT}\ny = {DOT}\n") == [("KL014", 2, 18), ("KL014", 3, 18)]


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa: KL014",
        "# noqa:KL014",
        "# NOQA: KL014",
        "# noqa",
        "# noqa: E501, KL014",
        "# noqa: KL001 KL014",
        "# kernlint: ignore[KL014]",
        "# kernlint: ignore[deprecated-allow-tf32]",
        "# kernlint: ignore",
        "# type: ignore  # noqa: KL014",
    ],
)
def test_a_directive_on_the_reported_line_silences_it_and_only_it(comment: str) -> None:
    assert lint(f"x = {DOT}  {comment}\ny = {DOT}\n") == [("KL014", 3, 18)]


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa: E501",  # another tool's
        "# noqa: KL001",  # another rule
        "# kernlint: ignore[KL001]",
        "# kernlint: ignored",
        "# noqa-KL014",
        "# no qa",
        "# kernlint: ignore[KL014",  # unclosed: no directive, not a blanket one
        "# kernlint: ignore-file[KL014",
    ],
)
def test_directives_for_other_codes_or_tools_leave_it_reported(comment: str) -> None:
    assert lint(f"x = {DOT}  {comment}\n") == [("KL014", 2, 18)]


def test_a_directive_inside_a_string_is_not_a_comment() -> None:
    assert lint(f'x = {DOT}; s = "# noqa: KL014"\n') == [("KL014", 2, 18)]


def test_own_line_directive_above_a_multi_line_statement() -> None:
    body = """\
    # kernlint: ignore[KL014]
    acc = tl.dot(
        a, b,
        allow_tf32=True,
    )
    acc = tl.dot(
        a, b,
        allow_tf32=True,
    )
    """
    assert lint(body) == [("KL014", 9, 5)]
    assert suppressed(body) == [("KL014", 5, "# kernlint: ignore[KL014]")]


def test_own_line_directive_may_sit_above_a_comment_block_but_not_a_blank_line() -> None:
    assert lint(f"# noqa: KL014\n# why: measured, see #12\nx = {DOT}\n") == []
    assert lint(f"# noqa: KL014\n\nx = {DOT}\n") == [("KL014", 4, 18)]


def test_trailing_directive_on_the_first_or_last_line_of_a_multi_line_statement() -> None:
    first = "acc = tl.dot(  # noqa: KL014\n    a, b,\n    allow_tf32=True,\n)\n"
    last = "acc = tl.dot(\n    a, b,\n    allow_tf32=True,\n)  # noqa: KL014\n"
    middle = "acc = tl.dot(\n    a, b,  # noqa: KL014\n    allow_tf32=True,\n)\n"
    assert lint(first) == []
    assert lint(last) == []
    assert lint(middle) == [("KL014", 4, 5)]


def test_own_line_directive_inside_a_call_applies_to_the_next_line() -> None:
    assert lint("acc = tl.dot(\n    a, b,\n    # noqa: KL014\n    allow_tf32=True,\n)\n") == []


def test_decorators_belong_to_the_statement_they_decorate() -> None:
    text = "# noqa\n@triton.jit\n@other(\n    1)\ndef k(\n    x,\n):\n    pass\n"
    statements = scan(text).statement
    assert statements[2] == statements[5] == statements[7] == (2, 7)
    assert statements[8] == (8, 8)


@pytest.mark.parametrize(
    "directive, expected",
    [
        ("# kernlint: ignore-file", []),
        ("# kernlint: ignore-file[KL014]", []),
        ("# kernlint: ignore-file[deprecated-allow-tf32, KL003]", []),
        ("# kernlint: ignore-file[KL001]", [("KL014", 3, 18), ("KL014", 5, 18)]),
    ],
)
def test_file_level_directives(directive: str, expected: list) -> None:
    assert lint(f"{directive}\nx = {DOT}\n\ny = {DOT}\n") == expected


def test_parse_errors_cannot_be_suppressed() -> None:
    result = lint_source("k.py", "# kernlint: ignore-file\ndef f(:  # noqa\n")
    assert [(f.code, f.span.line) for f in result.findings] == [("KL000", 2)]


# ---- unused suppressions (KL900) ---------------------------------------------


def test_unused_suppressions_are_reported_when_kl900_is_on() -> None:
    body = f"""\
    x = {DOT}  # noqa: KL014
    y = 1  # noqa: KL014
    z = 1  # noqa
    w = {DOT}  # noqa: KL014, KL001, E501
    v = 1  # kernlint: ignore[KL14]
    u = 1  # noqa: KL014, KL900
    """
    source = "import triton.language as tl\n" + textwrap.dedent(body)
    result = lint_source("k.py", source, UNUSED)
    assert [(f.code, f.span.line, f.span.column, f.message) for f in result.findings] == [
        ("KL900", 3, 8, "unused suppression `# noqa: KL014`: KL014 is not reported on this line"),
        ("KL900", 4, 8, "unused suppression `# noqa`: nothing is reported on this line"),
        ("KL900", 5, 36, "unused suppression `# noqa: KL014, KL001, E501`: KL001 is not reported on this line"),
        ("KL900", 6, 8, "unused suppression `# kernlint: ignore[KL14]`: 'KL14' is not a kernlint rule"),
    ]
    assert lint(body) == []  # KL900 is off by default


def test_codes_of_rules_that_did_not_run_are_not_judged() -> None:
    body = f"y = 1  # noqa: KL014\nz = 1  # noqa\nw = {DOT}  # noqa: KL001\n"
    only = Settings(select=frozenset({"KL900"}))
    assert lint(body, only) == []
    ignoring = Settings(ignore=frozenset({"KL014"}), extend_select=frozenset({"KL900"}))
    # A blanket noqa is judged only when every rule ran; KL001 did run.
    assert lint(body, ignoring) == [("KL900", 4, 36)]
    assert lint(body, UNUSED) == [("KL900", 2, 8), ("KL900", 3, 8), ("KL014", 4, 18), ("KL900", 4, 36)]


def test_unused_file_level_directive_and_redundant_line_directive() -> None:
    body = f"# kernlint: ignore-file[KL014, KL001]\nx = {DOT}  # noqa: KL014\n"
    assert lint(body, UNUSED) == [("KL900", 2, 1), ("KL900", 3, 36)]


def test_ignore_file_can_silence_kl900_itself() -> None:
    assert lint("# kernlint: ignore-file[KL900]\ny = 1  # noqa: KL014\n", UNUSED) == []


# ---- the command line ----------------------------------------------------------

SOURCE = f"import triton.language as tl\nx = {DOT}  # noqa: KL014\ny = 1  # noqa: KL014\n"


def test_show_suppressed_lists_them_marked_and_the_exit_code_ignores_them(tmp_path) -> None:
    (tmp_path / "k.py").write_text(SOURCE)
    plain = run_kernlint("k.py", cwd=tmp_path)
    assert plain.returncode == 0 and b"KL014" not in plain.stdout
    shown = run_kernlint("k.py", "--show-suppressed", "--no-color", cwd=tmp_path)
    assert shown.returncode == 0
    assert shown.stdout.decode().splitlines()[0] == (
        "k.py:2:18: KL014 [deprecated-allow-tf32] `allow_tf32=` in tl.dot is deprecated; "
        "use `input_precision=` instead (suppressed by `# noqa: KL014`)"
    )
    data = json.loads(run_kernlint("k.py", "--show-suppressed", "--format", "json", cwd=tmp_path).stdout)
    assert [(f["code"], f["line"], f["suppressed_by"]) for f in data["findings"]] == [("KL014", 2, "# noqa: KL014")]
    sarif = json.loads(run_kernlint("k.py", "--show-suppressed", "--format", "sarif", cwd=tmp_path).stdout)
    [result] = sarif["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "inSource", "justification": "# noqa: KL014"}]


def test_report_unused_suppressions_flag(tmp_path) -> None:
    (tmp_path / "k.py").write_text(SOURCE)
    proc = run_kernlint("k.py", "--report-unused-suppressions", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1
    assert [(f["code"], f["line"], f["column"]) for f in json.loads(proc.stdout)["findings"]] == [("KL900", 3, 8)]
    doc = run_kernlint("rule", "KL900")
    assert doc.returncode == 0 and doc.stdout.decode().startswith("# KL900 unused-suppression")
