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


def test_a_merged_record_is_a_part_and_new_parts_replace_what_they_remeasured() -> None:
    whole = record()
    part = copy.deepcopy(whole)
    part["command"] = "kernlint verify --pair kl005_per_step_launch_loop --record part_eager1.json"
    part["notes"] = []
    part["results"] = [copy.deepcopy(r) for r in whole["results"] if r["pair"] == "kl005_per_step_launch_loop"]
    part["results"][0]["after"]["graph_us"] = 1234.0
    merged = merge([whole, part])
    assert len(merged["results"]) == len(whole["results"])
    [new] = [r for r in merged["results"] if r["pair"] == "kl005_per_step_launch_loop"]
    assert new["after"]["graph_us"] == 1234.0
    assert merged["command"].count("merge_records") == 1 and merged["command"].endswith("(these parts)")
    parts = [n for n in merged["notes"] if n.startswith("part ")]
    earlier = [n for n in whole["notes"] if n.startswith("part ")]
    assert parts[: len(earlier)] == earlier
    assert parts[-1].startswith(f"part {len(earlier) + 1} (kl005_per_step_launch_loop)")
