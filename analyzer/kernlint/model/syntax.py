"""Questions about libcst syntax alone, with no file context: literals,
call shapes, views, walking. Every part of the model and the rules share them.
"""

from __future__ import annotations

from collections.abc import Iterator

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
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def names_in(node: cst.BaseExpression) -> Iterator[cst.Name]:
    """Names that are read in an expression: `x.shape` yields x, not shape;
    `f(k=v)` yields f and v, not k."""
    stack: list[cst.CSTNode] = [node]
    while stack:
        child = stack.pop()
        if isinstance(child, cst.Name):
            yield child
        elif isinstance(child, cst.Attribute):
            stack.append(child.value)
        elif isinstance(child, cst.Arg):
            stack.append(child.value)
        else:
            stack.extend(reversed(child.children))


def is_main_guard(test: cst.BaseExpression) -> bool:
    return isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and test.left.value == "__name__"
