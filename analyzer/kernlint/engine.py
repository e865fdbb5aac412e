"""Running the rules over one file: read, parse, model, check, collect.

Each stage's failure has one outcome: a file that cannot be decoded or parsed
yields a KL000 finding; an exception inside a rule yields a KL999 finding for
that file and rule, and the other rules and files go on.
"""

from __future__ import annotations

import traceback
import warnings
from dataclasses import dataclass, field, replace

from kernlint import claims, suppressions
from kernlint.findings import Category, FileResult, Finding, Severity, Span
from kernlint.limits import DEFAULT_MAX_FILE_SIZE, DEFAULT_TIMEOUT_PER_FILE, FILE_TOO_LARGE, TIMEOUT, deep_call
from kernlint.model import FileModel, build_model
from kernlint.registry import Report, Rule, all_rules
from kernlint.source import SourceError, decode, parse

PARSE_ERROR = ("KL000", "parse-error")
INTERNAL_ERROR = ("KL999", "internal-error")
REPORT_URL = "https://github.com/kernlint/kernlint/issues"
# Rules that run only when named (select/extend-select): KL900 judges the
# suppression comments, which only makes sense when asked for.
OPT_IN = frozenset({"KL900"})


@dataclass(frozen=True)
class Settings:
    """Which rules run and where claims come from. `select` None means every
    rule that is on by default (all but OPT_IN) plus `extend_select`.
    `per_file_ignores` globs match paths relative to `root` (the config
    file's folder; see kernlint.config)."""

    select: frozenset[str] | None = None
    ignore: frozenset[str] = field(default_factory=frozenset)
    target_gpu: str | None = None
    extend_select: frozenset[str] = field(default_factory=frozenset)
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    root: str | None = None
    # Limits (see kernlint.limits): bytes (0: no cap) and seconds (0: no
    # budget, and no worker processes).
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    timeout_per_file: float = DEFAULT_TIMEOUT_PER_FILE

    def enabled(self, code: str) -> bool:
        # "This file was not (fully) checked" cannot be turned off.
        if code in (PARSE_ERROR[0], INTERNAL_ERROR[0], FILE_TOO_LARGE[0], TIMEOUT[0]):
            return True
        if code in self.ignore:
            return False
        if self.select is None:
            return code not in OPT_IN or code in self.extend_select
        return code in self.select

    def for_path(self, path: str) -> Settings:
        """These settings with the per-file ignores that match `path` added."""
        if not self.per_file_ignores:
            return self
        from kernlint.config import ignored_for

        extra = ignored_for(path, self.per_file_ignores, self.root)
        return replace(self, ignore=self.ignore | extra, per_file_ignores=()) if extra else self


def lint_bytes(path: str, data: bytes, settings: Settings = Settings()) -> FileResult:
    if settings.max_file_size and len(data) > settings.max_file_size:
        return file_too_large_result(path, len(data), settings.max_file_size)
    try:
        text = decode(data)
    except SourceError as error:
        return FileResult(path, (_parse_error(path, error),))
    return lint_source(path, text, settings)


def lint_source(path: str, text: str, settings: Settings = Settings()) -> FileResult:
    settings = settings.for_path(path)
    try:
        # libcst recurses once per level of nesting: a big stack and a raised
        # recursion limit for the whole pipeline (kernlint.limits).
        return deep_call(lambda: _quietly(_lint_source, path, text, settings))
    except RecursionError:
        return FileResult(path, (_parse_error(path, SourceError(TOO_DEEP)),), source=text)


TOO_DEEP = "too deeply nested to analyze (the recursion limit was reached)"


def _quietly(function, *args):
    """Parsing and evaluating literals of the analyzed code makes Python warn
    about that code ("invalid escape sequence", "'int' object is not
    callable"): not kernlint's output, and an error under -W error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args)


def _lint_source(path: str, text: str, settings: Settings) -> FileResult:
    try:
        module = parse(text)
    except SourceError as error:
        return FileResult(path, (_parse_error(path, error),), source=text)
    try:
        model = build_model(path, text, module)
    except RecursionError:
        raise
    except Exception as error:  # noqa: BLE001 - one file's failure is reported, not raised
        return FileResult(path, (_internal_error(path, "model", error),), source=text)
    findings: list[Finding] = []
    for rule in all_rules():
        if not settings.enabled(rule.code):
            continue
        try:
            reports = list(rule().check(model))
        except RecursionError:
            raise  # the file is too deep for any rule: KL000, not a rule's bug
        except Exception as error:  # noqa: BLE001
            findings.append(_internal_error(path, f"{rule.code} ({rule.name})", error))
            continue
        findings.extend(_finding(rule, report, model, settings) for report in reports)
    unique = {f.sort_key: f for f in findings}
    ordered = sorted(unique.values(), key=lambda f: f.sort_key)
    try:
        active, suppressed = suppressions.apply(path, text, ordered, settings)
    except Exception as error:  # noqa: BLE001 - report unsuppressed rather than lose the file
        active, suppressed = [*ordered, _internal_error(path, "suppression comments", error)], []
    return FileResult(path, tuple(active), source=text, suppressed=tuple(suppressed))


def _finding(rule: type[Rule], report: Report, model: FileModel, settings: Settings) -> Finding:
    speedup = None
    if rule.category.is_performance:
        speedup = claims.expected_speedup(rule.code, settings.target_gpu)
    return Finding(
        code=rule.code,
        name=rule.name,
        category=rule.category,
        severity=report.severity or rule.severity,
        message=report.message,
        path=model.path,
        span=model.span(report.node),
        kernel=model.enclosing_kernel_or_function(report.node),
        plan=report.plan,
        confidence=report.confidence,
        expected_speedup=speedup,
        fix=report.fix,
    )


def _parse_error(path: str, error: SourceError) -> Finding:
    return Finding(
        code=PARSE_ERROR[0],
        name=PARSE_ERROR[1],
        category=Category.INTERNAL,
        severity=Severity.ERROR,
        message=f"cannot analyze this file: {error.message}",
        path=path,
        span=Span(error.line, error.column, error.line, error.column),
        plan="Fix the file so that Python can parse it; kernlint checks nothing else in it until then.",
    )


def _internal_error(path: str, where: str, error: BaseException) -> Finding:
    frame = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    at = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame else ""
    return _internal_finding(path, f"internal error in {where} on this file: {type(error).__name__}: {error}{at}; the other rules still ran")


def _internal_finding(path: str, what: str) -> Finding:
    """KL999 at the top of the file; `what` says where and what failed."""
    return Finding(
        code=INTERNAL_ERROR[0],
        name=INTERNAL_ERROR[1],
        category=Category.INTERNAL,
        severity=Severity.ERROR,
        message=f"{what}. Please report it at {REPORT_URL} with this file",
        path=path,
        span=Span(1, 1, 1, 1),
    )


def _not_analyzed(path: str, code_name: tuple[str, str], why: str, plan: str) -> FileResult:
    """A file-level warning for a file whose contents were not checked."""
    return FileResult(path, (Finding(
        code=code_name[0],
        name=code_name[1],
        category=Category.INTERNAL,
        severity=Severity.WARNING,
        message=f"not analyzed: {why}; nothing in it was checked",
        path=path,
        span=Span(1, 1, 1, 1),
        plan=plan,
    ),))


def file_too_large_result(path: str, size: int, cap: int) -> FileResult:
    """KL901: the file was not read (see kernlint.limits)."""
    return _not_analyzed(
        path, FILE_TOO_LARGE,
        f"the file is {size:,} bytes, over the size cap of {cap:,} bytes (--max-file-size)",
        "Exclude the file if it is generated data; otherwise raise --max-file-size (0: no cap).",
    )


def timeout_result(path: str, budget: float) -> FileResult:
    """KL902: the file's analysis was stopped (see kernlint.limits)."""
    return _not_analyzed(
        path, TIMEOUT,
        f"checking this file took longer than the time budget of {budget:g} s (--timeout-per-file) and was stopped",
        "Exclude the file if it is generated; otherwise raise --timeout-per-file (0: no budget).",
    )


def internal_error_result(path: str, where: str, error: BaseException | str) -> FileResult:
    """KL999 for a whole file (a worker that crashed or died)."""
    if isinstance(error, str):
        finding = _internal_finding(path, f"internal error in {where} on this file: {error}; nothing in it was checked")
    else:
        finding = _internal_error(path, where, error)
    return FileResult(path, (finding,))
