"""Reading a file's bytes into text and text into a syntax tree.

Nothing here executes the code it reads: decoding follows PEP 263 and the
tree comes from CPython's parser (`ast.parse`, through kernlint.tree).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings
from dataclasses import dataclass

from kernlint import tree as cst
from kernlint.tree import line_starts as line_starts  # where the other modules read it


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
        raise SourceError(
            f"not valid {encoding}: {error.reason if hasattr(error, 'reason') else error}", line, column
        ) from None
    # PEP 263 allows a BOM; the column arithmetic wants it gone.
    return text[1:] if text.startswith("\ufeff") else text


# CPython's own parser refuses these (its limits: 200 nested brackets, 100
# indentation levels).
NESTING_MESSAGES = ("too many nested parentheses", "too many levels of indentation")


def parse(text: str) -> cst.Module:
    """The syntax tree (kernlint.tree, from CPython's parser), or
    SourceError. Runs with the big stack and raised recursion limit of
    deep.deep_call (inline when already inside it), so a file parses the
    same wherever it is parsed (lint, or a fix's check) and deep nesting
    (a 10,000-term sum) builds its tree."""
    from kernlint.deep import deep_call

    return deep_call(lambda: _parse(text))


def _parse(text: str) -> cst.Module:
    try:
        return cst.parse_tree(text)
    except SyntaxError as error:
        line, column = error.lineno or 1, max(error.offset or 1, 1)
        if error.msg in NESTING_MESSAGES:
            raise SourceError(f"too deeply nested: {error.msg}", line, column) from None
        raise SourceError(f"syntax error: {error.msg}", line, column) from None
    except (RecursionError, MemoryError):
        raise SourceError("too deeply nested: Python's own parser gives up on this file") from None
    except ValueError as error:
        raise SourceError(f"cannot be parsed: {error}") from None


def _ast_parse(text: str) -> ast.Module:
    """ast.parse without its SyntaxWarnings ("'int' object is not
    callable"), which would otherwise be printed to the user's stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


# Every rule reads Triton kernels or the PyTorch code around them; a file
# that names neither cannot hold a finding of theirs (a kernel imported from
# another module is launched by code that imports torch or triton too).
KERNEL_TEXT = re.compile(r"torch|triton|\btl\b")


def may_hold_kernel_code(text: str) -> bool:
    """The cheap text pre-check the engine runs before building a tree: False for a
    file that names neither torch nor triton (nor `tl`)."""
    return KERNEL_TEXT.search(text) is not None


def python_parses(text: str) -> bool:
    """Whether CPython's own parser accepts the
    file; for a file the pre-check skips, this is the only parse."""
    try:
        _ast_parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return False
    return True
