"""Fuzzing: generated programs and mutated kernels through the whole
pipeline (lint, --fix in memory, every output format).

For every input: no exception escapes, no KL999 internal-error finding, the
file is done within a time limit, the JSON outputs validate against their
schemas (SARIF against the OASIS schema when the shared folder has it), and
two runs give the same bytes.

The default run is quick (a few hundred cases in all). A long run:

    KERNLINT_FUZZ_EXAMPLES=20000 python -m pytest -q tests/test_fuzz.py

(the number is per test); docs/fuzzing.md records the last long run.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import threading
import tokenize
from pathlib import Path

import hypothesmith
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernlint import schemas
from kernlint.advice import verdict
from kernlint.engine import lint_bytes, lint_source
from kernlint.fixes import fix_text
from kernlint.reporters import REPORTERS, RunReport, render
from kernlint.source import SourceError, parse
from kernlint.version import __version__

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = int(os.environ.get("KERNLINT_FUZZ_EXAMPLES", "0"))
# Seconds one input may take through the whole pipeline (lint twice, fix,
# seven formats). The inputs are a few KB; the slowest takes well under 2 s.
TIME_LIMIT = 20
SARIF_SCHEMA = ROOT.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
# Every kernel-shaped file the repository has: the seed, the rule fixtures,
# the library's before/after pairs.
CORPUS = sorted(
    [ROOT / "fixtures" / "seed" / "kernel.py", ROOT / "fixtures" / "seed" / "reference.py"]
    + list((ROOT / "fixtures" / "rules").glob("*.py"))
    + list((ROOT / "kernels" / "kernlint" / "kernels").glob("kl*/before.py"))
    + list((ROOT / "kernels" / "kernlint" / "kernels").glob("kl*/after.py"))
    + list((ROOT / "kernels" / "kernlint" / "kernels").glob("_*.py"))
)
SOURCES = [path.read_text(encoding="utf-8") for path in CORPUS]


def fuzz_settings(quick: int):
    return settings(
        max_examples=EXAMPLES or quick,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        derandomize=not EXAMPLES,  # the quick run is the same every time
    )


@contextlib.contextmanager
def time_limit(seconds: int):
    """Fail (TimeoutError) instead of hanging. SIGALRM interrupts the main
    thread's wait for the analysis thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        raise TimeoutError(f"the pipeline took longer than {seconds} s on this input")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


_sarif_validator = None


def _validate_sarif(document: dict) -> None:
    global _sarif_validator
    if not SARIF_SCHEMA.exists():
        return
    if _sarif_validator is None:
        import jsonschema

        _sarif_validator = jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8")))
    errors = list(_sarif_validator.iter_errors(document))
    assert not errors, errors[0].message


def check_pipeline(source: str, path: str = "fuzz.py", twice: bool = False) -> None:
    """The whole pipeline on one input; fails with the input's findings in
    the message when a property breaks. `twice`: also lint the bytes, and
    check that a second run gives the same findings."""
    with time_limit(TIME_LIMIT):
        result = lint_source(path, source)
        internal = [f for f in result.findings if f.code == "KL999"]
        assert not internal, internal[0].message
        if twice:
            assert lint_source(path, source) == result, "two runs differ"
            from_bytes = lint_bytes(path, source.encode("utf-8"))
            assert from_bytes.findings == result.findings
        for finding in result.findings:
            assert 1 <= finding.span.line <= max(1, source.count("\n") + source.count("\r") + 1)
            assert finding.span.column >= 1
        fixed, applied, remaining, error = fix_text(path, source)
        assert not [f for f in remaining.findings if f.code == "KL999"]
        if applied:
            parse(fixed)  # a fix never leaves code that does not parse
        report = RunReport(__version__, (result,), (verdict(path, result.findings),))
        for name in sorted(REPORTERS):
            text = render(name, report)
            assert isinstance(text, str)
            assert render(name, report) == text, f"{name} output is not deterministic"
            if name in schemas.SCHEMAS:
                schemas.validate(name, json.loads(text))
            elif name == "sarif":
                _validate_sarif(json.loads(text))
            elif name == "gitlab":
                assert isinstance(json.loads(text), list)
            elif name == "json-lines":
                for line in text.splitlines():
                    json.loads(line)


# ---- generated programs ----------------------------------------------------


# hypothesmith compiles what it generates; its SyntaxWarnings are not ours.
@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@fuzz_settings(quick=80)
@given(hypothesmith.from_grammar())
def test_generated_programs_go_through_the_pipeline(source: str) -> None:
    check_pipeline(source)


# hypothesmith compiles what it generates; its SyntaxWarnings are not ours.
@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@fuzz_settings(quick=30)
@given(hypothesmith.from_node())
def test_generated_syntax_trees_go_through_the_pipeline(source: str) -> None:
    check_pipeline(source)


# ---- mutated kernels -------------------------------------------------------


def _tokens(source: str) -> list[tuple[int, int, int, str]]:
    """(start offset, end offset, type, text) of each token with text."""
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    out = []
    with contextlib.suppress(tokenize.TokenError, IndentationError, SyntaxError):
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if not token.string or token.type in (tokenize.ENDMARKER,):
                continue
            start = starts[token.start[0] - 1] + token.start[1]
            end = starts[token.end[0] - 1] + token.end[1]
            out.append((start, end, token.type, token.string))
    return out


TOKENS = [_tokens(source) for source in SOURCES]
MUTATIONS = ("delete", "duplicate", "swap-arguments", "swap-tokens", "delete-line", "duplicate-line", "dedent-line")


def mutate(source: str, tokens: list, operation: str, i: int, j: int) -> str:
    if operation in ("delete-line", "duplicate-line", "dedent-line"):
        lines = source.splitlines(keepends=True)
        k = i % len(lines)
        if operation == "delete-line":
            del lines[k]
        elif operation == "duplicate-line":
            lines.insert(k, lines[k])
        else:
            lines[k] = lines[k].lstrip(" \t")
        return "".join(lines)
    start, end, _, text = tokens[i % len(tokens)]
    if operation == "delete":
        return source[:start] + source[end:]
    if operation == "duplicate":
        return source[:end] + " " + text + source[end:]
    if operation == "swap-arguments":
        # Two arguments of one call: the tokens around the k-th comma.
        commas = [n for n, t in enumerate(tokens) if t[3] == ","]
        if not commas:
            return source
        n = commas[i % len(commas)]
        if n == 0 or n + 1 >= len(tokens):
            return source
        (a0, a1, _, a), (b0, b1, _, b) = tokens[n - 1], tokens[n + 1]
        return source[:a0] + b + source[a1:b0] + a + source[b1:]
    # swap-tokens: two arbitrary tokens trade places.
    first, second = sorted((i % len(tokens), j % len(tokens)))
    if first == second:
        return source
    (a0, a1, _, a), (b0, b1, _, b) = tokens[first], tokens[second]
    return source[:a0] + b + source[a1:b0] + a + source[b1:]


@st.composite
def mutated_kernels(draw) -> str:
    index = draw(st.integers(0, len(SOURCES) - 1))
    source, tokens = SOURCES[index], TOKENS[index]
    for _ in range(draw(st.integers(1, 4))):
        operation = draw(st.sampled_from(MUTATIONS))
        i, j = draw(st.integers(0, 10**6)), draw(st.integers(0, 10**6))
        source = mutate(source, tokens, operation, i, j)
        tokens = _tokens(source) or tokens
    return source


def test_the_corpus_is_the_repositorys_kernels() -> None:
    assert len(CORPUS) >= 8 and all(TOKENS)


@fuzz_settings(quick=120)
@given(mutated_kernels())
def test_mutated_kernels_go_through_the_pipeline(source: str) -> None:
    check_pipeline(source, "kernel.py")


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_each_corpus_file_goes_through_the_pipeline(path: Path) -> None:
    check_pipeline(path.read_text(encoding="utf-8"), path.name, twice=True)


def test_the_mutations_change_the_source() -> None:
    index = CORPUS.index(ROOT / "fixtures" / "seed" / "kernel.py")
    source, tokens = SOURCES[index], TOKENS[index]
    indented = next(n for n, line in enumerate(source.splitlines()) if line.startswith("    "))
    changed = {op: mutate(source, tokens, op, indented, 91) != source for op in MUTATIONS}
    assert all(changed.values()), changed
    with pytest.raises(SourceError):
        # Deleting the first `(` of the first call leaves code that does not parse.
        n = next(n for n, t in enumerate(tokens) if t[3] == "(")
        parse(mutate(source, tokens, "delete", n, 0))
