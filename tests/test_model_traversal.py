"""The model's own traversal and positions (issue 14) against libcst's:
model.syntax.children is `node.children` less layout tokens, in the same
order; all_children is `node.children`; model.syntax.visit calls a
visitor's methods in the order `node.visit` does; Positions gives the
spans of PositionProvider, and Positions.within orders a function's nodes
as the file's positions do."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst as cst
import pytest
from kernlint.findings import Span
from kernlint.model.positions import Positions, SourceOrder
from kernlint.model.syntax import TRIVIA, all_children, children, visit
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = sorted((ROOT / "fixtures").rglob("*.py"))

# Shapes the fixtures may lack: decorators, nested classes, comments in
# brackets, CRLF line ends, tabs, semicolons, a file without a final newline.
ODD = [
    "",
    "\n",
    "x = 1",
    "  \n",
    "# only a comment",
    "def f():\r\n\tif x:  # c\r\n\t\treturn (a *\r\n\t\t  b)\r\n",
    "class A:\n    class B:\n        @d(1)\n        def m(self, *a, k=2, **kw) -> int:\n            x = [i for i in y if i]; y = x\n",
    "from . import (a, b as c)\nfrom m import *\nf(*a, **k)[1:2, ::3] @ g\nlambda: (yield)\n",
    'x = f"{a!r:>{w}}" + """\nmulti\nline\n""" + b"\\n"\n',
    # Identical top-level statements: their code occurs twice in the file.
    "y = g(1)\n\ny = g(1)\ndef h():\n    return g(1)\ny = g(1)",
    # The last statement, without its final newline, occurs once earlier
    # with one: the earlier occurrence is not where it lies.
    "y = g(1)\nz = 2\ny = g(1)",
    # Nested lines that recur, at the same and at a deeper indentation, and
    # comments indented otherwise than the block they sit in.
    "class A:\n    def m(self):\n        return 2\n    def n(self):\n        return 2\n",
    "if a:\n    x = 1\n    if b:\n        x = 1\n",
    "def f():\n    # c\n\n    x = 1\n  # odd\n    y = (2 +\n 3)\n",
]


def _nodes(module: cst.Module) -> list[cst.CSTNode]:
    found, stack = [], [module]
    while stack:
        node = stack.pop()
        found.append(node)
        stack.extend(node.children)
    return found


def _sources() -> list[tuple[str, str]]:
    return [(p.name, p.read_text()) for p in FIXTURES] + [(f"odd{i}", text) for i, text in enumerate(ODD)]


@pytest.mark.parametrize(("name", "text"), _sources(), ids=[name for name, _ in _sources()])
def test_children_are_libcst_children(name: str, text: str) -> None:
    for node in _nodes(cst.parse_module(text)):
        expected = node.children
        assert [id(c) for c in all_children(node)] == [id(c) for c in expected], type(node).__name__
        syntax = [id(c) for c in expected if not isinstance(c, TRIVIA)]
        assert [id(c) for c in children(node)] == syntax, type(node).__name__


def _assert_span_is_providers(positions: Positions, node: cst.CSTNode, code_range: CodeRange) -> None:
    span = positions.span(node)
    assert (span.line, span.column, span.end_line, span.end_column) == (
        code_range.start.line,
        code_range.start.column + 1,
        code_range.end.line,
        code_range.end.column + 1,
    ), type(node).__name__


@pytest.mark.parametrize(("name", "text"), _sources(), ids=[name for name, _ in _sources()])
def test_positions_are_position_provider(name: str, text: str) -> None:
    module = cst.parse_module(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    positions = Positions(module, text)
    for node in _nodes(module):
        if isinstance(node, TRIVIA):
            continue
        _assert_span_is_providers(positions, node, expected[node])
        assert positions.line(node) == expected[node].start.line


@pytest.mark.parametrize(("name", "text"), _sources(), ids=[name for name, _ in _sources()])
def test_positions_asked_statement_by_statement_in_any_order_are_position_provider(name: str, text: str) -> None:
    # Positions generates one top-level statement when a node in it is
    # first asked about (with a hint or without); asking in reverse source
    # order, the last statement first, must give the same spans.
    module = cst.parse_module(text)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    defs = {id(n): n for n in _nodes(module) if isinstance(n, cst.FunctionDef)}
    positions = Positions(module, text, hint=lambda node: next(iter(defs.values()), None))
    for node in reversed(_nodes(module)):
        if isinstance(node, TRIVIA):
            continue
        _assert_span_is_providers(positions, node, expected[node])


def test_positions_generate_only_the_statement_asked_about() -> None:
    text = "import a\n\ndef f():\n    return a.b(1)\n\nclass C:\n    def m(self):\n        return 2\n"
    module = cst.parse_module(text)
    method = next(n for n in _nodes(module) if isinstance(n, cst.FunctionDef) and n.name.value == "m")
    two = next(n for n in _nodes(method) if isinstance(n, cst.Integer))
    generated: list[str] = []
    positions = Positions(module, text, hint=lambda node: method if node is two else None)
    original = positions._generate

    def generate(statement: cst.BaseStatement) -> None:
        generated.append(type(statement).__name__)
        original(statement)

    positions._generate = generate  # type: ignore[method-assign]
    # `return 2` occurs once in the file: its own line is generated, with
    # its indentation, and no top-level statement.
    assert positions.span(two) == Span(8, 16, 8, 17)
    assert generated == []


def test_a_recurring_line_generates_its_top_level_statement() -> None:
    text = "class C:\n    def m(self):\n        return 2\n    def n(self):\n        return 2\n"
    module = cst.parse_module(text)
    method = next(n for n in _nodes(module) if isinstance(n, cst.FunctionDef) and n.name.value == "n")
    two = next(n for n in _nodes(method) if isinstance(n, cst.Integer))
    generated: list[str] = []
    positions = Positions(module, text)
    original = positions._generate

    def generate(statement: cst.BaseStatement) -> None:
        generated.append(type(statement).__name__)
        original(statement)

    positions._generate = generate  # type: ignore[method-assign]
    assert positions.span(two) == Span(5, 16, 5, 17)
    assert generated == ["ClassDef"]


def test_source_order_within_a_method_sorts_as_the_files_spans() -> None:
    text = textwrap.dedent(
        """
        class A:
            def m(self, x):
                a = x * 2; b = a * (x * 3)
                if a:
                    c = (a *
                         b)
                return c * a
        """
    )
    module = cst.parse_module(text)
    method = next(n for n in _nodes(module) if isinstance(n, cst.FunctionDef))
    products = [n for n in _nodes(method) if isinstance(n, cst.BinaryOperation)]
    whole, order = Positions(module, text), SourceOrder.of(method)
    assert len(products) == 5
    assert sorted(products, key=whole.span) == sorted(products, key=order.key)
    assert [whole.line(p) for p in sorted(products, key=order.key)] == [4, 4, 4, 6, 8]
    ordered = sorted(products, key=order.key)
    outer, nested = ordered[1], ordered[2]  # `a * (x * 3)` contains `x * 3`
    assert order.before(ordered[0], outer) and order.before(nested, ordered[3])
    assert not order.before(outer, nested) and not order.before(nested, outer)
    assert module.body[0] not in order


class _Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, str]] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.events.append(("visit", node.name.value))
        return node.name.value != "skipped"

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.events.append(("leave", original_node.name.value))

    def visit_Call(self, node: cst.Call) -> None:
        self.events.append(("call", cst.Module([]).code_for_node(node.func)))


class _LibcstRecorder(_Recorder, cst.CSTVisitor):
    pass


def test_visit_calls_methods_as_libcst_does() -> None:
    module = cst.parse_module(
        "def a():\n    f(g(1))\n    def skipped():\n        h()\n    def b():\n        i()\nj()\n"
    )
    ours, theirs = _Recorder(), _LibcstRecorder()
    visit(module, ours)
    module.visit(theirs)
    assert (
        ours.events
        == theirs.events
        == [
            ("visit", "a"),
            ("call", "f"),
            ("call", "g"),
            ("visit", "skipped"),
            ("leave", "skipped"),
            ("visit", "b"),
            ("call", "i"),
            ("leave", "b"),
            ("leave", "a"),
            ("call", "j"),
        ]
    )
