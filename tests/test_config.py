"""[tool.kernlint] configuration: the nearest pyproject.toml, --config,
command-line overrides, per-file-ignores, exclude, and errors that name the
key and the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_kernlint
from kernlint.config import Config, load_config, resolve
from kernlint.settings import glob_matches

# Two findings of two rules whose behaviour is pinned by this suite:
# KL014 at 3:18 and, when KL900 is on, a suppression of an unknown rule at 4:8.
SOURCE = "import triton.language as tl\n\nc = tl.dot(a, b, allow_tf32=True)\nd = 1  # noqa: KL777\n"


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def findings(cwd: Path, *args: str) -> list[tuple[str, str, int, int]]:
    proc = run_kernlint("--format", "json", *args, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr.decode()
    return [(f["code"], f["path"], f["line"], f["column"]) for f in json.loads(proc.stdout)["findings"]]


def test_without_config_every_default_rule_runs_and_kl900_is_off(tmp_path: Path) -> None:
    project(tmp_path, {"a.py": SOURCE})
    assert findings(tmp_path, "a.py") == [("KL014", "a.py", 3, 18)]


def test_nearest_pyproject_section_applies_with_codes_or_names(tmp_path: Path) -> None:
    project(
        tmp_path,
        {
            "pyproject.toml": '[tool.kernlint]\nignore = ["deprecated-allow-tf32"]\nextend-select = ["KL900"]\n',
            "a.py": SOURCE,
        },
    )
    assert findings(tmp_path, "a.py") == [("KL900", "a.py", 4, 8)]


def test_nearest_config_wins_and_a_pyproject_without_the_section_is_skipped(tmp_path: Path) -> None:
    project(
        tmp_path,
        {
            "pyproject.toml": '[tool.kernlint]\nselect = ["unused-suppression"]\n',
            "inner/pyproject.toml": '[tool.kernlint]\nselect = ["KL014"]\n',
            "inner/a.py": SOURCE,
            "plain/pyproject.toml": '[project]\nname = "x"\n',
            "plain/a.py": SOURCE,
        },
    )
    assert findings(tmp_path, "inner") == [("KL014", "inner/a.py", 3, 18)]
    assert findings(tmp_path, "plain") == [("KL900", "plain/a.py", 4, 8)]
    # Run from inside the folder: the same file is found walking upwards.
    assert findings(tmp_path / "inner", "a.py") == [("KL014", "a.py", 3, 18)]


def test_command_line_overrides_the_file(tmp_path: Path) -> None:
    project(
        tmp_path,
        {
            "pyproject.toml": '[tool.kernlint]\nselect = ["KL900"]\nignore = ["KL014"]\n',
            "a.py": SOURCE,
        },
    )
    assert findings(tmp_path, "a.py") == [("KL900", "a.py", 4, 8)]
    # --select replaces the file's select and takes KL014 back from its ignore.
    assert findings(tmp_path, "a.py", "--select", "KL014") == [("KL014", "a.py", 3, 18)]
    # --ignore adds to the file's ignore.
    assert findings(tmp_path, "a.py", "--ignore", "KL900") == []
    # --extend-select adds to the file's select (the file's ignore still holds).
    assert findings(tmp_path, "a.py", "--select", "KL014", "--extend-select", "KL900") == [
        ("KL014", "a.py", 3, 18),
        ("KL900", "a.py", 4, 8),
    ]


def test_resolve_rules() -> None:
    config = Config(
        path="/p/pyproject.toml",
        select=frozenset({"KL001"}),
        ignore=frozenset({"KL014"}),
        extend_select=frozenset({"KL003"}),
        target_gpu="H100",
    )
    settings = resolve(config)
    assert settings.select == {"KL001", "KL003"} and settings.ignore == {"KL014"} and settings.target_gpu == "H100"
    settings = resolve(config, select=frozenset({"KL014"}), ignore=frozenset({"KL002"}), target_gpu="A100")
    assert settings.select == {"KL014", "KL003"} and settings.ignore == {"KL002"} and settings.target_gpu == "A100"
    settings = resolve(Config(), report_unused_suppressions=True)
    assert settings.select is None and settings.enabled("KL900") and settings.enabled("KL014")
    assert not resolve(Config()).enabled("KL900")


def test_per_file_ignores_match_globs_relative_to_the_config(tmp_path: Path) -> None:
    project(
        tmp_path,
        {
            "pyproject.toml": (
                '[tool.kernlint]\nextend-select = ["KL900"]\n'
                "[tool.kernlint.per-file-ignores]\n"
                '"tests/*.py" = ["KL014"]\n'
                '"legacy_*.py" = ["KL900", "KL014"]\n'
                '"gen/" = ["unused-suppression"]\n'
            ),
            "src/a.py": SOURCE,
            "tests/a.py": SOURCE,
            "src/deep/legacy_a.py": SOURCE,
            "gen/x/a.py": SOURCE,
        },
    )
    assert findings(tmp_path, ".") == [
        ("KL014", "gen/x/a.py", 3, 18),
        ("KL014", "src/a.py", 3, 18),
        ("KL900", "src/a.py", 4, 8),
        ("KL900", "tests/a.py", 4, 8),
    ]
    # The globs are relative to the config's folder, wherever kernlint runs.
    assert findings(tmp_path / "tests", "a.py") == [("KL900", "a.py", 4, 8)]


def test_glob_matches() -> None:
    assert glob_matches("tests/a.py", "tests/*.py")
    assert glob_matches("tests/sub/a.py", "tests/*")
    assert not glob_matches("src/tests.py", "tests/*.py")
    assert glob_matches("src/deep/legacy_a.py", "legacy_*.py")
    assert glob_matches("gen/x/a.py", "gen/")
    assert glob_matches("a/gen/x.py", "**/gen/*")
    assert glob_matches("x.py", "./x.py")
    assert not glob_matches("src/a.py", "b.py")


def test_exclude_skips_walked_files_but_not_named_ones(tmp_path: Path) -> None:
    project(
        tmp_path,
        {
            "pyproject.toml": '[tool.kernlint]\nexclude = ["generated", "*_pb2.py"]\n',
            "a.py": SOURCE,
            "generated/b.py": SOURCE,
            "c_pb2.py": SOURCE,
        },
    )
    assert findings(tmp_path, ".") == [("KL014", "a.py", 3, 18)]
    assert findings(tmp_path, "generated/b.py") == [("KL014", "generated/b.py", 3, 18)]


def test_config_option_reads_a_plain_toml_file_or_a_pyproject(tmp_path: Path) -> None:
    project(
        tmp_path,
        {
            "pyproject.toml": '[tool.kernlint]\nselect = ["KL900"]\n',
            "ci/kernlint.toml": 'select = ["KL014"]\n',
            "ci/pyproject.toml": '[tool.kernlint]\nignore = ["KL014"]\nextend-select = ["KL900"]\n',
            "a.py": SOURCE,
        },
    )
    assert findings(tmp_path, "a.py", "--config", "ci/kernlint.toml") == [("KL014", "a.py", 3, 18)]
    assert findings(tmp_path, "a.py", "--config", "ci/pyproject.toml") == [("KL900", "a.py", 4, 8)]


def test_target_gpu_from_the_file(tmp_path: Path) -> None:
    path = project(tmp_path, {"pyproject.toml": '[tool.kernlint]\ntarget-gpu = "H100"\n'}) / "pyproject.toml"
    assert load_config(str(path)).target_gpu == "H100"


@pytest.mark.parametrize(
    "body, message",
    [
        ('[tool.kernlint]\nselct = ["KL014"]\n', "unknown key 'selct'"),
        ('[tool.kernlint]\nselect = ["KL014", "KL123"]\n', "select: unknown rule 'KL123'"),
        ('[tool.kernlint]\nignore = ["no-such-rule"]\n', "ignore: unknown rule 'no-such-rule'"),
        ('[tool.kernlint.per-file-ignores]\n"t/*" = ["KL77"]\n', "per-file-ignores 't/*': unknown rule 'KL77'"),
        ('[tool.kernlint]\nselect = "KL014"\n', "select must be a list"),
        ("[tool.kernlint]\ntarget-gpu = 3\n", "target-gpu must be a string"),
        ('[tool.kernlint]\nper-file-ignores = ["x"]\n', "per-file-ignores must be a table"),
        ("[tool.kernlint\n", "not valid TOML"),
    ],
)
def test_a_bad_config_is_an_error_naming_the_key_and_the_file(tmp_path: Path, body: str, message: str) -> None:
    project(tmp_path, {"pyproject.toml": body, "a.py": SOURCE})
    proc = run_kernlint("a.py", cwd=tmp_path)
    assert proc.returncode == 2
    error = proc.stderr.decode()
    assert error.startswith("kernlint: error: pyproject.toml: "), error
    assert message in error, error
    assert proc.stdout == b""


def test_a_missing_config_file_is_an_error(tmp_path: Path) -> None:
    project(tmp_path, {"a.py": SOURCE})
    proc = run_kernlint("a.py", "--config", "nope.toml", cwd=tmp_path)
    assert proc.returncode == 2
    assert "nope.toml: cannot read" in proc.stderr.decode()


def test_stdin_uses_the_config_nearest_to_its_filename(tmp_path: Path) -> None:
    project(tmp_path, {"sub/pyproject.toml": '[tool.kernlint]\nignore = ["KL014"]\nextend-select = ["KL900"]\n'})
    proc = run_kernlint("--format", "json", "-", "--stdin-filename", "sub/a.py", stdin=SOURCE.encode(), cwd=tmp_path)
    assert [(f["code"], f["line"]) for f in json.loads(proc.stdout)["findings"]] == [("KL900", 4)]


def test_limits_come_from_the_file_and_flags_override_them(tmp_path) -> None:
    from kernlint import config

    (tmp_path / "pyproject.toml").write_text("[tool.kernlint]\nmax-file-size = 100\ntimeout-per-file = 2.5\n")
    loaded = config.load_config(str(tmp_path / "pyproject.toml"))
    settings = config.resolve(loaded)
    assert (settings.max_file_size, settings.timeout_per_file) == (100, 2.5)
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * 50)
    proc = run_kernlint("big.py", cwd=tmp_path)
    assert (
        proc.stdout.decode()
        .splitlines()[0]
        .startswith(
            "big.py:1:1: KL901 [file-too-large] not analyzed: the file is 300 bytes, over the size cap of 100 bytes"
        )
    )
    assert run_kernlint("--max-file-size", "0", "big.py", cwd=tmp_path).returncode == 0


def test_a_negative_limit_is_an_error_naming_key_and_file(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.kernlint]\ntimeout-per-file = -1\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = run_kernlint("a.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert (
        proc.stderr.decode().strip()
        == "kernlint: error: pyproject.toml: [tool.kernlint]: timeout-per-file must be a number >= 0"
    )


def test_force_exclude_applies_exclude_to_files_named_explicitly(tmp_path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.kernlint]\nexclude = ["generated_*.py"]\n')
    source = "import triton.language as tl\nc = tl.dot(a, b, allow_tf32=True)\n"
    (tmp_path / "generated_k.py").write_text(source)
    (tmp_path / "k.py").write_text(source)
    named = run_kernlint("generated_k.py", "k.py", cwd=tmp_path)
    assert [line.split(":")[0] for line in named.stdout.decode().splitlines()[:2]] == ["generated_k.py", "k.py"]
    forced = run_kernlint("--force-exclude", "generated_k.py", "k.py", cwd=tmp_path)
    assert forced.stdout.decode().splitlines()[0].startswith("k.py:2:18: KL014")
    assert "generated_k.py" not in forced.stdout.decode()


def test_each_file_follows_its_nearest_config_as_in_ruff(tmp_path: Path) -> None:
    """Issue 28: `kernlint repo/mm.py other/` used to look for one config
    from the paths' common folder (tmp_path) and so ignored repo's."""
    project(
        tmp_path,
        {
            "repo/pyproject.toml": '[tool.kernlint]\nignore = ["KL014"]\nextend-select = ["KL900"]\n',
            "repo/mm.py": SOURCE,
            "other/k.py": SOURCE,
        },
    )
    assert findings(tmp_path, "repo/mm.py", "other/") == [("KL014", "other/k.py", 3, 18), ("KL900", "repo/mm.py", 4, 8)]


def test_a_deeper_config_inside_a_walked_folder_governs_its_files(tmp_path: Path) -> None:
    project(
        tmp_path,
        {
            "pyproject.toml": '[tool.kernlint]\nexclude = ["skipped_*.py"]\n',
            "a.py": SOURCE,
            "sub/pyproject.toml": '[tool.kernlint]\nignore = ["KL014"]\nexclude = ["gen_*.py"]\n',
            "sub/b.py": SOURCE,
            "sub/gen_c.py": SOURCE,
            "skipped_d.py": SOURCE,
        },
    )
    assert findings(tmp_path, ".") == [("KL014", "a.py", 3, 18)]
