"""What a run checks, as one frozen value: which rules, where claims come
from, per-file ignores and the limits. Built from `[tool.kernlint]` and the
command line by kernlint.config; read by the engine, suppressions and the
worker pool.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field, replace

from kernlint.registry import Activation, rule_by_code_or_name

DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024
DEFAULT_TIMEOUT_PER_FILE = 20.0


@dataclass(frozen=True)
class Settings:
    """Which rules run and where claims come from. `select` None means every
    rule that is on by default (Rule.activation) plus `extend_select`.
    `per_file_ignores` globs match paths relative to `root` (the config
    file's folder; see kernlint.config)."""

    select: frozenset[str] | None = None
    ignore: frozenset[str] = field(default_factory=frozenset)
    target_gpu: str | None = None
    extend_select: frozenset[str] = field(default_factory=frozenset)
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    root: str | None = None
    # Limits (see kernlint.limits): bytes (0: no cap) and seconds (0: no
    # budget, and no worker processes).
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    timeout_per_file: float = DEFAULT_TIMEOUT_PER_FILE

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
        return any(fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(part, pattern.rstrip("/")) for part in parts) or fnmatch.fnmatchcase(relative, pattern)
    return any(fnmatch.fnmatchcase(relative, c) for c in candidates)


def ignored_for(path: str, per_file_ignores: tuple[tuple[str, frozenset[str]], ...], root: str | None) -> frozenset[str]:
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
