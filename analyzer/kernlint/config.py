"""`[tool.kernlint]` in pyproject.toml (or a file named with --config).

The keys, their kinds of value, defaults and how the command line combines
with them are kernlint.settings.SETTINGS (the README's configuration example
and settings table are printed from it). For example:

    [tool.kernlint]
    select = ["KL001", "upcast-before-dot"]
    max-file-size = 1048576
    [tool.kernlint.per-file-ignores]
    "tests/*.py" = ["KL003"]                   # globs relative to this file's folder

Each file is governed by the nearest pyproject.toml with a `[tool.kernlint]`
table, searched from the file's folder upwards, as ruff does (issue 28: the
config used to come from the common folder of all the paths, so
`kernlint repo/mm.py other/` dropped repo/pyproject.toml); `scopes` splits a
run's paths by the config that governs them. A file named with
--config may be a pyproject.toml or a plain TOML file with the keys at the
top level. An unknown key, a value of the wrong type or an unknown rule is an
error naming the key and the file: a typo must not silently turn a check off.
Command-line flags combine with the file as each setting says (see `resolve`).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any

from kernlint.registry import rule_for_event
from kernlint.settings import BY_KEY, EXTEND_SELECT, IGNORE, KEYS, SELECT, SETTINGS, Combine, SettingError, Settings
from kernlint.settings import rule_codes as _rule_codes

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

SECTION = "[tool.kernlint]"
_ATTRIBUTES = {setting.attribute: setting for setting in SETTINGS}


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""


class Config:
    """What one config file set: `path` (None: no file) and the parsed value
    of each key it gave, read as attributes named like Settings' fields (a
    key the file did not give reads None)."""

    __slots__ = ("path", "given")

    def __init__(self, path: str | None = None, **given: object) -> None:
        unknown = set(given) - set(_ATTRIBUTES)
        if unknown:
            raise TypeError(f"Config: no setting {', '.join(sorted(unknown))}")
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "given", dict(given))

    def __getattr__(self, name: str) -> Any:
        if name in _ATTRIBUTES:
            return self.given.get(name)
        raise AttributeError(name)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Config is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Config) and (self.path, self.given) == (other.path, other.given)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Config(path={self.path!r}, {', '.join(f'{k}={v!r}' for k, v in self.given.items())})"

    @property
    def root(self) -> str | None:
        """The folder that per-file-ignores and exclude globs are relative to."""
        return os.path.dirname(os.path.abspath(self.path)) if self.path else None


def _display(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _has_section(data: dict) -> bool:
    tool = data.get("tool")
    return isinstance(tool, dict) and "kernlint" in tool


def _read(path: str) -> dict:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as error:
        raise ConfigError(f"{_display(path)}: cannot read: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{_display(path)}: not valid TOML: {error}") from None


def find_config(paths: list[str] | tuple[str, ...], cwd: str | None = None) -> str | None:
    """The nearest pyproject.toml with [tool.kernlint], from the common folder
    of `paths` (the working directory for none or stdin) upwards."""
    cwd = cwd or os.getcwd()
    real = [os.path.abspath(os.path.join(cwd, p)) for p in paths if p != "-"]
    try:
        start = os.path.commonpath(real) if real else cwd
    except ValueError:  # paths on different drives
        start = cwd
    if not os.path.isdir(start):
        start = os.path.dirname(start)
    current = start
    while True:
        found = _config_in(current)
        if found is not None:
            return found
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def _config_in(folder: str) -> str | None:
    """The folder's pyproject.toml when it has a [tool.kernlint] section."""
    candidate = os.path.join(folder, "pyproject.toml")
    if not os.path.isfile(candidate):
        return None
    try:
        return candidate if _has_section(_read(candidate)) else None
    except ConfigError:
        # A broken pyproject.toml that may not be ours: name it only if it
        # could be (it mentions the section).
        with open(candidate, "rb") as handle:
            return candidate if b"tool.kernlint" in handle.read() else None


def load_config(path: str) -> Config:
    """Read and validate one config file; raises ConfigError."""
    data = _read(path)
    where = _display(path)
    if _has_section(data):
        table = data["tool"]["kernlint"]
        section = SECTION
    elif os.path.basename(path) == "pyproject.toml":
        table, section = {}, SECTION
    else:
        table, section = data, "top level"
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: {SECTION} must be a table")
    for key in table:
        if key not in BY_KEY:
            raise ConfigError(f"{where}: {section}: unknown key {key!r} (known keys: {', '.join(KEYS)})")
    given: dict[str, object] = {}
    for setting in SETTINGS:
        if setting.key not in table:
            continue
        try:
            given[setting.attribute] = setting.from_file(table[setting.key])
        except SettingError as error:
            raise ConfigError(f"{where}: {section}: {error.about(setting.key)}") from None
    return Config(path, **given)


def rule_codes(values: list[str] | tuple[str, ...], where: str) -> frozenset[str]:
    """Codes for a list of codes or names (each item may be comma-separated);
    an unknown one raises ConfigError naming `where`."""
    try:
        return _rule_codes(values)
    except SettingError as error:
        raise ConfigError(f"{where}: {error.problem}") from None


def resolve(config: Config, report_unused_suppressions: bool = False, **command_line: object) -> Settings:
    """The file's settings with the command line's on top. `command_line`
    maps Settings' field names to the flags' values (None or empty: not
    given); each setting's `combine` says whether a flag replaces the file's
    value or adds to it. One rule of selection on top: --select also takes
    its rules back from the file's ignore. Unset settings take their
    defaults from SETTINGS."""
    unknown = set(command_line) - set(_ATTRIBUTES)
    if unknown:
        raise TypeError(f"resolve: no setting {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for setting in SETTINGS:
        name = setting.attribute
        from_file: Any = config.given.get(name)
        from_flag: Any = command_line.get(name)
        if from_flag is None:
            value = from_file
        elif setting.combine is Combine.EXTEND and from_file is not None:
            value = from_file | from_flag
        else:
            value = from_flag
        values[name] = setting.default if value is None else value
    flag_select: Any = command_line.get(SELECT.attribute)
    if flag_select is not None:
        file_ignore: Any = config.given.get(IGNORE.attribute, IGNORE.default)
        values[IGNORE.attribute] = (file_ignore - flag_select) | (command_line.get(IGNORE.attribute) or frozenset())
    extra = values[EXTEND_SELECT.attribute]
    if report_unused_suppressions:
        extra = extra | {rule_for_event("unused-suppression").code}
    base = values[SELECT.attribute]
    # select None: every rule that is on by default, plus extend_select.
    values[SELECT.attribute] = None if base is None else base | extra
    values[EXTEND_SELECT.attribute] = extra if base is None else frozenset()
    return Settings(root=config.root, **values)


def exclude_patterns(config: Config, cwd: str | None = None) -> tuple[str, ...]:
    """The file's exclude globs, as written (they match paths relative to the
    working directory and bare names) and re-rooted at the config's folder
    when that is not the working directory."""
    if not config.exclude:
        return ()
    cwd = os.path.abspath(cwd or os.getcwd())
    root = config.root or cwd
    patterns = list(config.exclude)
    if root != cwd:
        prefix = os.path.relpath(root, cwd).replace(os.sep, "/")
        patterns += [f"{prefix}/{p.lstrip('/')}" for p in config.exclude if "/" in p]
    return tuple(patterns)


@dataclass(frozen=True)
class Scope:
    """The paths of one run that one config file governs (`config` None: no
    file does). `paths` are files, or `-` for stdin; folders named on the
    command line are already walked."""

    config: str | None
    paths: tuple[str, ...]


def scopes(targets: list[str], stdin_filename: str | None = None) -> tuple[list[Scope], tuple[str, ...]]:
    """`targets` split by the nearest config of each file (ruff's
    hierarchical configuration), and the errors met walking folders. A
    folder is walked with its own config's `exclude`; a file found under it
    that a deeper config governs moves to that config, which it is also
    excluded by. Scopes come in the order of their first path."""
    from kernlint.discovery import discover, excluded

    nearest = _NearestConfig()
    by_config: dict[str | None, list[str]] = {}
    errors: list[str] = []
    for target in targets:
        if target == "-":
            by_config.setdefault(nearest.of_file(stdin_filename or os.path.join(".", "-")), []).append(target)
        elif not os.path.isdir(target):  # a file, or a path discovery will report as missing
            by_config.setdefault(nearest.of_file(target), []).append(target)
        else:
            own = nearest.of_folder(os.path.abspath(target))
            found = discover([target], nearest.exclude(own))
            errors.extend(found.errors)
            for path in found.files:
                deeper = nearest.of_file(path)
                if deeper == own or not excluded(path, nearest.exclude(deeper)):
                    by_config.setdefault(deeper, []).append(path)
    return [Scope(path, tuple(paths)) for path, paths in by_config.items()], tuple(errors)


class _NearestConfig:
    """find_config's answer per folder, remembered with its ancestors': a
    tree of a thousand files in a hundred folders reads each pyproject.toml
    once."""

    def __init__(self) -> None:
        self._folders: dict[str, str | None] = {}
        self._excludes: dict[str | None, tuple[str, ...]] = {None: ()}

    def of_file(self, path: str) -> str | None:
        return self.of_folder(os.path.dirname(os.path.abspath(path)))

    def of_folder(self, folder: str) -> str | None:
        """find_config([folder]), each folder's pyproject.toml read once."""
        chain = []
        while folder not in self._folders:
            found = _config_in(folder)
            if found is not None:
                self._folders[folder] = found
                break
            chain.append(folder)
            parent = os.path.dirname(folder)
            if parent == folder:
                self._folders[folder] = None
                break
            folder = parent
        for below in chain:
            self._folders[below] = self._folders[folder]
        return self._folders[folder]

    def exclude(self, config_path: str | None) -> tuple[str, ...]:
        """The config's exclude globs; a config that does not load has none
        here (loading it for its scope reports the error)."""
        if config_path not in self._excludes:
            assert config_path is not None  # None is always known
            try:
                self._excludes[config_path] = exclude_patterns(load_config(config_path))
            except ConfigError:
                self._excludes[config_path] = ()
        return self._excludes[config_path]
