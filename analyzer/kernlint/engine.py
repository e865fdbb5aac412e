"""Running the rules over one file: read, parse, model, check, collect.

Each stage's failure has one outcome: a file that cannot be decoded or parsed
yields a parse-error finding; an exception inside a rule yields an
internal-error finding for that file and rule, and the other rules and files
go on. Which rules describe those findings is declared in the rules' own
files (`Rule.event`); the engine names no rule code.
"""

from __future__ import annotations

import traceback
import warnings
from typing import TYPE_CHECKING

from kernlint import claims, cost, suppressions
from kernlint.deep import deep_call
from kernlint.discovery import is_other_backend_file, is_test_file
from kernlint.findings import NO_FIX_MODEL, FileResult, Finding, Span
from kernlint.registry import Report, Rule, all_rules, rule_for_event
from kernlint.settings import Settings
from kernlint.source import SourceError, decode, may_hold_kernel_code, parse, python_parses

if TYPE_CHECKING:
    from kernlint.model import FileModel

REPORT_URL = "https://github.com/kernlint/kernlint/issues"


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
    if not may_hold_kernel_code(text) and python_parses(text):
        # Nothing for a rule to read (kernlint.source.may_hold_kernel_code):
        # only the suppression comments are judged, as for any clean file.
        active, suppressed = suppressions.apply(path, text, [], settings)
        return FileResult(path, tuple(active), source=text, suppressed=tuple(suppressed))
    # Imported here, not at the top: a run whose every file is in the cache
    # never models a file, and the model is a third of the imports (issue 14).
    from kernlint.model import build_model
    from kernlint.project import Project, parsed_already

    # A module that another file of this run imports was parsed for that
    # file (kernlint.project); its tree is the same, so it is not parsed again.
    module = parsed_already(path, text) if path != "-" else None
    if module is None:
        try:
            module = parse(text)
        except SourceError as error:
            return FileResult(path, (_parse_error(path, error),), source=text)

    # Kernels this file imports from other modules are read from the disk
    # (kernlint.project); the result records which files that read.
    project = Project(path) if path != "-" else None
    try:
        # The calibration is read only for a file that asks for the GPU's SM count (most never do).
        sm_count = _sm_count(settings) if "multi_processor_count" in text else None
        model = build_model(path, text, module, project, sm_count)
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
            raise  # the file is too deep for any rule: a parse error, not a rule's bug
        except Exception as error:  # noqa: BLE001
            findings.append(_internal_error(path, f"{rule.code} ({rule.name})", error))
            continue
        estimate = _estimate(rule, reports, model, settings)
        findings.extend(_finding(rule, report, model, settings, estimate) for report in reports)
    unique = {f.sort_key: f for f in findings}
    ordered = sorted(unique.values(), key=lambda f: f.sort_key)
    try:
        active, suppressed = suppressions.apply(path, text, ordered, settings)
    except Exception as error:  # noqa: BLE001 - report unsuppressed rather than lose the file
        active, suppressed = [*ordered, _internal_error(path, "suppression comments", error)], []
    dependencies = tuple(sorted(project.reads.items())) if project is not None else ()
    return FileResult(path, tuple(active), source=text, suppressed=tuple(suppressed), dependencies=dependencies)


def _no_claims(path: str) -> bool:
    return is_test_file(path) or is_other_backend_file(path)


def _estimate(rule: type[Rule], reports: list[Report], model: FileModel, settings: Settings) -> dict | None:
    """The cost model's estimate for the file, of fixing all of the rule's findings in it."""
    if not reports or not rule.category.is_performance or _no_claims(model.path):
        return None
    if rule.fix_effect is None:
        return {"status": "unknown", "reason": f"{NO_FIX_MODEL} (inside a kernel)"}
    spans = [model.span(report.node) for report in reports]
    return cost.estimate(rule.fix_effect, model.entry_point, [(s.line, s.end_line) for s in spans], settings.target_gpu)


def _finding(
    rule: type[Rule], report: Report, model: FileModel, settings: Settings, estimate: dict | None = None
) -> Finding:
    speedup = None
    # A test file is reported without a speedup claim: its shapes are a test's, not a workload's;
    # so is another vendor's backend: the claims are an H100's.
    if rule.category.is_performance and not _no_claims(model.path):
        speedup = claims.expected_speedup(rule.code, settings.target_gpu)
        if estimate is not None:
            # The pair's measurement stays, named as the pair's; the file's own estimate leads.
            speedup = {**(speedup or {"measured": False, "summary": "unmeasured"}), "for_this_file": estimate}
    return Finding(
        code=rule.code,
        name=rule.name,
        category=report.category or rule.category,
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


def _sm_count(settings: Settings) -> int | None:
    """The SM count of the calibrated GPU the estimates are for: what a file's own device query returns there."""
    calibration = cost.calibration(settings.target_gpu)
    count = calibration.constants.get("sm_count") if calibration is not None else None
    return int(count) if count else None


def _engine_finding(event: str, **fields) -> Finding:
    """A finding the engine emits itself, for the rule that declares `event`
    (its code, name, category and severity come from the rule's file)."""
    rule = rule_for_event(event)
    return Finding(code=rule.code, name=rule.name, category=rule.category, severity=rule.severity, **fields)


def _parse_error(path: str, error: SourceError) -> Finding:
    return _engine_finding(
        "parse-error",
        message=f"cannot analyze this file: {error.message}",
        path=path,
        span=Span(error.line, error.column, error.line, error.column),
        plan="Fix the file so that Python can parse it; kernlint checks nothing else in it until then.",
    )


def _internal_error(path: str, where: str, error: BaseException) -> Finding:
    frame = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
    at = f" at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}" if frame else ""
    return _internal_finding(
        path, f"internal error in {where} on this file: {type(error).__name__}: {error}{at}; the other rules still ran"
    )


def _internal_finding(path: str, what: str) -> Finding:
    """An internal error at the top of the file; `what` says where and what
    failed."""
    return _engine_finding(
        "internal-error",
        message=f"{what}. Please report it at {REPORT_URL} with this file",
        path=path,
        span=Span(1, 1, 1, 1),
    )


def _not_analyzed(path: str, event: str, why: str, plan: str) -> FileResult:
    """A file-level finding for a file whose contents were not checked."""
    return FileResult(
        path,
        (
            _engine_finding(
                event,
                message=f"not analyzed: {why}; nothing in it was checked",
                path=path,
                span=Span(1, 1, 1, 1),
                plan=plan,
            ),
        ),
    )


def file_too_large_result(path: str, size: int, cap: int) -> FileResult:
    """The file was not read: over the size cap (see kernlint.limits)."""
    return _not_analyzed(
        path,
        "file-too-large",
        f"the file is {size:,} bytes, over the size cap of {cap:,} bytes (--max-file-size; a file this large "
        "also needs a longer --timeout-per-file)",
        "Exclude the file if it is generated data; otherwise raise both --max-file-size (0: no cap) and "
        "--timeout-per-file (libcst parses dense code at about 8 s per MB).",
    )


def timeout_result(path: str, budget: float) -> FileResult:
    """The file's analysis was stopped: over the time budget (see kernlint.limits)."""
    return _not_analyzed(
        path,
        "timeout",
        f"checking this file took longer than the time budget of {budget:g} s (--timeout-per-file) and was stopped",
        "Exclude the file if it is generated; otherwise raise --timeout-per-file (0: no budget).",
    )


def internal_error_result(path: str, where: str, error: BaseException | str) -> FileResult:
    """An internal error for a whole file (a worker that crashed or died)."""
    if isinstance(error, str):
        finding = _internal_finding(path, f"internal error in {where} on this file: {error}; nothing in it was checked")
    else:
        finding = _internal_error(path, where, error)
    return FileResult(path, (finding,))
