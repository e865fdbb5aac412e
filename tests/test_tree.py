"""kernlint.tree against libcst, whose shapes the model reads: on every
fixture and library file and on odd shapes, the tree has libcst's classes
and syntax fields in libcst's order, libcst's literal texts, the ranges of
libcst's PositionProvider and, for every expression, libcst's
`code_for_node`. model.syntax.visit calls a visitor's methods in the order
libcst's `node.visit` does; SourceOrder sorts a function's nodes as their
spans do."""

from __future__ import annotations

import textwrap
from pathlib import Path

import libcst
import pytest
from kernlint import tree as cst
from kernlint.model.positions import Positions, SourceOrder
from kernlint.model.syntax import children, visit, walk
from kernlint.source import SourceError, line_starts, parse
from libcst.metadata import MetadataWrapper, PositionProvider

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    [*(ROOT / "fixtures").rglob("*.py"), *(ROOT / "kernels").rglob("*.py"), *(ROOT / "analyzer").rglob("*.py")]
)

# Shapes the files may lack: decorators, nested classes, comments in
# brackets, CRLF line ends, tabs, semicolons, a file without a final newline,
# parentheses that are a call's or an expression's own, implicit string
# concatenation, f-strings, non-ASCII text before a node.
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
    "f((a))\nf(a)\nf((a), (b))\n(f)(x)\ng(x for x in y)\ng((x for x in y))\nclass C((B)): pass\n",
    "t = (1, 2)\nu = (1,)\nv = 1, (2)\nw = a[(1, 2)]\nz = a[1, 2]\ns = 'a' 'b' f'{c}'\n",
    "if a: pass\nelif b: x = 1; y = 2\nelse:\n    if c:\n        pass\n",
    "try:\n    pass\nexcept (A, B) as e:\n    raise X from e\nelse:\n    pass\nfinally:\n    del a, b\n",
    "é = 'ü'; ß = f(é, k=ü)  # ö\nx = {**a, 'k': (v)}\nwith (open(p)) as f, g: pass\n",
    "async def f():\n    async for x in y:\n        await g(x)\n    async with a as b:\n        pass\n",
    "x = not a and b or c < d <= (e) is not f\ny = -(1) + ~2 ** 3 // 4 % 5\nx += 1; x @= y\n",
]


def _sources() -> list[tuple[str, str]]:
    return [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8")) for p in FILES] + [
        (f"odd{i}", text) for i, text in enumerate(ODD)
    ]


def _differences(text: str) -> list[str]:
    """Where kernlint.tree's tree differs from libcst's."""
    theirs = libcst.parse_module(text)
    positions = MetadataWrapper(theirs, unsafe_skip_copy=True).resolve(PositionProvider)
    starts = line_starts(text)
    ours = parse(text)
    problems: list[str] = []

    def offset(position: libcst.metadata.CodePosition) -> int:
        return starts[position.line - 1] + position.column

    def compare(a: cst.CSTNode, b: libcst.CSTNode, where: str) -> None:
        if type(a).__name__ != type(b).__name__:
            problems.append(f"{where}: {type(a).__name__}, libcst {type(b).__name__}")
            return
        if isinstance(a, cst.BaseOperator):
            return
        if b in positions and not isinstance(a, (cst.Module, *_LAYOUT_RANGES)):
            expected = (offset(positions[b].start), offset(positions[b].end))
            if (a.start, a.end) != expected:
                problems.append(f"{where}: at {a.start, a.end}, libcst {expected}")
        for text_field in _TEXTS.get(type(a).__name__, ()):
            if getattr(a, text_field) != getattr(b, text_field):
                problems.append(f"{where}.{text_field}: {getattr(a, text_field)!r}, libcst {getattr(b, text_field)!r}")
        for name in a.FIELDS:
            mine, other = getattr(a, name), getattr(b, name)
            if isinstance(other, libcst.MaybeSentinel):
                other = None
            if isinstance(mine, list) or isinstance(other, (list, tuple)):
                other = [o for o in other or () if not isinstance(o, libcst.FormattedStringText)]
                if len(mine or ()) != len(other):
                    problems.append(f"{where}.{name}: {len(mine or ())} nodes, libcst {len(other)}")
                    continue
                for index, (x, y) in enumerate(zip(mine or (), other)):
                    compare(x, y, f"{where}.{name}[{index}]")
            elif mine is None or other is None:
                if (mine is None) != (other is None):
                    problems.append(f"{where}.{name}: {mine!r:.40}, libcst {other!r:.40}")
            else:
                compare(mine, other, f"{where}.{name}")
        if isinstance(a, cst.BaseExpression) and not isinstance(a, cst.FormattedString):
            code = Positions(ours, text).code(a)
            if code != theirs.code_for_node(b):
                problems.append(f"{where}: code {code!r}, libcst {theirs.code_for_node(b)!r}")

    compare(ours, theirs, "Module")
    return problems


# libcst ranges of nodes that only hold layout around others (where its
# whitespace ends up), which no fact or finding reads.
_LAYOUT_RANGES = (cst.Parameters, cst.ParamStar, cst.CompFor, cst.CompIf, cst.FormattedStringExpression)
_TEXTS = {
    "Name": ("value",),
    "Integer": ("value",),
    "Float": ("value",),
    "Imaginary": ("value",),
    "SimpleString": ("value", "evaluated_value"),
    "Arg": ("star",),
    "Param": ("star",),
}


@pytest.mark.parametrize(("name", "text"), _sources(), ids=[name for name, _ in _sources()])
def test_the_tree_is_libcsts_in_shape_text_position_and_code(name: str, text: str) -> None:
    assert _differences(text) == []


def test_a_syntax_error_is_cpythons() -> None:
    with pytest.raises(SourceError) as caught:
        parse("def f(:\n")
    assert (caught.value.message, caught.value.line, caught.value.column) == (
        "syntax error: invalid syntax",
        1,
        7,
    )


def test_children_are_the_syntax_fields_in_order() -> None:
    call = parse("f(a, k=b)\n").body[0].body[0].value
    assert isinstance(call, cst.Call)
    assert children(call) == [call.func, *call.args]
    assert [type(c).__name__ for c in children(call.args[1])] == ["Name", "Name"]


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
    module = parse(text)
    method = next(n for n in walk(module) if isinstance(n, cst.FunctionDef))
    products = [n for n in walk(method) if isinstance(n, cst.BinaryOperation)]
    whole, order = Positions(module, text), SourceOrder(method)
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

    def visit_FunctionDef(self, node: cst.FunctionDef | libcst.FunctionDef) -> bool:
        self.events.append(("visit", node.name.value))
        return node.name.value != "skipped"

    def leave_FunctionDef(self, original_node: cst.FunctionDef | libcst.FunctionDef) -> None:
        self.events.append(("leave", original_node.name.value))

    def visit_Call(self, node: cst.Call | libcst.Call) -> None:
        func = node.func
        self.events.append(("call", func.value if isinstance(func, (cst.Name, libcst.Name)) else "?"))


class _LibcstRecorder(_Recorder, libcst.CSTVisitor):
    pass


def test_visit_calls_methods_as_libcst_does() -> None:
    text = "def a():\n    f(g(1))\n    def skipped():\n        h()\n    def b():\n        i()\nj()\n"
    ours, theirs = _Recorder(), _LibcstRecorder()
    visit(parse(text), ours)
    libcst.parse_module(text).visit(theirs)
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
