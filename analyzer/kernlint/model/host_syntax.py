"""Syntax questions of host code that the host facts share: the names a
statement assigns or rebinds, what an expression is derived from, the
returns of a function, a walk that stays out of nested scopes.
"""

from __future__ import annotations

import libcst as cst
from kernlint.model.facts import FunctionInfo
from kernlint.model.syntax import children, statements
from kernlint.names import dotted


def _short(text: str, limit: int = 24) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _target_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _target_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _target_names(target.value)
    return []


def _subscript_base(node: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(node, cst.Subscript):
        node = node.value
    return node


def _assignment_targets(statement: cst.CSTNode) -> list[str]:
    targets = (
        [t.target for t in statement.targets]
        if isinstance(statement, cst.Assign)
        else [statement.target]
        if isinstance(statement, (cst.AnnAssign, cst.AugAssign))
        else []
    )
    # `shape[d] = n` changes the list `shape`: it now carries n.
    return [n for t in targets for n in _target_names(t) or _target_names(_subscript_base(t))]


def _tests_cpu(test: cst.BaseExpression, name: str) -> bool:
    """`not name.is_cuda`, `name.is_cpu`, `name.device.type == "cpu"`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return dotted(test.expression) == f"{name}.is_cuda"
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        return (
            dotted(test.left) == f"{name}.device.type"
            and isinstance(target.operator, cst.Equal)
            and isinstance(target.comparator, cst.SimpleString)
            and target.comparator.evaluated_value == "cpu"
        )
    return dotted(test) == f"{name}.is_cpu"


def _last_name(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def _annotation(function: FunctionInfo, param: str) -> str | None:
    if function.node is None:
        return None
    params = function.node.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value == param and p.annotation is not None:
            annotation = p.annotation.annotation
            return (
                annotation.attr.value
                if isinstance(annotation, cst.Attribute)
                else (annotation.value if isinstance(annotation, cst.Name) else None)
            )
    return None


def _default(function: FunctionInfo, param: str) -> cst.BaseExpression | None:
    if function.node is None:
        return None
    params = function.node.params
    for p in (*params.posonly_params, *params.params, *params.kwonly_params):
        if p.name.value == param:
            return (
                p.default
                if p.default is not None
                else (None if p in params.params or p in params.posonly_params else cst.Name("None"))
            )
    return cst.Name("None")


def _assigned_name(statement: cst.CSTNode | None, value: cst.CSTNode) -> str | None:
    """The single name `value` is assigned to, when `statement` is that
    assignment (`y = value`)."""
    if isinstance(statement, cst.Assign) and statement.value is value and len(statement.targets) == 1:
        target = statement.targets[0].target
        if isinstance(target, cst.Name):
            return target.value
    if isinstance(statement, cst.AnnAssign) and statement.value is value and isinstance(statement.target, cst.Name):
        return statement.target.value
    return None


def _rebound(statement: cst.CSTNode) -> list[str]:
    names = []
    for node in _walk_no_scopes(statement):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                names.extend(_target_names(target.target))
    return names


def _walk_no_scopes(root):
    stack = (
        list(root)
        if isinstance(root, (list, tuple))
        else list(statements(root))
        if isinstance(root, cst.BaseSuite)
        else [root]
    )
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        yield node
        stack.extend(reversed(children(node)))
