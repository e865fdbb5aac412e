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
from kernlint.reporters import RunReport

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


@dataclass(frozen=True)
class RunOutcome:
    report: RunReport
    errors: tuple[str, ...]  # one line each, for stderr
    exit_code: int


def run(
    paths: list[str],
    settings: Settings = Settings(),
    stdin_filename: str | None = None,
    exclude: tuple[str, ...] = (),
) -> RunOutcome:
    results: list[FileResult] = []
    errors: list[str] = []
    file_paths = [p for p in paths if p != "-"]
    if "-" in paths:
        data = sys.stdin.buffer.read()
        results.append(lint_bytes(stdin_filename or "-", data, settings))
    found = discover(file_paths, exclude)
    errors.extend(found.errors)
    for path in found.files:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except OSError as error:
            errors.append(f"{path}: cannot read: {error.strerror or error}")
            continue
        results.append(lint_bytes(path, data, settings))
    results.sort(key=lambda r: r.path)
    advice = tuple(verdict(r.path, r.findings, settings.target_gpu) for r in results)
    report = RunReport(__version__, tuple(results), advice)
    return RunOutcome(report, tuple(errors), exit_code(report, errors))


def exit_code(report: RunReport, errors: list[str] | tuple[str, ...]) -> int:
    if errors or any(f.code == INTERNAL_ERROR[0] for f in report.findings):
        return EXIT_ERROR
    return EXIT_FINDINGS if report.findings else EXIT_CLEAN
