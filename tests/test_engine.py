"""The engine's promises: one rule's exception is one finding, the run goes
on; output does not depend on file order."""

from __future__ import annotations

import json

from conftest import FIXTURES
from kernlint.registry import rule_by_code_or_name
from kernlint.reporters import render
from kernlint.runner import EXIT_ERROR, run

SEED = FIXTURES / "seed" / "kernel.py"


def test_an_exception_in_one_rule_is_a_finding_and_the_other_rules_still_run(monkeypatch) -> None:
    rule = rule_by_code_or_name("KL002")

    def explode(self, model):
        raise ValueError("boom")

    monkeypatch.setattr(rule, "check", explode)
    outcome = run([str(SEED)])
    places = [(f.code, f.span.line) for f in outcome.report.findings]
    assert places == [("KL999", 1), ("KL009", 23), ("KL001", 54), ("KL014", 54), ("KL003", 122)]
    internal = outcome.report.findings[0]
    assert internal.message.startswith("internal error in KL002 (per-call-relayout) on this file: ValueError: boom")
    assert "Please report it at https://github.com/kernlint/kernlint/issues" in internal.message
    assert outcome.exit_code == EXIT_ERROR


def test_same_bytes_whatever_the_order_of_paths(tmp_path) -> None:
    paths = [str(FIXTURES / "seed" / name) for name in ("kernel.py", "reference.py", "kernel_fixed.py")]
    outputs = set()
    for order in (paths, paths[::-1], [paths[1], paths[0], paths[2]]):
        outputs.add(render("json", run(order).report))
    assert len(outputs) == 1
    assert json.loads(outputs.pop())["files_checked"] == 3
