"""merge_records: parts of one GPU run become one record with every result
unchanged; parts from different machines are refused."""

from __future__ import annotations

import copy
import json
from importlib import resources

import pytest

pytest.importorskip("jsonschema")

from kernlint.kernels.merge_records import merge  # noqa: E402


def record() -> dict:
    return json.loads(resources.files("kernlint.kernels").joinpath("measurements", "h100.json").read_text())


def test_parts_merge_back_to_the_same_results() -> None:
    whole = record()
    pairs = sorted({r["pair"] for r in whole["results"]})
    first, second = copy.deepcopy(whole), copy.deepcopy(whole)
    first["results"] = [r for r in whole["results"] if r["pair"] in pairs[:2]]
    second["results"] = [r for r in whole["results"] if r["pair"] not in pairs[:2]]
    merged = merge([first, second])
    key = lambda r: (r["pair"], r["shape"])  # noqa: E731
    assert sorted(merged["results"], key=key) == sorted(whole["results"], key=key)
    assert [c["check"] for c in merged["acceptance"]] == [c["check"] for c in whole["acceptance"]]
    assert [c["value"] for c in merged["acceptance"]] == [c["value"] for c in whole["acceptance"]]


def test_parts_from_another_gpu_are_refused() -> None:
    first, second = record(), record()
    second["environment"]["gpu"] = "NVIDIA H200"
    with pytest.raises(ValueError, match="environment 'gpu'"):
        merge([first, second])
