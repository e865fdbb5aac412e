"""Reading a file's bytes into text and text into a libcst tree.

Nothing here executes the code it reads: decoding follows PEP 263 and the
tree comes from libcst's parser.
"""

from __future__ import annotations

import ast
import io
import re
import symtable
import tokenize
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
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
        raise SourceError(
            f"not valid {encoding}: {error.reason if hasattr(error, 'reason') else error}", line, column
        ) from None
    # PEP 263 allows a BOM; libcst and the column arithmetic want it gone.
    return text[1:] if text.startswith("\ufeff") else text


# CPython's own parser refuses these (its limits: 200 nested brackets, 100
# indentation levels); libcst's native parser would recurse until the stack
# overflows, a crash no `except` can catch, so such a file never reaches it.
NESTING_MESSAGES = ("too many nested parentheses", "too many levels of indentation")
# Brackets nested deeper than this are refused even when CPython gives no
# verdict (syntax newer than the running Python); CPython allows 200.
MAX_BRACKET_DEPTH = 1000
_BRACKET_STEPS = {ord(c): step for c, step in zip("([{)]}", (1, 1, 1, -1, -1, -1))}


def parse(text: str) -> cst.Module:
    """The libcst tree, or SourceError. Runs with the big stack and raised
    recursion limit of deep.deep_call (inline when already inside it), so
    a file parses the same wherever it is parsed (lint, or a fix's check)."""
    from kernlint.deep import deep_call

    return deep_call(lambda: _parse(text))


def _parse(text: str) -> cst.Module:
    _refuse_too_deep(text)
    try:
        with _parser_output_unvalidated():
            return cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        raise _python_syntax_error(text) or SourceError(
            # CPython accepted it (or gave no verdict): libcst's limitation.
            f"libcst, the parser kernlint uses, cannot read this file (Python can): {error.message}",
            error.editor_line,
            error.editor_column,
        ) from None
    except RecursionError:
        raise SourceError("too deeply nested for the parser") from None


@contextmanager
def _parser_output_unvalidated() -> Iterator[None]:
    """libcst checks every node it constructs (`CSTNode.__post_init__` calls
    `_validate`), its parser's output included, which is valid by
    construction; libcst's own comment there notes the waste ("avoid
    validating the tree when parsing a file"). The checks are skipped while
    the parser builds the tree (issue 14): 9% of a parse's instructions under
    callgrind, 15-18% of its time on the development machine. The tree is
    the same (tests/test_parse.py); a node built after the parse is checked
    again. Another thread building nodes meanwhile would skip its checks too,
    which only drops a check; whichever parse ends first puts the original
    hook back, never the no-op."""
    hook = _POST_INIT
    if hook is None:  # a libcst whose nodes check themselves otherwise: leave it be
        yield
        return
    cst.CSTNode.__post_init__ = _no_check  # type: ignore[method-assign]
    try:
        yield
    finally:
        cst.CSTNode.__post_init__ = hook  # type: ignore[method-assign]


def _no_check(self: cst.CSTNode) -> None:
    return None


# libcst's node check, as installed: CSTNode's own `__post_init__`, or None
# when the installed libcst has none there.
_POST_INIT = cst.CSTNode.__dict__.get("__post_init__")


def _python_syntax_error(text: str) -> SourceError | None:
    """CPython's own message and position for a syntax error (libcst's
    parser often points a line later). ast.parse only parses."""
    try:
        _ast_parse(text)
    except SyntaxError as error:
        return SourceError(f"syntax error: {error.msg}", error.lineno or 1, max(error.offset or 1, 1))
    except (RecursionError, MemoryError, ValueError):
        return None
    return None


def _refuse_too_deep(text: str) -> None:
    """Raise SourceError for nesting that would crash libcst's parser.
    The check only parses; run inside deep.deep_call, its own recursion
    limit is the raised one. A file whose nesting is surely shallow skips
    it (`_surely_shallow`)."""
    if _surely_shallow(text):
        return
    try:
        _nesting_check(text)
        return
    except SyntaxError as error:
        if error.msg in NESTING_MESSAGES:
            raise SourceError(f"too deeply nested: {error.msg}", error.lineno or 1, max(error.offset or 1, 1)) from None
    except (RecursionError, MemoryError):
        raise SourceError("too deeply nested: Python's own parser gives up on this file") from None
    except ValueError:
        return
    if _bracket_depth(text) > MAX_BRACKET_DEPTH:
        raise SourceError(f"too deeply nested: brackets nest more than {MAX_BRACKET_DEPTH} levels")


# Bounds under which CPython's parser surely accepts a file's nesting (see
# `_surely_shallow`): brackets, the code of one logical line, the leading
# whitespace of a line in columns, and `elif`s (each nests in the last).
SHALLOW_BRACKETS = 100
SHALLOW_LINE = 2000
SHALLOW_INDENT = 90
SHALLOW_ELIFS = 500
# Comments and strings as Python 3.11 reads them: a string ends at its
# first closing quote not escaped by a backslash (raw strings too), only a
# triple-quoted one spans lines. A prefix (`rb`, `f`) is left behind as a name.
_COMMENTS_AND_STRINGS = re.compile(
    "|".join(
        [
            r"#[^\r\n]*",
            r"'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''",
            r'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""',
            r"'[^'\\\r\n]*(?:\\[\s\S][^'\\\r\n]*)*'",
            r'"[^"\\\r\n]*(?:\\[\s\S][^"\\\r\n]*)*"',
        ]
    )
)
_DEEP_INDENT = re.compile(rf"\n(?:[ \f]*\t|[ \f]{{{SHALLOW_INDENT}}})")
_NOT_A_BRACKET = re.compile(r"[^()\[\]{}\n]+")


def _surely_shallow(text: str) -> bool:
    """Whether CPython's parser surely finds no nesting to refuse in the
    text, so that its parse (a tenth of libcst's, for every file; issue
    24) can be skipped: no line indented SHALLOW_INDENT columns or more (a
    level takes a column; a tab, up to eight), so fewer than CPython's 100
    levels; brackets nested at most SHALLOW_BRACKETS deep in the code
    (CPython allows 200), and at most MAX_BRACKET_DEPTH counting those in
    strings and comments; no logical line longer than SHALLOW_LINE
    characters, a string counted as one; no f-string (whose expressions
    CPython parses apart) longer than that or holding more brackets; at
    most SHALLOW_ELIFS `elif`s. The parser's stack (6,000 rule calls) then
    holds any such file: measured, it overflows under 95 indented blocks at
    175 brackets of `[lambda:` (the costliest nesting per character tried),
    and at 5,964 `elif`s; random valid lines of 3,000 characters nesting
    100 brackets, after 500 `elif`s and under 88 blocks, never overflow it
    (4,000 characters and 200 brackets do). The tree, a few thousand levels
    deep at most, stays within the recursion limit. False (let CPython
    judge) for anything else, a string this module cannot read included."""
    code = _COMMENTS_AND_STRINGS.sub(_one_token, text)
    if "'" in code or '"' in code or code.count("elif") > SHALLOW_ELIFS:
        return False
    # A backslash outside strings can only continue the line.
    code = code.replace("\r\n", "\n").replace("\r", "\n").replace("\\\n", "  ")
    if _DEEP_INDENT.search("\n" + code):
        return False
    depth = deepest = 0
    depths: list[int] = []  # the depth at the end of each physical line
    for char in _NOT_A_BRACKET.sub("", code):
        if char == "\n":
            depths.append(depth)
        elif char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
            if depth < 0:
                return False  # an unmatched closing bracket: a syntax error for CPython to report
    in_strings = _opening_brackets(text) - _opening_brackets(code)
    if deepest > SHALLOW_BRACKETS or deepest + in_strings > MAX_BRACKET_DEPTH:
        return False
    lines = code.split("\n")
    logical = 0
    for length, depth in zip(map(len, lines), depths):
        logical += length + 1
        if logical > SHALLOW_LINE:
            return False
        if depth == 0:
            logical = 0
    return logical + len(lines[-1]) <= SHALLOW_LINE


def _one_token(match: re.Match[str]) -> str:
    """A comment as nothing, a string as one character; an f-string too
    long or holding too many brackets to be surely shallow as a quote, which
    `_surely_shallow` takes for a string it cannot read."""
    token = match[0]
    if token[0] == "#":
        return ""
    prefix = match.string[max(0, match.start() - 2) : match.start()]
    if ("f" in prefix or "F" in prefix) and (len(token) > SHALLOW_LINE or _opening_brackets(token) > SHALLOW_BRACKETS):
        return "'"
    return "s"


def _opening_brackets(text: str) -> int:
    return text.count("(") + text.count("[") + text.count("{")


def _bracket_depth(text: str) -> int:
    """The deepest bracket nesting, counting brackets in strings and
    comments too (an over-estimate, consulted only when CPython gave no
    verdict)."""
    from itertools import accumulate

    steps = [_BRACKET_STEPS[ord(c)] for c in text if ord(c) in _BRACKET_STEPS]
    return max(accumulate(steps), default=0)


def _nesting_check(text: str) -> None:
    """CPython's parser over the text, for its verdict on nesting: the
    symbol table pass parses as ast.parse does (same errors, same limits)
    but builds no Python objects, which costs 40% less (issue 14)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        symtable.symtable(text, "<kernlint>", "exec")


def _ast_parse(text: str) -> ast.Module:
    """ast.parse without its SyntaxWarnings ("'int' object is not
    callable"), which would otherwise be printed to the user's stderr."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Offsets at which each line of `text` starts (CRLF, CR and LF all end
    a line, as libcst and tokenize count them)."""
    return [0] + [match.end() for match in LINE_BREAK.finditer(text)]


# Every rule reads Triton kernels or the PyTorch code around them; a file
# that names neither cannot hold a finding of theirs (a kernel imported from
# another module is launched by code that imports torch or triton too).
KERNEL_TEXT = re.compile(r"torch|triton|\btl\b")


def may_hold_kernel_code(text: str) -> bool:
    """The cheap text pre-check the engine runs before libcst: False for a
    file that names neither torch nor triton (nor `tl`)."""
    return KERNEL_TEXT.search(text) is not None


# The deepest syntax tree (CPython's) that a file checked in kernlint's own
# process may have. libcst's native parser holds the interpreter lock, so
# the time budget cannot stop it there, and its time grows with the square
# or cube of a chain's length (measured: 2,000 chained subscripts 4.7 s,
# `a+a+...` 2,000 terms 0.7 s, 4,000 terms 3.4 s, 8,000 terms a crash on
# an 8 MB stack), where real code nests 20-30 levels deep. 100 levels of
# the worst chain parse in under 0.05 s.
PROMPT_DEPTH = 100


def parses_promptly(data: bytes) -> bool:
    """Whether libcst surely parses the file quickly: CPython parses it and
    its tree is at most PROMPT_DEPTH deep. A file that fails this is checked
    in a worker process, which the time budget can stop."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return False
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > PROMPT_DEPTH:
            return False
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return True


def python_parses(text: str) -> bool:
    """Whether CPython's own parser (10x faster than libcst) accepts the
    file; for a file the pre-check skips, this is the only parse."""
    try:
        _ast_parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return False
    return True
