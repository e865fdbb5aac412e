"""The plain data that travels between the stages: spans, findings, verdicts.

Every type here is a frozen dataclass so that a finding, once made, cannot be
changed on its way to a reporter, and two runs over the same input compare
equal field by field.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Severity(str, enum.Enum):
    """How much a finding matters: error (wrong results or compile failure),
    warning (a measured slowdown worth fixing), info (small or
    context-dependent gain)."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


class Category(str, enum.Enum):
    """The architect prompt's four optimization categories, plus the three
    kinds of finding that are not an optimization."""

    OPERATOR_FUSION = "operator-fusion"
    ALGORITHM_REPLACEMENT = "algorithm-replacement"
    LAUNCH_REDUCTION = "launch-reduction"
    MEMORY_LAYOUT = "memory-layout"
    TUNING = "tuning"
    HAZARD = "hazard"
    API = "api"
    INTERNAL = "internal"

    @property
    def is_performance(self) -> bool:
        return self not in (Category.HAZARD, Category.API, Category.INTERNAL)

    @property
    def prompt_name(self) -> str:
        """The category in the architect prompt's words ("Operator Fusion",
        "Kernel Launch Reduction", ...); the others as themselves.

        The prompt knows four categories only, so a tuning finding (tile
        sizes, warps, stages, an EVEN_K path) is named Memory Layout
        Optimization: what a tile config decides is how the operands are
        staged through shared memory and registers, the layout of the work
        on the memory hierarchy."""
        return {
            Category.OPERATOR_FUSION: "Operator Fusion",
            Category.ALGORITHM_REPLACEMENT: "Algorithm Replacement",
            Category.LAUNCH_REDUCTION: "Kernel Launch Reduction",
            Category.MEMORY_LAYOUT: "Memory Layout Optimization",
            Category.TUNING: "Memory Layout Optimization",
        }.get(self, self.value.capitalize())


@dataclass(frozen=True, order=True)
class Span:
    """A region of source text. Lines and columns are 1-based; end_column is
    the column just past the last character (as in SARIF)."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True)
class Fix:
    """A rewrite of the file's text that the rule can vouch for.

    `replacements` are (start offset, end offset, new text) into the source
    string, non-overlapping. Only fixes marked safe are applied by `--fix`.
    """

    description: str
    replacements: tuple[tuple[int, int, str], ...]
    safe: bool = True


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    category: Category
    severity: Severity
    message: str
    path: str
    span: Span
    kernel: str | None = None
    plan: str = ""
    confidence: str | None = None
    expected_speedup: dict[str, Any] | None = field(default=None, compare=False, hash=False)
    fix: Fix | None = field(default=None, compare=False, hash=False)
    # The comment that silenced it (shown with --show-suppressed), else None.
    suppressed_by: str | None = field(default=None, compare=False, hash=False)

    @property
    def sort_key(self) -> tuple:
        return (self.path, self.span.line, self.span.column, self.code, self.message)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "category": self.category.value,
            "severity": self.severity.value,
            "message": self.message,
            "path": self.path,
            "line": self.span.line,
            "column": self.span.column,
            "end_line": self.span.end_line,
            "end_column": self.span.end_column,
            "kernel": self.kernel,
            "plan": self.plan,
            "confidence": self.confidence,
            "expected_speedup": self.expected_speedup,
            "fix": None if self.fix is None else {"description": self.fix.description, "safe": self.fix.safe},
        } | ({"suppressed_by": self.suppressed_by} if self.suppressed_by is not None else {})


@dataclass(frozen=True)
class FileResult:
    """What linting one file produced."""

    path: str
    findings: tuple[Finding, ...]
    source: str | None = None
    suppressed: tuple[Finding, ...] = ()  # silenced by suppression comments
    # (path, SHA-256) of each other file the result was computed from (a
    # module it imports kernels from, "" when a looked-up file was absent):
    # a cached result is valid only while they are unchanged.
    dependencies: tuple[tuple[str, str], ...] = ()


# The start of a performance finding's `for_this_file` reason when the file's
# shapes are known but the cost model has no model of the rule's fix for this
# code (a change inside a kernel, a recurrence, a fix whose ops it cannot find):
# reporters say "not estimated for this file", not "shapes unknown".
NO_FIX_MODEL = "the cost model has no model of this rule's fix"
