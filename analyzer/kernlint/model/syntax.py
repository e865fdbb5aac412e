"""Questions about libcst syntax alone, with no file context: literals,
call shapes, views, walking. Every part of the model and the rules share them.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import typing
from collections.abc import Callable, Iterator

import libcst as cst

# Views that are the same tensor in another layout.
VIEW_METHODS = frozenset({"t", "transpose", "permute", "swapaxes", "swapdims", "movedim"})

VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH"})


def strip_identity(node: cst.BaseExpression) -> cst.BaseExpression:
    """Drop wrappers that keep the tensor's identity (`.data`, `.detach()`,
    `.requires_grad_()`)."""
    while True:
        if isinstance(node, cst.Attribute) and node.attr.value == "data":
            node = node.value
        elif isinstance(node, cst.Call) and call_name(node) in ("detach", "requires_grad_"):
            node = node.func.value  # type: ignore[attr-defined]
        else:
            return node


def view_base(node: cst.BaseExpression) -> cst.BaseExpression:
    """`self.w.t()` -> `self.w`: the tensor under views and identity calls."""
    for _ in range(8):
        node = strip_identity(node)
        if isinstance(node, cst.Attribute) and node.attr.value in VIEW_ATTRIBUTES:
            node = node.value
        elif isinstance(node, cst.Call) and call_name(node) in VIEW_METHODS:
            node = node.func.value  # type: ignore[attr-defined]
        else:
            break
    return node


# A comparison operator's test on two static values (the shape table's and the kernel folder's).
COMPARISONS: dict[type, Callable[[typing.Any, typing.Any], bool]] = {
    cst.Equal: lambda a, b: a == b,
    cst.NotEqual: lambda a, b: a != b,
    cst.LessThan: lambda a, b: a < b,
    cst.LessThanEqual: lambda a, b: a <= b,
    cst.GreaterThan: lambda a, b: a > b,
    cst.GreaterThanEqual: lambda a, b: a >= b,
}


def literal_value(node: cst.BaseExpression) -> object | None:
    if isinstance(node, cst.Integer):
        try:
            return int(node.value, 0)
        except ValueError:
            return None
    if isinstance(node, cst.Float):
        return float(node.value)
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_value(node.expression)
        return -inner if isinstance(inner, (int, float)) else None
    return None


def is_literal(node: cst.BaseExpression) -> bool:
    return literal_value(node) is not None or (isinstance(node, cst.Name) and node.value in ("True", "False", "None"))


def call_name(call: cst.Call) -> str | None:
    """The attribute name of a method call (`x.t()` -> "t")."""
    if isinstance(call.func, cst.Attribute):
        return call.func.attr.value
    return None


def uncopied(value: cst.BaseExpression) -> cst.BaseExpression:
    """`y.contiguous()` as `y` (a no-op on a contiguous tensor)."""
    while isinstance(value, cst.Call) and call_name(value) == "contiguous" and not value.args:
        value = value.func.value  # type: ignore[attr-defined]
    return value


def keyword(call: cst.Call, name: str) -> cst.BaseExpression | None:
    return next((a.value for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    return [a.value for a in call.args if a.keyword is None and not a.star]


def statements(body: cst.BaseSuite) -> list[cst.CSTNode]:
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    return [body]


def ends_in_return(body: cst.BaseSuite) -> bool:
    body_statements = statements(body)
    last = body_statements[-1] if body_statements else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    elif isinstance(last, cst.SimpleStatementSuite):
        last = last.body[-1] if last.body else None
    return isinstance(last, (cst.Return, cst.Raise))


def walk(nodes) -> Iterator[cst.CSTNode]:
    """Every node below `nodes` (a node or a sequence), iteratively, so deep
    nesting cannot exhaust the stack."""
    stack = (
        list(nodes.body)
        if isinstance(nodes, cst.IndentedBlock)
        else list(nodes if isinstance(nodes, (list, tuple)) else [nodes])
    )
    pop, extend, readers = stack.pop, stack.extend, _READERS
    while stack:
        node = pop()
        yield node
        reader = readers.get(node.__class__)
        if reader is _no_children:  # a Name, a number, a string: a third of all nodes
            continue
        extend(reversed(reader(node) if reader is not None else children(node)))


def visit(root: cst.CSTNode, visitor: object, visited: list[cst.CSTNode] | None = None) -> None:
    """Run a libcst-style visitor over `root`: `visit_<Class>(node)` before
    a node's children (False skips them), `leave_<Class>(node)` after them,
    in source order as `root.visit(visitor)` would, but over `children`
    (layout tokens are not visited) and without libcst's visitor machinery,
    which costs about a parse per traversal (issue 14).

    `visited`, when given, receives every visited node in the order of the
    walk (preorder): the source order of the whole file for the price of
    one append per node (model.positions.SourceOrder numbers it when asked)."""
    methods = _VISITOR_METHODS.setdefault(type(visitor), {})
    stack: list = [root]
    pop, push, extend = stack.pop, stack.append, stack.extend
    keep = (visited if visited is not None else []).append
    while stack:
        node = pop()
        kind = node.__class__
        if kind is tuple:  # (leave method, node)
            node[0](visitor, node[1])
            continue
        keep(node)
        found = methods.get(kind, _UNSEEN)
        if found is _UNSEEN:
            name = kind.__name__
            enter, leave = getattr(type(visitor), f"visit_{name}", None), getattr(type(visitor), f"leave_{name}", None)
            found = methods[kind] = (enter, leave) if enter is not None or leave is not None else None
        if found is not None:
            enter, leave = found
            if leave is not None:
                push((leave, node))
            if enter is not None and enter(visitor, node) is False:
                continue
        reader = _READERS.get(kind)
        if reader is _no_children:  # a Name, a number, a string: a third of all nodes
            continue
        extend(reversed(reader(node) if reader is not None else children(node)))


# Per visitor class: node class -> its (visit_, leave_) methods, or None
# when it has neither.
_VISITOR_METHODS: dict[type, dict[type, tuple | None]] = {}
_UNSEEN = ()


def names_in(node: cst.BaseExpression) -> Iterator[cst.Name]:
    """Names that are read in an expression: `x.shape` yields x, not shape;
    `f(k=v)` yields f and v, not k."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        child = stack.pop()
        kind = type(child)  # exact types: libcst's node classes have no subclasses
        if kind is cst.Name:
            yield child  # type: ignore[misc]
        elif kind is cst.Attribute or kind is cst.Arg:
            stack.append(child.value)  # type: ignore[attr-defined]
        else:
            stack.extend(reversed(children(child)))


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The children of a node that carry syntax, in source order: those of
    `node.children` less the layout tokens (whitespace, comments, brackets,
    commas, colons; see TRIVIA), which no fact reads. libcst computes
    `children` by rebuilding the node through a visitor, which made walking
    a tree cost several parses (issue 14); here each node class gets a
    reader of its child fields, made once."""
    reader = _READERS.get(node.__class__)
    if reader is None:
        reader = _make_reader(node)
    return reader(node)


def _make_reader(node: cst.CSTNode) -> Callable[[cst.CSTNode], list[cst.CSTNode]]:
    """A function returning `children(node)` for nodes of this class, in
    Python written for the class's fields (a field that always holds one
    node is read as such; a sequence is spread; an optional one tested)."""
    cls = type(node)
    _learn(node)
    fields = _SYNTAX_FIELDS[cls]
    if fields is None:
        reader: Callable[[cst.CSTNode], list[cst.CSTNode]] = lambda n: [  # noqa: E731
            c for c in n.children if not isinstance(c, TRIVIA)
        ]
    elif not fields:
        reader = _no_children
    else:
        kinds = {f.name: _field_kind(f.type) for f in dataclasses.fields(cls)}
        if all(kinds[name] != "optional" for name in fields):
            items = ", ".join(f"node.{name}" if kinds[name] == "one" else f"*node.{name}" for name in fields)
            code = f"def read(node):\n    return [{items}]\n"
        else:
            lines = ["def read(node):", "    found = []"]
            for name in fields:
                if kinds[name] == "one":
                    lines.append(f"    found.append(node.{name})")
                elif kinds[name] == "many":
                    lines.append(f"    found.extend(node.{name})")
                else:
                    lines += [
                        f"    value = node.{name}",
                        "    if value.__class__ is tuple or value.__class__ is list:",
                        "        found.extend(value)",
                        "    elif value is not None and value.__class__ is not MaybeSentinel:",
                        "        found.append(value)",
                    ]
            code = "\n".join([*lines, "    return found", ""])
        namespace: dict[str, object] = {"MaybeSentinel": cst.MaybeSentinel}
        exec(compile(code, f"<children of {cls.__name__}>", "exec"), namespace)  # noqa: S102 - generated above
        reader = namespace["read"]  # type: ignore[assignment]
    _READERS[cls] = reader
    return reader


def _no_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The reader of every class whose fields hold layout tokens at most
    (Name, Integer, SimpleString...); `visit` skips calling it."""
    return []


def _field_kind(annotation: object) -> str:
    """ "one" for a field that always holds one node, "many" for a sequence
    of nodes, "optional" for anything else (a node or None, a node or a
    sentinel, a node or a sequence)."""
    if isinstance(annotation, type) and issubclass(annotation, cst.CSTNode):
        return "one"
    if typing.get_origin(annotation) is collections.abc.Sequence:
        return "many"
    return "optional"


_READERS: dict[type, Callable[[cst.CSTNode], list[cst.CSTNode]]] = {}


def all_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """Exactly `node.children` (layout tokens included), at the cost of
    `children`."""
    if type(node) not in _CHILD_FIELDS:
        _learn(node)
    fields = _CHILD_FIELDS[type(node)]
    return list(node.children) if fields is None else _read(node, fields)


# Nodes that only lay code out: never a name, a call or an operation.
TRIVIA = (
    cst.BaseParenthesizableWhitespace,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Newline,
    cst.Comment,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
)

# Per node class: the fields that hold children, in the order libcst visits
# them, all of them and those that can hold syntax (not only TRIVIA); None
# when that order could not be read (then `node.children`).
_CHILD_FIELDS: dict[type, tuple[str, ...] | None] = {}
_SYNTAX_FIELDS: dict[type, tuple[str, ...] | None] = {}


def _read(node: cst.CSTNode, fields: tuple[str, ...]) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    for name in fields:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            found.append(value)
        elif isinstance(value, (tuple, list)):
            found.extend(value)
    return found


def _learn(node: cst.CSTNode) -> None:
    """The child fields of `node`'s class in visiting order. libcst visits
    children in `_visit_and_replace_children`, one `visit_*(self, "field",
    ...)` call per field in source order, so the field names appear among
    its constants in that order. The order is checked once against
    `node.children`; a class whose order cannot be read keeps `children`."""
    cls = type(node)
    code = getattr(cls._visit_and_replace_children, "__code__", None)
    order: tuple[str, ...] | None = None
    syntax: tuple[str, ...] | None = None
    if code is not None and dataclasses.is_dataclass(cls):
        types = {field.name: field.type for field in dataclasses.fields(cls)}
        order = tuple(dict.fromkeys(c for c in code.co_consts if isinstance(c, str) and c in types))
        if [id(c) for c in _read(node, order)] != [id(c) for c in node.children]:
            order = None
        else:
            syntax = tuple(name for name in order if not _only_trivia(types[name]))
    _CHILD_FIELDS[cls] = order
    _SYNTAX_FIELDS[cls] = syntax


def _only_trivia(annotation: object) -> bool:
    """Whether a field's type admits nothing but TRIVIA (or no node)."""
    if isinstance(annotation, type):
        return not issubclass(annotation, cst.CSTNode) or issubclass(annotation, TRIVIA)
    arguments = getattr(annotation, "__args__", None)
    if arguments is None:
        return False  # a forward reference or an unknown form: keep it
    if getattr(annotation, "__origin__", None) is typing.Literal:
        return True
    return all(_only_trivia(argument) for argument in arguments)


def is_main_guard(test: cst.BaseExpression) -> bool:
    return isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and test.left.value == "__name__"
