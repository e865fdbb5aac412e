"""Every rule's own VALID/INVALID examples, run through the whole engine."""

from __future__ import annotations

import textwrap

import pytest
from kernlint.engine import Settings, lint_source
from kernlint.registry import Invalid, Rule, Valid, all_rules

MIN_EXAMPLES = 6
EXAMPLES = [
    pytest.param(rule, example, id=f"{rule.code}-{'valid' if isinstance(example, Valid) else 'invalid'}-{i}")
    for rule in all_rules()
    for i, example in enumerate([*rule.VALID, *rule.INVALID])
]


def apply_fixes(source: str, fixes) -> str:
    edits = sorted((r for fix in fixes for r in fix.replacements), reverse=True)
    for start, end, text in edits:
        source = source[:start] + text + source[end:]
    return source


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_rule_has_enough_examples_and_docs(rule: type[Rule]) -> None:
    if rule.emitted_by_engine:
        # Triggered by size or time, not by text (see Rule.emitted_by_engine).
        assert not rule.VALID and not rule.INVALID and "## Example" in rule.docs()
    else:
        assert len(rule.VALID) >= MIN_EXAMPLES, f"{rule.code} needs {MIN_EXAMPLES} VALID examples"
        assert len(rule.INVALID) >= MIN_EXAMPLES, f"{rule.code} needs {MIN_EXAMPLES} INVALID examples"
    docs = rule.docs()
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert section in docs, f"{rule.code} docs lack {section!r}"
    assert rule.name == rule.name.lower() and " " not in rule.name
    if rule.category.is_performance:
        assert rule.bottleneck and rule.method, f"{rule.code} needs bottleneck and method text for the verdict"


@pytest.mark.parametrize("rule, example", EXAMPLES)
def test_rule_example(rule: type[Rule], example: Valid | Invalid) -> None:
    source = textwrap.dedent(example.code)
    result = lint_source("example.py", source, Settings(select=frozenset({rule.code})))
    mine = [f for f in result.findings if f.code == rule.code]
    internal = [f for f in result.findings if f.code == "KL999"]
    assert not internal, internal[0].message
    if isinstance(example, Valid):
        assert mine == [], f"{rule.code} fired on VALID example: {[f.message for f in mine]}"
        return
    assert mine, f"{rule.code} did not fire on INVALID example:\n{source}"
    if example.line is not None:
        assert mine[0].span.line == example.line, (mine[0].span, example)
    if example.column is not None:
        assert mine[0].span.column == example.column, (mine[0].span, example)
    if example.fixed is not None:
        fixes = [f.fix for f in mine if f.fix is not None and f.fix.safe]
        assert apply_fixes(source, fixes) == example.fixed
