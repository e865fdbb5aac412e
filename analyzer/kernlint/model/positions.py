"""Where each node of a file lies, as libcst's PositionProvider says, at a
fraction of its cost.

libcst finds positions by generating the file's code again and tracking
line and column token by token (through `MetadataWrapper.resolve`, which
also walks the whole tree once more for nothing). Code generation is
lossless, so the code generated before a node is exactly the source text
before it: here the pass only counts characters, and a node's offsets turn
into line and column against the source's own line starts when asked.
The syntactic ranges (`record_syntactic_position`: a statement without its
leading lines, a parenthesized expression without its parentheses) are the
ones PositionProvider records.
"""

from __future__ import annotations

from bisect import bisect_right

import libcst as cst
from kernlint.findings import Span
from kernlint.model.syntax import children
from kernlint.source import line_starts
from libcst._nodes.internal import CodegenState


class Positions:
    """The ranges of every node of one module, computed in one pass."""

    def __init__(self, module: cst.Module, source: str) -> None:
        state = _OffsetState(module.default_indent, module.default_newline)
        module._codegen(state)
        self._ranges = state.ranges
        self._starts = line_starts(source)
        if not module.has_trailing_newline:
            # Code generation ends every statement with a newline and drops
            # the file's last one only after the ranges are recorded: the
            # last statement ends at the start of a line past the source.
            self._starts.append(len(source) + len(module.default_newline))

    def __contains__(self, node: cst.CSTNode) -> bool:
        return id(node) in self._ranges

    def offsets(self, node: cst.CSTNode) -> tuple[int, int]:
        """Character offsets of the node's start and end in the source."""
        return self._ranges[id(node)]

    def span(self, node: cst.CSTNode) -> Span:
        start, end = self._ranges[id(node)]
        line, column = self._line_column(start)
        end_line, end_column = self._line_column(end)
        return Span(line, column + 1, end_line, end_column + 1)

    def line(self, node: cst.CSTNode) -> int:
        return bisect_right(self._starts, self._ranges[id(node)][0])

    def _line_column(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1]


class _OffsetState(CodegenState):
    """A code-generation state that emits nothing: it counts characters and
    records each node's (start, end) offsets, the syntactic range where the
    node declares one, else the range of all the code it generated."""

    def __init__(self, default_indent: str, default_newline: str, keep_text: bool = False) -> None:
        super().__init__(default_indent, default_newline)
        self.keep_text = keep_text
        self.offset = 0
        self.indent_widths: list[int] = [0]
        self.ranges: dict[int, tuple[int, int]] = {}
        self.starts: list[int] = []

    def increase_indent(self, value: str) -> None:
        self.indent_tokens.append(value)
        self.indent_widths.append(self.indent_widths[-1] + len(value))

    def decrease_indent(self) -> None:
        self.indent_tokens.pop()
        self.indent_widths.pop()

    def add_indent_tokens(self) -> None:
        if self.indent_widths[-1]:
            self.offset += self.indent_widths[-1]
            if self.keep_text or not self.tokens:
                self.tokens.extend(self.indent_tokens)

    def add_token(self, value: str) -> None:
        self.offset += len(value)
        # Module._codegen_impl asks whether any token was emitted (an empty
        # file still ends in a newline); one is enough to answer.
        if self.keep_text or not self.tokens:
            self.tokens.append(value)

    def pop_trailing_newline(self) -> None:
        pass  # after every range is recorded: nothing to undo

    def before_codegen(self, node: cst.CSTNode) -> None:
        self.starts.append(self.offset)

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self.starts.pop()
        self.ranges.setdefault(id(node), (start, self.offset))

    def record_syntactic_position(  # type: ignore[override]
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class _Syntactic:
    """The context manager of `record_syntactic_position`, without a
    generator's cost."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(
        self, state: _OffsetState, node: cst.CSTNode, start_node: cst.CSTNode | None, end_node: cst.CSTNode | None
    ) -> None:
        self.state = state
        self.node = node
        self.start_node = start_node
        self.end_node = end_node

    def __enter__(self) -> None:
        self.start = self.state.offset

    def __exit__(self, *exc: object) -> None:
        ranges = self.state.ranges
        start = ranges[id(self.start_node)][0] if self.start_node is not None else self.start
        end = ranges[id(self.end_node)][1] if self.end_node is not None else self.state.offset
        ranges[id(self.node)] = (start, end)


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
        stack: list[tuple[cst.CSTNode, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            kids = children(node)
            if not kids:
                ranges[id(node)] = (leaf, leaf)
                leaf += 1
            elif done:
                ranges[id(node)] = (ranges[id(kids[0])][0], ranges[id(kids[-1])][1])
            else:
                stack.append((node, True))
                stack.extend((kid, False) for kid in reversed(kids))
        self._ranges = ranges

    def __contains__(self, node: cst.CSTNode) -> bool:
        return id(node) in self._ranges

    def before(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        return self._ranges[id(first)][1] < self._ranges[id(second)][0]

    def key(self, node: cst.CSTNode) -> tuple[int, int]:
        return self._ranges[id(node)]
