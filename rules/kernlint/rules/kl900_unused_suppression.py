from __future__ import annotations

from collections.abc import Iterator

from kernlint.findings import Category, Severity
from kernlint.model import FileModel
from kernlint.registry import Activation, Invalid, Report, Rule, Valid


class UnusedSuppression(Rule):
    """
    ## What it does
    Reports a suppression comment (`# noqa: KL014`, `# kernlint: ignore[...]`,
    `# kernlint: ignore-file[...]`) that silenced nothing, or that names a
    rule kernlint does not have. Off by default: turn it on with
    `--report-unused-suppressions` or `extend-select = ["KL900"]`.

    ## Why is this bad?
    A suppression outlives the code it was written for. Once the finding is
    gone, the comment hides the next real problem on that line, and a typo in
    a code (`# noqa: KL14`) never suppressed anything in the first place.

    ## Example
    ```python
    acc += tl.dot(a, b, input_precision="tf32")  # noqa: KL014
    ```

    ## Use instead
    ```python
    acc += tl.dot(a, b, input_precision="tf32")
    ```

    ## Fix safety
    Safe: the fix deletes the directive (the whole comment when it holds
    nothing else) or only its unused codes, which changes no behaviour. A
    code counts as unused only when its rule ran on the file, and a blanket
    `# noqa` only when every rule ran, so `--select` never makes a needed
    suppression look unused. A directive that names KL900 itself is never
    reported. The engine emits these findings itself after the other rules.
    """

    code = "KL900"
    name = "unused-suppression"
    category = Category.INTERNAL
    severity = Severity.WARNING
    summary = "A suppression comment that silences nothing (or names an unknown rule)."
    event = "unused-suppression"
    activation = Activation.OPT_IN

    # The examples run with only this rule selected: codes of rules that did
    # not run are never judged, so the INVALID ones name unknown rules.
    VALID = [
        Valid("x = 1\n"),
        Valid("x = 1  # noqa: E501\n"),
        Valid("import triton.language as tl\nacc = tl.dot(a, b, allow_tf32=True)  # noqa: KL014\n"),
        Valid('s = "# noqa: KL777"\n'),
        Valid("x = 1  # noqa: KL777, KL900\n"),
        Valid("# kernlint: ignore-file[KL003]\nx = 1\n"),
    ]
    INVALID = [
        Invalid("x = 1  # noqa: KL777\n", line=1, column=8, fixed="x = 1\n"),
        Invalid("x = 1  # noqa: E501, KL14\n", line=1, column=8, fixed="x = 1  # noqa: E501\n"),
        Invalid("# kernlint: ignore[no-such-rule]\nx = 1\n", line=1, column=1, fixed="x = 1\n"),
        Invalid("# kernlint: ignore-file[KL778]\nx = 1\n", line=1, column=1, fixed="x = 1\n"),
        Invalid(
            "def f():\n    return 1  # type: int  # noqa: KL0001\n",
            line=2,
            column=28,
            fixed="def f():\n    return 1  # type: int\n",
        ),
        Invalid("x = [\n    1,\n]  # kernlint: ignore[KL777, no-rule]\n", line=3, column=4, fixed="x = [\n    1,\n]\n"),
    ]

    def check(self, model: FileModel) -> Iterator[Report]:
        return iter(())
