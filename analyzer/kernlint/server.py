"""`kernlint server`: a Language Server over stdio, so that findings show in
the editor as the code is written (issue 28; ruff has `ruff server`, Fixit
`fixit lsp`).

- **Diagnostics** on open, change and save: the document's text as the
  editor holds it (saved or not) is linted in this process with the
  settings of the file's nearest `[tool.kernlint]` config, exactly as
  `kernlint FILE` would lint it; suppressed findings are not shown.
- **Code actions**: each safe fix of a finding in the requested range, as a
  quick fix that edits the document (nothing is written to disk here).
- **Hover** over a finding: its message, the measured speedup its rule
  claims and the plan, then the rule's documentation (`kernlint rule CODE`).

pygls does the protocol; it is the optional extra `kernlint[server]`, so
that linting in CI does not install it. Positions: kernlint's lines and
columns are 1-based characters, LSP's 0-based; columns are converted to the
client's units (UTF-16 unless negotiated) by pygls's position codec.
Nothing here executes the document.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from kernlint.findings import FileResult, Finding, Severity
from kernlint.version import __version__

try:
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer
    from pygls.uris import to_fs_path
except ImportError as error:  # pragma: no cover - the extra is missing
    raise ImportError("`kernlint server` needs pygls: pip install 'kernlint[server]'") from error

SOURCE = "kernlint"
SEVERITIES = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


class KernlintServer(LanguageServer):
    """The last lint result of each open document, by URI, for the code
    actions and hovers that follow its diagnostics."""

    def __init__(self) -> None:
        super().__init__("kernlint", __version__)
        self.results: dict[str, FileResult] = {}


def lint_text(path: str, text: str) -> FileResult:
    """What `kernlint PATH` would report for `text` as the content of PATH:
    the nearest config's settings, the size cap, suppressions."""
    from kernlint import config, engine

    try:
        found = config.find_config([path])
        settings = config.resolve(config.load_config(found) if found else config.Config())
    except config.ConfigError as error:
        raise ConfigProblem(str(error)) from None
    size = len(text.encode("utf-8", "surrogatepass"))
    if settings.max_file_size and size > settings.max_file_size:
        return engine.file_too_large_result(path, size, settings.max_file_size)
    return engine.lint_source(path, text, settings)


class ConfigProblem(Exception):
    """The file's config does not load: shown to the user, nothing linted."""


def server() -> KernlintServer:
    ls = KernlintServer()

    def publish(uri: str) -> None:
        document = ls.workspace.get_text_document(uri)
        path = to_fs_path(uri) or uri
        try:
            result = lint_text(path, document.source)
        except ConfigProblem as problem:
            ls.window_show_message(
                types.ShowMessageParams(type=types.MessageType.Error, message=f"kernlint: {problem}")
            )
            return
        ls.results[uri] = result
        lines = document.lines
        diagnostics = [diagnostic(finding, lines, ls) for finding in result.findings]
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=document.version)
        )

    @ls.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: KernlintServer, params: types.DidOpenTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @ls.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: KernlintServer, params: types.DidChangeTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @ls.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: KernlintServer, params: types.DidSaveTextDocumentParams) -> None:
        publish(params.text_document.uri)

    @ls.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: KernlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.results.pop(params.text_document.uri, None)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @ls.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: KernlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        result = ls.results.get(uri)
        if result is None:
            return []
        document = ls.workspace.get_text_document(uri)
        if document.source != result.source:
            return []  # the text changed since the fixes were computed; its diagnostics are coming
        actions = []
        for finding in result.findings:
            fix = finding.fix
            if fix is None or not fix.safe or not fix.replacements:
                continue
            found = diagnostic(finding, document.lines, ls)
            if not _overlaps(found.range, params.range):
                continue
            edits = [
                types.TextEdit(range=_offsets_range(document.source, start, end, document.lines, ls), new_text=new)
                for start, end, new in fix.replacements
            ]
            actions.append(
                types.CodeAction(
                    title=f"{finding.code}: {fix.description}",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[found],
                    is_preferred=True,
                    edit=types.WorkspaceEdit(changes={uri: edits}),
                )
            )
        return actions

    @ls.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: KernlintServer, params: types.HoverParams) -> types.Hover | None:
        uri = params.text_document.uri
        result = ls.results.get(uri)
        if result is None:
            return None
        lines = ls.workspace.get_text_document(uri).lines
        here = [f for f in result.findings if _contains(diagnostic(f, lines, ls).range, params.position)]
        if not here:
            return None
        return types.Hover(
            contents=types.MarkupContent(
                kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(hover_text(f) for f in here)
            ),
            range=diagnostic(here[0], lines, ls).range,
        )

    return ls


def diagnostic(finding: Finding, lines: Sequence[str], ls: Any) -> types.Diagnostic:
    span = finding.span
    server_range = types.Range(
        start=types.Position(line=span.line - 1, character=span.column - 1),
        end=types.Position(line=span.end_line - 1, character=span.end_column - 1),
    )
    claim = finding.expected_speedup or {}
    return types.Diagnostic(
        range=ls.workspace.position_codec.range_to_client_units(lines, server_range),
        message=finding.message,
        severity=SEVERITIES[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=f"{RULES_URL}#{finding.code.lower()}-{finding.name}"),
        source=SOURCE,
        data={"name": finding.name, "expected_speedup": claim.get("summary")},
    )


# The rule pages (docs/rules.md, generated from each rule's docstring).
RULES_URL = "https://github.com/kernlint/kernlint/blob/main/docs/rules.md"


def hover_text(finding: Finding) -> str:
    from kernlint import claims
    from kernlint.registry import rule_by_code_or_name

    rule = rule_by_code_or_name(finding.code)
    claim = finding.expected_speedup or {}
    if finding.category.is_performance:
        from kernlint.advice import estimate_text, pair_text, unknown_text

        estimate = claim.get("for_this_file") or {}
        pair = pair_text(claim)
        if estimate.get("status") == "estimated":
            speedup = f"{estimate_text(estimate)}; {pair}"
        elif estimate:
            speedup = f"{unknown_text(str(estimate.get('reason')))}; {pair}"
        else:
            speedup = pair
    else:
        speedup = claims.claim_label(finding.code, finding.category.value)
    parts = [
        f"**{finding.code} {finding.name}** ({finding.severity.value}, {finding.category.value})",
        finding.message,
        f"**Expected speedup:** {speedup}",
    ]
    if finding.plan:
        parts.append(f"**Plan:** {finding.plan}")
    if rule is not None:
        parts.append(_demote(rule.docs()))
    return "\n\n".join(parts)


def _demote(markdown: str) -> str:
    """A rule's `## ` headings as `#### `, so they sit under the finding's."""
    return "\n".join("##" + line if line.startswith("#") else line for line in markdown.splitlines())


def _offsets_range(text: str, start: int, end: int, lines: Sequence[str], ls: Any) -> types.Range:
    def position(offset: int) -> types.Position:
        before = text[:offset]
        line = before.count("\n")
        return types.Position(line=line, character=offset - (before.rfind("\n") + 1))

    return ls.workspace.position_codec.range_to_client_units(
        lines, types.Range(start=position(start), end=position(end))
    )


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def _contains(a: types.Range, p: types.Position) -> bool:
    return (a.start.line, a.start.character) <= (p.line, p.character) <= (a.end.line, a.end.character)


def main() -> None:
    # The working directory is where relative paths in findings start; an
    # editor starts the server in the workspace folder.
    os.environ.setdefault("NO_COLOR", "1")
    server().start_io()
