"""From the paths on the command line to the files to lint.

Directories are walked recursively for `*.py`, skipping VCS folders,
virtual environments and what `.gitignore` files exclude; a file named
explicitly is always linted, whatever its extension. Output order is sorted,
so it never depends on the file system's order.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "node_modules",
        "site-packages",
        ".eggs",
    }
)


@dataclass(frozen=True)
class IgnorePattern:
    base: str  # directory of the .gitignore
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def _compile(pattern: str, base: str) -> IgnorePattern | None:
    pattern = pattern.rstrip("\n").rstrip()
    if not pattern or pattern.startswith("#"):
        return None
    negated = pattern.startswith("!")
    if negated:
        pattern = pattern[1:]
    dir_only = pattern.endswith("/")
    pattern = pattern.strip("/") if dir_only else pattern
    anchored = "/" in pattern.lstrip("/")[:-1] or pattern.startswith("/")
    pattern = pattern.lstrip("/")
    parts = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            parts.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            parts.append("/.*")
            i += 3
        elif pattern[i] == "*":
            parts.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            parts.append("[^/]")
            i += 1
        else:
            parts.append(re.escape(pattern[i]))
            i += 1
    body = "".join(parts)
    regex = re.compile(("^" if anchored else "^(?:.*/)?") + body + "$")
    return IgnorePattern(base, regex, negated, dir_only)


@dataclass
class GitIgnore:
    patterns: list[IgnorePattern] = field(default_factory=list)

    def load(self, directory: str) -> None:
        path = os.path.join(directory, ".gitignore")
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                lines = handle.readlines()
        except OSError:
            return
        for line in lines:
            compiled = _compile(line, directory)
            if compiled is not None:
                self.patterns.append(compiled)

    def ignored(self, path: str, is_dir: bool) -> bool:
        result = False
        absolute = os.path.abspath(path)
        # One relative path per .gitignore folder, not per pattern: a warm
        # run's time went mostly to relpath (issue 14).
        relatives: dict[str, str] = {}
        for pattern in self.patterns:
            relative = relatives.get(pattern.base)
            if relative is None:
                relative = relatives[pattern.base] = os.path.relpath(absolute, pattern.base).replace(os.sep, "/")
            if relative.startswith(".."):
                continue
            if pattern.dir_only and not is_dir:
                continue
            if pattern.regex.match(relative):
                result = not pattern.negated
        return result


def _is_virtualenv(directory: str) -> bool:
    return os.path.exists(os.path.join(directory, "pyvenv.cfg"))


@dataclass(frozen=True)
class Discovery:
    files: tuple[str, ...]
    errors: tuple[str, ...]  # one line each: a path that does not exist or cannot be walked


def discover(paths: list[str], exclude: tuple[str, ...] = (), force_exclude: bool = False) -> Discovery:
    """`force_exclude` applies `exclude` to files named explicitly too (for
    pre-commit and editors, which pass every file by name)."""
    files: set[str] = set()
    errors: list[str] = []
    for raw in paths:
        path = os.path.normpath(raw)
        if not os.path.lexists(path):
            errors.append(f"{raw}: no such file or directory")
            continue
        if os.path.isdir(path):
            _walk(path, files, errors, exclude)
        elif os.path.islink(path) and not os.path.exists(path):
            errors.append(f"{raw}: {_dangling(path)}")
        elif not (force_exclude and excluded(path, exclude)):
            files.add(path)
    return Discovery(tuple(sorted(os.path.normpath(f).replace(os.sep, "/") for f in files)), tuple(errors))


def _dangling(path: str) -> str:
    """Why a symbolic link leads nowhere: a loop, or a missing target."""
    import errno

    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "symbolic link loop"
    return "broken symbolic link"


def excluded(path: str, exclude: tuple[str, ...]) -> bool:
    posix = path.replace(os.sep, "/")
    name = os.path.basename(path)
    return any(fnmatch.fnmatch(posix, pattern) or fnmatch.fnmatch(name, pattern) for pattern in exclude)


def _walk(root: str, files: set[str], errors: list[str], exclude: tuple[str, ...]) -> None:
    ignore = GitIgnore()
    # .gitignore files from the repository root down to `root` apply too.
    for ancestor in reversed(_ancestors_in_repo(root)):
        ignore.load(ancestor)

    def on_error(error: OSError) -> None:
        errors.append(f"{error.filename}: {error.strerror or error}")

    for directory, dirnames, filenames in os.walk(root, onerror=on_error, followlinks=False):
        if directory != root:
            ignore.load(os.path.abspath(directory))
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIPPED_DIRS
            and not d.endswith(".egg-info")
            and not _is_virtualenv(os.path.join(directory, d))
            and not ignore.ignored(os.path.join(directory, d), True)
            and not excluded(os.path.join(directory, d), exclude)
        )
        for name in sorted(filenames):  # errors in a fixed order too
            if not name.endswith(".py"):
                continue
            path = os.path.join(directory, name)
            if ignore.ignored(path, False) or excluded(path, exclude):
                continue
            if os.path.islink(path) and not os.path.exists(path):
                errors.append(f"{path}: {_dangling(path)}")
                continue
            files.add(path)


def _ancestors_in_repo(path: str) -> list[str]:
    """`path` and its parents up to the enclosing git repository's root
    (empty when not inside a repository)."""
    chain = []
    current = os.path.abspath(path)
    while True:
        chain.append(current)
        if os.path.exists(os.path.join(current, ".git")):
            return chain
        parent = os.path.dirname(current)
        if parent == current:
            return [os.path.abspath(path)]
        current = parent


# Test files by pytest's and ruff's conventions (issue 27): a folder named
# tests/ or test/ on the path, `test_*.py`, `*_test.py`, `conftest.py`.
TEST_FILE = re.compile(r"(?:^|[/\\])tests?[/\\]|(?:^|[/\\])(?:test_[^/\\]*|[^/\\]*_test|conftest)\.py$")


# Code for another vendor's accelerator (issue 27: fla-core's triton_ascend
# backends, flag-gems' runtime/backend/_<vendor>/, liger-kernel's
# backends/_ascend/): a folder or file named for the backend. kernlint's
# measurements are an H100's, so its findings there carry no speedup claim.
OTHER_BACKEND = re.compile(
    r"(?:^|[/\\])_?(?:triton_)?(?:ascend|npu|mthreads|musa|metax|kunlunxin|cambricon|mlu|iluvatar|hygon|enflame"
    r"|gcu\d*|tsingmicro|aipu|sunrise|xpu|rocm|hip|amd)(?:[/\\]|\.py$)",
    re.IGNORECASE,
)


def is_other_backend_file(path: str) -> bool:
    """A file for a non-NVIDIA backend (Ascend NPU, MUSA, MLU, XPU, ROCm...):
    its findings are reported, with no H100 speedup claim and a "no" verdict."""
    return bool(OTHER_BACKEND.search(path))


def is_test_file(path: str) -> bool:
    """A test file: its tensors have a test's shapes, so a performance
    finding in it carries no measured speedup claim and its verdict is no."""
    return bool(TEST_FILE.search(path))
