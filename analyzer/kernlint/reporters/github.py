"""GitHub Actions workflow commands: one annotation per finding.

    ::warning file=k.py,line=12,col=5,endLine=12,endColumn=30,title=KL001 (name)::message

Escaping follows GitHub's runner (`ActionCommand`): in the message `%`,
CR and LF become `%25`, `%0D`, `%0A`; in property values `:` and `,` are
escaped too (`%3A`, `%2C`). A finding that spans lines carries no column
fields, since GitHub only honours columns on single-line annotations. With
--show-suppressed a suppressed finding is a `notice` whose message ends with
`(suppressed by ...)`: an annotation cannot be marked suppressed otherwise,
and it must not read as an error.
"""

from __future__ import annotations

import os

from kernlint.reporters import RunReport

COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: RunReport) -> str:
    lines = []
    for finding in report.shown:
        span = finding.span
        properties = [("file", finding.path.replace(os.sep, "/")), ("line", str(span.line))]
        if span.end_line == span.line:
            properties += [
                ("col", str(span.column)),
                ("endLine", str(span.end_line)),
                ("endColumn", str(span.end_column)),
            ]
        else:
            properties += [("endLine", str(span.end_line))]
        properties.append(("title", f"{finding.code} ({finding.name})"))
        message = f"{finding.code} {finding.message}"
        command = COMMANDS[finding.severity.value]
        if finding.suppressed_by is not None:
            message += f" (suppressed by `{finding.suppressed_by}`)"
            command = COMMANDS["info"]
        if finding.plan:
            message += f"\n{finding.plan}"
        props = ",".join(f"{key}={escape_property(value)}" for key, value in properties)
        lines.append(f"::{command} {props}::{escape_data(message)}")
    return "".join(line + "\n" for line in lines)
