from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel
from kernlint.registry import Activation, Report, Rule


class FileTooLarge(Rule):
    """
    ## What it does
    Reports a file larger than the size cap (`--max-file-size`, in bytes;
    default 1 MiB, over 5 times the largest real kernel file seen, and small
    enough that a file under it is checked within the default time budget).
    The file is not read, so nothing in it is checked. The
    engine emits this finding from the file's size, before any rule runs; it
    cannot be turned off with `--ignore`, because a file that was not checked
    must not look clean.

    ## Why is this bad?
    A source file of many megabytes is almost always generated (tables of
    data, tuned configurations, vendored bundles) and not hand-written kernel
    code. Parsing it costs seconds per megabyte, and one such file would
    stall every CI run that lints the repository.

    ## Example
    ```text
    $ kernlint --max-file-size 1000000 generated/
    generated/table.py:1:1: KL901 [file-too-large] not analyzed: the file is 7,622,263 bytes, over the size cap of 1,000,000 bytes (--max-file-size; a file this large also needs a longer --timeout-per-file); nothing in it was checked
    ```

    ## Use instead
    Exclude generated files (`exclude = ["generated/*"]` in
    `[tool.kernlint]`), or raise the cap and the per-file time budget
    together: `--max-file-size 10000000 --timeout-per-file 120` (`0`
    removes either). libcst parses dense code at about 8 s and 1.3 GB per
    MB, so a larger file under the default budget would stop with KL902.

    ## Fix safety
    No fix: the finding is about the file, not its code.
    """

    code = "KL901"
    name = "file-too-large"
    category = Category.INTERNAL
    severity = Severity.WARNING
    summary = "The file is over the size cap (--max-file-size) and was not checked."
    event = "file-too-large"
    activation = Activation.ALWAYS
    suppressible = False
    # Triggered by the file's size, not by code that an example can show;
    # tests/test_limits.py proves it.
    emitted_by_engine = True

    def check(self, model: FileModel) -> Iterator[Report]:
        return iter(())
