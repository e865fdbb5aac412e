"""verify's check (a): the after's host cost per call against a plain launch,
reported over every timed pair and shape."""

from __future__ import annotations

from kernlint.kernels.verify import _host_cost_check, _no_after_slower_check


def result(pair, shape, kind, after_host, plain_host=None):
    item = {"pair": pair, "shape": shape, "speedup": {"graph": 1.0}, "after": {"host_us": after_host}}
    if kind is not None:
        item["after_launch"] = kind
    if plain_host is not None:
        item["after_plain"] = {"host_us": plain_host}
        item["host_cost_ratio"] = round(after_host / plain_host, 4)
    return item


def test_worst_launch_bound_ratio_is_the_value_and_gpu_bound_calls_are_listed_not_judged():
    checks, notes = _host_cost_check(
        [
            result("a", "seed", "launcher", 12.0, 30.0),
            result("a", "decode", "launcher", 11.0, 10.0),
            result("a", "large", "launcher", 4.0, 1.0),  # GPU-bound: 4x of noise, not judged
            result("b", "seed", "plain", 20.0),
        ]
    )
    [check] = checks
    assert check["value"] == 1.1 and check["ok"] is True
    assert check["check"].startswith(
        "every timed pair and shape (2 launch-bound and compared, 1 plain launches, 1 GPU-bound"
    )
    assert any("a large (4.0 vs 1.0 us)" in n for n in notes)
    assert any(n.endswith("fixed config: b seed") for n in notes)


def test_an_after_autotuned_on_every_call_is_listed_for_the_no_slower_check_not_judged_here():
    checks, notes = _host_cost_check(
        [result("a", "seed", "launcher", 10.0, 30.0), result("c", "seed", "autotuner", 90.0)]
    )
    assert checks[0]["ok"] is True and checks[0]["value"] == 0.3333
    assert "1 autotuned on every call" in checks[0]["check"]
    assert notes[-1].endswith("judged by the no-slower check): c seed")


def timed(pair, shape, speedup, kb_before=None, kb_after=None):
    item = {"pair": pair, "shape": shape, "speedup": speedup, "before": {}, "after": {}}
    if kb_before:
        item["before"]["modes"] = {"kernelbench": {"repeat_means_us": kb_before}}
        item["after"]["modes"] = {"kernelbench": {"repeat_means_us": kb_after}}
    return item


def test_no_after_slower_check_judges_every_mode_and_shows_a_spiked_repeat():
    checks, notes = _no_after_slower_check(
        [
            timed("a", "seed", {"graph": 2.0, "eager": 0.96, "kernelbench": 1.5}),
            timed(
                "b",
                "gemv",
                {"graph": 0.97, "kernelbench": 1.0, "kernelbench_mean": 0.52},
                kb_before=[31.9, 33.4, 32.0],
                kb_after=[31.9, 122.0, 31.8],
            ),
        ]
    )
    [check] = checks
    assert check["ok"] is False and check["value"] == 0.52
    assert check["check"].endswith("(worst: b gemv kernelbench_mean)")
    assert notes == [
        "after slower than its before by more than 5%: b gemv kernelbench_mean 0.52x (by repeat 1.00x, 0.27x, 1.01x)"
    ]


def test_no_after_slower_check_passes_within_five_percent():
    [check], notes = _no_after_slower_check([timed("a", "seed", {"graph": 0.96, "eager": None, "kernelbench": 1.2})])
    assert check["ok"] is True and check["value"] == 0.96 and notes == []


def test_results_from_before_the_launch_kind_was_recorded_are_not_covered():
    checks, notes = _host_cost_check([result("a", "seed", None, 25.0, 20.0), result("d", "seed", None, 5.0)])
    assert checks[0]["value"] == 1.25 and checks[0]["ok"] is False
    assert "1 not covered" in checks[0]["check"] and notes[-1].endswith("d seed")
