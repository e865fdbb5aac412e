"""Applying safe fixes: `--fix` writes them, `--diff` shows them.

A fix is a set of (start, end, new text) replacements into the decoded
source (see findings.Fix). Fixing a file never loses code:

- only fixes marked safe are applied, and only when the fixed text still
  parses (a fix that would break the file is dropped, and nothing is written);
- fixes are applied in passes, re-linting after each, until none is left
  (so a second `--fix` finds nothing to do); overlapping fixes wait for the
  next pass;
- the bytes outside the replaced spans stay exactly as they were: the text is
  re-encoded with the file's own encoding and BOM (refused if that would not
  give the original bytes back), and inserted line breaks follow the file's;
- `write_atomic` writes a temporary file beside the original and renames it
  over the original (`os.replace`), keeping its permission bits; it refuses a
  read-only file and a file whose bytes changed since they were read, and on
  any write error the temporary file is removed and the original is intact.
  A symbolic link is followed: the file it points to is rewritten and the link
  stays a link.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass

from kernlint.engine import Settings, lint_bytes, lint_source
from kernlint.findings import FileResult, Finding, Fix
from kernlint.source import SourceError, parse

MAX_PASSES = 10


class FixWriteError(Exception):
    """Writing the fixed file was refused or failed; the original is intact."""


@dataclass(frozen=True)
class FixOutcome:
    path: str
    result: FileResult  # the findings that remain after fixing
    applied: int  # how many fixes were applied (0: nothing to do)
    original: bytes
    fixed: bytes  # == original when nothing changed (or nothing could be)
    diff: str  # unified diff of the change ("" when none)
    written: bool = False
    error: str | None = None  # why the fixes were not applied or not written

    @property
    def changed(self) -> bool:
        return self.fixed != self.original


def safe_fixes(findings: tuple[Finding, ...] | list[Finding]) -> list[Fix]:
    return [f.fix for f in findings if f.fix is not None and f.fix.safe and f.fix.replacements]


def apply_fixes(text: str, fixes: list[Fix], newline: str = "\n") -> tuple[str, int]:
    """Apply the fixes that do not overlap an earlier one (by position);
    returns (new text, number applied). Line breaks in inserted text become
    `newline`."""
    taken: list[tuple[int, int]] = []
    chosen: list[tuple[int, int, str]] = []
    applied = 0
    for fix in sorted(fixes, key=lambda f: (min(r[0] for r in f.replacements), f.description)):
        spans = sorted((start, end) for start, end, _ in fix.replacements)
        if any(s < e2 and s2 < e or (s == e == s2 == e2) for s, e in spans for s2, e2 in taken):
            continue
        if any(not (0 <= s <= e <= len(text)) for s, e in spans):
            continue
        taken.extend(spans)
        chosen.extend(fix.replacements)
        applied += 1
    for start, end, new in sorted(chosen, key=lambda r: (r[0], r[1]), reverse=True):
        if newline != "\n":
            new = new.replace("\r\n", "\n").replace("\n", newline)
        text = text[:start] + new + text[end:]
    return text, applied


def dominant_newline(text: str) -> str:
    crlf = text.count("\r\n")
    lf = text.count("\n") - crlf
    cr = text.count("\r") - crlf
    return max((crlf, "\r\n"), (lf, "\n"), (cr, "\r"), key=lambda pair: pair[0])[1] if (crlf or lf or cr) else "\n"


def fix_text(path: str, text: str, settings: Settings = Settings()) -> tuple[str, int, FileResult, str | None]:
    """(fixed text, fixes applied, findings left, error). On error the text
    is the original and nothing counts as applied."""
    newline = dominant_newline(text)
    current, applied = text, 0
    result = lint_source(path, current, settings)
    for _ in range(MAX_PASSES):
        fixes = safe_fixes(result.findings)
        if not fixes:
            break
        candidate, count = apply_fixes(current, fixes, newline)
        if count == 0 or candidate == current:
            break
        try:
            parse(candidate)
        except SourceError as error:
            codes = ", ".join(sorted({f.code for f in result.findings if f.fix in fixes}))
            return (
                text,
                0,
                lint_source(path, text, settings),
                (f"the fixes for {codes} would leave code that does not parse ({error.message}); nothing was changed"),
            )
        current, applied = candidate, applied + count
        result = lint_source(path, current, settings)
    return current, applied, result, None


def _encoding(data: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return encoding


def fix_bytes(path: str, data: bytes, settings: Settings = Settings()) -> FixOutcome:
    """Fix a file's bytes in memory (nothing is written)."""
    result = lint_bytes(path, data, settings)
    if result.source is None or not safe_fixes(result.findings):
        return FixOutcome(path, result, 0, data, data, "")
    text = result.source
    try:
        encoding = _encoding(data)
        exact = text.encode(encoding) == data
    except (SyntaxError, LookupError, UnicodeError):
        exact = False
    if not exact:
        return FixOutcome(
            path,
            result,
            0,
            data,
            data,
            "",
            error=("its bytes do not survive decoding and re-encoding unchanged, so kernlint does not rewrite it"),
        )
    fixed_text, applied, remaining, error = fix_text(path, text, settings)
    if error is not None or applied == 0:
        return FixOutcome(path, remaining, 0, data, data, "", error=error)
    try:
        fixed = fixed_text.encode(encoding)
    except UnicodeError as failure:
        return FixOutcome(
            path, result, 0, data, data, "", error=f"the fixed text cannot be encoded as {encoding}: {failure}"
        )
    return FixOutcome(path, remaining, applied, data, fixed, unified_diff(path, text, fixed_text))


def unified_diff(path: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), fromfile=path, tofile=path
    )
    out = []
    for line in lines:
        if not line.endswith(("\n", "\r")):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


def fix_file(path: str, data: bytes, settings: Settings = Settings(), write: bool = True) -> FixOutcome:
    """Fix the file at `path`, whose bytes as read are `data`; with `write`,
    write the result atomically (see write_atomic). Never raises for I/O:
    a refusal or failure is in `error`, and the file is left as it was."""
    outcome = fix_bytes(path, data, settings)
    if not write or not outcome.changed:
        return outcome
    try:
        write_atomic(path, outcome.fixed, expected=data)
    except FixWriteError as error:
        return FixOutcome(path, lint_bytes(path, data, settings), 0, data, data, "", error=str(error))
    return FixOutcome(path, outcome.result, outcome.applied, data, outcome.fixed, outcome.diff, written=True)


def write_atomic(path: str, data: bytes, expected: bytes | None = None) -> None:
    """Replace the file's content with `data`: temporary file in the same
    folder, fsync, same permission bits (and owner where allowed), then
    os.replace. Raises FixWriteError, with the original untouched, when the
    file is read-only, when its bytes are no longer `expected`, or when any
    step fails."""
    target = os.path.realpath(path)
    try:
        info = os.stat(target)
    except OSError as error:
        raise FixWriteError(f"cannot write the fix: {error.strerror or error}") from None
    writable_bits = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    if not info.st_mode & writable_bits or not os.access(target, os.W_OK):
        raise FixWriteError("the file is read-only; it was left as it was")
    if expected is not None and _read(target) != expected:
        raise FixWriteError("the file changed on disk while kernlint was fixing it; it was left as it was (run again)")
    directory = os.path.dirname(target) or "."
    try:
        handle, temporary = tempfile.mkstemp(
            prefix=f".{os.path.basename(target)}.", suffix=".kernlint-tmp", dir=directory
        )
    except OSError as error:
        raise FixWriteError(f"cannot write the fix: {error.strerror or error}; the file was left as it was") from None
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, stat.S_IMODE(info.st_mode))
        if hasattr(os, "chown"):
            with contextlib.suppress(OSError):
                os.chown(temporary, info.st_uid, info.st_gid)
        if expected is not None and _read(target) != expected:
            raise FixWriteError(
                "the file changed on disk while kernlint was fixing it; it was left as it was (run again)"
            )
        os.replace(temporary, target)
    except FixWriteError:
        _remove(temporary)
        raise
    except OSError as error:
        _remove(temporary)
        raise FixWriteError(f"cannot write the fix: {error.strerror or error}; the file was left as it was") from None
    except BaseException:
        _remove(temporary)
        raise


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
