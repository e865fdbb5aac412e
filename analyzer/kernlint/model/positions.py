"""Where each node of a file lies, and its code.

kernlint.tree gives every node the character offsets of the range libcst's
PositionProvider gives it (a parenthesized expression without its
parentheses, a statement without its leading lines); here they become
lines and columns against the source's own line starts. A node's code is
its source text with its own parentheses, as libcst's `code_for_node` gives
it.
"""

from __future__ import annotations

from bisect import bisect_right

from kernlint import tree as cst
from kernlint.findings import Span
from kernlint.model.syntax import children, walk
from kernlint.source import line_starts


class Positions:
    """Lines, columns and code of the nodes of one module."""

    def __init__(self, module: cst.Module, source: str) -> None:
        self._module = module
        self._source = source
        self._starts = line_starts(source)
        self._parents: dict[int, cst.CSTNode] | None = None

    def offsets(self, node: cst.CSTNode) -> tuple[int, int]:
        """Character offsets of the node's start and end in the source."""
        if node.start < 0:
            raise KeyError(node)  # an operator: shared, with no place of its own
        return node.start, node.end

    def span(self, node: cst.CSTNode) -> Span:
        start, end = self.offsets(node)
        line, column = self._line_column(start)
        end_line, end_column = self._line_column(end)
        return Span(line, column + 1, end_line, end_column + 1)

    def line(self, node: cst.CSTNode) -> int:
        return bisect_right(self._starts, self.offsets(node)[0])

    def _line_column(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1]

    def code(self, node: cst.CSTNode) -> str:
        """The node's source text, its own parentheses included; an
        operator's token."""
        if isinstance(node, cst.BaseOperator):
            return node.TOKEN
        start, end = node.start, node.end
        if isinstance(node, cst.BaseExpression):
            start, end = self._with_parentheses(node)
        text = self._source[start:end]
        if "\n" in text or "\r" in text:
            text = self._dedented(node, text)
        return text

    def _dedented(self, node: cst.CSTNode, text: str) -> str:
        """Continuation lines without the indentation of the block that
        holds the node, as code generated for the node alone has them."""
        statement: cst.CSTNode | None = node
        while statement is not None and not isinstance(statement, (cst.BaseStatement, cst.BaseSmallStatement)):
            statement = self._parent_of(statement)
        if statement is None:
            return text
        line_start = self._starts[bisect_right(self._starts, statement.start) - 1]
        indent = self._source[line_start : statement.start]
        indent = indent[: len(indent) - len(indent.lstrip(" \t\f"))] if indent.strip(" \t\f") else indent
        if not indent:
            return text
        # Lines that begin inside a string literal are the string's own text.
        strings = [(n.start, n.end) for n in walk(node) if isinstance(n, (cst.SimpleString, cst.FormattedString))]
        lines = text.splitlines(keepends=True)
        at = self._with_parentheses(node)[0] if isinstance(node, cst.BaseExpression) else node.start
        out = [lines[0]]
        offset = at + len(lines[0])
        for line in lines[1:]:
            inside = any(start < offset < end for start, end in strings)
            out.append(line[len(indent) :] if line.startswith(indent) and not inside else line)
            offset += len(line)
        return "".join(out)

    def _with_parentheses(self, node: cst.BaseExpression) -> tuple[int, int]:
        """The node's range widened over the parentheses that are its own:
        inside its parent's range, and not the brackets of a call or a
        class's bases around their only argument."""
        parent = self._parent_of(node)
        if parent is None:
            return node.start, node.end
        low, high = (
            (parent.start - 1, parent.end) if parent.start <= node.start and node.end <= parent.end else cst.NO_BOUNDS
        )
        owner = self._parent_of(parent) if isinstance(parent, cst.Arg) else None
        if isinstance(owner, cst.Call):
            low, high = cst.skip_layout_ahead(self._source, self._with_parentheses(owner.func)[1]), owner.end - 1
        elif isinstance(owner, cst.ClassDef):
            low = self._source.index("(", owner.name.end)
            high = cst.closing_bracket(self._source, low)
        return cst.with_parentheses(self._source, node.start, node.end, (low, high))

    def _parent_of(self, node: cst.CSTNode) -> cst.CSTNode | None:
        if self._parents is None:
            parents: dict[int, cst.CSTNode] = {}
            for parent in walk(self._module):
                for child in children(parent):
                    parents[id(child)] = parent
            self._parents = parents
        return self._parents.get(id(node))


class SourceOrder:
    """Where the nodes under one root lie relative to each other, without
    generating code: each node's interval of syntax leaves (the first and
    last leaf under it, numbered in source order, which `children` keeps).
    One walk of the root; comparing two nodes then costs two lookups, where
    lines and spans cost a code-generation pass (issue 14).

    `before(a, b)`: `a` ends before `b` starts (so neither contains the
    other). `key(node)` sorts nodes as their spans do: by where they start,
    then by where they end."""

    def __init__(self, root: cst.CSTNode) -> None:
        ranges: dict[int, tuple[int, int]] = {}
        leaf = 0
        # (node, None) on the way down; (node, its children) once they are
        # all numbered, so each node's children are read once.
        stack: list[tuple[cst.CSTNode, list[cst.CSTNode] | None]] = [(root, None)]
        while stack:
            node, done = stack.pop()
            if done is not None:
                ranges[id(node)] = (ranges[id(done[0])][0], ranges[id(done[-1])][1])
                continue
            kids = children(node)
            if not kids:
                ranges[id(node)] = (leaf, leaf)
                leaf += 1
            else:
                stack.append((node, kids))
                stack.extend([(kid, None) for kid in reversed(kids)])
        self._ranges = ranges

    def __contains__(self, node: cst.CSTNode) -> bool:
        return id(node) in self._ranges

    def before(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        return self._ranges[id(first)][1] < self._ranges[id(second)][0]

    def key(self, node: cst.CSTNode) -> tuple[int, int]:
        return self._ranges[id(node)]
