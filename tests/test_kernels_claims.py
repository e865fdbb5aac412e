"""Claims come from records: every performance rule has a pair, a record entry,
and a claim that is recomputed from the record's before/after times."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from kernlint import claims
from kernlint.kernels import PAIRS, PERFORMANCE_RULES, pair_meta, pairs_for_rule

KERNELS = Path(pair_meta(PAIRS[0]).__file__).resolve().parents[1]


def _records():
    folder = resources.files("kernlint.kernels").joinpath("measurements")
    return [(e.name, json.loads(e.read_text())) for e in folder.iterdir() if e.name.endswith(".json")]


def test_importing_kernlint_kernels_and_claims_does_not_import_torch():
    code = (
        "import sys, kernlint, kernlint.kernels, kernlint.kernels.verify, kernlint.claims\n"
        "for c in ('KL001', 'KL002', 'KL003', 'KL016'): kernlint.claims.expected_speedup(c)\n"
        "bad = [m for m in ('torch', 'triton', 'numpy', 'matplotlib') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("code", PERFORMANCE_RULES)
def test_every_performance_rule_has_a_pair_of_its_own(code):
    alone = [p for p in pairs_for_rule(code) if pair_meta(p).RULES == (code,)]
    assert alone, f"no pair measures {code} alone"
    folder = KERNELS / alone[0]
    for name in ("__init__.py", "reference.py", "before.py", "after.py"):
        assert (folder / name).is_file(), folder / name


def test_seed_pair_covers_the_three_kernel_rules():
    assert set(pair_meta("seed_all_fixes").RULES) == {"KL001", "KL002", "KL003"}


def test_records_validate_against_the_shipped_schema():
    pytest.importorskip("jsonschema")
    from kernlint.kernels.verify import validate_record

    records = _records()
    assert records, "no measurement record shipped"
    for name, record in records:
        validate_record(record)


def test_newest_gpu_record_measures_every_rule_on_every_shape():
    path, record = claims.load_records()[0]
    assert not record["environment"]["interpret"]
    got = {(r["pair"], r["shape"]) for r in record["results"] if r["ok"] and r["speedup"]}
    for pair in PAIRS:
        for shape in ("seed", "decode", "large"):
            assert (pair, shape) in got, (pair, shape, path)


@pytest.mark.parametrize("code", PERFORMANCE_RULES)
def test_claims_are_recomputed_from_the_record(code):
    claim = claims.expected_speedup(code)
    assert claim["measured"] is True
    name = claim["record"].rsplit("/", 1)[-1]
    record = dict(_records())[name]
    assert claim["gpu"] == record["environment"]["gpu"]
    assert pair_meta(claim["pair"]).RULES == (code,)
    rows = {r["shape"]: r for r in record["results"] if r["pair"] == claim["pair"]}
    assert {s["name"] for s in claim["shapes"]} == set(rows)
    for s in claim["shapes"]:
        r = rows[s["name"]]
        assert s["graph"] == pytest.approx(r["before"]["graph_us"] / r["after"]["graph_us"], abs=0.006)
        assert s["eager"] == pytest.approx(r["before"]["eager_us"] / r["after"]["eager_us"], abs=0.006)
        # the record's own speedup field must agree with its times too
        assert r["speedup"]["graph"] == pytest.approx(r["before"]["graph_us"] / r["after"]["graph_us"], rel=2e-3)
        assert r["speedup"]["eager"] == pytest.approx(r["before"]["eager_us"] / r["after"]["eager_us"], rel=2e-3)
    assert claim["graph"] == {"min": min(s["graph"] for s in claim["shapes"]),
                              "max": max(s["graph"] for s in claim["shapes"])}
    assert claim["gpu"] in claim["summary"] and claim["record"] in claim["summary"]
    gain = claims.measured_gain(code)
    assert gain == next(s["graph"] for s in claim["shapes"] if s["name"] == "seed")


def test_combined_claim_is_the_seed_pair():
    claim = claims.combined_speedup(frozenset({"KL001", "KL002", "KL003"}))
    assert claim["measured"] and claim["pair"] == "seed_all_fixes"


def test_unknown_gpu_and_non_performance_rules():
    assert claims.expected_speedup("KL001", target_gpu="no such gpu") == {
        "measured": False, "summary": "unmeasured: no kernlint verify record for KL001 on a GPU matching 'no such gpu'"}
    assert claims.measured_gain("KL001", target_gpu="no such gpu") is None
    assert claims.expected_speedup("KL013") is None
    assert claims.expected_speedup("KL001", target_gpu="h100")["measured"] is True
