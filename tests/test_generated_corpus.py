"""The project's own corpus of generated-style KernelBench files
(fixtures/generated/, issue 26): each file reproduces one class of defect,
or none, and its docstring says so (`corpus-class:`) and names the verdict
kernlint must give (`corpus-expect: yes <category>` or `no`). Every file
is linted as a user would lint it, with the default rules, and its verdict
compared with that line; a file of a class must also carry that class's
rule among its findings.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from kernlint import advice
from kernlint.engine import lint_source
from kernlint.findings import Category
from kernlint.settings import Settings

CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "generated"
FILES = sorted(CORPUS.glob("g*.py"))

# Issue 26's classes and the rule that reports each.
CLASS_RULE = {
    "1": "KL019",
    "2": "KL020",
    "3": "KL021",
    "4": "KL013",
    "5": "KL017",
    "6": "KL018",
    "7": "KL022",
    # Beyond the seven: a TF32 tl.dot reading an operand off K-major (KL031).
    "8": "KL031",
}


def _header(path: Path) -> tuple[str, str, str | None]:
    text = path.read_text(encoding="utf-8")
    klass = re.search(r"^corpus-class: (\S+)$", text, re.M)
    expect = re.search(r"^corpus-expect: (yes|no)(?: (\S+))?$", text, re.M)
    assert klass and expect, f"{path.name} has no corpus-class/corpus-expect lines"
    return klass.group(1), expect.group(1), expect.group(2)


def test_the_corpus_covers_every_class_several_times_and_clean_files():
    classes = [_header(p)[0] for p in FILES]
    assert len(FILES) >= 20
    for klass in CLASS_RULE:
        assert classes.count(klass) >= 2, klass
    assert classes.count("none") >= 3


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_generated_file_verdict(path: Path):
    klass, worth, category = _header(path)
    result = lint_source(str(path), path.read_text(encoding="utf-8"), Settings())
    codes = {f.code for f in result.findings}
    if klass in CLASS_RULE:
        assert CLASS_RULE[klass] in codes, f"{path.name}: {CLASS_RULE[klass]} not among {sorted(codes)}"
    else:
        performance = sorted(f.code for f in result.findings if f.category.is_performance)
        assert not performance, f"{path.name} is clean but kernlint reports {performance}"
    verdict = advice.verdict(str(path), result.findings)
    assert verdict["worth_optimizing"] == worth, (path.name, verdict["reason"])
    if klass == "4":
        # A kernel that cannot compile: the fix that makes it run comes first (KL013's, a power-of-two block
        # with a mask or a grid folded to three axes: Memory Layout Optimization).
        assert verdict["reason"].startswith("KL013 ") and "does not run as written" in verdict["reason"]
        assert verdict["expected_speedup"].startswith("not estimated: the file fails at its first launch")
    if worth == "yes":
        expected = Category(category).prompt_name
        assert verdict["optimisation method"].startswith(expected + ":"), (path.name, verdict["optimisation method"])
