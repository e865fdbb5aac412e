"""The CI formats: SARIF (validated against the OASIS schema), GitHub
workflow commands (parsed back per GitHub's syntax), GitLab Code Quality,
json-lines, and --output-file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import FIXTURES, ROOT, SHARED, run_kernlint
from kernlint.engine import lint_source
from kernlint.findings import Category, FileResult, Finding, Severity, Span
from kernlint.reporters import RunReport, render
from kernlint.reporters.github import escape_data, escape_property
from kernlint.reporters.sarif import FINGERPRINT_KEY

SEED = FIXTURES / "seed" / "kernel.py"
SARIF_SCHEMA = Path(ROOT).parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
assert SARIF_SCHEMA.parent.parent == SHARED

TF32 = "import triton.language as tl\n\ndef k(a, b):\n    return tl.dot(a, b, allow_tf32=True)\n"


def report_of(*files: tuple[str, str]) -> RunReport:
    results = tuple(sorted((lint_source(path, text) for path, text in files), key=lambda r: r.path))
    return RunReport("0.1.0", results, ())


def sarif_validator():
    if not SARIF_SCHEMA.exists():
        pytest.skip(f"the OASIS SARIF schema is not at {SARIF_SCHEMA} (clone the shared folder beside the checkout)")
    import jsonschema

    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


def assert_valid_sarif(document: dict) -> None:
    errors = sorted(sarif_validator().iter_errors(document), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:10])


# ---- SARIF -----------------------------------------------------------------


def test_sarif_of_the_seed_kernel_validates_against_the_oasis_schema() -> None:
    proc = run_kernlint("--format", "sarif", "fixtures/seed/kernel.py")
    assert proc.returncode == 1, proc.stderr
    document = json.loads(proc.stdout)
    assert_valid_sarif(document)
    run = document["runs"][0]
    # Other rules report on the seed too; KL014 is the one with a safe fix.
    [result] = [r for r in run["results"] if r["ruleId"] == "KL014"]
    assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == "KL014"
    assert result["level"] == "note"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "fixtures/seed/kernel.py", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 54, "startColumn": 37, "endLine": 54, "endColumn": 52}
    [fix] = result["fixes"]
    [change] = fix["artifactChanges"]
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 54, "startColumn": 37, "endLine": 54, "endColumn": 52},
            "insertedContent": {"text": 'input_precision="tf32"'},
        }
    ]


def test_sarif_driver_describes_every_rule_with_docs_and_help_uri() -> None:
    from kernlint.registry import all_rules

    document = json.loads(render("sarif", report_of(("k.py", TF32))))
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["name"] == "kernlint" and driver["version"] == "0.1.0"
    assert driver["informationUri"].startswith("https://")
    by_id = {rule["id"]: rule for rule in driver["rules"]}
    assert {rule.code for rule in all_rules()} | {"KL999"} == set(by_id)
    kl014 = by_id["KL014"]
    assert kl014["name"] == "deprecated-allow-tf32"
    assert kl014["shortDescription"]["text"].startswith("tl.dot(allow_tf32=...) is deprecated")
    assert kl014["fullDescription"]["text"].startswith("Finds tl.dot(..., allow_tf32=...)")
    assert "## Why is this bad?" in kl014["help"]["markdown"]
    assert kl014["helpUri"].endswith("docs/rules.md#kl014-deprecated-allow-tf32")
    assert kl014["defaultConfiguration"] == {"level": "note"}
    assert kl014["properties"]["category"] == "api"


def test_sarif_of_several_files_with_a_parse_error_validates() -> None:
    report = report_of(("b/k.py", TF32), ("a dir/broken.py", "def f(:\n"), ("clean.py", "x = 1\n"))
    document = json.loads(render("sarif", report))
    assert_valid_sarif(document)
    results = document["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results] == [
        ("KL000", "a%20dir/broken.py"),
        ("KL014", "b/k.py"),
    ]
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 1


def test_sarif_fingerprint_survives_inserted_lines_and_separates_repeats() -> None:
    twice = TF32 + "    return tl.dot(a, b, allow_tf32=True)\n"
    shifted = "# a comment\n\n" + twice

    def prints(text):
        return [
            r["partialFingerprints"][FINGERPRINT_KEY]
            for r in json.loads(render("sarif", report_of(("k.py", text))))["runs"][0]["results"]
        ]

    first, second = prints(twice)
    assert first != second
    assert prints(shifted) == [first, second]
    assert prints(twice.replace("tl.dot(a, b", "tl.dot(a, c", 1))[0] != first


def test_sarif_output_is_deterministic() -> None:
    one = run_kernlint("--format", "sarif", "fixtures/seed/kernel.py").stdout
    two = run_kernlint("--format", "sarif", "fixtures/seed/kernel.py").stdout
    assert one == two


# ---- GitHub ----------------------------------------------------------------

# GitHub's documented syntax: ::{command} {key}={value},{key}={value}::{message}
COMMAND = re.compile(r"^::(?P<command>[a-z]+)(?: (?P<properties>[^:]*))?::(?P<message>.*)$")


def unescape_data(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def unescape_property(text: str) -> str:
    return unescape_data(text.replace("%3A", ":").replace("%2C", ","))


def parse_github(output: str) -> list[tuple[str, dict[str, str], str]]:
    parsed = []
    for line in output.splitlines():
        match = COMMAND.match(line)
        assert match, f"not a workflow command: {line!r}"
        properties = {}
        for pair in (match["properties"] or "").split(","):
            key, _, value = pair.partition("=")
            assert key and value, f"bad property {pair!r} in {line!r}"
            properties[key] = unescape_property(value)
        parsed.append((match["command"], properties, unescape_data(match["message"])))
    return parsed


def test_github_format_of_the_seed_kernel_parses_back() -> None:
    proc = run_kernlint("--format", "github", "fixtures/seed/kernel.py")
    assert proc.returncode == 1
    parsed = parse_github(proc.stdout.decode())
    assert len(parsed) == len(
        json.loads(run_kernlint("--format", "json", "fixtures/seed/kernel.py").stdout)["findings"]
    )
    [(command, properties, message)] = [p for p in parsed if p[1]["title"].startswith("KL014")]
    assert command == "notice"
    assert properties == {
        "file": "fixtures/seed/kernel.py",
        "line": "54",
        "col": "37",
        "endLine": "54",
        "endColumn": "52",
        "title": "KL014 (deprecated-allow-tf32)",
    }
    assert message.startswith("KL014 `allow_tf32=` in tl.dot is deprecated")
    assert message.splitlines()[1].startswith("Replace `allow_tf32=True`")


def finding(path: str, span: Span, message: str, severity: Severity = Severity.ERROR, plan: str = "") -> Finding:
    return Finding("KL013", "non-pow2-arange", Category.HAZARD, severity, message, path, span, plan=plan)


def test_github_escapes_data_and_properties_and_round_trips() -> None:
    nasty = "100% of rows: a, b\r\nsecond line"
    findings = (
        finding("dir,x/k:1.py", Span(3, 5, 3, 9), nasty, Severity.ERROR),
        finding("k.py", Span(4, 1, 6, 2), "spans lines", Severity.WARNING),
        finding("k.py", Span(7, 1, 7, 2), "info", Severity.INFO, plan="do x"),
    )
    report = RunReport("0.1.0", (FileResult("k.py", findings),), ())
    text = render("github", report)
    assert "%25" in text and "%0D%0A" in text and "dir%2Cx/k%3A1.py" in text
    parsed = parse_github(text)
    assert [p[0] for p in parsed] == ["error", "warning", "notice"]
    assert parsed[0][1]["file"] == "dir,x/k:1.py"
    assert parsed[0][2] == f"KL013 {nasty}"
    # A finding over several lines has no column fields.
    assert parsed[1][1] == {"file": "k.py", "line": "4", "endLine": "6", "title": "KL013 (non-pow2-arange)"}
    assert parsed[2][2] == "KL013 info\ndo x"


def test_github_escape_functions() -> None:
    assert escape_data("a%b\rc\nd:e,f") == "a%25b%0Dc%0Ad:e,f"
    assert escape_property("a%b\rc\nd:e,f") == "a%25b%0Dc%0Ad%3Ae%2Cf"


# ---- GitLab, json-lines, --output-file --------------------------------------


def test_gitlab_code_quality_report() -> None:
    report = report_of(("k.py", TF32 + "    return tl.dot(a, b, allow_tf32=False)\n"))
    issues = json.loads(render("gitlab", report))
    assert [(i["check_name"], i["severity"], i["location"]) for i in issues] == [
        ("KL014 deprecated-allow-tf32", "minor", {"path": "k.py", "lines": {"begin": 4, "end": 4}}),
        ("KL014 deprecated-allow-tf32", "minor", {"path": "k.py", "lines": {"begin": 5, "end": 5}}),
    ]
    assert issues[0]["description"].startswith("KL014 `allow_tf32=`")
    assert len({i["fingerprint"] for i in issues}) == 2
    assert all(i["severity"] in {"info", "minor", "major", "critical", "blocker"} for i in issues)


def test_json_lines_has_one_compact_finding_per_line_like_json() -> None:
    report = report_of(("k.py", TF32 + "    return tl.dot(a, b, allow_tf32=False)\n"), ("ok.py", "x = 1\n"))
    lines = render("json-lines", report).splitlines()
    assert len(lines) == 2 and all(" " not in line.split('"message"')[0] for line in lines)
    assert [json.loads(line) for line in lines] == json.loads(render("json", report))["findings"]
    assert render("json-lines", report_of(("ok.py", "x = 1\n"))) == ""


def test_output_file_receives_the_report_and_stdout_stays_empty(tmp_path: Path) -> None:
    target = tmp_path / "reports" / "kernlint.sarif"
    proc = run_kernlint("--format", "sarif", "--output-file", str(target), "fixtures/seed/kernel.py")
    assert proc.returncode == 1
    assert proc.stdout == b""
    assert "KL014" in [r["ruleId"] for r in json.loads(target.read_text())["runs"][0]["results"]]
    expected = run_kernlint("--format", "sarif", "fixtures/seed/kernel.py").stdout
    assert target.read_bytes() == expected


def test_sarif_with_suppressed_and_unused_suppressions_validates(tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(TF32.replace("True)\n", "True)  # noqa: KL014\n") + "y = 1  # noqa: KL014\n")
    proc = run_kernlint("k.py", "--show-suppressed", "--report-unused-suppressions", "--format", "sarif", cwd=tmp_path)
    document = json.loads(proc.stdout)
    assert_valid_sarif(document)
    assert [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"], "suppressions" in r)
        for r in document["runs"][0]["results"]
    ] == [("KL014", 4, True), ("KL900", 5, False)]
