"""Expected speedups, taken from `kernlint verify` measurement records.

A performance rule's claim is never typed by hand: it is read from a JSON
record under `kernlint/kernels/measurements/` that `kernlint verify --record`
wrote on a GPU, for the rule's reference-fix pair (`kernlint.kernels`).
Speedups are recomputed here from the before/after times in the record
(before / after, per shape, for CUDA-graph and for eager time), so a record
cannot claim a speedup its own times do not show.

Records are read from the installed kernel library's folder, found without
importing it (kernlint.provenance.library_folder), and cached; torch is never
imported.

A record is true of the code it measured: each result carries the digest of
its pair's sources then (kernlint.provenance). A claim whose pair has changed
since, or whose record does not say what it measured, says so in its summary
and carries `"current": false`, until the pair is measured again.
"""

from __future__ import annotations

import functools
import json
import os

from kernlint.findings import NO_FIX_MODEL
from kernlint.provenance import is_current, library_folder
from kernlint.registry import all_rules

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
    library = library_folder()
    if library is None:
        return ()
    folder = os.path.join(library, MEASUREMENTS_DIR)
    try:
        names = sorted(name for name in os.listdir(folder) if name.endswith(".json"))
    except OSError:
        return ()
    found = []
    for name in names:
        try:
            with open(os.path.join(folder, name), encoding="utf-8") as handle:
                record = json.load(handle)
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or record.get("tool") != "kernlint verify":
            continue
        if (record.get("environment") or {}).get("interpret", True):
            continue
        found.append((RECORD_PREFIX + name, record))
    found.sort(key=lambda item: item[1].get("date", ""), reverse=True)
    return tuple(found)


def _pick_record(target_gpu: str | None):
    for path, record in load_records():
        gpu = (record.get("environment") or {}).get("gpu") or ""
        if target_gpu is None or target_gpu.casefold() in gpu.casefold():
            return path, record
    return None


# The modes a claim reports, in the order it names them: GPU time without
# launch overhead, back-to-back eager calls, and KernelBench's own method
# (CUDA events around one call after an L2 flush; median of trials).
MODES = (("graph", "CUDA graph"), ("eager", "eager"), ("kernelbench", "KernelBench"))
# A fix under this gain in every mode at every shape "does not pay" (the
# rule's severity is then info; tests/test_kernels_claims.py checks it).
PAYS = 1.05


def speedups_from_record(record: dict, pair: str) -> list[dict]:
    """Per shape of `pair`: before/after speedup in each mode, recomputed
    from the record's times (before / after).

    Only entries whose correctness check passed count. Eager time is always
    there; a variant that cannot be captured in a CUDA graph (it waits on
    the host) has no graph time, and records before the KernelBench mode
    have none of that mode: those speedups are None.
    """
    shapes = []
    for r in record.get("results", []):
        if r.get("pair") != pair or not r.get("ok"):
            continue
        b, a = r.get("before") or {}, r.get("after") or {}
        if not all(isinstance(t, (int, float)) and t > 0 for t in (b.get("eager_us"), a.get("eager_us"))):
            continue
        entry = {"name": r["shape"], "dims": r["dims"], "mxkxn": "M" in r}
        for mode, _ in MODES:
            before, after = _mode_time(b, mode), _mode_time(a, mode)
            entry[mode] = round(before / after, 2) if before and after else None
        shapes.append(entry)
    return shapes


def _mode_time(variant: dict, mode: str) -> float | None:
    if mode in ("graph", "eager"):
        value = variant.get(f"{mode}_us")
    else:
        value = ((variant.get("modes") or {}).get(mode) or {}).get("median_us")
    return value if isinstance(value, (int, float)) and value > 0 else None


def _range(lo: float, hi: float) -> str:
    return f"{lo:.1f}x" if f"{lo:.1f}" == f"{hi:.1f}" else f"{lo:.1f}-{hi:.1f}x"


def _claim(path: str, record: dict, pair: str) -> dict | None:
    shapes = speedups_from_record(record, pair)
    if not shapes:
        return None
    gpu = record["environment"]["gpu"]
    parts, ranges = [], {}
    for mode, label in MODES:
        values = [s[mode] for s in shapes if s[mode] is not None]
        if values:
            ranges[mode] = {"min": min(values), "max": max(values)}
            parts.append(f"{_range(min(values), max(values))} ({label})")
        elif mode == "graph":
            parts.append("no CUDA-graph time (the before cannot be captured)")
    every = [s[mode] for s in shapes for mode, _ in MODES if s[mode] is not None]
    pays = max(every) >= PAYS
    slower = [
        f"{label} {s[mode]:.2f}x at {s['name']}"
        for s in shapes
        for mode, label in MODES
        if s[mode] is not None and s[mode] < 1.0 / PAYS
    ]
    results = [r for r in record.get("results", []) if r.get("pair") == pair]
    stale = _stale(
        pair,
        frozenset(r.get("source_sha256") for r in results),
        frozenset(r.get("source_bytes_sha256") for r in results),
    )
    where = ", ".join(f"{s['name']} {s['dims']}" for s in shapes)
    plural = "shape" if len(shapes) == 1 else "shapes"
    axes = " as MxKxN" if all(s["mxkxn"] for s in shapes) else ""
    summary = (
        (
            f"(on an earlier version of the pair: its code changed since; "
            f"`kernlint verify --pair {pair}` measures it again) "
            if stale
            else ""
        )
        + ("does not pay (under 5% in every mode at every shape): " if not pays else "")
        + ", ".join(parts)
        + (f"; slower: {', '.join(slower)}" if slower and pays else "")
        + f" on {gpu} over {len(shapes)} {plural} ({where}{axes}; pair {pair}, record {path})"
    )
    return {
        "measured": True,
        "current": not stale,
        "pays": pays,
        "summary": summary,
        "gpu": gpu,
        "record": path,
        "pair": pair,
        "date": record.get("date", ""),
        **ranges,
        "shapes": [{k: v for k, v in s.items() if k != "mxkxn"} for s in shapes],
    }


@functools.cache
def _stale(pair: str, measured: frozenset[str | None], measured_bytes: frozenset[str | None]) -> bool:
    """The pair's code changed since its results were measured (a pair
    not installed is not judged)."""
    return is_current(pair, set(measured), set(measured_bytes)) is False


def _pairs_in(record: dict) -> dict[str, frozenset[str]]:
    return {r["pair"]: frozenset(r.get("rules", ())) for r in record.get("results", [])}


def _unmeasured(code: str, target_gpu: str | None) -> dict:
    on = f" on a GPU matching {target_gpu!r}" if target_gpu else ""
    return {"measured": False, "summary": f"unmeasured: no kernlint verify record for {code}{on}"}


def expected_speedup(code: str, target_gpu: str | None = None) -> dict | None:
    """The measured speedup of a performance rule's fix; None for other rules.

    Taken from the pair that measures the rule alone (RULES == (code,)), in
    the newest record, or the newest whose GPU name contains `target_gpu`
    (case-insensitive). Worked out once per rule and GPU, and shared by every
    finding of the rule: the dict is read-only.
    """
    return _expected_speedup(code.upper(), target_gpu)


@functools.cache
def _expected_speedup(code: str, target_gpu: str | None) -> dict | None:
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
    """One short line for `kernlint rules`: the measured CUDA-graph and
    eager speedup ranges and GPU of a performance rule, "unmeasured", or, for a rule that
    makes no performance claim (hazard, api), "<category>: not a performance
    claim"."""
    claim = expected_speedup(code, target_gpu)
    if claim is None:
        return f"{category}: not a performance claim"
    if not claim.get("measured"):
        return "unmeasured"
    text = ", ".join(
        f"{_range(claim[mode]['min'], claim[mode]['max'])} {label}"
        for mode, label in (("graph", "graph"), ("eager", "eager"))
        if mode in claim
    )
    return f"{text} on {claim['gpu']}" if claim["pays"] else f"does not pay: {text} on {claim['gpu']}"


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
    """One number to rank findings by: the speedup in KernelBench's own
    timing (CUDA events around one call after an L2 flush, the harness
    users are scored in) at the seed shape.

    The seed shape (128x2048x2048) is the problem the library was built
    for. KernelBench mode counts what a user sees, launch cost included, so
    a fix that only pays in a CUDA graph does not outrank one that pays
    where users measure (and the reverse: a per-step loop replaced by one
    persistent kernel is 3x faster there, though a CUDA graph of the loop
    is faster still). Falls back to the CUDA-graph, then the eager speedup
    where a record has no KernelBench time, and to the largest over the
    record's shapes when the seed shape was not measured; None when the
    rule is unmeasured.
    """
    return claim_gain(expected_speedup(code, target_gpu))


def claim_gain(claim: dict | None) -> float | None:
    """`measured_gain` of a claim already at hand (a finding's
    `expected_speedup`, which a cached result carries without the records)."""
    if not claim or not claim.get("measured"):
        return None
    for shape in claim["shapes"]:
        if shape["name"] == RANKING_SHAPE:
            return shape.get("kernelbench") or shape["graph"] or shape["eager"]
    return (claim.get("kernelbench") or claim.get("graph") or claim["eager"])["max"]


def not_estimated_why(claim: dict | None) -> str:
    """Why a finding has no estimate for its file, in two words' worth: the
    file's shapes are unknown, or the rule's fix is not modelled."""
    reason = str(((claim or {}).get("for_this_file") or {}).get("reason", ""))
    return "not estimated for this file" if reason.startswith(NO_FIX_MODEL) else "shapes unknown"


def file_gain(claim: dict | None) -> tuple[float | None, bool]:
    """(gain, for this file?) of a finding's `expected_speedup`: the cost
    model's KernelBench-mode estimate for the file (kernlint.cost) when it
    made one, else the pair's `claim_gain`."""
    estimate = (claim or {}).get("for_this_file") or {}
    if estimate.get("status") == "estimated" and estimate.get("kernelbench") is not None:
        return float(estimate["kernelbench"]), True
    return claim_gain(claim), False
