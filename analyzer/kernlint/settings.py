"""What a run checks, as one frozen value, and the one definition of every
setting behind it.

`SETTINGS` is the table: per setting, its `[tool.kernlint]` key, its
command-line flag (or none), its kind of value (which says how the file's
value and the flag's text are parsed and validated), its default, its help
line, and how the command line combines with the file (replace or extend).
Everything else is derived from it:

- the `Settings` fields' defaults (below; a test checks every setting has a
  field of its attribute name and every field a setting),
- kernlint.config's known keys, validation and merging of file and command
  line (`resolve`),
- the click options of `kernlint check` for the settings that have a flag
  (kernlint.cli: `setting_options`),
- the docs: `python -m kernlint.settings table|toml` prints the README's
  settings table and configuration example (scripts/update_readme.py pastes
  them; tests/test_readme.py fails when the README is stale).

Options that only shape one run and have no config key stay plain click
options in kernlint.cli: --format, --output-file, --quiet, --exit-zero,
--statistics, --show-suppressed, --color, --config, --stdin-filename,
--report-unused-suppressions (adds the unused-suppression rule to
extend-select), --fix, --diff, --force-exclude.

This module imports the registry only (never config, engine or cli); it is
read by the engine, suppressions and the worker pool.
"""

from __future__ import annotations

import enum
import fnmatch
import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Generic, TypeVar

from kernlint.registry import Activation, rule_by_code_or_name, rule_for_event

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


class SettingError(ValueError):
    """A value a setting cannot take. `problem` reads after the key: either
    `must be ...` (the value's type) or, with `of_item`, a problem with one
    item (`unknown rule 'X'`), written `key: problem`."""

    def __init__(self, problem: str, of_item: bool = False) -> None:
        super().__init__(problem)
        self.problem = problem
        self.of_item = of_item

    def about(self, key: str) -> str:
        return f"{key}: {self.problem}" if self.of_item else f"{key} {self.problem}"


# ---- kinds of value ----------------------------------------------------------


def rule_codes(values: list[str] | tuple[str, ...]) -> frozenset[str]:
    """Codes for a list of codes or names (each item may be comma-separated);
    an unknown one raises SettingError."""
    found = set()
    for value in values:
        for item in value.split(","):
            if not item.strip():
                continue
            rule = rule_by_code_or_name(item)
            if rule is None:
                raise SettingError(f"unknown rule {item.strip()!r} (see `kernlint rules`)", of_item=True)
            found.add(rule.code)
    return frozenset(found)


def _strings(value: object, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise SettingError(f"must be a list of {what}")
    return value


def _rules_from_file(value: object) -> frozenset[str]:
    return rule_codes(_strings(value, "rule codes or names"))


def _globs_from_file(value: object) -> tuple[str, ...]:
    return tuple(_strings(value, "glob patterns"))


def _string_from_file(value: object) -> str:
    if not isinstance(value, str):
        raise SettingError("must be a string")
    return value


def _number(value: object, integer: bool) -> float:
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)) or value < 0:
        raise SettingError("must be a number >= 0")
    return value


def _bytes_from_flag(text: str) -> int:
    try:
        return int(_number(int(text), integer=True))
    except ValueError:
        raise SettingError("must be a number >= 0") from None


def _seconds_from_flag(text: str) -> float:
    try:
        return float(_number(float(text), integer=False))
    except ValueError:
        raise SettingError("must be a number >= 0") from None


def _count_from_flag(text: str) -> int:
    try:
        return int(_number(int(text), integer=True))
    except ValueError:
        raise SettingError("must be a whole number >= 0") from None


PerFileIgnores = tuple[tuple[str, frozenset[str]], ...]


def _per_file_from_file(value: object) -> PerFileIgnores:
    if not isinstance(value, dict):
        raise SettingError("must be a table of glob = [codes]")
    pairs = []
    for pattern, codes in value.items():
        try:
            pairs.append((pattern, _rules_from_file(codes)))
        except SettingError as error:
            # Named by its glob, as `per-file-ignores 't/*': unknown rule ...`.
            raise SettingError(error.about(repr(pattern))) from None
    return tuple(pairs)


@dataclass(frozen=True)
class Kind(Generic[T_co]):
    """A kind of setting value: what the docs call it, how a `[tool.kernlint]`
    value becomes it, and (for settings with a flag) how one flag's text does;
    `multiple`: the flag may be repeated, each value adding to the last."""

    description: str
    from_file: Callable[[object], T_co]
    from_flag: Callable[[str], T_co] | None = None
    multiple: bool = False
    metavar: str | None = None


RULES: Kind[frozenset[str]] = Kind(
    "list of rule codes or names",
    _rules_from_file,
    lambda text: rule_codes([text]),
    multiple=True,
    metavar="RULES",
)
GLOBS: Kind[tuple[str, ...]] = Kind("list of globs", _globs_from_file)
STRING: Kind[str | None] = Kind("string", _string_from_file, lambda text: text, metavar="TEXT")
BYTES: Kind[int] = Kind(
    "bytes (integer >= 0)", lambda value: int(_number(value, integer=True)), _bytes_from_flag, metavar="BYTES"
)
SECONDS: Kind[float] = Kind(
    "seconds (number >= 0)", lambda value: _number(value, integer=False), _seconds_from_flag, metavar="SECONDS"
)
COUNT: Kind[int] = Kind(
    "whole number >= 0", lambda value: int(_number(value, integer=True)), _count_from_flag, metavar="N"
)
PER_FILE: Kind[PerFileIgnores] = Kind("table of glob = [rules]", _per_file_from_file)


class Combine(enum.Enum):
    """How a flag's value meets the file's: it replaces it, or adds to it."""

    REPLACE = "replaces"
    EXTEND = "adds to"


@dataclass(frozen=True)
class Setting(Generic[T]):
    """One setting. `help` is its one line for `--help` and the docs, where
    `{default}` is its default and `{event:NAME}` the code of the rule that
    describes the engine event NAME. `example` is its value in the docs'
    configuration example (TOML) and `comment` the comment beside it."""

    key: str
    kind: Kind[T]
    default: T
    help: str
    flag: str | None = None
    combine: Combine = Combine.REPLACE
    default_text: str | None = None
    example: str = ""
    comment: str = ""

    @property
    def attribute(self) -> str:
        return self.key.replace("-", "_")

    def help_line(self) -> str:
        text = re.sub(r"\{event:([a-z-]+)\}", lambda m: rule_for_event(m.group(1)).code, self.help)
        return text.replace("{default}", self.shown_default())

    def shown_default(self) -> str:
        if self.default_text is not None:
            return self.default_text
        if isinstance(self.default, float):
            return f"{self.default:g}"
        return str(self.default)

    def from_file(self, value: object) -> T:
        return self.kind.from_file(value)


SELECT: Setting[frozenset[str] | None] = Setting(
    "select",
    RULES,
    None,
    "Only these rules (codes or names, comma-separated).",
    flag="--select",
    default_text="every rule on by default",
    example='["KL001", "per-call-relayout"]',
    comment="codes or names; default: every rule",
)
IGNORE: Setting[frozenset[str]] = Setting(
    "ignore",
    RULES,
    frozenset(),
    "Skip these rules (codes or names, comma-separated).",
    flag="--ignore",
    combine=Combine.EXTEND,
    default_text="none",
    example='["KL014"]',
)
EXTEND_SELECT: Setting[frozenset[str]] = Setting(
    "extend-select",
    RULES,
    frozenset(),
    "Add these rules to the selection (codes or names, comma-separated).",
    flag="--extend-select",
    combine=Combine.EXTEND,
    default_text="none",
    example='["KL900"]',
    comment="add to select (KL900 is off by default)",
)
PER_FILE_IGNORES: Setting[PerFileIgnores] = Setting(
    "per-file-ignores",
    PER_FILE,
    (),
    "Skip rules in the files a glob matches (relative to the config file's folder).",
    default_text="none",
)
EXCLUDE: Setting[tuple[str, ...]] = Setting(
    "exclude",
    GLOBS,
    (),
    "Skip files and folders a glob matches when walking folders (and with --force-exclude).",
    default_text="none",
    example='["generated", "*_pb2.py"]',
    comment="skipped when walking folders (and with --force-exclude)",
)
TARGET_GPU: Setting[str | None] = Setting(
    "target-gpu",
    STRING,
    None,
    "Take speedup claims from the measurement record of this GPU.",
    flag="--target-gpu",
    default_text="the newest measurement record",
    example='"H100"',
    comment="the measurement record speedups come from",
)
MAX_FILE_SIZE: Setting[int] = Setting(
    "max-file-size",
    BYTES,
    # 1 MiB: over 5 times the largest real kernel file seen (186 KB, in
    # flag-gems, liger-kernel and KernelBench), and a generated kernel file
    # just under it lints well inside the default time budget (about 6 s,
    # 0.9 GB on the 2-core machine: bench/results_2core.md); libcst needs
    # about 7.5 s and 1.3 GB per MB of dense code, so a cap of 10 MiB let
    # files in that the budget then stopped (issue 24).
    1024 * 1024,
    "Skip files larger than this with a {event:file-too-large} finding (default {default}; 0: no cap).",
    flag="--max-file-size",
    example="1048576",
    comment="bytes; a larger file gets KL901, unread (0: no cap)",
)
TIMEOUT_PER_FILE: Setting[float] = Setting(
    "timeout-per-file",
    SECONDS,
    20.0,
    "Stop checking a file after this long with a {event:timeout} finding (default {default}; 0: no budget, no worker processes).",
    flag="--timeout-per-file",
    example="20",
    comment="seconds; a slower file gets KL902 (0: no budget)",
)

JOBS: Setting[int] = Setting(
    "jobs",
    COUNT,
    0,
    "Check files in this many worker processes (default {default}: one per core).",
    flag="--jobs",
    default_text="0",
    example="0",
    comment="worker processes; 0: one per core",
)
CACHE_DIR: Setting[str | None] = Setting(
    "cache-dir",
    STRING,
    None,
    "Keep results of earlier runs here, keyed by file content, settings and kernlint (default {default}).",
    flag="--cache-dir",
    default_text=".kernlint_cache beside the config file, else in the working directory",
    example='".kernlint_cache"',
    comment="--no-cache bypasses it; `kernlint clean` deletes it",
)

# In the order the docs and `known keys` list them.
SETTINGS: tuple[Setting, ...] = (
    SELECT,
    IGNORE,
    EXTEND_SELECT,
    PER_FILE_IGNORES,
    EXCLUDE,
    TARGET_GPU,
    MAX_FILE_SIZE,
    TIMEOUT_PER_FILE,
    JOBS,
    CACHE_DIR,
)
BY_KEY: dict[str, Setting] = {setting.key: setting for setting in SETTINGS}
KEYS: tuple[str, ...] = tuple(BY_KEY)


@dataclass(frozen=True)
class Settings:
    """Which rules run and where claims come from. `select` None means every
    rule that is on by default (Rule.activation) plus `extend_select`.
    `per_file_ignores` and `exclude` globs match paths relative to `root`
    (the config file's folder; see kernlint.config). Every field but `root`
    is a setting of SETTINGS, its default from there."""

    select: frozenset[str] | None = SELECT.default
    ignore: frozenset[str] = IGNORE.default
    target_gpu: str | None = TARGET_GPU.default
    extend_select: frozenset[str] = EXTEND_SELECT.default
    per_file_ignores: PerFileIgnores = PER_FILE_IGNORES.default
    root: str | None = None
    # Limits (see kernlint.limits): bytes (0: no cap) and seconds (0: no
    # budget, and no worker processes).
    max_file_size: int = MAX_FILE_SIZE.default
    timeout_per_file: float = TIMEOUT_PER_FILE.default
    exclude: tuple[str, ...] = EXCLUDE.default
    # How a run is carried out, not what it finds (see kernlint.cache).
    jobs: int = JOBS.default
    cache_dir: str | None = CACHE_DIR.default

    def enabled(self, code: str) -> bool:
        """Whether the rule runs (or its engine-emitted finding is kept): an
        always-on rule always; otherwise not when ignored; with no select,
        every default rule and the opt-in rules named by extend_select."""
        rule = rule_by_code_or_name(code)
        if rule is not None and rule.activation is Activation.ALWAYS:
            return True
        if code in self.ignore:
            return False
        if self.select is None:
            return rule is None or rule.activation is Activation.DEFAULT or code in self.extend_select
        return code in self.select

    def for_path(self, path: str) -> Settings:
        """These settings with the per-file ignores that match `path` added."""
        if not self.per_file_ignores:
            return self
        extra = ignored_for(path, self.per_file_ignores, self.root)
        return replace(self, ignore=self.ignore | extra, per_file_ignores=()) if extra else self


SETTING_FIELDS = tuple(f.name for f in fields(Settings) if f.name != "root")


def glob_matches(relative: str, pattern: str) -> bool:
    """Does a config glob match a path relative to the config's folder? A
    pattern without `/` matches the file name anywhere; `*` crosses folders;
    a folder's name matches everything under it."""
    pattern = pattern[2:] if pattern.startswith("./") else pattern
    candidates = [pattern, pattern.rstrip("/") + "/*"]
    if pattern.startswith("**/"):
        candidates += [pattern[3:], pattern[3:].rstrip("/") + "/*"]
    if "/" not in pattern.rstrip("/"):
        name = relative.rsplit("/", 1)[-1]
        parts = relative.split("/")
        return any(
            fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(part, pattern.rstrip("/")) for part in parts
        ) or fnmatch.fnmatchcase(relative, pattern)
    return any(fnmatch.fnmatchcase(relative, c) for c in candidates)


def ignored_for(path: str, per_file_ignores: PerFileIgnores, root: str | None) -> frozenset[str]:
    """The codes that per-file-ignores switch off for `path`."""
    relative = path
    if root is not None:
        candidate = os.path.relpath(os.path.abspath(path), root)
        if not candidate.startswith(".."):
            relative = candidate
    relative = relative.replace(os.sep, "/")
    codes: set[str] = set()
    for pattern, ignored in per_file_ignores:
        if glob_matches(relative, pattern):
            codes |= ignored
    return frozenset(codes)


# ---- the docs, from the table -------------------------------------------------


def markdown_table() -> str:
    """The README's settings table."""
    lines = ["| `[tool.kernlint]` key | flag | value | default | the flag | meaning |", "|---|---|---|---|---|---|"]
    for s in SETTINGS:
        flag = f"`{s.flag}`" if s.flag else "(file only)"
        combine = s.combine.value + " the file's" if s.flag else ""
        help_line = s.help_line().replace("|", "\\|")
        lines.append(f"| `{s.key}` | {flag} | {s.kind.description} | {s.shown_default()} | {combine} | {help_line} |")
    return "\n".join(lines) + "\n"


def toml_example() -> str:
    """The README's configuration example, every key with its example value."""
    lines = ["```toml", "[tool.kernlint]"]
    width = max(len(f"{s.key} = {s.example}") for s in SETTINGS if s.example) + 2
    for s in SETTINGS:
        if not s.example:
            continue
        entry = f"{s.key} = {s.example}"
        lines.append(f"{entry:<{width}}# {s.comment}" if s.comment else entry)
    lines += [
        "",
        f"[tool.kernlint.{PER_FILE_IGNORES.key}]",
        '"tests/*.py" = ["KL003"]'.ljust(width) + "# globs relative to this file's folder",
        '"legacy_*.py" = ["upcast-before-dot"]',
        "```",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    docs = {"table": markdown_table, "toml": toml_example}
    if len(argv) != 1 or argv[0] not in docs:
        print(f"usage: python -m kernlint.settings {'|'.join(docs)}", file=sys.stderr)
        return 2
    sys.stdout.write(docs[argv[0]]())
    return 0


if __name__ == "__main__":
    # Run as a script this file is __main__, not kernlint.settings: use the
    # module's own table so there is one.
    from kernlint import settings as _module

    sys.exit(_module.main(sys.argv[1:]))
