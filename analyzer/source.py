"""Reading a file's bytes into text and text into a libcst tree.

Nothing here executes the code it reads: decoding follows PEP 263 and the
tree comes from libcst's parser.
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass

import libcst as cst


@dataclass(frozen=True)
class SourceError(Exception):
    """The text could not be turned into a tree; line/column are 1-based."""

    message: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return self.message


def decode(data: bytes) -> str:
    """Decode source bytes as Python would (BOM, coding cookie, UTF-8)."""
    if b"\x00" in data:
        offset = data.index(b"\x00")
        line = data.count(b"\n", 0, offset) + 1
        raise SourceError("binary file: contains a NUL byte, not Python source", line, 1)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise SourceError(f"unreadable encoding declaration: {error}") from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        start = getattr(error, "start", 0)
        line = data.count(b"\n", 0, start) + 1
        column = start - (data.rfind(b"\n", 0, start) + 1) + 1
        raise SourceError(f"not valid {encoding}: {error.reason if hasattr(error, 'reason') else error}", line, column) from None
    # PEP 263 allows a BOM; libcst and the column arithmetic want it gone.
    return text[1:] if text.startswith("\ufeff") else text


def parse(text: str) -> cst.Module:
    try:
        return cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        raise _python_syntax_error(text) or SourceError(
            f"syntax error: {error.message}", error.editor_line, error.editor_column
        ) from None
    except RecursionError:
        raise SourceError("too deeply nested for the parser") from None


def _python_syntax_error(text: str) -> SourceError | None:
    """CPython's own message and position for a syntax error (libcst's
    parser often points a line later). ast.parse only parses."""
    try:
        ast.parse(text)
    except SyntaxError as error:
        return SourceError(f"syntax error: {error.msg}", error.lineno or 1, max(error.offset or 1, 1))
    except (RecursionError, MemoryError, ValueError):
        return None
    return None
