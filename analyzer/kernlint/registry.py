"""What a rule is, and the registry that finds every rule in kernlint.rules.

A rule is a small class in its own file under rules/: its docstring is its
documentation, its VALID/INVALID examples prove it (one generic test runs
them all), and `check` asks the FileModel questions and yields Reports.
"""

from __future__ import annotations

import enum
import importlib
import pkgutil
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from kernlint.findings import Category, Fix, Severity

if TYPE_CHECKING:  # annotations only: a cached run imports no model
    import libcst as cst
    from kernlint.model import FileModel

CODE_PATTERN = re.compile(r"^KL\d{3}$")


@dataclass(frozen=True)
class Valid:
    """Code on which the rule must stay silent."""

    code: str


@dataclass(frozen=True)
class Invalid:
    """Code the rule must report, at (line, column) when given (1-based,
    relative to the dedented example); `fixed` is the expected text after a
    safe fix."""

    code: str
    line: int | None = None
    column: int | None = None
    fixed: str | None = None


@dataclass(frozen=True)
class Report:
    """One thing a rule found. `node` places it; the engine turns it into a
    Finding with path, span, kernel and the measured speedup claim."""

    node: cst.CSTNode
    message: str
    plan: str
    severity: Severity | None = None  # None: the rule's own severity
    confidence: str | None = None
    fix: Fix | None = None
    # The category of this finding's fix where its form decides it (attention the file builds from its own
    # Triton kernels is fused, where torch ops are replaced by the library's kernel); None: the rule's.
    category: Category | None = None


class Activation(enum.Enum):
    """When a rule runs. DEFAULT: unless ignored. OPT_IN: only when selected
    (`select`/`extend-select`). ALWAYS: cannot be turned off, because its
    finding says that a file was not (fully) checked."""

    DEFAULT = "default"
    OPT_IN = "opt-in"
    ALWAYS = "always"


class Rule:
    """Base class; subclasses set the class attributes and `check`.

    Everything the engine, the config, suppressions and the docs need to know
    about a rule is an attribute here, declared in the rule's own file."""

    code: ClassVar[str]
    name: ClassVar[str]
    category: ClassVar[Category]
    severity: ClassVar[Severity]
    summary: ClassVar[str]
    # For the architect's verdict: what limits the code when this fires, and
    # the optimization that removes it (one or two sentences each).
    bottleneck: ClassVar[str] = ""
    method: ClassVar[str] = ""
    # A hazard whose error keeps the file from running (a kernel that cannot compile): the category of its
    # fix, which the verdict names first (a file that does not run is slower than any that does).
    fix_category: ClassVar[Category | None] = None
    # Without measured records, the verdict orders findings by severity and
    # then by this number (lower first): how large a gain the fix usually is.
    priority: ClassVar[int] = 50
    # How the fix changes the file's work, for the cost model's estimate at
    # the file's own shapes (a key of kernlint.cost.EFFECTS); None: no estimate.
    fix_effect: ClassVar[str | None] = None
    VALID: ClassVar[list[Valid]] = []
    INVALID: ClassVar[list[Invalid]] = []
    # True for a finding the engine emits from something other than the
    # code's text (the file's size, time spent): no VALID/INVALID snippet can
    # show it, so the minimum number of examples does not apply; the rule's
    # own tests prove it instead.
    emitted_by_engine: ClassVar[bool] = False
    activation: ClassVar[Activation] = Activation.DEFAULT
    # False for findings that say the file was not checked: a comment in a
    # file that cannot be parsed must not hide that.
    suppressible: ClassVar[bool] = True
    # For a rule whose findings the engine emits itself rather than `check`:
    # the event it describes ("parse-error", "internal-error",
    # "file-too-large", "timeout", "unused-suppression").
    event: ClassVar[str | None] = None

    def check(self, model: FileModel) -> Iterator[Report]:
        raise NotImplementedError

    @classmethod
    def docs(cls) -> str:
        return textwrap.dedent(cls.__doc__ or "").strip()

    @classmethod
    def fixable(cls) -> bool:
        return any(example.fixed is not None for example in cls.INVALID)


@cache
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule in kernlint.rules, sorted by code. A rule is any Rule
    subclass defined in a module of that package."""
    # Found by name, not imported statically: the rules import this module.
    package = importlib.import_module("kernlint.rules")
    found: dict[str, type[Rule]] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Rule)
                and value is not Rule
                and value.__module__ == module.__name__
            ):
                if not CODE_PATTERN.match(value.code):
                    raise ValueError(f"{module.__name__}: rule code {value.code!r} is not KLnnn")
                if value.code in found:
                    raise ValueError(f"rule code {value.code} defined twice")
                found[value.code] = value
    return tuple(found[code] for code in sorted(found))


def rule_by_code_or_name(key: str) -> type[Rule] | None:
    key = key.strip()
    return _by_key().get(key.upper()) or _by_key().get(key)


@cache
def _by_key() -> dict[str, type[Rule]]:
    return {key: rule for rule in all_rules() for key in (rule.code, rule.name)}


@cache
def rule_for_event(event: str) -> type[Rule]:
    """The rule that describes a finding the engine emits for `event`."""
    found = [rule for rule in all_rules() if rule.event == event]
    if len(found) != 1:
        raise LookupError(f"{len(found)} rules declare the engine event {event!r}; exactly one must")
    return found[0]
