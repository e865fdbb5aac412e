"""Guard facts (KL001): kernel code that only runs under `if <constexpr>:`,
and whether every launch sets that constexpr from a dtype test on the host
(`CAST_FP32=not use_tc` with `use_tc = x.dtype == w.dtype`): then the
guarded code is the fallback for other dtypes, chosen on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import libcst as cst
from kernlint.model.base import kernel_fact
from kernlint.model.facts import FunctionInfo, Kernel
from kernlint.model.host import HostFacts
from kernlint.model.syntax import children, names_in, walk


class GuardFacts(HostFacts):
    @kernel_fact
    def constexpr_guards(self, kernel: Kernel, node: cst.CSTNode) -> tuple[str, ...]:
        """The constexprs of `kernel` whose `if NAME:` / `if not NAME:`
        (either branch) encloses `node`."""
        return tuple(name for name, _ in self._branches(kernel).around.get(id(node), ()))

    @kernel_fact
    def pointers_used_under(self, kernel: Kernel) -> dict[str, tuple[tuple[tuple[str, bool], ...], ...]]:
        """For each parameter of `kernel`, the constexpr conditions under which each of its uses in the body
        runs: per use, the (constexpr, value it must have) of every `if NAME:` / `if not NAME:` around it (an
        empty tuple: the use always runs). A launch that sets a constexpr so that no use runs (`HAS_BIAS=False`
        with a dummy tensor for the bias pointer) never touches that parameter's tensor."""
        return self._branches(kernel).uses

    def dtype_guarded(self, kernel: Kernel, node: cst.CSTNode) -> str | None:
        """The constexpr that guards `node` when every launch of the kernel
        in this file passes it a value computed from a dtype comparison."""
        for name in self.constexpr_guards(kernel, node):
            launches = self.launches_of(kernel)
            if launches and all(
                name in launch.arguments and self._from_dtype_test(launch.caller, launch.arguments[name], 0)
                for launch in launches
            ):
                return name
        return None

    def _from_dtype_test(self, scope: FunctionInfo, node: cst.BaseExpression, depth: int) -> bool:
        if depth > 4:
            return False
        for child in walk(node):
            if isinstance(child, cst.Comparison) and any(
                isinstance(part, cst.Attribute) and part.attr.value == "dtype" for part in walk(child)
            ):
                return True
        for name in names_in(node):
            value = self.assigned_value(scope, name.value, before=node, strict=True)
            if value is not None and value is not node and self._from_dtype_test(scope, value, depth + 1):
                return True
        return False

    def _branches(self, kernel: Kernel) -> _Branches:
        index = self._branch_index.get(id(kernel))
        if index is None:
            index = self._branch_index[id(kernel)] = _index_branches(kernel)
        return index

    @cached_property
    def _branch_index(self) -> dict[int, _Branches]:
        return {}


Conditions = tuple[tuple[str, bool], ...]  # (constexpr, the value it must have) of each `if` around a node


@dataclass(frozen=True)
class _Branches:
    """A kernel body's `if <constexpr>:` structure: the conditions around each node under one, by id, and
    around each use of each parameter."""

    around: dict[int, Conditions]
    uses: dict[str, tuple[Conditions, ...]]


def _index_branches(kernel: Kernel) -> _Branches:
    params = {p.name for p in kernel.params}
    constexprs = set(kernel.constexprs)
    around: dict[int, Conditions] = {}
    uses: dict[str, list[Conditions]] = {}
    stack: list[tuple[cst.CSTNode, Conditions]] = [(kernel.node.body, ())]
    while stack:
        node, conditions = stack.pop()
        if conditions:
            around[id(node)] = conditions
        if isinstance(node, cst.Name) and node.value in params:
            uses.setdefault(node.value, []).append(conditions)
            continue
        if isinstance(node, cst.If):
            name, wanted = _condition(node.test)
            stack.append((node.test, conditions))
            inner = conditions + ((name, wanted),) if name in constexprs else conditions
            stack.append((node.body, inner))
            if node.orelse is not None:
                other = conditions + ((name, not wanted),) if name in constexprs else conditions
                stack.append((node.orelse, other))
            continue
        stack.extend((child, conditions) for child in children(node))
    return _Branches(around, {name: tuple(found) for name, found in uses.items()})


def _condition(test: cst.BaseExpression) -> tuple[str | None, bool]:
    """`if NAME:` -> (NAME, True); `if not NAME:` -> (NAME, False)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        name = test.expression.value if isinstance(test.expression, cst.Name) else None
        return name, False
    return (test.value if isinstance(test, cst.Name) else None), True
