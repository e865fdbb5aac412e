"""Results of earlier runs, so that a rerun checks only what changed.

One JSON file per (file, content, settings, kernlint), holding the file's
result and its verdict (kernlint.advice), in a cache folder
(`.kernlint_cache` beside the config file, else in the working directory;
`cache-dir` / `--cache-dir` to move it, `--no-cache` to bypass it,
`kernlint clean` to delete it). The folder holds a `CACHEDIR.TAG`, so backup
tools skip it.

The key of an entry is a SHA-256 over everything the result depends on:
- the file's path as reported and its bytes;
- the settings that apply to it (after per-file ignores), so a changed rule
  selection or configuration misses;
- the files its result was computed from besides the file itself (modules
  it imports kernels from, kernlint.project): these are known only after
  linting, so the entry stores them with their SHA-256 and a hit requires
  each to be unchanged (an edited imported kernel misses);
- kernlint itself: a fingerprint of the source of the engine, the model, the
  rules, the reference-fix library and the measurement records the claims
  come from (so a new version, an edited rule or pair in a development
  checkout, or a new GPU record misses: a claim says whether its pair
  changed since it was measured).

Entries are JSON, never pickle: a cache folder inside a repository being
linted is as untrusted as the repository, and loading it must not run code.
A damaged or foreign entry is a miss. Writes go to a temporary file renamed
over the entry, so two runs sharing the folder never see half an entry.
Results that depend on the machine rather than the file (a timeout, an
internal error) are not cached.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import asdict
from typing import Any

from kernlint.findings import Category, FileResult, Finding, Fix, Severity, Span
from kernlint.registry import rule_for_event
from kernlint.settings import Settings
from kernlint.version import __version__

DEFAULT_DIR = ".kernlint_cache"
TAG_NAME = "CACHEDIR.TAG"
TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by kernlint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)
FORMAT = 3


@functools.cache
def code_fingerprint() -> str:
    """A hash of kernlint's own source, its reference-fix library and the
    library's measurement records."""
    from pathlib import Path

    import kernlint.rules
    from kernlint.provenance import library_folder

    digest = hashlib.sha256(f"kernlint {__version__} cache {FORMAT}".encode())
    # This module's folder is the engine's and the model's (importing the
    # engine to find it would cost a run answered from the cache a tenth).
    roots = [Path(__file__).parent, Path(kernlint.rules.__file__).parent]
    library = library_folder()
    if library is not None:
        # The records, and the pairs' code: a claim says whether its pair
        # changed since it was measured (kernlint.provenance).
        roots.append(Path(library))
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".json") and "__pycache__" not in path.parts and path.is_file():
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


class ResultCache:
    """A cache folder; `get`/`put` by (path, bytes, settings)."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.hits = 0
        self.misses = 0

    def key(self, path: str, data: bytes, settings: Settings, extra: str = "") -> str:
        digest = hashlib.sha256()
        applied = settings.for_path(path)
        # What decides the findings; jobs, limits and the cache folder do not.
        # (Sorted: a frozenset's order changes with each process's hash seed.)
        decides = (
            None if applied.select is None else sorted(applied.select),
            sorted(applied.ignore),
            sorted(applied.extend_select),
            applied.target_gpu,
        )
        for part in (code_fingerprint(), path, repr(decides), extra):
            digest.update(part.encode("utf-8", "surrogatepass"))
            digest.update(b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _entry(self, key: str) -> str:
        return os.path.join(self.directory, key[:2], key + ".json")

    def get(self, key: str) -> tuple[FileResult, dict[str, str]] | None:
        """The result stored under `key` and its verdict (kernlint.advice),
        or None."""
        try:
            with open(self._entry(key), encoding="utf-8") as handle:
                entry = json.load(handle)
            result = _result_from_json(entry)
            advice = {str(k): str(v) for k, v in entry["advice"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.misses += 1
            return None
        if any(_file_digest(path) != digest for path, digest in result.dependencies):
            self.misses += 1
            return None
        self.hits += 1
        return result, advice

    def put(self, key: str, result: FileResult, advice: dict[str, str]) -> None:
        """Store a result and its verdict, which depends on nothing the key
        does not cover (the findings, the target GPU, the records)."""
        if not cacheable(result):
            return
        import tempfile  # here: a run that writes no cache entry does without it

        entry = self._entry(key)
        try:
            self._ensure_folder(os.path.dirname(entry))
            fd, temporary = tempfile.mkstemp(dir=os.path.dirname(entry), suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump({**_result_to_json(result), "advice": advice}, handle, separators=(",", ":"))
            os.replace(temporary, entry)
        except OSError:
            pass  # a read-only or full disk: the run goes on uncached

    def _ensure_folder(self, folder: str) -> None:
        os.makedirs(folder, exist_ok=True)
        tag = os.path.join(self.directory, TAG_NAME)
        if not os.path.exists(tag):
            with open(tag, "w", encoding="utf-8") as handle:
                handle.write(TAG)
            with open(os.path.join(self.directory, ".gitignore"), "w", encoding="utf-8") as handle:
                handle.write("# Automatically created by kernlint.\n*\n")


def cacheable(result: FileResult) -> bool:
    """Timeouts and internal errors depend on the machine and the moment."""
    machine = {rule_for_event("timeout").code, rule_for_event("internal-error").code}
    return not any(f.code in machine for f in result.findings)


def clean(directory: str) -> bool:
    """Delete a cache folder kernlint made (it has the tag); False if there
    was none. A folder without the tag is refused, never deleted."""
    import shutil

    if not os.path.isdir(directory):
        return False
    if not os.path.isfile(os.path.join(directory, TAG_NAME)):
        raise ValueError(f"{directory} is not a kernlint cache (no {TAG_NAME}); not deleted")
    shutil.rmtree(directory)
    return True


def _finding_to_json(finding: Finding) -> dict[str, Any]:
    data = asdict(finding)
    data["category"] = finding.category.value
    data["severity"] = finding.severity.value
    return data


def _finding_from_json(data: dict[str, Any]) -> Finding:
    fix = data["fix"]
    return Finding(
        code=data["code"],
        name=data["name"],
        category=Category(data["category"]),
        severity=Severity(data["severity"]),
        message=data["message"],
        path=data["path"],
        span=Span(**data["span"]),
        kernel=data["kernel"],
        plan=data["plan"],
        confidence=data["confidence"],
        expected_speedup=data["expected_speedup"],
        fix=None
        if fix is None
        else Fix(fix["description"], tuple((int(a), int(b), str(c)) for a, b, c in fix["replacements"]), fix["safe"]),
        suppressed_by=data["suppressed_by"],
    )


def _result_to_json(result: FileResult) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "path": result.path,
        "source": result.source,
        "findings": [_finding_to_json(f) for f in result.findings],
        "suppressed": [_finding_to_json(f) for f in result.suppressed],
        "dependencies": [list(d) for d in result.dependencies],
    }


def _result_from_json(data: dict[str, Any]) -> FileResult:
    if data.get("format") != FORMAT:
        raise ValueError("another cache format")
    return FileResult(
        data["path"],
        tuple(_finding_from_json(f) for f in data["findings"]),
        source=data["source"],
        suppressed=tuple(_finding_from_json(f) for f in data["suppressed"]),
        dependencies=tuple((str(path), str(digest)) for path, digest in data["dependencies"]),
    )


def _file_digest(path: str) -> str:
    """SHA-256 of a file's bytes, or "" when it cannot be read (absent): what
    a cached result that read the file depends on (kernlint.project)."""
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return ""
