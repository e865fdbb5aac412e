"""A claim is true of the code it measured: records carry each pair's source
digest (kernlint.provenance), and a pair changed since its measurement says
so in its claim and in the rendered table."""

from __future__ import annotations

import copy
import json
from importlib import resources

from kernlint import claims
from kernlint.kernels.render import changed_since_measured
from kernlint.provenance import is_current, pair_bytes_digest, pair_digest, pair_sources

LIBRARY = {
    "demo/__init__.py": "RULES = ('KL001',)\n",
    "demo/before.py": "from kernlint.kernels._shared import gemm\n\ndef run(x):\n    return gemm(x, 1)\n",
    "demo/after.py": "from kernlint.kernels import _shared\n\ndef run(x):\n    return _shared.gemm(x, 2)\n",
    "demo/reference.py": "from kernlint.kernels.problem import *  # noqa: F403\n",
    "_shared.py": '"""Shared GEMM."""\nfrom kernlint.kernels._deeper import tile\n\ndef gemm(x, k):\n    return tile(x) * k\n',
    "_deeper.py": "def tile(x):\n    return x\n",
    "problem.py": "SHAPES = {'seed': 1}\n",
    "unrelated.py": "X = 1\n",
}


def reader(files: dict[str, str]):
    return files.get


def test_a_pair_is_made_of_its_folder_and_the_library_modules_it_imports_transitively() -> None:
    assert sorted(pair_sources("demo", reader(LIBRARY))) == [
        "_deeper.py",
        "_shared.py",
        "demo/__init__.py",
        "demo/after.py",
        "demo/before.py",
        "demo/reference.py",
        "problem.py",
    ]


def test_the_digest_moves_with_the_code_not_with_its_formatting_or_docstrings() -> None:
    base = pair_digest("demo", reader(LIBRARY))
    reworded = {**LIBRARY, "_shared.py": LIBRARY["_shared.py"].replace("Shared GEMM.", "The GEMM all pairs share.")}
    reformatted = {**LIBRARY, "_deeper.py": "def tile( x ):\n\n    # the tile\n    return (x)\n"}
    deeper = {**LIBRARY, "_deeper.py": "def tile(x):\n    return x + 0\n"}
    unrelated = {**LIBRARY, "unrelated.py": "X = 2\n"}
    assert base is not None and len(base) == 64
    assert pair_digest("demo", reader(reworded)) == base
    assert pair_digest("demo", reader(reformatted)) == base
    assert pair_digest("demo", reader(unrelated)) == base
    assert pair_digest("demo", reader(deeper)) != base
    assert pair_digest("missing", reader(LIBRARY)) is None


def _record() -> dict:
    text = resources.files("kernlint.kernels").joinpath("measurements", "h100.json").read_text()
    return json.loads(text)


def test_a_claim_says_when_its_pair_changed_since_it_was_measured() -> None:
    record = _record()
    pair = "kl008_multipass_softmax"
    current = copy.deepcopy(record)
    for result in current["results"]:
        result["source_sha256"] = pair_digest(result["pair"])
    stale = copy.deepcopy(current)
    for result in stale["results"]:
        if result["pair"] == pair:
            result["source_sha256"] = result["source_bytes_sha256"] = "0" * 64
    fresh_claim = claims._claim("record.json", current, pair)
    stale_claim = claims._claim("record.json", stale, pair)
    assert fresh_claim is not None and stale_claim is not None
    assert fresh_claim["current"] is True and stale_claim["current"] is False
    prefix = f"(on an earlier version of the pair: its code changed since; `kernlint verify --pair {pair}`"
    assert stale_claim["summary"].startswith(prefix)
    assert stale_claim["summary"].endswith(fresh_claim["summary"])
    assert changed_since_measured(current) == []
    assert changed_since_measured(stale) == [pair]


def test_the_code_form_is_the_same_on_every_python_version() -> None:
    # Python 3.12 gives every def a `type_params` field that 3.11 lacks; a
    # digest made on the GPU machine (3.12) must match one made here (3.11).
    from kernlint.provenance import _code_of

    assert _code_of('def f(x: int) -> int:\n    """Doc."""\n    return x\n') == (
        "Module(body=[FunctionDef(name='f', args=arguments(args=[arg(arg='x', annotation=Name(id='int', ctx=Load()))]),"
        " body=[Return(value=Name(id='x', ctx=Load()))], returns=Name(id='int', ctx=Load()))])"
    )


def test_equal_text_is_current_without_parsing_and_a_reformat_is_current_by_its_code(monkeypatch) -> None:
    from kernlint import provenance

    code, text = pair_digest("demo", reader(LIBRARY)), pair_bytes_digest("demo", reader(LIBRARY))
    reformatted = {**LIBRARY, "_deeper.py": "def tile( x ):\n    return (x)\n"}
    parsed: list[str] = []
    real_code_of = provenance._code_of.__wrapped__
    monkeypatch.setattr(provenance, "_code_of", lambda source: parsed.append(source) or real_code_of(source))
    assert text != pair_bytes_digest("demo", reader(reformatted))
    assert is_current("demo", {code}, {text}, reader(LIBRARY)) and parsed == []
    assert is_current("demo", {code}, {text}, reader(reformatted)) and parsed != []
    assert is_current("demo", {code}, {None}, reader(LIBRARY))  # a record without text digests: by the code
    assert not is_current("demo", {"0" * 64}, {"1" * 64}, reader(LIBRARY))
    assert not is_current("demo", {code, "0" * 64}, {text}, reader(LIBRARY))  # results of two versions
