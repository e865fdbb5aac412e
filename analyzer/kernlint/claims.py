"""Expected speedups, taken from `kernlint verify` measurement records.

A performance rule's claim is never typed by hand: it is read from a JSON
record under `kernlint/kernels/measurements/` that `kernlint verify --record`
wrote on a GPU, for the rule's reference-fix pair (`kernlint.kernels`).
Speedups are recomputed here from the before/after times in the record
(before / after, per shape, for CUDA-graph and for eager time), so a record
cannot claim a speedup its own times do not show.

Records are read with importlib.resources and cached; torch is never imported.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

from kernlint.registry import all_rules

MEASUREMENTS_PACKAGE = "kernlint.kernels"
MEASUREMENTS_DIR = "measurements"
RECORD_PREFIX = "kernels/measurements/"
# The shape `measured_gain` ranks by: the seed problem's own size.
RANKING_SHAPE = "seed"


def _performance_rules() -> tuple[str, ...]:
    return tuple(rule.code for rule in all_rules() if rule.category.is_performance)


@functools.lru_cache(maxsize=1)
def load_records() -> tuple[tuple[str, dict], ...]:
    """(repo-relative path, record) of every GPU record, newest first.

    Records taken under --interpret (no timing) are skipped.
    """
    try:
        folder = resources.files(MEASUREMENTS_PACKAGE).joinpath(MEASUREMENTS_DIR)
        entries = [e for e in folder.iterdir() if e.name.endswith(".json")]
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        return ()
    found = []
    for entry in sorted(entries, key=lambda e: e.name):
        try:
            record = json.loads(entry.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or record.get("tool") != "kernlint verify":
            continue
        if (record.get("environment") or {}).get("interpret", True):
            continue
        found.append((RECORD_PREFIX + entry.name, record))
    found.sort(key=lambda item: item[1].get("date", ""), reverse=True)
    return tuple(found)


def _pick_record(target_gpu: str | None):
    for path, record in load_records():
        gpu = (record.get("environment") or {}).get("gpu") or ""
        if target_gpu is None or target_gpu.casefold() in gpu.casefold():
            return path, record
    return None


def speedups_from_record(record: dict, pair: str) -> list[dict]:
    """Per shape of `pair`: before/after in graph and eager time, recomputed from the times.

    Only entries whose correctness check passed and that carry both times count.
    """
    shapes = []
    for r in record.get("results", []):
        if r.get("pair") != pair or not r.get("ok"):
            continue
        b, a = r.get("before") or {}, r.get("after") or {}
        times = (b.get("graph_us"), a.get("graph_us"), b.get("eager_us"), a.get("eager_us"))
        if not all(isinstance(t, (int, float)) and t > 0 for t in times):
            continue
        shapes.append({
            "name": r["shape"],
            "dims": r["dims"],
            "graph": round(b["graph_us"] / a["graph_us"], 2),
            "eager": round(b["eager_us"] / a["eager_us"], 2),
        })
    return shapes


def _range(lo: float, hi: float) -> str:
    return f"{lo:.1f}x" if f"{lo:.1f}" == f"{hi:.1f}" else f"{lo:.1f}-{hi:.1f}x"


def _claim(path: str, record: dict, pair: str) -> dict | None:
    shapes = speedups_from_record(record, pair)
    if not shapes:
        return None
    gpu = record["environment"]["gpu"]
    graph = [s["graph"] for s in shapes]
    eager = [s["eager"] for s in shapes]
    where = ", ".join(f"{s['name']} {s['dims']}" for s in shapes)
    plural = "shape" if len(shapes) == 1 else "shapes"
    summary = (
        f"{_range(min(graph), max(graph))} (CUDA graph), {_range(min(eager), max(eager))} (eager) "
        f"on {gpu} over {len(shapes)} {plural} ({where} as MxKxN; pair {pair}, record {path})"
    )
    return {
        "measured": True,
        "summary": summary,
        "gpu": gpu,
        "record": path,
        "pair": pair,
        "date": record.get("date", ""),
        "graph": {"min": min(graph), "max": max(graph)},
        "eager": {"min": min(eager), "max": max(eager)},
        "shapes": shapes,
    }


def _pairs_in(record: dict) -> dict[str, frozenset[str]]:
    return {r["pair"]: frozenset(r.get("rules", ())) for r in record.get("results", [])}


def _unmeasured(code: str, target_gpu: str | None) -> dict:
    on = f" on a GPU matching {target_gpu!r}" if target_gpu else ""
    return {"measured": False, "summary": f"unmeasured: no kernlint verify record for {code}{on}"}


def expected_speedup(code: str, target_gpu: str | None = None) -> dict | None:
    """The measured speedup of a performance rule's fix; None for other rules.

    Taken from the pair that measures the rule alone (RULES == (code,)), in
    the newest record, or the newest whose GPU name contains `target_gpu`
    (case-insensitive).
    """
    code = code.upper()
    if code not in _performance_rules():
        return None
    picked = _pick_record(target_gpu)
    if picked is None:
        return _unmeasured(code, target_gpu)
    path, record = picked
    pairs = _pairs_in(record)
    alone = [p for p, rules in pairs.items() if rules == {code}]
    covering = sorted((p for p, rules in pairs.items() if code in rules), key=lambda p: len(pairs[p]))
    for pair in alone + covering:
        claim = _claim(path, record, pair)
        if claim:
            return claim
    return _unmeasured(code, target_gpu)


def claim_label(code: str, category: str, target_gpu: str | None = None) -> str:
    """One short line for `kernlint rules`: the measured CUDA-graph speedup
    range and GPU of a performance rule, "unmeasured", or, for a rule that
    makes no performance claim (hazard, api), "<category>: not a performance
    claim"."""
    claim = expected_speedup(code, target_gpu)
    if claim is None:
        return f"{category}: not a performance claim"
    if not claim.get("measured"):
        return "unmeasured"
    graph = claim["graph"]
    return f"{_range(graph['min'], graph['max'])} (CUDA graph) on {claim['gpu']}"


def combined_speedup(codes: frozenset[str], target_gpu: str | None = None) -> dict | None:
    """The claim of a pair whose rules are exactly `codes`, else the smallest pair covering them.

    For {KL001, KL002, KL003} that is the `seed_all_fixes` pair: the seed
    kernel as given against all three fixes together.  None when no record
    has such a pair.
    """
    wanted = frozenset(c.upper() for c in codes)
    if not wanted:
        return None
    picked = _pick_record(target_gpu)
    if picked is None:
        return None
    path, record = picked
    pairs = _pairs_in(record)
    exact = [p for p, rules in pairs.items() if rules == wanted]
    covering = sorted((p for p, rules in pairs.items() if rules > wanted), key=lambda p: len(pairs[p]))
    for pair in exact + covering:
        claim = _claim(path, record, pair)
        if claim:
            return claim
    return None


def measured_gain(code: str, target_gpu: str | None = None) -> float | None:
    """One number to rank findings by: the CUDA-graph speedup at the seed shape.

    The seed shape (128x2048x2048) is the problem the library was built for,
    and CUDA-graph time is GPU time without launch-overhead jitter.  Falls back
    to the largest graph speedup over the record's shapes when the seed shape
    was not measured; None when the rule is unmeasured.
    """
    claim = expected_speedup(code, target_gpu)
    if not claim or not claim.get("measured"):
        return None
    for shape in claim["shapes"]:
        if shape["name"] == RANKING_SHAPE:
            return shape["graph"]
    return claim["graph"]["max"]
