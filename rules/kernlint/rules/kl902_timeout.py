from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel
from kernlint.registry import Activation, Report, Rule


class Timeout(Rule):
    """
    ## What it does
    Reports a file whose analysis took longer than the per-file time budget
    (`--timeout-per-file`, in seconds; default 20). Each file is checked in a
    worker process; when the budget is spent, the worker is stopped, the file
    gets this finding, and the run goes on with the next file. Nothing in the
    file is reported as checked. The engine emits this finding; it cannot be
    turned off with `--ignore`, because a file that was not checked must not
    look clean.

    ## Why is this bad?
    One pathological file (megabytes of generated code, or nesting that makes
    the parser crawl) must not stall a CI job. A hand-written kernel file is
    checked in about a second (kernlint reads some 60 KB of code per
    second); a file that needs the whole budget is almost always generated.

    ## Example
    ```text
    $ kernlint --timeout-per-file 5 generated/
    generated/big.py:1:1: KL902 [timeout] not analyzed: checking this file took longer than the time budget of 5 s (--timeout-per-file) and was stopped; nothing in it was checked
    ```

    ## Use instead
    Exclude generated files (`exclude = ["generated/*"]` in
    `[tool.kernlint]`), or give the file more time: `--timeout-per-file 120`
    (`0` removes the budget and checks every file in the kernlint process
    itself, one after another). The budget is wall-clock time, so a file close
    to it can pass on a fast machine and time out on a slow one.

    ## Fix safety
    No fix: the finding is about the file, not its code. With `--fix`, a file
    that runs out of time is left exactly as it was.
    """

    code = "KL902"
    name = "timeout"
    category = Category.INTERNAL
    severity = Severity.WARNING
    summary = "Checking the file took longer than the time budget (--timeout-per-file); it was not checked."
    event = "timeout"
    activation = Activation.ALWAYS
    suppressible = False
    # Triggered by time spent, not by code that an example can show;
    # tests/test_limits.py proves it.
    emitted_by_engine = True

    def check(self, model: FileModel) -> Iterator[Report]:
        return iter(())
