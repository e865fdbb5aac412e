"""A libcst-shaped syntax tree built from CPython's own parser.

The model and the rules read libcst's node classes and their syntax fields
(`Call.func`, `Arg.keyword`, `Subscript.slice`...). This module builds the
same shapes from `ast.parse`, which is ten times faster than libcst's parser
and needs no libcst import (a quarter of a second at start, issue 14):

- every class here is named as libcst's and has the fields of libcst's class
  that can hold syntax, in libcst's order (`FIELDS`); layout (whitespace,
  comments, brackets, commas) is not kept;
- leaves keep libcst's text: `Integer.value` and `SimpleString.value` are the
  source text of the literal, `Name.value` the identifier;
- every node with a place in the source has `start` and `end`, character
  offsets of the range libcst's PositionProvider gives it (a parenthesized
  expression without its parentheses, a statement without its leading
  lines); operators are shared instances with no place (-1, -1).

`tests/test_tree.py` checks the shapes, texts and positions against libcst's
on every fixture and library file.
"""

from __future__ import annotations

import ast
import re
import warnings
from typing import TYPE_CHECKING, Any, ClassVar

# Characters between tokens: blanks, line breaks and line continuations.
_LAYOUT = " \t\f\r\n\\"
# No brackets to stay inside (`with_parentheses`).
NO_BOUNDS = (-1, 1 << 62)


# -- node classes --------------------------------------------------------------


class CSTNode:
    """A node: its syntax fields (`FIELDS`: by default the class's own
    `__slots__`) and where it lies."""

    __slots__ = ("start", "end")
    FIELDS: ClassVar[tuple[str, ...]] = ()
    start: int
    end: int

    if TYPE_CHECKING:  # the constructor is generated per class below

        def __init__(self, *slots: Any) -> None: ...

    def __init_subclass__(cls) -> None:
        # A class's syntax fields are its own slots unless it says otherwise
        # (a class whose slots also hold texts, such as Name.value).
        if "FIELDS" not in cls.__dict__:
            cls.FIELDS = tuple(cls.__dict__.get("__slots__", ()))
        # A positional constructor for every slot: start, end, then the
        # class's fields and texts in declaration order (the builder's calls).
        slots = [slot for klass in reversed(cls.__mro__) for slot in klass.__dict__.get("__slots__", ())]
        body = "".join(f"\n    self.{slot} = {slot}" for slot in slots) or "\n    pass"
        namespace: dict[str, Any] = {}
        exec(f"def __init__(self, {', '.join(slots)}):{body}\n", namespace)  # noqa: S102 - from the slot names
        cls.__init__ = namespace["__init__"]  # type: ignore[method-assign]

    @classmethod
    def synthetic(cls, **fields: Any) -> Any:
        """A node the model makes itself (a name to look up, `end - start`),
        with no place in the source; fields not given are None."""
        node = cls.__new__(cls)
        node.start = node.end = -1
        for klass in cls.__mro__:
            for slot in klass.__dict__.get("__slots__", ()):
                if slot not in ("start", "end"):
                    setattr(node, slot, fields.pop(slot, None))
        if fields:
            raise TypeError(f"{cls.__name__} has no field {next(iter(fields))!r}")
        return node

    def __repr__(self) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{type(self).__name__}({inner})"


class BaseExpression(CSTNode):
    __slots__ = ()


class BaseStatement(CSTNode):
    __slots__ = ()


class BaseCompoundStatement(BaseStatement):
    __slots__ = ()


class BaseSmallStatement(CSTNode):
    __slots__ = ()


class BaseSuite(CSTNode):
    __slots__ = ()
    body: list[Any]


class BaseString(BaseExpression):
    __slots__ = ()


class BaseNumber(BaseExpression):
    __slots__ = ()


class BaseElement(CSTNode):
    __slots__ = ()
    value: BaseExpression


class BaseDictElement(CSTNode):
    __slots__ = ()
    value: BaseExpression


class BaseSlice(CSTNode):
    __slots__ = ()


class BaseOperator(CSTNode):
    """An operator: one shared instance per class, with no place of its own."""

    __slots__ = ()
    TOKEN: ClassVar[str] = ""


class BaseBinaryOp(BaseOperator):
    __slots__ = ()


class BaseUnaryOp(BaseOperator):
    __slots__ = ()


class BaseBooleanOp(BaseOperator):
    __slots__ = ()


class BaseCompOp(BaseOperator):
    __slots__ = ()


class BaseAugOp(BaseOperator):
    __slots__ = ()


class Module(CSTNode):
    __slots__ = ("body", "has_trailing_newline", "default_newline")
    FIELDS = ("body",)
    body: list[BaseStatement]
    has_trailing_newline: bool
    default_newline: str


class SimpleStatementLine(BaseStatement):
    __slots__ = ("body",)
    body: list[BaseSmallStatement]


class SimpleStatementSuite(BaseSuite):
    __slots__ = ("body",)
    body: list[BaseSmallStatement]


class IndentedBlock(BaseSuite):
    __slots__ = ("body",)
    body: list[BaseStatement]


class Expr(BaseSmallStatement):
    __slots__ = ("value",)
    value: BaseExpression


class Assign(BaseSmallStatement):
    __slots__ = ("targets", "value")
    targets: list[AssignTarget]
    value: BaseExpression


class AssignTarget(CSTNode):
    __slots__ = ("target",)
    target: BaseExpression


class AugAssign(BaseSmallStatement):
    __slots__ = ("target", "operator", "value")
    target: BaseExpression
    operator: BaseAugOp
    value: BaseExpression


class AnnAssign(BaseSmallStatement):
    __slots__ = ("target", "annotation", "value")
    target: BaseExpression
    annotation: Annotation
    value: BaseExpression | None


class Annotation(CSTNode):
    __slots__ = ("annotation",)
    annotation: BaseExpression


class Return(BaseSmallStatement):
    __slots__ = ("value",)
    value: BaseExpression | None


class Raise(BaseSmallStatement):
    __slots__ = ("exc", "cause")
    exc: BaseExpression | None
    cause: From | None


class From(CSTNode):
    __slots__ = ("item",)
    item: BaseExpression


class Assert(BaseSmallStatement):
    __slots__ = ("test", "msg")
    test: BaseExpression
    msg: BaseExpression | None


class Del(BaseSmallStatement):
    __slots__ = ("target",)
    target: BaseExpression


class Pass(BaseSmallStatement):
    __slots__ = ()


class Break(BaseSmallStatement):
    __slots__ = ()


class Continue(BaseSmallStatement):
    __slots__ = ()


class Global(BaseSmallStatement):
    __slots__ = ("names",)
    names: list[NameItem]


class Nonlocal(BaseSmallStatement):
    __slots__ = ("names",)
    names: list[NameItem]


class NameItem(CSTNode):
    __slots__ = ("name",)
    name: Name


class Import(BaseSmallStatement):
    __slots__ = ("names",)
    names: list[ImportAlias]


class ImportFrom(BaseSmallStatement):
    __slots__ = ("module", "names", "relative")
    FIELDS = ("module", "names")
    module: Name | Attribute | None
    names: list[ImportAlias] | ImportStar
    relative: tuple[int, ...]


class ImportAlias(CSTNode):
    __slots__ = ("name", "asname")
    name: Name | Attribute
    asname: AsName | None


class ImportStar(CSTNode):
    __slots__ = ()


class AsName(CSTNode):
    __slots__ = ("name",)
    name: BaseExpression


class TypeAlias(BaseSmallStatement):
    __slots__ = ("name", "value")
    name: BaseExpression
    value: BaseExpression


class If(BaseCompoundStatement):
    __slots__ = ("test", "body", "orelse")
    test: BaseExpression
    body: BaseSuite
    orelse: If | Else | None


class Else(CSTNode):
    __slots__ = ("body",)
    body: BaseSuite


class For(BaseCompoundStatement):
    __slots__ = ("asynchronous", "target", "iter", "body", "orelse")
    asynchronous: Asynchronous | None
    target: BaseExpression
    iter: BaseExpression
    body: BaseSuite
    orelse: Else | None


class While(BaseCompoundStatement):
    __slots__ = ("test", "body", "orelse")
    test: BaseExpression
    body: BaseSuite
    orelse: Else | None


class With(BaseCompoundStatement):
    __slots__ = ("asynchronous", "items", "body")
    asynchronous: Asynchronous | None
    items: list[WithItem]
    body: BaseSuite


class WithItem(CSTNode):
    __slots__ = ("item", "asname")
    item: BaseExpression
    asname: AsName | None


class Try(BaseCompoundStatement):
    __slots__ = ("body", "handlers", "orelse", "finalbody")
    body: BaseSuite
    handlers: list[ExceptHandler]
    orelse: Else | None
    finalbody: Finally | None


class TryStar(BaseCompoundStatement):
    __slots__ = ("body", "handlers", "orelse", "finalbody")
    body: BaseSuite
    handlers: list[ExceptStarHandler]
    orelse: Else | None
    finalbody: Finally | None


class ExceptHandler(CSTNode):
    __slots__ = ("type", "name", "body")
    type: BaseExpression | None
    name: AsName | None
    body: BaseSuite


class ExceptStarHandler(CSTNode):
    __slots__ = ("type", "name", "body")
    type: BaseExpression | None
    name: AsName | None
    body: BaseSuite


class Finally(CSTNode):
    __slots__ = ("body",)
    body: BaseSuite


class FunctionDef(BaseCompoundStatement):
    __slots__ = ("decorators", "asynchronous", "name", "params", "returns", "body")
    decorators: list[Decorator]
    asynchronous: Asynchronous | None
    name: Name
    params: Parameters
    returns: Annotation | None
    body: BaseSuite


class ClassDef(BaseCompoundStatement):
    __slots__ = ("decorators", "name", "bases", "keywords", "body")
    decorators: list[Decorator]
    name: Name
    bases: list[Arg]
    keywords: list[Arg]
    body: BaseSuite


class Decorator(CSTNode):
    __slots__ = ("decorator",)
    decorator: BaseExpression


class Asynchronous(CSTNode):
    __slots__ = ()


class Parameters(CSTNode):
    __slots__ = ("posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg")
    posonly_params: list[Param]
    params: list[Param]
    star_arg: Param | ParamStar | None
    kwonly_params: list[Param]
    star_kwarg: Param | None


class Param(CSTNode):
    __slots__ = ("name", "annotation", "default", "star")
    FIELDS = ("name", "annotation", "default")
    name: Name
    annotation: Annotation | None
    default: BaseExpression | None
    star: str


class ParamStar(CSTNode):
    __slots__ = ()


class Match(BaseCompoundStatement):
    __slots__ = ("subject", "cases")
    subject: BaseExpression
    cases: list[MatchCase]


class MatchCase(CSTNode):
    __slots__ = ("pattern", "guard", "body")
    pattern: MatchPattern
    guard: BaseExpression | None
    body: BaseSuite


class MatchPattern(CSTNode):
    __slots__ = ()


class Name(BaseExpression):
    __slots__ = ("value",)
    FIELDS = ()
    value: str


class Attribute(BaseExpression):
    __slots__ = ("value", "attr")
    value: BaseExpression
    attr: Name


class Call(BaseExpression):
    __slots__ = ("func", "args")
    func: BaseExpression
    args: list[Arg]


class Arg(CSTNode):
    __slots__ = ("keyword", "value", "star")
    FIELDS = ("keyword", "value")
    keyword: Name | None
    value: BaseExpression
    star: str


class Subscript(BaseExpression):
    __slots__ = ("value", "slice")
    value: BaseExpression
    slice: list[SubscriptElement]


class SubscriptElement(CSTNode):
    __slots__ = ("slice",)
    slice: Index | Slice


class Index(BaseSlice):
    __slots__ = ("value", "star")
    FIELDS = ("value",)
    value: BaseExpression
    star: str | None


class Slice(BaseSlice):
    __slots__ = ("lower", "upper", "step")
    lower: BaseExpression | None
    upper: BaseExpression | None
    step: BaseExpression | None


class BinaryOperation(BaseExpression):
    __slots__ = ("left", "operator", "right")
    left: BaseExpression
    operator: BaseBinaryOp
    right: BaseExpression


class UnaryOperation(BaseExpression):
    __slots__ = ("operator", "expression")
    operator: BaseUnaryOp
    expression: BaseExpression


class BooleanOperation(BaseExpression):
    __slots__ = ("left", "operator", "right")
    left: BaseExpression
    operator: BaseBooleanOp
    right: BaseExpression


class Comparison(BaseExpression):
    __slots__ = ("left", "comparisons")
    left: BaseExpression
    comparisons: list[ComparisonTarget]


class ComparisonTarget(CSTNode):
    __slots__ = ("operator", "comparator")
    operator: BaseCompOp
    comparator: BaseExpression


class IfExp(BaseExpression):
    __slots__ = ("body", "test", "orelse")
    body: BaseExpression
    test: BaseExpression
    orelse: BaseExpression


class Lambda(BaseExpression):
    __slots__ = ("params", "body")
    params: Parameters
    body: BaseExpression


class NamedExpr(BaseExpression):
    __slots__ = ("target", "value")
    target: BaseExpression
    value: BaseExpression


class Await(BaseExpression):
    __slots__ = ("expression",)
    expression: BaseExpression


class Yield(BaseExpression):
    __slots__ = ("value",)
    value: BaseExpression | From | None


class Integer(BaseNumber):
    __slots__ = ("value",)
    FIELDS = ()
    value: str


class Float(BaseNumber):
    __slots__ = ("value",)
    FIELDS = ()
    value: str


class Imaginary(BaseNumber):
    __slots__ = ("value",)
    FIELDS = ()
    value: str


class SimpleString(BaseString):
    __slots__ = ("value", "evaluated_value")
    FIELDS = ()
    value: str
    evaluated_value: Any


class ConcatenatedString(BaseString):
    __slots__ = ("left", "right", "evaluated_value")
    FIELDS = ("left", "right")
    left: BaseString
    right: BaseString
    evaluated_value: Any


class FormattedString(BaseString):
    __slots__ = ("parts",)
    parts: list[FormattedStringExpression]


class FormattedStringExpression(CSTNode):
    __slots__ = ("expression", "format_spec")
    expression: BaseExpression
    format_spec: list[FormattedStringExpression]


class Ellipsis(BaseExpression):
    __slots__ = ()


class Tuple(BaseExpression):
    __slots__ = ("elements",)
    elements: list[BaseElement]


class List(BaseExpression):
    __slots__ = ("elements",)
    elements: list[BaseElement]


class Set(BaseExpression):
    __slots__ = ("elements",)
    elements: list[BaseElement]


class Dict(BaseExpression):
    __slots__ = ("elements",)
    elements: list[BaseDictElement]


class Element(BaseElement):
    __slots__ = ("value",)
    value: BaseExpression


class StarredElement(BaseElement):
    __slots__ = ("value",)
    value: BaseExpression


class DictElement(BaseDictElement):
    __slots__ = ("key", "value")
    key: BaseExpression
    value: BaseExpression


class StarredDictElement(BaseDictElement):
    __slots__ = ("value",)
    value: BaseExpression


class ListComp(BaseExpression):
    __slots__ = ("elt", "for_in")
    elt: BaseExpression
    for_in: CompFor


class SetComp(BaseExpression):
    __slots__ = ("elt", "for_in")
    elt: BaseExpression
    for_in: CompFor


class GeneratorExp(BaseExpression):
    __slots__ = ("elt", "for_in")
    elt: BaseExpression
    for_in: CompFor


class DictComp(BaseExpression):
    __slots__ = ("key", "value", "for_in")
    key: BaseExpression
    value: Any
    for_in: CompFor


class CompFor(CSTNode):
    __slots__ = ("asynchronous", "target", "iter", "ifs", "inner_for_in")
    asynchronous: Asynchronous | None
    target: BaseExpression
    iter: BaseExpression
    ifs: list[CompIf]
    inner_for_in: CompFor | None


class CompIf(CSTNode):
    __slots__ = ("test",)
    test: BaseExpression


class Add(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "+"


class Subtract(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "-"


class Multiply(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "*"


class Divide(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "/"


class FloorDivide(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "//"


class Modulo(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "%"


class Power(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "**"


class MatrixMultiply(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "@"


class LeftShift(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "<<"


class RightShift(BaseBinaryOp):
    __slots__ = ()
    TOKEN = ">>"


class BitAnd(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "&"


class BitOr(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "|"


class BitXor(BaseBinaryOp):
    __slots__ = ()
    TOKEN = "^"


class AddAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "+="


class SubtractAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "-="


class MultiplyAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "*="


class DivideAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "/="


class FloorDivideAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "//="


class ModuloAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "%="


class PowerAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "**="


class MatrixMultiplyAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "@="


class LeftShiftAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "<<="


class RightShiftAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = ">>="


class BitAndAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "&="


class BitOrAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "|="


class BitXorAssign(BaseAugOp):
    __slots__ = ()
    TOKEN = "^="


class Minus(BaseUnaryOp):
    __slots__ = ()
    TOKEN = "-"


class Plus(BaseUnaryOp):
    __slots__ = ()
    TOKEN = "+"


class Not(BaseUnaryOp):
    __slots__ = ()
    TOKEN = "not"


class BitInvert(BaseUnaryOp):
    __slots__ = ()
    TOKEN = "~"


class And(BaseBooleanOp):
    __slots__ = ()
    TOKEN = "and"


class Or(BaseBooleanOp):
    __slots__ = ()
    TOKEN = "or"


class Equal(BaseCompOp):
    __slots__ = ()
    TOKEN = "=="


class NotEqual(BaseCompOp):
    __slots__ = ()
    TOKEN = "!="


class LessThan(BaseCompOp):
    __slots__ = ()
    TOKEN = "<"


class LessThanEqual(BaseCompOp):
    __slots__ = ()
    TOKEN = "<="


class GreaterThan(BaseCompOp):
    __slots__ = ()
    TOKEN = ">"


class GreaterThanEqual(BaseCompOp):
    __slots__ = ()
    TOKEN = ">="


class Is(BaseCompOp):
    __slots__ = ()
    TOKEN = "is"


class IsNot(BaseCompOp):
    __slots__ = ()
    TOKEN = "is not"


class In(BaseCompOp):
    __slots__ = ()
    TOKEN = "in"


class NotIn(BaseCompOp):
    __slots__ = ()
    TOKEN = "not in"


_BINARY: dict[type, BaseBinaryOp] = {
    ast.Add: Add(-1, -1),
    ast.Sub: Subtract(-1, -1),
    ast.Mult: Multiply(-1, -1),
    ast.Div: Divide(-1, -1),
    ast.FloorDiv: FloorDivide(-1, -1),
    ast.Mod: Modulo(-1, -1),
    ast.Pow: Power(-1, -1),
    ast.MatMult: MatrixMultiply(-1, -1),
    ast.LShift: LeftShift(-1, -1),
    ast.RShift: RightShift(-1, -1),
    ast.BitAnd: BitAnd(-1, -1),
    ast.BitOr: BitOr(-1, -1),
    ast.BitXor: BitXor(-1, -1),
}
SUBTRACT = _BINARY[ast.Sub]
_AUGMENTED: dict[type, BaseAugOp] = {
    ast.Add: AddAssign(-1, -1),
    ast.Sub: SubtractAssign(-1, -1),
    ast.Mult: MultiplyAssign(-1, -1),
    ast.Div: DivideAssign(-1, -1),
    ast.FloorDiv: FloorDivideAssign(-1, -1),
    ast.Mod: ModuloAssign(-1, -1),
    ast.Pow: PowerAssign(-1, -1),
    ast.MatMult: MatrixMultiplyAssign(-1, -1),
    ast.LShift: LeftShiftAssign(-1, -1),
    ast.RShift: RightShiftAssign(-1, -1),
    ast.BitAnd: BitAndAssign(-1, -1),
    ast.BitOr: BitOrAssign(-1, -1),
    ast.BitXor: BitXorAssign(-1, -1),
}
_UNARY: dict[type, BaseUnaryOp] = {
    ast.USub: Minus(-1, -1),
    ast.UAdd: Plus(-1, -1),
    ast.Not: Not(-1, -1),
    ast.Invert: BitInvert(-1, -1),
}
_BOOLEAN: dict[type, BaseBooleanOp] = {
    ast.And: And(-1, -1),
    ast.Or: Or(-1, -1),
}
_COMPARE: dict[type, BaseCompOp] = {
    ast.Eq: Equal(-1, -1),
    ast.NotEq: NotEqual(-1, -1),
    ast.Lt: LessThan(-1, -1),
    ast.LtE: LessThanEqual(-1, -1),
    ast.Gt: GreaterThan(-1, -1),
    ast.GtE: GreaterThanEqual(-1, -1),
    ast.Is: Is(-1, -1),
    ast.IsNot: IsNot(-1, -1),
    ast.In: In(-1, -1),
    ast.NotIn: NotIn(-1, -1),
}


# -- building ------------------------------------------------------------------


def parse_tree(text: str) -> Any:
    """The tree of `text`; SyntaxError (and RecursionError, MemoryError,
    ValueError) from CPython's parser as they come."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = ast.parse(text)
    return _Builder(text).module(module)


class _Builder:
    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.ascii = text.isascii()
        self.lines = text.splitlines(keepends=True) if not self.ascii else []
        expression = {
            ast.Name: self.name,
            ast.Attribute: self.attribute,
            ast.Call: self.call,
            ast.Subscript: self.subscript,
            ast.BinOp: self.binary,
            ast.UnaryOp: self.unary,
            ast.BoolOp: self.boolean,
            ast.Compare: self.compare,
            ast.IfExp: self.if_expression,
            ast.Lambda: self.lambda_,
            ast.NamedExpr: self.named,
            ast.Await: self.await_,
            ast.Yield: self.yield_,
            ast.YieldFrom: self.yield_from,
            ast.Constant: self.constant,
            ast.JoinedStr: self.joined,
            ast.Tuple: self.tuple_,
            ast.List: self.list_,
            ast.Set: self.set_,
            ast.Dict: self.dict_,
            ast.ListComp: self.comprehension,
            ast.SetComp: self.comprehension,
            ast.GeneratorExp: self.comprehension,
            ast.DictComp: self.dict_comprehension,
            ast.Starred: self.starred,
            ast.Slice: self.slice_,
        }
        statement = {
            ast.FunctionDef: self.function,
            ast.AsyncFunctionDef: self.function,
            ast.ClassDef: self.class_,
            ast.If: self.if_,
            ast.For: self.for_,
            ast.AsyncFor: self.for_,
            ast.While: self.while_,
            ast.With: self.with_,
            ast.AsyncWith: self.with_,
            ast.Try: self.try_,
            ast.Match: self.match,
        }
        if hasattr(ast, "TryStar"):
            statement[ast.TryStar] = self.try_
        small = {
            ast.Expr: self.expr_statement,
            ast.Assign: self.assign,
            ast.AugAssign: self.augmented,
            ast.AnnAssign: self.annotated,
            ast.Return: self.return_,
            ast.Raise: self.raise_,
            ast.Assert: self.assert_,
            ast.Delete: self.delete,
            ast.Pass: self.keyword_statement,
            ast.Break: self.keyword_statement,
            ast.Continue: self.keyword_statement,
            ast.Global: self.global_,
            ast.Nonlocal: self.global_,
            ast.Import: self.import_,
            ast.ImportFrom: self.import_from,
        }
        if hasattr(ast, "TypeAlias"):
            small[ast.TypeAlias] = self.type_alias
        self.expressions: dict[type, Any] = expression
        self.compound: dict[type, Any] = statement
        self.small: dict[type, Any] = small

    # positions

    def offset(self, line: int, column: int) -> int:
        """Character offset of ast's (line, UTF-8 byte column)."""
        if self.ascii:
            return self.starts[line - 1] + column
        text = self.lines[line - 1] if line - 1 < len(self.lines) else ""
        return self.starts[line - 1] + len(text.encode("utf-8")[:column].decode("utf-8", "replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (
            self.offset(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            self.offset(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def skip_back(self, offset: int) -> int:
        return skip_layout_back(self.text, offset)

    def skip_ahead(self, offset: int) -> int:
        return skip_layout_ahead(self.text, offset)

    def wrapped(self, start: int, end: int) -> bool:
        """Whether text[start] is a "(" that the ")" at text[end - 1] closes
        (a tuple or generator's own parentheses, which ast includes)."""
        return self.text[start] == "(" and self.text[end - 1] == ")" and closing_bracket(self.text, start) == end - 1

    # module and statements

    def module(self, node: ast.Module) -> Any:
        text = self.text
        newline = "\r\n" if "\r\n" in text else ("\r" if "\r" in text and "\n" not in text else "\n")
        body = self.statements(node.body)
        return Module(0, len(text), body, text.endswith(("\n", "\r")), newline)

    def statements(self, nodes: list[ast.stmt]) -> list[Any]:
        """Statements grouped as libcst groups them: simple statements of one
        logical line (`a = 1; b = 2`) form one SimpleStatementLine."""
        found: list[Any] = []
        line: list[Any] = []
        compound = self.compound
        for node in nodes:
            kind = type(node)
            if kind in compound:
                if line:
                    found.append(self.simple_line(line))
                    line = []
                found.append(compound[kind](node))
                continue
            small = self.small[kind](node)
            if line and not self.starts_line(small.start):
                line.append(small)
            else:
                if line:
                    found.append(self.simple_line(line))
                line = [small]
        if line:
            found.append(self.simple_line(line))
        return found

    def starts_line(self, offset: int) -> bool:
        """Whether only indentation precedes `offset` on its line."""
        text = self.text
        index = offset
        while index > 0 and text[index - 1] in " \t\f":
            index -= 1
        return index == 0 or text[index - 1] in "\r\n"

    def simple_line(self, body: list[Any]) -> Any:
        return SimpleStatementLine(body[0].start, self.line_end(body[-1].end), body)

    def line_end(self, offset: int) -> int:
        """End of a simple statement line: past a trailing `;`, not its comment."""
        text = self.text
        index = offset
        while index < len(text) and text[index] in " \t\f":
            index += 1
        if index < len(text) and text[index] == ";":
            return index + 1
        return offset

    def suite(self, nodes: list[ast.stmt]) -> Any:
        """A compound statement's body: an IndentedBlock, or a
        SimpleStatementSuite when it follows the colon on the same line."""
        body = self.statements(nodes)
        first = body[0]
        if self.starts_line(first.start):
            return IndentedBlock(first.start, body[-1].end, body)
        small = [part for line in body for part in (line.body if type(line) is SimpleStatementLine else [line])]
        return SimpleStatementSuite(first.start, small[-1].end, small)

    def else_(self, nodes: list[ast.stmt], keyword: str, after: int) -> Any:
        """An `else:` (or `finally:`) clause: from its keyword to its body's end."""
        if not nodes:
            return None
        body = self.suite(nodes)
        start = self.text.rfind(keyword, after, body.start)
        return (Else if keyword == "else" else Finally)(start, body.end, body)

    def compound_end(self, body: Any, *clauses: Any) -> int:
        for clause in reversed(clauses):
            if clause is not None:
                return clause.end
        return body.end

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> Any:
        start, _ = self.span(node)
        decorators = [self.decorator(d) for d in node.decorator_list]
        asynchronous = Asynchronous(start, start + 5) if isinstance(node, ast.AsyncFunctionDef) else None
        def_at = self.text.index("def", start + 5 if asynchronous else start)
        name_at = self.skip_ahead(def_at + 3)
        name = Name(name_at, name_at + len(node.name), node.name)
        params = self.parameters(node.args, name.end)
        returns = self.annotation(node.returns)
        body = self.suite(node.body)
        return FunctionDef(start, body.end, decorators, asynchronous, name, params, returns, body)

    def decorator(self, node: ast.expr) -> Any:
        expression = self.expression(node)
        at = self.text.rfind("@", 0, expression.start)
        return Decorator(at, self.parenthesized(expression)[1], expression)

    def annotation(self, node: ast.expr | None) -> Any:
        if node is None:
            return None
        expression = self.expression(node)
        return Annotation(*self.parenthesized(expression), expression)

    def parameters(self, node: ast.arguments, after: int) -> Any:
        defaults = [None] * (len(node.posonlyargs) + len(node.args) - len(node.defaults)) + list(node.defaults)
        positional = [self.param(a, d) for a, d in zip([*node.posonlyargs, *node.args], defaults)]
        posonly, params = positional[: len(node.posonlyargs)], positional[len(node.posonlyargs) :]
        star_arg: Any = None
        if node.vararg is not None:
            star_arg = self.param(node.vararg, None, "*")
        elif node.kwonlyargs:
            star_at = self.text.find("*", after)
            star_arg = ParamStar(star_at, star_at + 1)
        kwonly = [self.param(a, d) for a, d in zip(node.kwonlyargs, node.kw_defaults)]
        star_kwarg = self.param(node.kwarg, None, "**") if node.kwarg is not None else None
        every = [*posonly, *params, *([star_arg] if star_arg else []), *kwonly, *([star_kwarg] if star_kwarg else [])]
        start = every[0].start if every else self.text.index("(", after) + 1
        end = every[-1].end if every else start
        return Parameters(start, end, posonly, params, star_arg, kwonly, star_kwarg)

    def param(self, node: ast.arg, default: ast.expr | None, star: str = "") -> Any:
        start, end = self.span(node)
        name = Name(start, start + len(node.arg), node.arg)
        annotation = self.annotation(node.annotation)
        value = self.expression(default) if default is not None else None
        # libcst's range of a parameter is its star and name only.
        return Param(self.text.rfind(star, 0, start) if star else start, name.end, name, annotation, value, star)

    def class_(self, node: ast.ClassDef) -> Any:
        start, _ = self.span(node)
        decorators = [self.decorator(d) for d in node.decorator_list]
        name_at = self.skip_ahead(self.text.index("class", start) + 5)
        name = Name(name_at, name_at + len(node.name), node.name)
        bases: list[Any] = []
        keywords: list[Any] = []
        if node.bases or node.keywords:
            opening = self.text.index("(", name.end)
            brackets = (opening, closing_bracket(self.text, opening))
            bases = [self.argument(b, brackets) for b in node.bases]
            keywords = [self.keyword_argument(k, brackets) for k in node.keywords]
        body = self.suite(node.body)
        return ClassDef(start, body.end, decorators, name, bases, keywords, body)

    def if_(self, node: ast.If) -> Any:
        start, _ = self.span(node)
        test = self.expression(node.test)
        body = self.suite(node.body)
        orelse: Any = None
        if node.orelse:
            first = node.orelse[0]
            if (
                len(node.orelse) == 1
                and type(first) is ast.If
                and self.text.startswith("elif", self.offset(first.lineno, first.col_offset))
            ):
                orelse = self.if_(first)
            else:
                orelse = self.else_(node.orelse, "else", body.end)
        return If(start, self.compound_end(body, orelse), test, body, orelse)

    def for_(self, node: ast.For | ast.AsyncFor) -> Any:
        start, _ = self.span(node)
        asynchronous = Asynchronous(start, start + 5) if isinstance(node, ast.AsyncFor) else None
        target, iterable = self.expression(node.target), self.expression(node.iter)
        body = self.suite(node.body)
        orelse = self.else_(node.orelse, "else", body.end)
        return For(start, self.compound_end(body, orelse), asynchronous, target, iterable, body, orelse)

    def while_(self, node: ast.While) -> Any:
        start, _ = self.span(node)
        test = self.expression(node.test)
        body = self.suite(node.body)
        orelse = self.else_(node.orelse, "else", body.end)
        return While(start, self.compound_end(body, orelse), test, body, orelse)

    def with_(self, node: ast.With | ast.AsyncWith) -> Any:
        start, _ = self.span(node)
        asynchronous = Asynchronous(start, start + 5) if isinstance(node, ast.AsyncWith) else None
        items = []
        for item in node.items:
            expression = self.expression(item.context_expr)
            asname = None
            end = expression.end
            if item.optional_vars is not None:
                target = self.expression(item.optional_vars)
                at = self.text.rfind("as", expression.end, target.start)
                asname = AsName(self.skip_back(at), target.end, target)
                end = target.end
            items.append(WithItem(self.parenthesized(expression)[0], end, expression, asname))
        body = self.suite(node.body)
        return With(start, body.end, asynchronous, items, body)

    def try_(self, node: Any) -> Any:
        start, _ = self.span(node)
        body = self.suite(node.body)
        star = type(node) is not ast.Try
        handlers = []
        for handler in node.handlers:
            handler_start, _ = self.span(handler)
            kind = self.expression(handler.type) if handler.type is not None else None
            name = None
            if handler.name is not None:
                name_at = self.text.index(handler.name, kind.end if kind is not None else handler_start)
                at = self.text.rfind("as", handler_start, name_at)
                name = AsName(
                    self.skip_back(at),
                    name_at + len(handler.name),
                    Name(name_at, name_at + len(handler.name), handler.name),
                )
            handler_body = self.suite(handler.body)
            handlers.append(
                (ExceptStarHandler if star else ExceptHandler)(
                    handler_start, handler_body.end, kind, name, handler_body
                )
            )
        last = handlers[-1].end if handlers else body.end
        orelse = self.else_(node.orelse, "else", last)
        finalbody = self.else_(node.finalbody, "finally", orelse.end if orelse is not None else last)
        end = self.compound_end(body, *handlers, orelse, finalbody)
        return (TryStar if star else Try)(start, end, body, handlers, orelse, finalbody)

    def match(self, node: ast.Match) -> Any:
        start, end = self.span(node)
        subject = self.expression(node.subject)
        cases = []
        for case in node.cases:
            pattern_start, pattern_end = self.span(case.pattern)
            guard = self.expression(case.guard) if case.guard is not None else None
            body = self.suite(case.body)
            cases.append(MatchCase(pattern_start, body.end, MatchPattern(pattern_start, pattern_end), guard, body))
        return Match(start, end, subject, cases)

    # simple statements

    def expr_statement(self, node: ast.Expr) -> Any:
        value = self.expression(node.value)
        start, end = self.parenthesized(value)
        return Expr(start, end, value)

    def assign(self, node: ast.Assign) -> Any:
        start, end = self.span(node)
        targets = []
        for target in node.targets:
            expression = self.expression(target)
            targets.append(AssignTarget(*self.parenthesized(expression), expression))
        return Assign(start, end, targets, self.expression(node.value))

    def augmented(self, node: ast.AugAssign) -> Any:
        start, end = self.span(node)
        return AugAssign(
            start, end, self.expression(node.target), _AUGMENTED[type(node.op)], self.expression(node.value)
        )

    def annotated(self, node: ast.AnnAssign) -> Any:
        start, end = self.span(node)
        target = self.expression(node.target)
        annotation = self.expression(node.annotation)
        value = self.expression(node.value) if node.value is not None else None
        return AnnAssign(start, end, target, Annotation(*self.parenthesized(annotation), annotation), value)

    def return_(self, node: ast.Return) -> Any:
        start, end = self.span(node)
        return Return(start, end, self.expression(node.value) if node.value is not None else None)

    def raise_(self, node: ast.Raise) -> Any:
        start, end = self.span(node)
        exc = self.expression(node.exc) if node.exc is not None else None
        cause = None
        if node.cause is not None:
            item = self.expression(node.cause)
            cause = From(self.text.rfind("from", 0, item.start), item.end, item)
        return Raise(start, end, exc, cause)

    def assert_(self, node: ast.Assert) -> Any:
        start, end = self.span(node)
        msg = self.expression(node.msg) if node.msg is not None else None
        return Assert(start, end, self.expression(node.test), msg)

    def delete(self, node: ast.Delete) -> Any:
        start, end = self.span(node)
        targets = [self.expression(t) for t in node.targets]
        target = targets[0] if len(targets) == 1 else self._elements(Tuple, targets[0].start, targets[-1].end, targets)
        return Del(start, end, target)

    def keyword_statement(self, node: ast.stmt) -> Any:
        start, end = self.span(node)
        return {ast.Pass: Pass, ast.Break: Break, ast.Continue: Continue}[type(node)](start, end)

    def global_(self, node: ast.Global | ast.Nonlocal) -> Any:
        start, end = self.span(node)
        names = []
        at = start + (6 if type(node) is ast.Global else 8)
        for name in node.names:
            at = self.text.index(name, at)
            names.append(NameItem(at, at + len(name), Name(at, at + len(name), name)))
            at += len(name)
        return (Global if type(node) is ast.Global else Nonlocal)(start, end, names)

    def import_(self, node: ast.Import) -> Any:
        start, end = self.span(node)
        return Import(start, end, self.aliases(node.names, start + 6))

    def import_from(self, node: ast.ImportFrom) -> Any:
        start, end = self.span(node)
        at = start + 4
        module = None
        if node.module is not None:
            at = self.text.index(node.module.split(".")[0], self.skip_ahead(at) + node.level)
            module, at = self.dotted_name(node.module, at)
        import_at = self.text.index("import", at)
        if len(node.names) == 1 and node.names[0].name == "*":
            star = self.text.index("*", import_at)
            names: Any = ImportStar(star, star + 1)
        else:
            names = self.aliases(node.names, import_at + 6)
        result = ImportFrom(start, end, module, names, tuple(range(node.level)))
        return result

    def aliases(self, nodes: list[ast.alias], at: int) -> list[Any]:
        found = []
        for alias in nodes:
            start, end = self.span(alias)
            name, _ = self.dotted_name(alias.name, start)
            asname = None
            if alias.asname is not None:
                name_at = end - len(alias.asname)
                asname = AsName(self.skip_back(name.end), end, Name(name_at, end, alias.asname))
            found.append(ImportAlias(start, end, name, asname))
        return found

    def dotted_name(self, dotted: str, at: int) -> tuple[Any, int]:
        """`a.b.c` starting at `at` as Attribute(Attribute(Name a, b), c)."""
        node: Any = None
        for part in dotted.split("."):
            at = self.text.index(part, at)
            name = Name(at, at + len(part), part)
            node = name if node is None else Attribute(node.start, name.end, node, name)
            at += len(part)
        return node, at

    def type_alias(self, node: Any) -> Any:
        start, end = self.span(node)
        return TypeAlias(start, end, self.expression(node.name), self.expression(node.value))

    # expressions

    def expression(self, node: ast.expr) -> Any:
        return self.expressions[type(node)](node)

    def name(self, node: ast.Name) -> Any:
        start, end = self.span(node)
        return Name(start, end, node.id)

    def attribute(self, node: ast.Attribute) -> Any:
        start, end = self.span(node)
        return Attribute(start, end, self.expression(node.value), Name(end - len(node.attr), end, node.attr))

    def call(self, node: ast.Call) -> Any:
        start, end = self.span(node)
        func = self.expression(node.func)
        brackets = (self.skip_ahead(self.parenthesized(func, (start - 1, end))[1]), end - 1)
        arguments = [self.argument(a, brackets) for a in node.args]
        if node.keywords:
            arguments += [self.keyword_argument(k, brackets) for k in node.keywords]
            arguments.sort(key=_start)
        return Call(start, end, func, arguments)

    def argument(self, node: ast.expr, brackets: tuple[int, int]) -> Any:
        if type(node) is ast.Starred:
            start, end = self.span(node)
            return Arg(start, end, None, self.expression(node.value), "*")
        value = self.expression(node)
        start, end = self.parenthesized(value, brackets)
        return Arg(start, end, None, value, "")

    def keyword_argument(self, node: ast.keyword, brackets: tuple[int, int]) -> Any:
        start, _ = self.span(node)
        value = self.expression(node.value)
        end = self.parenthesized(value, brackets)[1]
        if node.arg is None:
            return Arg(start, end, None, value, "**")
        return Arg(start, end, Name(start, start + len(node.arg), node.arg), value, "")

    def subscript(self, node: ast.Subscript) -> Any:
        start, end = self.span(node)
        value = self.expression(node.value)
        index = node.slice
        if type(index) is ast.Tuple:
            tuple_start, tuple_end = self.span(index)
            if not self.wrapped(tuple_start, tuple_end) and index.elts:
                return Subscript(start, end, value, [self.subscript_element(e) for e in index.elts])
        return Subscript(start, end, value, [self.subscript_element(index)])

    def subscript_element(self, node: ast.expr) -> Any:
        if type(node) is ast.Slice:
            part = self.slice_(node)
        elif type(node) is ast.Starred:
            start, end = self.span(node)
            part = Index(start, end, self.expression(node.value), "*")
        else:
            inner = self.expression(node)
            start, end = self.parenthesized(inner)
            part = Index(start, end, inner, None)
        return SubscriptElement(part.start, part.end, part)

    def parenthesized(self, node: Any, inside: tuple[int, int] = NO_BOUNDS) -> tuple[int, int]:
        """The range of an expression with its own parentheses around it
        (see `with_parentheses`)."""
        return with_parentheses(self.text, node.start, node.end, inside)

    def slice_(self, node: ast.Slice) -> Any:
        start, end = self.span(node)
        lower = self.expression(node.lower) if node.lower is not None else None
        upper = self.expression(node.upper) if node.upper is not None else None
        step = self.expression(node.step) if node.step is not None else None
        return Slice(start, end, lower, upper, step)

    def binary(self, node: ast.BinOp) -> Any:
        start, end = self.span(node)
        return BinaryOperation(
            start, end, self.expression(node.left), _BINARY[type(node.op)], self.expression(node.right)
        )

    def unary(self, node: ast.UnaryOp) -> Any:
        start, end = self.span(node)
        return UnaryOperation(start, end, _UNARY[type(node.op)], self.expression(node.operand))

    def boolean(self, node: ast.BoolOp) -> Any:
        # `a and b and c` is (a and b) and c in libcst; every level starts
        # where the whole does.
        start, _ = self.span(node)
        operator = _BOOLEAN[type(node.op)]
        values = [self.expression(v) for v in node.values]
        result = values[0]
        for value in values[1:]:
            result = BooleanOperation(start, self.parenthesized(value)[1], result, operator, value)
        return result

    def compare(self, node: ast.Compare) -> Any:
        start, end = self.span(node)
        left = self.expression(node.left)
        targets = []
        previous = left
        for op, comparator in zip(node.ops, node.comparators):
            value = self.expression(comparator)
            start_at = self.parenthesized(previous)[1]
            targets.append(ComparisonTarget(start_at, self.parenthesized(value)[1], _COMPARE[type(op)], value))
            previous = value
        return Comparison(start, end, left, targets)

    def if_expression(self, node: ast.IfExp) -> Any:
        start, end = self.span(node)
        return IfExp(start, end, self.expression(node.body), self.expression(node.test), self.expression(node.orelse))

    def lambda_(self, node: ast.Lambda) -> Any:
        start, end = self.span(node)
        params = self.parameters(node.args, start + 6)
        return Lambda(start, end, params, self.expression(node.body))

    def named(self, node: ast.NamedExpr) -> Any:
        start, end = self.span(node)
        return NamedExpr(start, end, self.expression(node.target), self.expression(node.value))

    def await_(self, node: ast.Await) -> Any:
        start, end = self.span(node)
        return Await(start, end, self.expression(node.value))

    def yield_(self, node: ast.Yield) -> Any:
        start, end = self.span(node)
        return Yield(start, end, self.expression(node.value) if node.value is not None else None)

    def yield_from(self, node: ast.YieldFrom) -> Any:
        start, end = self.span(node)
        item = self.expression(node.value)
        return Yield(start, end, From(self.text.index("from", start), item.end, item))

    def constant(self, node: ast.Constant) -> Any:
        start, end = self.span(node)
        value = node.value
        kind = type(value)
        if kind is str or kind is bytes:
            return self.strings(start, end, value)
        if value is None or kind is bool:
            return Name(start, end, str(value))
        if value is ...:
            return Ellipsis(start, end)
        text = self.text[start:end]
        if kind is int:
            return Integer(start, end, text)
        if kind is float:
            return Float(start, end, text)
        return Imaginary(start, end, text)

    def strings(self, start: int, end: int, value: object) -> Any:
        """A string literal, or libcst's ConcatenatedString for `"a" "b"`."""
        pieces = self.string_pieces(start, end)
        if len(pieces) == 1:
            return SimpleString(start, end, self.text[start:end], value)
        nodes = [SimpleString(s, e, self.text[s:e], _literal(self.text[s:e])) for s, e in pieces]
        result: Any = nodes[-1]
        for node in reversed(nodes[:-1]):
            result = ConcatenatedString(node.start, result.end, node, result, None)
        result.evaluated_value = value
        return result

    def string_pieces(self, start: int, end: int) -> list[tuple[int, int]]:
        text = self.text
        pieces = []
        index = start
        while index < end:
            index = self.skip_ahead(index)
            if index >= end:
                break
            piece = index
            while text[index] not in "'\"":
                index += 1
            index = _string_end(self.text, index)
            pieces.append((piece, index))
        return pieces

    def joined(self, node: ast.JoinedStr) -> Any:
        """An f-string: its replacement fields, each with its expression
        (the literal text between them is not kept). `f"a" "b{x}"` is a
        ConcatenatedString of its pieces, as in libcst."""
        start, end = self.span(node)
        fields = [self.formatted(value) for value in node.values if type(value) is ast.FormattedValue]
        pieces = self.string_pieces(start, end)
        if len(pieces) == 1:
            return FormattedString(start, end, fields)
        nodes: list[Any] = []
        for piece_start, piece_end in pieces:
            text = self.text[piece_start:piece_end]
            prefix = text[: len(text) - len(text.lstrip("rRbBuUfF"))]
            if "f" in prefix or "F" in prefix:
                inside = [f for f in fields if piece_start <= f.start < piece_end]
                nodes.append(FormattedString(piece_start, piece_end, inside))
            else:
                nodes.append(SimpleString(piece_start, piece_end, text, _literal(text)))
        result: Any = nodes[-1]
        for piece in reversed(nodes[:-1]):
            result = ConcatenatedString(piece.start, result.end, piece, result, None)
        return result

    def formatted(self, node: ast.FormattedValue) -> Any:
        expression = self.expression(node.value)
        spec = []
        if node.format_spec is not None:
            spec = [self.formatted(v) for v in node.format_spec.values if type(v) is ast.FormattedValue]  # type: ignore[attr-defined]
        return FormattedStringExpression(expression.start, expression.end, expression, spec)

    def _elements(self, kind: Any, start: int, end: int, values: list[Any]) -> Any:
        return kind(start, end, [Element(v.start, v.end, v) for v in values])

    def element(self, node: ast.expr) -> Any:
        if type(node) is ast.Starred:
            start, end = self.span(node)
            return StarredElement(start, end, self.expression(node.value))
        value = self.expression(node)
        start, end = self.parenthesized(value)
        return Element(start, end, value)

    def tuple_(self, node: ast.Tuple) -> Any:
        start, end = self.span(node)
        elements = [self.element(e) for e in node.elts]
        if self.wrapped(start, end):  # libcst's range leaves the tuple's parentheses out
            start = self.skip_ahead(start + 1)
            end = self.skip_back(end - 1) if not elements else self.after_comma(elements[-1].end)
        return Tuple(start, end, elements)

    def after_comma(self, offset: int) -> int:
        """`offset`, or past the comma that follows it."""
        after = self.skip_ahead(offset)
        return after + 1 if after < len(self.text) and self.text[after] == "," else offset

    def list_(self, node: ast.List) -> Any:
        start, end = self.span(node)
        return List(start, end, [self.element(e) for e in node.elts])

    def set_(self, node: ast.Set) -> Any:
        start, end = self.span(node)
        return Set(start, end, [self.element(e) for e in node.elts])

    def dict_(self, node: ast.Dict) -> Any:
        start, end = self.span(node)
        elements: list[Any] = []
        for key, value in zip(node.keys, node.values):
            value_node = self.expression(value)
            if key is None:
                star = self.text.rfind("**", start, value_node.start)
                elements.append(StarredDictElement(star, self.parenthesized(value_node)[1], value_node))
            else:
                key_node = self.expression(key)
                elements.append(
                    DictElement(
                        self.parenthesized(key_node)[0], self.parenthesized(value_node)[1], key_node, value_node
                    )
                )
        return Dict(start, end, elements)

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp) -> Any:
        start, end = self.span(node)
        kind = {ast.ListComp: ListComp, ast.SetComp: SetComp, ast.GeneratorExp: GeneratorExp}[type(node)]
        if kind is GeneratorExp and self.wrapped(start, end):
            # Its own parentheses (or, for `f(x for x in y)`, the call's),
            # which libcst's range leaves out.
            start, end = self.skip_ahead(start + 1), self.skip_back(end - 1)
        return kind(start, end, self.expression(node.elt), self.generators(node.generators))

    def dict_comprehension(self, node: ast.DictComp) -> Any:
        start, end = self.span(node)
        return DictComp(
            start, end, self.expression(node.key), self.expression(node.value), self.generators(node.generators)
        )

    def generators(self, nodes: list[ast.comprehension]) -> Any:
        inner = None
        for generator in reversed(nodes):
            target = self.expression(generator.target)
            iterable = self.expression(generator.iter)
            ifs = []
            for test in generator.ifs:
                condition = self.expression(test)
                at = self.skip_back(self.text.rfind("if", 0, condition.start))
                ifs.append(CompIf(at, self.parenthesized(condition)[1], condition))
            for_at = self.text.rfind("for", 0, target.start)
            asynchronous = None
            if generator.is_async:
                async_at = self.text.rfind("async", 0, for_at)
                asynchronous = Asynchronous(async_at, async_at + 5)
                for_at = async_at
            last = ifs[-1].end if ifs else self.parenthesized(iterable)[1]
            end = inner.end if inner is not None else last
            inner = CompFor(self.skip_back(for_at), end, asynchronous, target, iterable, ifs, inner)
        return inner

    def starred(self, node: ast.Starred) -> Any:
        start, end = self.span(node)
        return StarredElement(start, end, self.expression(node.value))


LINE_BREAK = re.compile(r"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """Offsets at which each line of `text` starts (CRLF, CR and LF all end
    a line, as CPython's tokenizer counts them)."""
    return [0] + [match.end() for match in LINE_BREAK.finditer(text)]


def skip_layout_back(text: str, offset: int) -> int:
    """The offset just past the last non-layout character before `offset`."""
    while offset > 0 and text[offset - 1] in _LAYOUT:
        offset -= 1
    return offset


def skip_layout_ahead(text: str, offset: int) -> int:
    """The offset of the first character at or after `offset` that is
    neither layout nor inside a comment."""
    size = len(text)
    while offset < size:
        char = text[offset]
        if char in _LAYOUT:
            offset += 1
        elif char == "#":
            newline = text.find("\n", offset)
            offset = size if newline < 0 else newline
        else:
            break
    return offset


def with_parentheses(text: str, start: int, end: int, inside: tuple[int, int] = NO_BOUNDS) -> tuple[int, int]:
    """The range start:end widened over the parentheses that enclose it
    exactly, those strictly inside `inside`: the parent's brackets (a call's
    parentheses around its only argument are the call's) stay out."""
    low, high = inside
    while True:
        before = skip_layout_back(text, start) - 1
        after = skip_layout_ahead(text, end)
        if not (low < before and after < high and after < len(text) and text[before] == "(" and text[after] == ")"):
            return start, end
        if closing_bracket(text, before) != after:
            return start, end
        start, end = before, after + 1


def closing_bracket(text: str, start: int) -> int:
    """Index of the bracket closing the one at `start`, skipping strings and
    comments (-1 if none)."""
    depth = 0
    index = start
    size = len(text)
    while index < size:
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index
        elif char == "#":
            index = text.find("\n", index)
            if index < 0:
                return -1
            continue
        elif char in "'\"":
            index = _string_end(text, index)
            continue
        index += 1
    return -1


def _string_end(text: str, index: int) -> int:
    """The offset past the string literal whose quote is at `index`."""
    quote = text[index] * 3 if text.startswith(text[index] * 3, index) else text[index]
    index += len(quote)
    while True:
        closing = text.find(quote, index)
        if closing < 0:
            return len(text)
        escape = text.find("\\", index, closing)
        if escape < 0:
            return closing + len(quote)
        index = escape + 2


def _start(node: Any) -> int:
    return node.start


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (SyntaxError, ValueError):
        return None
