"""Suppression comments, and the findings they silence.

Forms (codes or, in the kernlint forms, rule names):

    x = f(a, allow_tf32=True)  # noqa: KL014          this finding only
    x = f(a, allow_tf32=True)  # noqa                 every finding here
    x = f(a, allow_tf32=True)  # kernlint: ignore[KL014]
    # kernlint: ignore[KL014]                         own line: the statement below
    # kernlint: ignore-file                           anywhere: the whole file
    # kernlint: ignore-file[KL003, KL014]

A directive at the end of a line applies to findings reported on that line,
and to every finding inside the statement whose first or last line it is on
(so `# noqa` on the closing line of a multi-line call works). A directive on
a line of its own applies to the statement that starts right below it (a
block of comment lines may sit between them; a blank line ends the block);
decorators belong to the `def`/`class` they decorate. Only real comments
count: `tokenize` tells them from `#` inside strings.

`# noqa` lists shared with other tools (`# noqa: E501, KL014`) are read for
their KL codes only; a `# noqa: E501` is not a kernlint directive at all.
A rule declared `suppressible = False` (a parse error, an internal error:
findings that say the file was not checked) cannot be suppressed.

With KL900 (unused-suppression) enabled (`--report-unused-suppressions` or
`extend-select = ["KL900"]`), a directive that silenced nothing is itself a
finding, with a safe fix that deletes it (or only its unused codes). A code
is judged unused only when its rule ran on the file; a blanket directive
only when every rule that runs by default ran.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from kernlint.findings import Finding, Fix, Span
from kernlint.registry import Activation, all_rules, rule_by_code_or_name, rule_for_event
from kernlint.source import line_starts

if TYPE_CHECKING:
    from kernlint.settings import Settings


NOQA = re.compile(r"#\s*noqa(?![\w-])(?::\s?(?P<codes>[A-Za-z]+[0-9]+(?:[,\s]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
# An unclosed `[` makes it no directive at all, rather than a blanket one.
KERNLINT = re.compile(r"#\s*kernlint:\s*(?P<kind>ignore-file|ignore)(?:\[(?P<codes>[^\]\n]*)\]|(?![\w\[-]))")
KL_CODE = re.compile(r"^KL\d+$", re.IGNORECASE)


@dataclass
class Directive:
    kind: str  # "noqa", "ignore" or "ignore-file"
    line: int
    column: int  # 0-based, of the directive's `#`
    text: str  # the directive as written
    codes: tuple[str, ...] | None  # canonical codes; None: every rule
    items: tuple[tuple[str, str | None], ...]  # (as written, code or None if unknown)
    written: tuple[str, ...]  # every code as written, other tools' included, in order
    own_line: bool
    comment_end: bool  # nothing but spaces follows it in its comment
    comment_start: bool  # it begins its comment
    used: set[str] = field(default_factory=set)
    used_any: bool = False

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes


@dataclass
class Scan:
    directives: list[Directive]
    statement: dict[int, tuple[int, int]]  # line -> (first, last) line of its statement
    comment_lines: frozenset[int]  # lines that hold a comment and nothing else


def _resolve(item: str) -> str | None:

    rule = rule_by_code_or_name(item)
    if rule is not None:
        return rule.code
    unused = rule_for_event("unused-suppression")
    if item.strip().upper() == unused.code or item.strip() == unused.name:
        return unused.code
    return None


def _directives(comment: str, line: int, column: int, own_line: bool) -> Iterable[Directive]:
    for match in NOQA.finditer(comment):
        codes = match.group("codes")
        written = tuple(c for c in re.split(r"[,\s]+", codes or "") if c)
        items: tuple[tuple[str, str | None], ...] = tuple((c, _resolve(c)) for c in written if KL_CODE.match(c))
        if codes is not None and not items:
            continue  # another tool's noqa (`# noqa: E501`)
        yield _make("noqa", match, comment, line, column, own_line, items, written, codes is None)
    for match in KERNLINT.finditer(comment):
        written = tuple(c.strip() for c in (match.group("codes") or "").split(",") if c.strip())
        items = tuple((c, _resolve(c)) for c in written)
        yield _make(match.group("kind"), match, comment, line, column, own_line, items, written, not items)


def _make(kind, match, comment, line, column, own_line, items, written, blanket) -> Directive:
    codes = None if blanket else tuple(sorted({code for _, code in items if code is not None}))
    return Directive(
        kind=kind,
        line=line,
        column=column + match.start(),
        text=match.group(0),
        codes=codes,
        items=items,
        written=written,
        own_line=own_line,
        comment_end=not comment[match.end() :].strip(),
        comment_start=match.start() == 0,
    )


def scan(text: str) -> Scan | None:
    """Directives and statement extents of a source text; None when the text
    cannot be tokenized (then nothing is suppressed)."""
    directives: list[Directive] = []
    comment_lines: set[int] = set()
    logical: list[tuple[int, int, str]] = []  # (first line, last line, first token)
    start: int | None = None
    first = ""
    skip = (tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline=None).readline):
            if token.type == tokenize.COMMENT:
                own = not token.line[: token.start[1]].strip()
                if own:
                    comment_lines.add(token.start[0])
                if "noqa" in token.string.lower() or "kernlint" in token.string:
                    directives.extend(_directives(token.string, token.start[0], token.start[1], own))
            elif token.type == tokenize.NEWLINE:
                if start is not None:
                    logical.append((start, token.start[0], first))
                start = None
            elif token.type not in skip and start is None:
                start, first = token.start[0], token.string
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    statement: dict[int, tuple[int, int]] = {}
    for index, (begin, end, head) in enumerate(logical):
        if head in ("def", "class", "async"):
            j = index
            while j > 0 and logical[j - 1][2] == "@":
                j -= 1
            begin = logical[j][0]
        for number in range(begin, end + 1):
            statement[number] = (begin, end)
    return Scan(directives, statement, frozenset(comment_lines))


def _block_above(line: int, comment_lines: frozenset[int]) -> range:
    top = line
    while top - 1 in comment_lines:
        top -= 1
    return range(top, line)


def _matching(finding: Finding, scan: Scan, by_line: dict[int, list[Directive]]) -> Iterable[Directive]:
    line = finding.span.line
    first, last = scan.statement.get(line, (line, line))
    for number in sorted({line, first, last}):
        for directive in by_line.get(number, ()):
            if not directive.own_line:
                yield directive
    for anchor in sorted({first, line}):
        for number in _block_above(anchor, scan.comment_lines):
            for directive in by_line.get(number, ()):
                if directive.own_line:
                    yield directive


def apply(path: str, text: str, findings: list[Finding], settings: Settings) -> tuple[list[Finding], list[Finding]]:
    """(findings still reported, findings suppressed). Adds KL900 findings
    for unused directives when the settings enable KL900."""
    report_unused = settings.enabled(rule_for_event("unused-suppression").code)
    lowered = text.lower()
    if "noqa" not in lowered and "kernlint" not in lowered:
        return findings, []
    if not findings and not report_unused:
        return findings, []
    scanned = scan(text)
    if scanned is None:
        return findings, []
    file_level = [d for d in scanned.directives if d.kind == "ignore-file"]
    by_line: dict[int, list[Directive]] = {}
    for directive in scanned.directives:
        if directive.kind != "ignore-file":
            by_line.setdefault(directive.line, []).append(directive)
    active: list[Finding] = []
    suppressed: list[Finding] = []
    for finding in findings:
        covering: Directive | None = None
        if _suppressible(finding.code):
            covering = _first_covering(finding, file_level, scanned, by_line)
        if covering is None:
            active.append(finding)
            continue
        covering.used.add(finding.code)
        covering.used_any = True
        suppressed.append(replace(finding, suppressed_by=covering.text))
    if report_unused:
        for unused in _unused(path, text, scanned, settings):
            if _first_covering(unused, file_level, scanned, {}) is None:
                active.append(unused)
        active.sort(key=lambda f: f.sort_key)
    return active, suppressed


def _first_covering(finding: Finding, file_level: list[Directive], scanned: Scan, by_line) -> Directive | None:
    for directive in file_level:
        if directive.covers(finding.code):
            return directive
    for directive in _matching(finding, scanned, by_line):
        if directive.covers(finding.code):
            return directive
    return None


def _unused(path: str, text: str, scanned: Scan, settings: Settings) -> Iterable[Finding]:

    unused = rule_for_event("unused-suppression")
    # Opt-in rules (KL010, KL015: fixes that do not pay) do not count: a blanket
    # directive is judged once every rule that runs by default ran.
    every_rule_ran = all(
        settings.enabled(rule.code)
        for rule in all_rules()
        if rule is not unused and rule.activation is not Activation.OPT_IN
    )
    starts = line_starts(text)
    where = {"noqa": "on this line", "ignore": "here", "ignore-file": "in this file"}
    for directive in scanned.directives:
        if directive.codes is not None and unused.code in directive.codes:
            continue  # it asks not to be judged
        if directive.codes is None:
            if directive.used_any or not every_rule_ran:
                continue
            yield _finding(
                path,
                directive,
                f"unused suppression `{directive.text}`: nothing is reported {where[directive.kind]}",
                _removal(text, starts, directive, ()),
            )
            continue
        unknown = [written for written, code in directive.items if code is None]
        idle = [code for code in directive.codes if code not in directive.used and settings.enabled(code)]
        if not unknown and not idle:
            continue
        parts = []
        if unknown:
            parts.append(
                f"{', '.join(repr(u) for u in unknown)} {'is not a kernlint rule' if len(unknown) == 1 else 'are not kernlint rules'}"
            )
        if idle:
            parts.append(f"{', '.join(idle)} {'is' if len(idle) == 1 else 'are'} not reported {where[directive.kind]}")
        dropped = set(unknown) | {written for written, code in directive.items if code in idle}
        keep = tuple(written for written in directive.written if written not in dropped)
        yield _finding(
            path,
            directive,
            f"unused suppression `{directive.text}`: {'; '.join(parts)}",
            _removal(text, starts, directive, keep),
        )


def _suppressible(code: str) -> bool:
    rule = rule_by_code_or_name(code)
    return rule is None or rule.suppressible


def _finding(path: str, directive: Directive, message: str, fix: Fix | None) -> Finding:
    unused = rule_for_event("unused-suppression")
    return Finding(
        code=unused.code,
        name=unused.name,
        category=unused.category,
        severity=unused.severity,
        message=message,
        path=path,
        span=Span(directive.line, directive.column + 1, directive.line, directive.column + 1 + len(directive.text)),
        plan="Delete the suppression (or its unused codes); `kernlint --fix` does it.",
        fix=fix,
    )


def _removal(text: str, starts: list[int], directive: Directive, keep: tuple[str, ...]) -> Fix | None:
    """Delete the directive, or rewrite it with only the codes in `keep`."""
    begin = starts[directive.line - 1] + directive.column
    end = begin + len(directive.text)
    if text[begin:end] != directive.text:
        return None
    if keep:
        rebuilt = (
            f"# noqa: {', '.join(keep)}"
            if directive.kind == "noqa"
            else f"# kernlint: {directive.kind}[{', '.join(keep)}]"
        )
        return Fix(f"keep only {', '.join(keep)} in the suppression", ((begin, end, rebuilt),))
    if not directive.comment_end:
        return None  # text follows it inside the comment; deleting would expose it as code
    if directive.own_line and directive.comment_start:
        line_end = starts[directive.line] if directive.line < len(starts) else len(text)
        return Fix("delete the unused suppression", ((starts[directive.line - 1], line_end, ""),))
    line_text = text[starts[directive.line - 1] : begin]
    stripped = line_text.rstrip(" \t")
    return Fix("delete the unused suppression", ((starts[directive.line - 1] + len(stripped), end, ""),))
