"""One lint run: discover files, lint each, attach verdicts, pick the exit
code. The CLI is a thin layer over `run`."""

from __future__ import annotations

import sys
from dataclasses import dataclass

from kernlint import __version__
from kernlint.advice import verdict
from kernlint.discovery import discover
from kernlint.engine import INTERNAL_ERROR, Settings, lint_bytes
from kernlint.findings import FileResult
from kernlint.fixes import fix_bytes, fix_file
from kernlint.reporters import RunReport

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


@dataclass(frozen=True)
class RunOutcome:
    report: RunReport
    errors: tuple[str, ...]  # one line each, for stderr
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
) -> RunOutcome:
    """`fix`: None (lint only), "fix" (write safe fixes) or "diff" (compute
    them, write nothing)."""
    results: list[FileResult] = []
    errors: list[str] = []
    diffs: list[str] = []
    fixed = 0
    stdin_fixed = None
    file_paths = [p for p in paths if p != "-"]
    if "-" in paths:
        data = sys.stdin.buffer.read()
        if fix is None:
            results.append(lint_bytes(stdin_filename or "-", data, settings))
        else:
            outcome = fix_bytes(stdin_filename or "-", data, settings)
            results.append(outcome.result)
            diffs.append(outcome.diff)
            fixed += outcome.applied
            stdin_fixed = outcome.fixed
            if outcome.error:
                errors.append(f"{stdin_filename or '-'}: not fixed: {outcome.error}")
    found = discover(file_paths, exclude)
    errors.extend(found.errors)
    for path in found.files:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            errors.append(f"{path}: cannot read: {error.strerror or error}")
            continue
        if fix is None:
            results.append(lint_bytes(path, data, settings))
            continue
        outcome = fix_file(path, data, settings, write=fix == "fix")
        results.append(outcome.result)
        diffs.append(outcome.diff)
        fixed += outcome.applied
        if outcome.error:
            errors.append(f"{path}: not fixed: {outcome.error}")
    results.sort(key=lambda r: r.path)
    advice = tuple(verdict(r.path, r.findings, settings.target_gpu) for r in results)
    report = RunReport(__version__, tuple(results), advice)
    code = exit_code(report, errors)
    if fix == "diff" and code != EXIT_ERROR:
        code = EXIT_FINDINGS if any(diffs) else EXIT_CLEAN
    return RunOutcome(report, tuple(errors), code, tuple(d for d in diffs if d), fixed, stdin_fixed)


def exit_code(report: RunReport, errors: list[str] | tuple[str, ...]) -> int:
    if errors or any(f.code == INTERNAL_ERROR[0] for f in report.findings):
        return EXIT_ERROR
    return EXIT_FINDINGS if report.findings else EXIT_CLEAN
