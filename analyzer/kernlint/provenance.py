"""Which code a measurement describes: a digest of a reference-fix pair's sources.

A performance claim cites a record that `kernlint verify` measured on a GPU,
and the record is true of the code it measured. So each result of a record
carries `source_sha256`: the digest of its pair's sources when it was
measured, that is the `.py` files of the pair's folder and the library
modules they import, followed transitively (`from kernlint.kernels._launch
import ...`). When a pair's code changes after its measurement, its current
digest no longer matches: the claim says so (kernlint.claims) until the pair
is measured again. The harness (`verify.py`, `timing.py`) is not part of the
digest: it decides how a pair is timed, not what runs.

Files are read, never imported: linting must not import the kernel library.
`read` takes a path relative to the library's folder (`kl004_.../after.py`)
and returns its text or None; by default it reads the installed library, and
`merge_records --sources-at COMMIT` passes one that reads a git commit.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.util
import os
import re
from collections.abc import Callable

Reader = Callable[[str], "str | None"]

# `kernlint.kernels.<module>` in an import (also `from kernlint.kernels import <module>`).
_DOTTED = re.compile(r"\bkernlint\.kernels\.(\w+)")
_FROM_PACKAGE = re.compile(r"^\s*from\s+kernlint\.kernels\s+import\s+\(?([\w\s,]+)", re.MULTILINE)
_PAIR_FILES = ("__init__.py", "before.py", "after.py", "reference.py")


@functools.lru_cache(maxsize=1)
def library_folder() -> str | None:
    """The folder of the installed kernel library, found without importing it."""
    try:
        spec = importlib.util.find_spec("kernlint.kernels")
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    return locations[0] if locations else None


def read_installed(relative: str) -> str | None:
    folder = library_folder()
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, relative), encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return None


def pair_sources(pair: str, read: Reader = read_installed) -> dict[str, str]:
    """Relative path -> text of every file the pair's code is made of."""
    found: dict[str, str] = {}
    pending = [f"{pair}/{name}" for name in _PAIR_FILES]
    while pending:
        path = pending.pop()
        if path in found:
            continue
        text = read(path)
        if text is None:
            continue
        found[path] = text
        modules = set(_DOTTED.findall(text))
        for names in _FROM_PACKAGE.findall(text):
            modules.update(n.strip() for n in names.split(",") if n.strip())
        for module in sorted(modules):
            if module != pair:
                pending.extend((f"{module}.py", *(f"{module}/{name}" for name in _PAIR_FILES)))
    return found


def pair_digest(pair: str, read: Reader = read_installed) -> str | None:
    """SHA-256 over the pair's sources (path and code, in path order); None
    when the pair's folder is not there."""
    return _digest(pair, pair_sources(pair, read), _code_of)


def pair_bytes_digest(pair: str, read: Reader = read_installed) -> str | None:
    """SHA-256 over the same files' exact text: a cheap first test. Equal
    texts are equal code, so a claim whose record holds this digest needs
    no parsing; `pair_digest` is computed only when the texts differ
    (reformatted, or changed). Reading the library's code forms took a
    fifth of a small file's run (issue 14)."""
    return _digest(pair, pair_sources(pair, read), lambda text: text)


def is_current(
    pair: str, measured: set[str | None], measured_bytes: set[str | None], read: Reader = read_installed
) -> bool | None:
    """Whether the pair's code is still the code its results measured:
    their digests (`source_sha256`; `source_bytes_sha256`, where recorded).
    None when the pair's folder is not there."""
    sources = pair_sources(pair, read)
    text = _digest(pair, sources, lambda text: text)
    if text is None:
        return None
    if len(measured) != 1 or None in measured:
        return False
    if measured_bytes == {text}:
        return True
    return measured == {_digest(pair, sources, _code_of)}


def _digest(pair: str, sources: dict[str, str], form: Callable[[str], str]) -> str | None:
    if not any(path.startswith(f"{pair}/") for path in sources):
        return None
    digest = hashlib.sha256()
    for path in sorted(sources):
        digest.update(f"{path}\0{form(sources[path])}\0".encode())
    return digest.hexdigest()


@functools.lru_cache(maxsize=256)
def _code_of(text: str) -> str:
    """The code a source runs, not how it is written: its syntax tree with
    docstrings dropped, so reformatting or rewording a comment or docstring
    leaves the digest alone while any change to what runs moves it. (Kept
    per text: the library's shared modules are part of most pairs.)"""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    # Docstrings open the bodies of modules, classes and functions, which are
    # statements: only statement lists are searched, not every expression.
    pending: list[ast.AST] = [tree]
    while pending:
        node = pending.pop()
        body = getattr(node, "body", None)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body:
            first = body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                node.body = body[1:] or [ast.Pass()]
        for field in ("body", "orelse", "finalbody", "handlers"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                pending.extend(statements)
    return _canonical(tree)


def _canonical(node: object) -> str:
    """`ast.dump` without positions and without empty fields. Python versions
    add fields that are empty in code older than them (3.12's `type_params`
    on every def and class), and `ast.dump` prints them, so the same file
    dumped by the GPU machine's Python 3.12 and this machine's 3.11 differed.
    Leaving out None and [] fields gives one form on every version."""
    if isinstance(node, ast.AST):
        fields = []
        for name in node._fields:
            value = getattr(node, name, None)
            if value is None or value == []:
                continue
            fields.append(f"{name}={_canonical(value)}")
        return f"{type(node).__name__}({', '.join(fields)})"
    if isinstance(node, list):
        return f"[{', '.join(_canonical(item) for item in node)}]"
    return repr(node)
