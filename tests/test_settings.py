"""One definition per setting (kernlint.settings.SETTINGS): the Settings
fields, the config keys, the `kernlint check` flags and their validation
all come from the table."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from kernlint import config
from kernlint.cli import check, main
from kernlint.settings import SETTING_FIELDS, SETTINGS, Settings


def test_every_setting_is_a_settings_field_with_its_default() -> None:
    assert set(SETTING_FIELDS) == {s.attribute for s in SETTINGS}
    defaults = Settings()
    for setting in SETTINGS:
        assert getattr(defaults, setting.attribute) == setting.default, setting.key


def test_config_knows_exactly_the_settings_keys() -> None:
    assert config.KEYS == tuple(s.key for s in SETTINGS)


def test_check_has_one_option_per_setting_flag_with_its_help() -> None:
    options = {opt: param for param in check.params for opt in param.opts}
    for setting in SETTINGS:
        if setting.flag is None:
            assert f"--{setting.key}" not in options, setting.key
            continue
        param = options[setting.flag]
        assert param.name == setting.attribute and param.help == setting.help_line()
        assert "{" not in param.help  # placeholders filled in


@pytest.mark.parametrize(
    "key, flag_value, file_value, message",
    [
        ("max-file-size", "-1", "-1", "must be a number >= 0"),
        ("timeout-per-file", "soon", '"soon"', "must be a number >= 0"),
        ("select", "KL123", '["KL123"]', "unknown rule 'KL123'"),
    ],
)
def test_flag_and_file_reject_the_same_values(
    tmp_path: Path, key: str, flag_value: str, file_value: str, message: str
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    flag = CliRunner().invoke(main, ["check", f"--{key}", flag_value, str(tmp_path / "a.py")])
    assert flag.exit_code == 2 and f"'--{key}'" in flag.stderr and message in flag.stderr, flag.stderr
    (tmp_path / "pyproject.toml").write_text(f"[tool.kernlint]\n{key} = {file_value}\n")
    with pytest.raises(config.ConfigError, match=f"{key}.*{message}"):
        config.load_config(str(tmp_path / "pyproject.toml"))


def test_flags_replace_or_extend_the_file_as_the_table_says(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.kernlint]\nignore = ["KL001"]\nextend-select = ["KL900"]\ntarget-gpu = "H100"\nmax-file-size = 5\n'
    )
    loaded = config.load_config(str(tmp_path / "pyproject.toml"))
    settings = config.resolve(loaded, ignore=frozenset({"KL002"}), target_gpu="A100", max_file_size=7)
    assert settings.ignore == {"KL001", "KL002"}  # extends
    assert settings.extend_select == {"KL900"}
    assert (settings.target_gpu, settings.max_file_size) == ("A100", 7)  # replace
    assert config.resolve(loaded).timeout_per_file == Settings().timeout_per_file  # default
