from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel
from kernlint.registry import Activation, Invalid, Report, Rule, Valid


class ParseError(Rule):
    """
    ## What it does
    Reports a file kernlint cannot analyze: a syntax error, bytes that are not
    valid in the file's encoding, or a binary file. The finding points at the
    first offending line.

    ## Why is this bad?
    Nothing else in the file is checked until it parses, so every other rule
    is silent on it. The engine emits this finding itself; no rule code runs.

    ## Example
    ```python
    def kernel(x_ptr:
        pass
    ```

    ## Use instead
    Fix the syntax; `python -m py_compile FILE` shows the same error.
    """

    code = "KL000"
    name = "parse-error"
    category = Category.INTERNAL
    severity = Severity.ERROR
    summary = "The file could not be decoded or parsed; nothing else was checked."
    event = "parse-error"
    activation = Activation.ALWAYS
    suppressible = False

    VALID = [
        Valid("x = 1\n"),
        Valid("def f():\n    return 1\n"),
        Valid("import triton\n"),
        Valid("# only a comment\n"),
        Valid(""),
        Valid("class A:\n    pass\n"),
    ]
    INVALID = [
        Invalid("def f(:\n    pass\n", line=1, column=7),
        Invalid("x = (1,\n", line=1, column=5),
        Invalid("if True\n    pass\n", line=1),
        Invalid("return = 3\n", line=1),
        Invalid("def f():\nreturn 1\n", line=2),
        Invalid("x = 1 +\n", line=1),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        return iter(())
