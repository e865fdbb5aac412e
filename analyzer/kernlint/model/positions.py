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
from collections.abc import Callable

import libcst as cst
from kernlint.findings import Span
from kernlint.model.syntax import _READERS, _no_children, children
from kernlint.source import line_starts
from libcst._nodes.internal import CodegenState


class Positions:
    """The ranges of the nodes of one module, generated one top-level
    statement at a time, when a node in it is first asked about.

    A file that reports a handful of findings needs the positions of a
    handful of statements, not a code-generation pass over the whole file
    (issue 14). A top-level statement generates the same code alone as in
    its module (indentation 0, the module's newline), and that code is a
    substring of the source; where it occurs exactly once, that occurrence
    is where it lies, so its ranges shift by that offset. Where it recurs
    (two identical lines), or it is the last statement of a file without a
    final newline, the whole module is generated, as before.

    `hint(node)` may name a statement or def known to enclose the node (the
    model's function index), so that its top-level statement is known at
    once; otherwise statements are walked in order until the node is met."""

    def __init__(
        self,
        module: cst.Module,
        source: str,
        hint: Callable[[cst.CSTNode], cst.CSTNode | None] | None = None,
    ) -> None:
        self._module = module
        self._source = source
        self._hint = hint
        self._ranges: dict[int, tuple[int, int]] = {}
        self._pending: dict[int, cst.BaseStatement] = {id(statement): statement for statement in module.body}
        self._top_of_def: dict[int, int] | None = None
        self._statement_index: dict[int, int] = {}  # id(node) -> its top-level statement's position
        # id(node) -> its innermost statement and the indentation it starts at
        self._innermost: dict[int, tuple[cst.CSTNode, tuple[str, ...]]] = {}
        self._tried: set[int] = set()  # innermost statements generated already
        self._indexed: set[int] = set()  # positions of the top-level statements indexed
        self._walked = 0  # statements indexed so far, in order
        self._whole = False
        self._starts = line_starts(source)
        if not module.has_trailing_newline:
            # Code generation ends every statement with a newline and drops
            # the file's last one only after the ranges are recorded: the
            # last statement ends at the start of a line past the source.
            self._starts.append(len(source) + len(module.default_newline))

    def __contains__(self, node: cst.CSTNode) -> bool:
        try:
            self._range(node)
        except KeyError:
            return False
        return True

    def offsets(self, node: cst.CSTNode) -> tuple[int, int]:
        """Character offsets of the node's start and end in the source."""
        return self._range(node)

    def span(self, node: cst.CSTNode) -> Span:
        start, end = self._range(node)
        line, column = self._line_column(start)
        end_line, end_column = self._line_column(end)
        return Span(line, column + 1, end_line, end_column + 1)

    def line(self, node: cst.CSTNode) -> int:
        return bisect_right(self._starts, self._range(node)[0])

    def _line_column(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1]

    def _range(self, node: cst.CSTNode) -> tuple[int, int]:
        found = self._ranges.get(id(node))
        if found is not None:
            return found
        found = self._alone(node)
        if found is not None:
            return found
        hinted = self._hint(node) if self._hint is not None else None
        found = self._after_generating_inner(node, self.top_statement(hinted) if hinted is not None else None)
        if found is not None:
            return found
        found = self._after_generating(self.top_statement(hinted) if hinted is not None else None, node)
        if found is None:
            found = self._after_generating(self.statement_of(node), node)
        if found is None:
            self._generate_module()  # the module itself, its header or footer, a layout token
            found = self._ranges[id(node)]
        return found

    def _after_generating(self, statement: cst.BaseStatement | None, node: cst.CSTNode) -> tuple[int, int] | None:
        """The node's range once `statement` is generated, when that
        statement is still pending and holds the node; else None."""
        if statement is None or id(statement) not in self._pending:
            return None
        self._generate(statement)
        return self._ranges.get(id(node))

    def _alone(self, node: cst.CSTNode) -> tuple[int, int] | None:
        """The node's range from its own code, where that code is its
        source text (it lays out no indented line: an expression, an
        argument) and occurs exactly once in the source; else None. A
        reported call or argument is usually found so, without generating
        the statement around it, even in a statement too deeply nested to
        generate (a 100,000-term `and` chain)."""
        if type(node) in _STATEMENTS or type(node) is cst.Module or id(node) in self._tried:
            return None
        self._tried.add(id(node))
        state = _OffsetState(self._module.default_indent, self._module.default_newline, keep_text=True)
        try:
            node._codegen(state)
        except RecursionError:
            return None
        text = "".join(state.tokens)
        if state.indented or not text:
            return None
        at = self._source.find(text)
        if at < 0 or self._source.find(text, at + 1) >= 0:
            return None
        for key, (start, end) in state.ranges.items():
            self._ranges.setdefault(key, (start + at, end + at))
        return self._ranges.get(id(node))

    def _after_generating_inner(self, node: cst.CSTNode, hinted: cst.BaseStatement | None) -> tuple[int, int] | None:
        """The node's range from the code of the innermost statement that
        holds it (a line of a function, not the whole function), generated
        with the indentation of the blocks around it: that code is the
        source text where the statement lies, so where it occurs exactly
        once in the source, that occurrence is the statement. None where it
        recurs or is not found (the caller then generates more). `hinted`,
        a top-level statement that may hold the node, is indexed first,
        sparing the walk of the statements before it."""
        if hinted is not None and id(node) not in self._innermost and self._top_of_def is not None:
            self._index(self._top_of_def[id(hinted)])
        statement = self.statement_of(node)
        inner = self._innermost.get(id(node))
        if statement is None or inner is None or id(statement) not in self._pending:
            return None
        owner, indents = inner
        module = self._module
        if statement is module.body[-1] and not module.has_trailing_newline:
            return None  # its last line's code has a newline the source lacks
        if id(owner) in self._tried:
            return None
        self._tried.add(id(owner))
        state = _OffsetState(module.default_indent, module.default_newline, keep_text=True)
        for indent in indents:
            state.increase_indent(indent)
        owner._codegen(state)
        text = "".join(state.tokens)
        at = self._source.find(text)
        if at < 0 or self._source.find(text, at + 1) >= 0:
            return None
        for key, (start, end) in state.ranges.items():
            self._ranges.setdefault(key, (start + at, end + at))
        return self._ranges.get(id(node))

    def statement_of(self, node: cst.CSTNode) -> cst.BaseStatement | None:
        """The top-level statement holding a node (None: the module, or a
        layout token), found by walking statements in order, each once: a
        walk costs a fraction of generating the statement's code. The walk
        also notes each node's innermost statement and the indentation that
        statement's code starts with."""
        body = self._module.body
        found = self._statement_index.get(id(node))
        while found is None and self._walked < len(body):
            position = self._walked
            self._walked += 1
            self._index(position)
            found = self._statement_index.get(id(node))
        return body[found] if found is not None else None

    def _index(self, position: int) -> None:
        if position in self._indexed:
            return
        self._indexed.add(position)
        index, innermost = self._statement_index, self._innermost
        default = self._module.default_indent
        top = self._module.body[position]
        stack: list[tuple[cst.CSTNode, cst.CSTNode, tuple[str, ...]]] = [(top, top, ())]
        while stack:
            node, owner, indents = stack.pop()
            index[id(node)] = position
            innermost[id(node)] = (owner, indents)
            kids = children(node)
            if not kids:
                continue
            if type(node) is cst.IndentedBlock:
                indents = (*indents, default if node.indent is None else node.indent)
            stack.extend([(kid, kid if type(kid) in _STATEMENTS else owner, indents) for kid in reversed(kids)])

    def _generate(self, statement: cst.BaseStatement) -> None:
        del self._pending[id(statement)]
        module = self._module
        if statement is module.body[-1] and not module.has_trailing_newline:
            # Its code ends in a newline the source lacks: an occurrence
            # found elsewhere would not be where it lies.
            self._generate_module()
            return
        state = _OffsetState(module.default_indent, module.default_newline, keep_text=True)
        statement._codegen(state)
        text = "".join(state.tokens)
        at = self._source.find(text)
        if at < 0 or self._source.find(text, at + 1) >= 0:
            self._generate_module()
            return
        for key, (start, end) in state.ranges.items():
            self._ranges.setdefault(key, (start + at, end + at))

    def _generate_module(self) -> None:
        if self._whole:
            return
        self._whole = True
        self._pending.clear()
        state = _OffsetState(self._module.default_indent, self._module.default_newline)
        self._module._codegen(state)
        self._ranges.update(state.ranges)

    def top_statement(self, node: cst.CSTNode) -> cst.BaseStatement | None:
        """The top-level statement holding a statement (a def, say): found
        through statements and their suites only, never expressions."""
        if self._top_of_def is None:
            index: dict[int, int] = {}
            for position, statement in enumerate(self._module.body):
                stack: list[cst.CSTNode] = [statement]
                while stack:
                    current = stack.pop()
                    index[id(current)] = position
                    stack.extend(child for child in children(current) if isinstance(child, _BLOCKS))
            self._top_of_def = index
        found = self._top_of_def.get(id(node))
        return self._module.body[found] if found is not None else None


def _subclasses(base: type) -> frozenset[type]:
    found: set[type] = set()
    stack: list[type] = [base]
    while stack:
        subclasses: list[type] = stack.pop().__subclasses__()
        found.update(subclasses)
        stack.extend(subclasses)
    return frozenset(found)


# Every statement class, for exact-type tests: an isinstance test on a libcst
# class runs ABCMeta's check, and the index asks it of every node.
_STATEMENTS = _subclasses(cst.BaseStatement)

# What statements nest in: a def inside a class, an `if`, a `try`, ...
_BLOCKS = (
    cst.BaseCompoundStatement,
    cst.BaseSuite,
    cst.Else,
    cst.ExceptHandler,
    cst.ExceptStarHandler,
    cst.Finally,
    cst.MatchCase,
)


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
        self.indented = False  # whether the code has an indented line

    def increase_indent(self, value: str) -> None:
        self.indent_tokens.append(value)
        self.indent_widths.append(self.indent_widths[-1] + len(value))

    def decrease_indent(self) -> None:
        self.indent_tokens.pop()
        self.indent_widths.pop()

    def add_indent_tokens(self) -> None:
        self.indented = True
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
    """Where the nodes of a tree lie relative to each other, without
    generating code: each node's number in a preorder walk over `children`
    (the model's one collecting walk numbers the whole file as it goes).
    A node's span runs from its first leaf to its last, the leaves reached
    by always taking the first or the last child, so comparing two nodes
    costs a few steps down the tree, where lines and spans cost a
    code-generation pass (issue 14) and numbering each function again
    cost a fifth of the model (issue 24).

    `before(a, b)`: `a` ends before `b` starts (so neither contains the
    other). `key(node)` sorts nodes as their spans do: by where they start,
    then by where they end."""

    __slots__ = ("_numbers",)

    def __init__(self, numbers: dict[int, int]) -> None:
        self._numbers = numbers

    @classmethod
    def of(cls, root: cst.CSTNode) -> SourceOrder:
        """The order of the nodes under `root` alone, numbered by a walk."""
        numbers: dict[int, int] = {}
        stack: list = [root]
        while stack:
            node = stack.pop()
            numbers[id(node)] = len(numbers)
            stack.extend(reversed(_kids(node)))
        return cls(numbers)

    def __contains__(self, node: cst.CSTNode) -> bool:
        return id(node) in self._numbers

    def before(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        numbers = self._numbers
        return numbers[id(_edge_leaf(first, -1))] < numbers[id(second)]

    def key(self, node: cst.CSTNode) -> tuple[int, int]:
        numbers = self._numbers
        return numbers[id(_edge_leaf(node, 0))], numbers[id(_edge_leaf(node, -1))]


def _kids(node: cst.CSTNode) -> list[cst.CSTNode] | tuple[()]:
    reader = _READERS.get(node.__class__)
    return () if reader is _no_children else reader(node) if reader is not None else children(node)


def _edge_leaf(node: cst.CSTNode, side: int) -> cst.CSTNode:
    """The first (side 0) or last (side -1) leaf under `node`, in source order."""
    while kids := _kids(node):
        node = kids[side]
    return node
