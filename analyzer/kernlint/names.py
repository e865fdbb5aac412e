"""Resolving names the way Python does, for the modules kernlint cares about.

`tl.dot`, `triton.language.dot`, `lang.dot` (after `from triton import
language as lang`) and `dot` (after `from triton.language import dot`) all
resolve to the qualified name `triton.language.dot`; rules compare qualified
names, never spellings.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

# Star imports we know the contents of: a bare name inside a file that did
# `from triton.language import *` resolves into that module.
STAR_MODULES = ("triton.language", "triton")


def dotted(node: cst.BaseExpression) -> str | None:
    """`a.b.c` as the string "a.b.c"; None for anything that is not a plain
    attribute chain on a name."""
    parts: list[str] = []
    # Exact types: a failing isinstance on a libcst class runs ABCMeta's
    # check in Python, and this is asked for most nodes of every file.
    while type(node) is cst.Attribute:
        parts.append(node.attr.value)
        node = node.value
    if type(node) is cst.Name:
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_name(node: cst.BaseExpression | None) -> str:
    return dotted(node) or "" if node is not None else ""


@dataclass
class ImportTable:
    """Local name -> qualified name, from the file's import statements."""

    aliases: dict[str, str] = field(default_factory=dict)
    star_modules: set[str] = field(default_factory=set)
    # Local name -> (level, module, imported name) of every `from ... import`,
    # relative ones included: where a name comes from inside the project
    # (kernlint.project finds the module's file from it).
    from_imports: dict[str, tuple[int, str, str]] = field(default_factory=dict)

    def add(self, node: cst.Import | cst.ImportFrom) -> None:
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = _module_name(alias.name)
                if alias.asname is not None:
                    local = dotted(alias.asname.name)
                    if local:
                        self.aliases[local] = full
                else:
                    # `import triton.language` binds `triton`.
                    top = full.split(".")[0]
                    self.aliases.setdefault(top, top)
            return
        module = _module_name(node.module)
        if isinstance(node.names, cst.ImportStar):
            if not node.relative:
                self.star_modules.add(module)
            return
        for alias in node.names:
            name = _module_name(alias.name)
            local = name
            if alias.asname is not None:
                local = dotted(alias.asname.name) or name
            self.from_imports[local] = (len(node.relative), module, name)
            if not node.relative:
                self.aliases[local] = f"{module}.{name}" if module else name

    def resolve(self, node: cst.BaseExpression) -> str | None:
        """Qualified name of an expression like `tl.dot`, or None."""
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        if head in self.aliases:
            base = self.aliases[head]
            return f"{base}.{rest}" if rest else base
        for module in STAR_MODULES:
            if module in self.star_modules:
                return f"{module}.{name}"
        return name


def collect_imports(module: cst.Module) -> ImportTable:
    """Every import in the file, at any depth; kernlint does not model
    shadowing by function-local imports, which is rare in kernel files.

    Walks statements only (imports are never inside expressions), which is
    an order of magnitude cheaper than a full visitor pass.
    """
    table = ImportTable()
    stack: list[cst.CSTNode] = list(reversed(module.body))
    while stack:
        node = stack.pop()
        # Exact types (libcst's node classes have no subclasses): a failing
        # isinstance on them runs ABCMeta's check, three per line of code.
        if type(node) is cst.Import or type(node) is cst.ImportFrom:
            table.add(node)
            continue
        if type(node) is cst.SimpleStatementLine:
            for small in node.body:
                if type(small) is cst.Import or type(small) is cst.ImportFrom:
                    table.add(small)
            continue
        for attribute in ("body", "orelse", "handlers", "finalbody"):
            child = getattr(node, attribute, None)
            if child is None:
                continue
            if isinstance(child, (list, tuple)):
                stack.extend(reversed(child))
            elif isinstance(child, cst.BaseSuite):
                body = child.body
                stack.extend(reversed(body) if isinstance(body, (list, tuple)) else [body])  # type: ignore[list-item]
            elif isinstance(child, cst.CSTNode):
                stack.append(child)
    return table
