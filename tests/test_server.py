"""`kernlint server` end to end: pygls's own LSP client starts it over stdio
(`python -m kernlint server`, as an editor would run `kernlint server`) and
talks to it: initialize, didOpen -> publishDiagnostics with the seed's
findings at their ranges, codeAction -> the safe fix as an edit, hover -> the
rule's docs and the finding's measured speedup, didChange and didSave ->
fresh diagnostics, shutdown."""

from __future__ import annotations

import asyncio
import sys

import pytest
from conftest import FIXTURES

pytest.importorskip("pygls")
from lsprotocol import types  # noqa: E402
from pygls.lsp.client import LanguageClient  # noqa: E402

SEED = FIXTURES / "seed" / "kernel.py"

# What `kernlint --format json fixtures/seed/kernel.py` reports (line,
# column, end_line, end_column: 23:13-23:29, 54:16-54:53,
# 54:37-54:52, 112:9-112:37, 122:5-133:6), as LSP ranges: 0-based lines and
# characters, the end exclusive in both.
SEED_DIAGNOSTICS = [
    ("KL009", types.DiagnosticSeverity.Information, (22, 12, 22, 28)),
    ("KL001", types.DiagnosticSeverity.Warning, (53, 15, 53, 52)),
    ("KL014", types.DiagnosticSeverity.Information, (53, 36, 53, 51)),
    ("KL002", types.DiagnosticSeverity.Warning, (111, 8, 111, 36)),
    ("KL003", types.DiagnosticSeverity.Warning, (121, 4, 132, 5)),
]


def as_tuple(r: types.Range) -> tuple[int, int, int, int]:
    return (r.start.line, r.start.character, r.end.line, r.end.character)


async def session(uri: str, text: str) -> dict:
    client = LanguageClient("kernlint-test", "1")
    published: asyncio.Queue[types.PublishDiagnosticsParams] = asyncio.Queue()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published.put_nowait(params)

    await client.start_io(sys.executable, "-m", "kernlint", "server")
    seen: dict = {}
    try:
        result = await asyncio.wait_for(
            client.initialize_async(
                types.InitializeParams(capabilities=types.ClientCapabilities(), process_id=None, root_uri=None)
            ),
            60,
        )
        seen["capabilities"] = result.capabilities
        client.initialized(types.InitializedParams())
        document = types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=document))
        seen["open"] = await asyncio.wait_for(published.get(), 60)

        kl014 = next(d for d in seen["open"].diagnostics if d.code == "KL014")
        seen["actions"] = await asyncio.wait_for(
            client.text_document_code_action_async(
                types.CodeActionParams(
                    text_document=types.TextDocumentIdentifier(uri=uri),
                    range=kl014.range,
                    context=types.CodeActionContext(diagnostics=[kl014]),
                )
            ),
            60,
        )
        kl002 = next(d for d in seen["open"].diagnostics if d.code == "KL002")
        seen["hover"] = await asyncio.wait_for(
            client.text_document_hover_async(
                types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=kl002.range.start)
            ),
            60,
        )

        # The fix applied in the editor: KL014 is gone on change (unsaved) and on save.
        fixed = text.replace("allow_tf32=True", 'input_precision="tf32"')
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)],
            )
        )
        seen["change"] = await asyncio.wait_for(published.get(), 60)
        client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        seen["save"] = await asyncio.wait_for(published.get(), 60)
        await asyncio.wait_for(client.shutdown_async(None), 60)
        client.exit(None)
    finally:
        await asyncio.wait_for(client.stop(), 60)
    return seen


@pytest.fixture(scope="module")
def seen() -> dict:
    return asyncio.run(session(SEED.as_uri(), SEED.read_text(encoding="utf-8")))


def test_initialize_announces_code_actions_and_hover(seen: dict) -> None:
    capabilities = seen["capabilities"]
    assert capabilities.hover_provider
    assert capabilities.code_action_provider
    assert capabilities.text_document_sync is not None


def test_did_open_publishes_the_seeds_findings_at_their_ranges(seen: dict) -> None:
    params = seen["open"]
    assert params.uri == SEED.as_uri()
    assert [(d.code, d.severity, as_tuple(d.range)) for d in params.diagnostics] == SEED_DIAGNOSTICS
    assert {d.source for d in params.diagnostics} == {"kernlint"}
    kl014 = next(d for d in params.diagnostics if d.code == "KL014")
    assert kl014.message == "`allow_tf32=` in tl.dot is deprecated; use `input_precision=` instead"


def test_code_action_offers_the_safe_fix_as_an_edit(seen: dict) -> None:
    (action,) = seen["actions"]
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.title.startswith("KL014: ")
    (edit,) = action.edit.changes[SEED.as_uri()]
    line = SEED.read_text(encoding="utf-8").splitlines()[edit.range.start.line]
    fixed = line[: edit.range.start.character] + edit.new_text + line[edit.range.end.character :]
    assert fixed == '        acc += tl.dot(a_f32, b_f32, input_precision="tf32")'


def test_hover_shows_the_rule_docs_and_the_findings_estimate(seen: dict) -> None:
    value = seen["hover"].contents.value
    assert value.startswith("**KL002 per-call-relayout** (warning, memory-layout)")
    # The seed's kernel file has no get_inputs: no estimate for it, said, then the pair's measurement.
    assert "**Expected speedup:** the file's shapes are unknown (not a KernelBench-style file" in value
    assert "the rule's reference pair measured 7.0-13.2x (CUDA graph)" in value
    assert "\n#### Why is this bad?\n" in value


def test_change_and_save_publish_fresh_diagnostics(seen: dict) -> None:
    for event in ("change", "save"):
        codes = [d.code for d in seen[event].diagnostics]
        assert codes == ["KL009", "KL001", "KL002", "KL003"], event


def test_the_server_command_is_listed() -> None:
    from conftest import run_kernlint

    assert "server" in run_kernlint("--help").stdout.decode()
