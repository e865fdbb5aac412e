from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel
from kernlint.registry import Activation, Report, Rule


class InternalError(Rule):
    """
    ## What it does
    Reports a bug in kernlint itself: a rule, the model or the suppression
    reader raised an exception on this file, or the worker process checking
    it died. The finding sits at the top of the file and names the part of
    kernlint that failed and where; the other rules still ran (or, for a
    worker that died, nothing in the file was checked).

    ## Why is this bad?
    Whatever the failing part would have found is missing, so a file with
    this finding must not be taken as clean. It cannot be turned off or
    suppressed, and the run exits 1.

    ## Example
    ```text
    k.py:1:1: KL999 [internal-error] internal error in KL001 (upcast-before-dot) on this file: KeyError: 'x' at dtypes.py:120; the other rules still ran. Please report it at https://github.com/kernlint/kernlint/issues with this file
    ```

    ## Use instead
    Report it with the file (or a few lines that reproduce it). Until it is
    fixed, `--ignore` the failing rule for that file with per-file-ignores to
    keep the other findings.

    ## Fix safety
    No fix: the finding is about kernlint, not the code.
    """

    code = "KL999"
    name = "internal-error"
    category = Category.INTERNAL
    severity = Severity.ERROR
    summary = "kernlint failed on this file (a bug in kernlint); what it would have found is missing."
    event = "internal-error"
    activation = Activation.ALWAYS
    suppressible = False
    # Triggered by a bug, which no example can show; tests/test_engine.py
    # and tests/test_limits.py prove it.
    emitted_by_engine = True

    def check(self, model: FileModel) -> Iterator[Report]:
        return iter(())
