"""One lint run: discover files, lint each, attach verdicts, pick the exit
code. The CLI is a thin layer over `run`."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kernlint.advice import verdict
from kernlint.discovery import discover
from kernlint.findings import Category, FileResult
from kernlint.limits import Job, run_jobs
from kernlint.registry import rule_for_event
from kernlint.reporters import ReportOptions, RunReport
from kernlint.settings import Settings
from kernlint.version import __version__

if TYPE_CHECKING:  # annotations only: fixes imports difflib and tempfile, which linting does not need
    from kernlint.cache import ResultCache
    from kernlint.fixes import FixOutcome

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


@dataclass(frozen=True)
class RunOutcome:
    report: RunReport
    errors: tuple[str, ...]  # one line each, for stderr (also report.errors)
    exit_code: int
    # --fix / --diff: the diffs (one per changed file), the number of fixes
    # applied (or that would be), and stdin's fixed bytes when `-` was fixed.
    diffs: tuple[str, ...] = ()
    fixed: int = 0
    stdin_fixed: bytes | None = None


def run(
    paths: list[str],
    settings: Settings = Settings(),
    stdin_filename: str | None = None,
    exclude: tuple[str, ...] = (),
    fix: str | None = None,
    force_exclude: bool = False,
    options: ReportOptions = ReportOptions(),
    cache: ResultCache | None = None,
) -> RunOutcome:
    """`fix`: None (lint only), "fix" (write safe fixes) or "diff" (compute
    them, write nothing). `options` travel with the report to every
    reporter (kernlint.reporters decides what they show). With a `cache`,
    lint results of unchanged files come from it (kernlint.cache)."""
    results: list[FileResult] = []
    errors: list[str] = []
    diffs: list[str] = []
    fixed = 0
    stdin_fixed = None
    file_paths = [p for p in paths if p != "-"]
    # Each file is one job, checked in a worker process within the time
    # budget (kernlint.limits); stdin is fixed in memory only.
    jobs: list[Job] = []
    if "-" in paths:
        data = sys.stdin.buffer.read()
        jobs.append(Job(stdin_filename or "-", data, None if fix is None else "diff"))
    found = discover(file_paths, exclude, force_exclude)
    errors.extend(found.errors)
    too_large: list[FileResult] = []
    for path in found.files:
        try:
            size = os.stat(path).st_size
            if settings.max_file_size and size > settings.max_file_size:
                from kernlint.engine import file_too_large_result

                too_large.append(file_too_large_result(path, size, settings.max_file_size))
                continue
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            errors.append(f"{path}: cannot read: {error.strerror or error}")
            continue
        jobs.append(Job(path, data, fix))

    def unfinished(job: Job, why: str) -> FileResult | FixOutcome:
        from kernlint.engine import internal_error_result, timeout_result

        if why == "timeout":
            result = timeout_result(job.path, settings.timeout_per_file)
        else:
            result = internal_error_result(job.path, "kernlint", why)
        if job.fix == "fix":
            _remove_orphaned_temporaries(job.path)
        if job.fix is None:
            return result
        from kernlint.fixes import FixOutcome

        return FixOutcome(job.path, result, 0, job.data, job.data, "")

    # Each result's verdict, by id(result): from the cache for a cached
    # result (a warm run then loads no claims, rules or model), else worked
    # out once.
    verdicts: dict[int, dict[str, str]] = {}

    def verdict_of(result: FileResult) -> dict[str, str]:
        if id(result) not in verdicts:
            verdicts[id(result)] = verdict(result.path, result.findings, settings.target_gpu)
        return verdicts[id(result)]

    cached: dict[int, FileResult] = {}
    keys: dict[int, str] = {}
    if cache is not None:
        for index, job in enumerate(jobs):
            from_stdin = "-" in paths and index == 0
            if job.fix is None and not from_stdin:
                keys[index] = cache.key(job.path, job.data, settings)
                entry = cache.get(keys[index])
                if entry is not None:
                    cached[index], verdicts[id(entry[0])] = entry
    todo = [index for index in range(len(jobs)) if index not in cached]
    checked = run_jobs(
        [jobs[i] for i in todo], settings, settings.timeout_per_file, unfinished, workers=settings.jobs or None
    )
    outcomes: list = [None] * len(jobs)
    for index, outcome in zip(todo, checked):
        outcomes[index] = outcome
        if cache is not None and index in keys:
            cache.put(keys[index], outcome, verdict_of(outcome))
    for index, hit in cached.items():
        outcomes[index] = hit
    results.extend(too_large)
    for job, outcome in zip(jobs, outcomes):
        if job.fix is None:
            results.append(outcome)
            continue
        results.append(outcome.result)
        diffs.append(outcome.diff)
        fixed += outcome.applied
        if "-" in paths and job is jobs[0]:
            stdin_fixed = outcome.fixed
        if outcome.error:
            errors.append(f"{job.path}: not fixed: {outcome.error}")
    results.sort(key=lambda r: r.path)
    advice = tuple(verdict_of(r) for r in results)
    report = RunReport(__version__, tuple(results), advice, tuple(errors), options)
    code = exit_code(report, errors)
    if fix == "diff" and code != EXIT_ERROR:
        code = EXIT_FINDINGS if any(diffs) else EXIT_CLEAN
    return RunOutcome(report, tuple(errors), code, tuple(d for d in diffs if d), fixed, stdin_fixed)


def merge(
    outcomes: list[RunOutcome],
    errors: tuple[str, ...] = (),
    fix: str | None = None,
    options: ReportOptions = ReportOptions(),
) -> RunOutcome:
    """One outcome for runs over parts of the same command line (one per
    config file, kernlint.config.scopes), with `errors` met before them
    (walking folders): results sorted by path as one run sorts them."""
    if len(outcomes) == 1 and not errors:
        return outcomes[0]
    pairs = sorted(
        (pair for outcome in outcomes for pair in zip(outcome.report.results, outcome.report.advice)),
        key=lambda pair: pair[0].path,
    )
    all_errors = (*errors, *(line for outcome in outcomes for line in outcome.errors))
    report = RunReport(__version__, tuple(r for r, _ in pairs), tuple(a for _, a in pairs), tuple(all_errors), options)
    diffs = tuple(d for outcome in outcomes for d in outcome.diffs)
    code = exit_code(report, all_errors)
    if fix == "diff" and code != EXIT_ERROR:
        code = EXIT_FINDINGS if diffs else EXIT_CLEAN
    stdin_fixed = next((o.stdin_fixed for o in outcomes if o.stdin_fixed is not None), None)
    return RunOutcome(report, all_errors, code, diffs, sum(o.fixed for o in outcomes), stdin_fixed)


def _remove_orphaned_temporaries(path: str) -> None:
    """A worker stopped inside fixes.write_atomic may leave its temporary
    file beside the original (which is intact: the rename is atomic)."""
    import glob

    target = os.path.realpath(path)
    pattern = os.path.join(
        glob.escape(os.path.dirname(target)), f".{glob.escape(os.path.basename(target))}.*.kernlint-tmp"
    )
    for orphan in glob.glob(pattern):
        try:
            os.unlink(orphan)
        except OSError:
            pass


def exit_code(report: RunReport, errors: list[str] | tuple[str, ...]) -> int:
    """2 for a file error or an internal error, else 1 for a reported (not
    a suppressed) finding, else 0; the same whatever the format."""
    # Only an engine finding can be an internal error: the registry, which
    # imports every rule, is not consulted for a run without one.
    engine_findings = [f for f in report.findings if f.category is Category.INTERNAL]
    if errors or any(f.code == rule_for_event("internal-error").code for f in engine_findings):
        return EXIT_ERROR
    return EXIT_FINDINGS if report.findings else EXIT_CLEAN


def final_exit_code(code: int, exit_zero: bool) -> int:
    """--exit-zero turns "findings" (or, with --diff, "fixes to apply") into
    0; errors stay 2."""
    return EXIT_CLEAN if exit_zero and code == EXIT_FINDINGS else code
