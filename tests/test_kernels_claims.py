"""Claims come from records: every performance rule has a pair, a record entry,
and a claim that is recomputed from the record's before/after times."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from conftest import AWAITING_GPU_MEASUREMENT
from kernlint import claims
from kernlint.kernels import PAIRS, PERFORMANCE_RULES, pair_meta, pairs_for_rule

KERNELS = Path(pair_meta(PAIRS[0]).__file__).resolve().parents[1]


def _records():
    folder = resources.files("kernlint.kernels").joinpath("measurements")
    # The cost model's calibration records (calibration_*.json) are another tool's: tests/test_cost.py.
    return [
        (e.name, json.loads(e.read_text()))
        for e in folder.iterdir()
        if e.name.endswith(".json") and not e.name.startswith("calibration_")
    ]


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
    for _name, record in records:
        validate_record(record)


def test_newest_gpu_record_measures_every_rule_on_every_shape():
    path, record = claims.load_records()[0]
    assert not record["environment"]["interpret"]
    got = {(r["pair"], r["shape"]) for r in record["results"] if r["ok"] and r["speedup"]}
    from kernlint.kernels.verify import _load

    for pair in PAIRS:
        # Each pair's own GPU shapes (the int8 pairs: seed, decode, large).
        for shape in _load(f"{pair}.reference", True).SHAPES:
            if pair in AWAITING_GPU_MEASUREMENT.values():
                assert (pair, shape) not in got, f"{pair} is measured: take it off AWAITING_GPU_MEASUREMENT"
                continue
            assert (pair, shape) in got, (pair, shape, path)


@pytest.mark.parametrize(
    "code",
    [
        pytest.param(
            code,
            marks=pytest.mark.xfail(strict=True, reason="pair not yet measured on a GPU"),
        )
        if code in AWAITING_GPU_MEASUREMENT
        else code
        for code in PERFORMANCE_RULES
    ],
)
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
        for mode in ("graph", "eager"):
            if r["before"][f"{mode}_us"] is None:  # not capturable in a CUDA graph
                assert s[mode] is None and r["speedup"][mode] is None
                continue
            expected = r["before"][f"{mode}_us"] / r["after"][f"{mode}_us"]
            assert s[mode] == pytest.approx(expected, abs=0.006)
            # the record's own speedup field must agree with its times too
            assert r["speedup"][mode] == pytest.approx(expected, rel=2e-3)
        kb = (r["before"]["modes"]["kernelbench"]["median_us"], r["after"]["modes"]["kernelbench"]["median_us"])
        assert s["kernelbench"] == pytest.approx(kb[0] / kb[1], abs=0.006)
    for mode, _ in claims.MODES:
        values = [s[mode] for s in claim["shapes"] if s[mode] is not None]
        assert claim.get(mode) == ({"min": min(values), "max": max(values)} if values else None)
    assert claim["gpu"] in claim["summary"] and claim["record"] in claim["summary"]
    gain = claims.measured_gain(code)
    ranked = next((s for s in claim["shapes"] if s["name"] == "seed"), None)
    if ranked is not None:
        assert gain == (ranked["kernelbench"] or ranked["graph"] or ranked["eager"])
    else:
        assert gain == (claim.get("kernelbench") or claim.get("graph") or claim["eager"])["max"]


def test_combined_claim_is_the_seed_pair():
    claim = claims.combined_speedup(frozenset({"KL001", "KL002", "KL003"}))
    assert claim["measured"] and claim["pair"] == "seed_all_fixes"


def test_unknown_gpu_and_non_performance_rules():
    assert claims.expected_speedup("KL001", target_gpu="no such gpu") == {
        "measured": False,
        "summary": "unmeasured: no kernlint verify record for KL001 on a GPU matching 'no such gpu'",
    }
    assert claims.measured_gain("KL001", target_gpu="no such gpu") is None
    assert claims.expected_speedup("KL013") is None
    assert claims.expected_speedup("KL001", target_gpu="h100")["measured"] is True


def test_a_fix_that_does_not_pay_is_info_and_says_so():
    """Issues 11 and 15: where the pair measured under 5% in every mode at
    every shape, the record says so and the rule's severity is info."""
    from kernlint.findings import Severity
    from kernlint.registry import rule_by_code_or_name

    for code in PERFORMANCE_RULES:
        claim = claims.expected_speedup(code)
        if claim and claim.get("measured") and not claim["pays"]:
            assert rule_by_code_or_name(code).severity is Severity.INFO, code
            # A pair changed since its measurement says so first (kernlint.provenance).
            summary = claim["summary"] if claim["current"] else claim["summary"].split("measures it again): ", 1)[1]
            assert summary.startswith("does not pay"), code


def test_a_fix_slower_in_some_mode_at_some_shape_says_where():
    for code in PERFORMANCE_RULES:
        claim = claims.expected_speedup(code)
        if not (claim and claim.get("measured") and claim["pays"]):
            continue
        slower = [
            (s["name"], mode)
            for s in claim["shapes"]
            for mode, _ in claims.MODES
            if s.get(mode) is not None and s[mode] < 1 / claims.PAYS
        ]
        for shape, _ in slower:
            assert f"at {shape}" in claim["summary"], (code, shape)
