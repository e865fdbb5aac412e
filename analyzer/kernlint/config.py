"""`[tool.kernlint]` in pyproject.toml (or a file named with --config).

    [tool.kernlint]
    select = ["KL001", "upcast-before-dot"]   # codes or names; default: all
    ignore = ["KL014"]
    extend-select = ["KL900"]                  # added to select (or to all)
    exclude = ["generated/*", "third_party"]   # globs, skipped when walking dirs
    target-gpu = "H100"                        # measurement record for claims
    max-file-size = 10485760                   # bytes; larger files get KL901 (0: no cap)
    timeout-per-file = 20                      # seconds; slower files get KL902 (0: none)
    [tool.kernlint.per-file-ignores]
    "tests/*.py" = ["KL003"]                   # globs relative to this file's folder

The nearest pyproject.toml with a `[tool.kernlint]` table, searched from the
linted paths' common folder upwards, is the one used. A file named with
--config may be a pyproject.toml or a plain TOML file with the keys at the
top level. An unknown key, a value of the wrong type or an unknown rule is an
error naming the key and the file: a typo must not silently turn a check off.
Command-line flags override the file (see `resolve`).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field

from kernlint.registry import rule_by_code_or_name, rule_for_event
from kernlint.settings import DEFAULT_MAX_FILE_SIZE, DEFAULT_TIMEOUT_PER_FILE, Settings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

KEYS = (
    "select", "ignore", "extend-select", "per-file-ignores", "exclude", "target-gpu",
    "max-file-size", "timeout-per-file",
)
SECTION = "[tool.kernlint]"


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""


@dataclass(frozen=True)
class Config:
    path: str | None = None  # the file it came from; None: defaults
    select: frozenset[str] | None = None
    ignore: frozenset[str] = field(default_factory=frozenset)
    extend_select: frozenset[str] = field(default_factory=frozenset)
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    exclude: tuple[str, ...] = ()
    target_gpu: str | None = None
    max_file_size: int | None = None
    timeout_per_file: float | None = None

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
        candidate = os.path.join(current, "pyproject.toml")
        if os.path.isfile(candidate):
            try:
                if _has_section(_read(candidate)):
                    return candidate
            except ConfigError:
                # A broken pyproject.toml that may not be ours: name it only
                # if it could be (it mentions the section).
                with open(candidate, "rb") as handle:
                    if b"tool.kernlint" in handle.read():
                        return candidate
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


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
        if key not in KEYS:
            raise ConfigError(f"{where}: {section}: unknown key {key!r} (known keys: {', '.join(KEYS)})")

    def codes(key: str, value: object) -> frozenset[str]:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{where}: {section}: {key} must be a list of rule codes or names")
        return rule_codes(value, f"{where}: {section}: {key}")

    def globs(key: str, value: object) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise ConfigError(f"{where}: {section}: {key} must be a list of glob patterns")
        return tuple(value)

    per_file: list[tuple[str, frozenset[str]]] = []
    raw_per_file = table.get("per-file-ignores", {})
    if not isinstance(raw_per_file, dict):
        raise ConfigError(f"{where}: {section}: per-file-ignores must be a table of glob = [codes]")
    for pattern, value in raw_per_file.items():
        per_file.append((pattern, codes(f"per-file-ignores {pattern!r}", value)))
    target_gpu = table.get("target-gpu")
    if target_gpu is not None and not isinstance(target_gpu, str):
        raise ConfigError(f"{where}: {section}: target-gpu must be a string")

    def limit(key: str, kinds: tuple[type, ...]) -> float | None:
        value = table.get(key)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, kinds) or not isinstance(value, (int, float)) or value < 0:
            raise ConfigError(f"{where}: {section}: {key} must be a number >= 0")
        return value
    return Config(
        path=path,
        select=codes("select", table["select"]) if "select" in table else None,
        ignore=codes("ignore", table.get("ignore", [])),
        extend_select=codes("extend-select", table.get("extend-select", [])),
        per_file_ignores=tuple(per_file),
        exclude=globs("exclude", table.get("exclude", [])),
        target_gpu=target_gpu,
        max_file_size=limit("max-file-size", (int,)),  # type: ignore[arg-type]
        timeout_per_file=limit("timeout-per-file", (int, float)),
    )


def rule_codes(values: list[str] | tuple[str, ...], where: str) -> frozenset[str]:
    """Codes for a list of codes or names (each item may be comma-separated);
    an unknown one raises ConfigError naming `where`."""
    found = set()
    for value in values:
        for item in value.split(","):
            if not item.strip():
                continue
            rule = rule_by_code_or_name(item)
            if rule is None:
                raise ConfigError(f"{where}: unknown rule {item.strip()!r} (see `kernlint rules`)")
            found.add(rule.code)
    return frozenset(found)


def resolve(
    config: Config,
    select: frozenset[str] | None = None,
    ignore: frozenset[str] = frozenset(),
    extend_select: frozenset[str] = frozenset(),
    target_gpu: str | None = None,
    report_unused_suppressions: bool = False,
) -> Settings:
    """The file's settings with the command line's on top: --select replaces
    the file's select (and takes its rules back from the file's ignore),
    --ignore and --extend-select add to the file's, --target-gpu replaces."""
    base = select if select is not None else config.select
    file_ignore = config.ignore - select if select is not None else config.ignore
    extra = config.extend_select | extend_select
    if report_unused_suppressions:
        extra |= {rule_for_event("unused-suppression").code}
    return Settings(
        # None: every rule that is on by default, plus extend_select.
        select=None if base is None else base | extra,
        ignore=file_ignore | ignore,
        target_gpu=target_gpu if target_gpu is not None else config.target_gpu,
        extend_select=extra if base is None else frozenset(),
        per_file_ignores=config.per_file_ignores,
        root=config.root,
        max_file_size=int(config.max_file_size) if config.max_file_size is not None else DEFAULT_MAX_FILE_SIZE,
        timeout_per_file=config.timeout_per_file if config.timeout_per_file is not None else DEFAULT_TIMEOUT_PER_FILE,
    )


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
