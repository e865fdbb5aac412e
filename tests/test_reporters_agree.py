"""One report, many views: every format shows the same findings for the
same inputs and options (kernlint.reporters decides what is shown, once),
and the exit code and the stderr lines do not depend on the format."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from kernlint.cli import main
from kernlint.reporters import REPORTERS

DOT = "tl.dot(a, b, allow_tf32=True)"
FILES = {
    # A reported KL014, a suppressed KL014, and an unused suppression (KL900).
    "a.py": f"import triton.language as tl\nx = {DOT}\ny = {DOT}  # noqa: KL014\nz = 1  # noqa: KL014\n",
    "sub/b.py": f"import triton.language as tl\n\n\nw = {DOT}  # kernlint: ignore[deprecated-allow-tf32]\n",
    "clean.py": "x = 1\n",
}
MISSING = "nope.py"  # a file error: every format still renders what was checked

Shown = set[tuple[str, int, int | None, str]]


def shown_by(fmt: str, out: str, sarif_columns: dict[str, int]) -> Shown:
    """(path, line, column, code) of each finding the output lists."""
    if fmt == "text":
        return {(m[1], int(m[2]), int(m[3]), m[4]) for m in re.finditer(r"^(\S+?):(\d+):(\d+): (KL\d+) ", out, re.M)}
    if fmt in ("json", "json-lines"):
        items = json.loads(out)["findings"] if fmt == "json" else [json.loads(line) for line in out.splitlines()]
        return {(f["path"], f["line"], f["column"], f["code"]) for f in items}
    if fmt == "sarif":
        results = json.loads(out)["runs"][0]["results"]
        return {
            (
                r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
                r["locations"][0]["physicalLocation"]["region"]["startColumn"],
                r["ruleId"],
            )
            for r in results
        }
    if fmt == "github":
        found = set()
        for line in out.splitlines():
            match = re.match(r"::(\w+) (.*?)::", line)
            assert match, line
            props = dict(item.split("=", 1) for item in match[2].split(","))
            found.add((props["file"], int(props["line"]), int(props["col"]), props["title"].split()[0]))
        return found
    if fmt == "gitlab":
        # Code Quality has lines, no columns: the column is the SARIF
        # result's with the same fingerprint (both come from the report).
        return {
            (
                i["location"]["path"],
                i["location"]["lines"]["begin"],
                sarif_columns[i["fingerprint"]],
                i["check_name"].split()[0],
            )
            for i in json.loads(out)
        }
    raise AssertionError(f"no parser for {fmt}")


@pytest.fixture
def project(tmp_path: Path):
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    old = os.getcwd()
    os.chdir(tmp_path)
    yield tmp_path
    os.chdir(old)


def invoke(*args: str):
    result = CliRunner().invoke(main, ["check", *args], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


EXPECTED_REPORTED = {("a.py", 2, 18, "KL014"), ("a.py", 4, 8, "KL900")}
EXPECTED_SUPPRESSED = {("a.py", 3, 18, "KL014"), ("sub/b.py", 4, 18, "KL014")}


@pytest.mark.parametrize(
    "options",
    [
        (),
        ("--show-suppressed",),
        ("--show-suppressed", "--quiet"),
    ],
)
def test_every_format_shows_the_same_findings_and_exits_the_same(project: Path, options: tuple[str, ...]) -> None:
    paths = ("a.py", "sub/b.py", "clean.py", MISSING)
    common = ("--report-unused-suppressions", "--no-color", *options, *paths)
    outputs = {fmt: invoke("--format", fmt, *common) for fmt in REPORTERS}
    sarif = json.loads(outputs["sarif"][1])["runs"][0]["results"]
    columns = {
        r["partialFingerprints"]["kernlintFingerprint/v1"]: r["locations"][0]["physicalLocation"]["region"][
            "startColumn"
        ]
        for r in sarif
    }
    expected = EXPECTED_REPORTED | (EXPECTED_SUPPRESSED if "--show-suppressed" in options else set())
    for fmt, (code, out, err) in outputs.items():
        # The file error: exit 2 and the same stderr line, whatever the format.
        assert code == 2, (fmt, err)
        assert err == f"kernlint: error: {MISSING}: no such file or directory\n", (fmt, err)
        if fmt == "advice":
            # Verdicts, not findings: one per checked file, all formats agreeing on which.
            assert {v["path"] for v in json.loads(out)} == {"a.py", "clean.py", "sub/b.py"}
            continue
        assert shown_by(fmt, out, columns) == expected, fmt


def test_the_exit_code_ignores_suppressed_findings_in_every_format(project: Path) -> None:
    for fmt in REPORTERS:
        code, _, err = invoke("--format", fmt, "--show-suppressed", "sub/b.py")
        assert code == 0, (fmt, err)
        code, _, _ = invoke("--format", fmt, "--exit-zero", "a.py")
        assert code == 0, fmt
        code, _, _ = invoke("--format", fmt, "a.py")
        assert code == 1, fmt


def test_a_run_that_checked_nothing_prints_no_text_but_valid_documents(project: Path) -> None:
    code, out, _ = invoke(MISSING)
    assert (code, out) == (2, "")
    code, out, _ = invoke("--format", "json", MISSING)
    assert code == 2 and json.loads(out)["findings"] == []


def test_statistics_count_the_reported_findings_in_text_and_json(project: Path) -> None:
    _, text, _ = invoke("--statistics", "--show-suppressed", "--no-color", "a.py")
    # The counts only, as ruff's --statistics: no finding lines, no summary.
    assert text.splitlines() == ["    1  KL014  deprecated-allow-tf32"]
    _, out, _ = invoke("--format", "json", "--statistics", "--show-suppressed", "--report-unused-suppressions", "a.py")
    assert json.loads(out)["statistics"] == [
        {"code": "KL014", "name": "deprecated-allow-tf32", "count": 1},
        {"code": "KL900", "name": "unused-suppression", "count": 1},
    ]
    _, plain, _ = invoke("--format", "json", "a.py")
    assert "statistics" not in json.loads(plain)


def test_quiet_leaves_the_finding_lines_only(project: Path) -> None:
    _, out, _ = invoke("--quiet", "--show-suppressed", "--no-color", "a.py")
    assert out.splitlines() == [
        "a.py:2:18: KL014 [deprecated-allow-tf32] `allow_tf32=` in tl.dot is deprecated; use `input_precision=` instead",
        "a.py:3:18: KL014 [deprecated-allow-tf32] `allow_tf32=` in tl.dot is deprecated; use `input_precision=` instead"
        " (suppressed by `# noqa: KL014`)",
    ]
