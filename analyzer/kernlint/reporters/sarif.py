"""SARIF 2.1.0 for GitHub code scanning (and any SARIF viewer).

One run; the driver lists every rule (with its documentation as help text),
each result points at its rule by id and index. Paths are relative URIs with
forward slashes under the `%SRCROOT%` base, which is what
`github/codeql-action/upload-sarif` expects from a checkout-relative run.

`partialFingerprints["kernlintFingerprint/v1"]` identifies a finding across
commits (kernlint.reporters.fingerprints: it survives lines inserted above
it). Suppressed findings, shown with --show-suppressed, carry `suppressions`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from urllib.parse import quote

from kernlint.findings import Finding
from kernlint.registry import Rule, all_rules
from kernlint.reporters import RunReport
from kernlint.source import line_starts

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/kernlint/kernlint"
RULES_DOC = "https://github.com/kernlint/kernlint/blob/main/docs/rules.md"
FINGERPRINT_KEY = "kernlintFingerprint/v1"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
SRCROOT = "%SRCROOT%"


def help_uri(code: str, name: str) -> str:
    """The rule's section in docs/rules.md. GitHub derives a heading's anchor
    from its text; a rule's heading is `KL014 deprecated-allow-tf32`, and codes
    and names never change, so the anchor is stable."""
    return f"{RULES_DOC}#{code.lower()}-{name}"


def artifact_uri(path: str) -> tuple[str, str | None]:
    """(uri, uriBaseId): relative paths under %SRCROOT%, absolute ones as
    file: URIs (made relative when they lie under the working directory)."""
    if path == "-":
        return "stdin", None
    if os.path.isabs(path):
        relative = os.path.relpath(path)
        if relative.startswith(".."):
            return "file://" + quote(path.replace(os.sep, "/"), safe="/"), None
        path = relative
    posix = os.path.normpath(path).replace(os.sep, "/")
    return quote(posix, safe="/"), SRCROOT


def _sections(docs: str) -> dict[str, str]:
    """`## Title` -> body text of a rule's markdown docs."""
    out: dict[str, str] = {}
    title = ""
    for line in docs.splitlines():
        heading = re.match(r"^##\s+(.*?)\s*$", line)
        if heading:
            title = heading.group(1)
            out[title] = ""
        else:
            out[title] = out.get(title, "") + line + "\n"
    return {key: value.strip() for key, value in out.items()}


def _plain(markdown: str) -> str:
    return re.sub(r"`([^`]*)`", r"\1", markdown).replace("\n", " ").strip()


def rule_descriptor(rule: type[Rule]) -> dict:
    docs = rule.docs()
    what = _sections(docs).get("What it does", "") or rule.summary
    descriptor = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _plain(what)},
        "helpUri": help_uri(rule.code, rule.name),
        "help": {"text": docs or rule.summary, "markdown": f"# {rule.code} {rule.name}\n\n{docs}".strip() + "\n"},
        "defaultConfiguration": {"level": LEVELS[rule.severity.value]},
        "properties": {
            "category": rule.category.value,
            "tags": sorted(
                {"triton", rule.category.value, "performance" if rule.category.is_performance else rule.category.value}
            ),
            "fixable": rule.fixable(),
        },
    }
    return descriptor


def descriptors() -> list[dict]:
    return [rule_descriptor(rule) for rule in all_rules()]


def _position(starts: list[int], offset: int) -> tuple[int, int]:
    """1-based (line, column) of a character offset."""
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo + 1, offset - starts[lo] + 1


def _fixes(finding: Finding, source: str | None, location: dict) -> Iterator[dict]:
    if finding.fix is None or not finding.fix.safe or source is None:
        return
    starts = line_starts(source)
    replacements = []
    for start, end, text in finding.fix.replacements:
        start_line, start_column = _position(starts, start)
        end_line, end_column = _position(starts, end)
        replacements.append(
            {
                "deletedRegion": {
                    "startLine": start_line,
                    "startColumn": start_column,
                    "endLine": end_line,
                    "endColumn": end_column,
                },
                "insertedContent": {"text": text},
            }
        )
    yield {
        "description": {"text": finding.fix.description},
        "artifactChanges": [{"artifactLocation": location, "replacements": replacements}],
    }


def _result(
    finding: Finding, index: dict[str, int], fingerprint: str, source: str | None, suppression: str | None
) -> dict:
    uri, base = artifact_uri(finding.path)
    location: dict = {"uri": uri}
    if base:
        location["uriBaseId"] = base
    span = finding.span
    region = {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
    }
    result: dict = {"ruleId": finding.code}
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    result.update(
        {
            "level": LEVELS[finding.severity.value],
            "message": {"text": finding.message},
            "locations": [{"physicalLocation": {"artifactLocation": location, "region": region}}],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        }
    )
    fixes = list(_fixes(finding, source, location))
    if fixes:
        result["fixes"] = fixes
    properties: dict = {"name": finding.name, "category": finding.category.value}
    if finding.kernel:
        properties["kernel"] = finding.kernel
    if finding.plan:
        properties["plan"] = finding.plan
    if finding.expected_speedup:
        properties["expectedSpeedup"] = finding.expected_speedup.get("summary")
    result["properties"] = properties
    if suppression is not None:
        result["suppressions"] = [{"kind": "inSource", "justification": suppression}]
    return result


def document(report: RunReport) -> dict:
    rules = descriptors()
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    sources = {r.path: r.source for r in report.results}
    suppressed = {id(f) for f in report.suppressed}
    results = [
        _result(
            f,
            index,
            report.fingerprints[id(f)],
            sources.get(f.path),
            (f.suppressed_by or "suppressed in source") if id(f) in suppressed else None,
        )
        for f in report.shown
    ]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "kernlint",
                        "version": report.version,
                        "semanticVersion": report.version,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def render(report: RunReport) -> str:
    return json.dumps(document(report), indent=2, ensure_ascii=False) + "\n"
