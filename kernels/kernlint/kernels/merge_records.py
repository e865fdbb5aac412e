"""Merge `kernlint verify` records taken in several runs on one GPU into one.

    python -m kernlint.kernels.merge_records part1.json part2.json ... -o h100.json

One run of the whole library does not fit in one lease of the GPU machine
(10 minutes a command), so the record is taken in parts (`--pair` subsets),
each a complete record of its pairs. The parts must come from the same GPU,
driver, CUDA, torch and triton, or the merge refuses. Results are the union
(a later part replaces an earlier one's (pair, shape)); shapes and notes are
the union, less each part's own acceptance notes; the date is the last
part's; the commands are all kept; the library's acceptance checks are
recomputed over the merged results; the measured copy rate of each part is
kept in the notes. No number is changed. An earlier merged record may be a
part: new parts then replace the (pair, shape) results they re-measured.

`--sources-at COMMIT` fills the `source_sha256` of results measured before
records carried it (kernlint.provenance), from the pair's sources in that
git commit: the one whose working tree was measured. A note says so.
`--redigest-at COMMIT` sets every result's digest that way, for when the
digest itself changed form (kernlint.provenance); the measured tree must be
that commit's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from kernlint.kernels.verify import _acceptance, validate_record
from kernlint.provenance import pair_bytes_digest, pair_digest

LIBRARY_IN_REPO = "kernels/kernlint/kernels"

MERGE_SUFFIX = " ; python -m kernlint.kernels.merge_records (these parts)"
SAME = ("gpu", "driver", "cuda", "torch", "triton", "sm_count", "interpret")


def merge(records: list[dict]) -> dict:
    if not records:
        raise ValueError("nothing to merge")
    first = records[0]
    for other in records[1:]:
        for key in SAME:
            if first["environment"].get(key) != other["environment"].get(key):
                raise ValueError(
                    f"records differ in environment {key!r}: {first['environment'].get(key)!r} vs "
                    f"{other['environment'].get(key)!r}; merge only parts of one machine's run"
                )
    merged = json.loads(json.dumps(first))
    results: dict[tuple[str, str], dict] = {}
    shapes: dict[str, dict] = {}
    notes: list[str] = []
    commands: list[str] = []
    elapsed = 0.0
    for record in records:
        for item in record["results"]:
            results[(item["pair"], item["shape"])] = item
        for name, shape in (record.get("shapes") or {}).items():
            shapes.setdefault(name, shape)
        # A part's acceptance notes are about its own results: the merged
        # record's are recomputed below, so they are not carried over.
        _, own = _acceptance(record["results"], record.get("shapes") or {})
        for note in record.get("notes") or []:
            if note not in notes and note not in own:
                notes.append(note)
        commands.append(record.get("command", "").removesuffix(MERGE_SUFFIX))
        elapsed += record.get("elapsed_s") or 0.0
        if record.get("command", "").endswith(MERGE_SUFFIX):
            continue  # an earlier merge: its parts' notes came with it
        copy = (record.get("settings") or {}).get("measured_copy_tb_s")
        pairs = sorted({item["pair"] for item in record["results"]})
        number = 1 + sum(note.startswith("part ") for note in notes)
        notes.append(f"part {number} ({', '.join(pairs)}): measured device-to-device copy {copy} TB/s")
    merged["results"] = sorted(results.values(), key=lambda r: (r["pair"], r["shape"]))
    merged["shapes"] = shapes
    merged["date"] = max(record["date"] for record in records)
    merged["command"] = " ; ".join(commands) + MERGE_SUFFIX
    merged["elapsed_s"] = round(elapsed, 1)
    checks, acceptance_notes = _acceptance(merged["results"], shapes)
    merged["acceptance"] = checks
    merged["notes"] = notes + [n for n in acceptance_notes if n not in notes]
    return merged


def fill_sources(record: dict, commit: str, every: bool = False) -> int:
    """Set the missing `source_sha256` of each result (`every`: of all
    results) to its pair's digest in `commit`; returns how many were set."""

    def read(relative: str) -> str | None:
        shown = subprocess.run(
            ["git", "show", f"{commit}:{LIBRARY_IN_REPO}/{relative}"], capture_output=True, text=True, check=False
        )
        return shown.stdout if shown.returncode == 0 else None

    digests: dict[str, tuple[str | None, str | None]] = {}
    filled = 0
    for item in record["results"]:
        if item.get("source_sha256") and not every:
            continue
        if item["pair"] not in digests:
            digests[item["pair"]] = (pair_digest(item["pair"], read), pair_bytes_digest(item["pair"], read))
        if digests[item["pair"]][0] is None:
            raise ValueError(f"pair {item['pair']} is not in commit {commit}")
        item["source_sha256"], item["source_bytes_sha256"] = digests[item["pair"]]
        filled += 1
    if filled and every:
        record["notes"].append(
            f"source_sha256 of all {filled} results recomputed from the pairs' sources in commit {commit}, the "
            "tree measured, after the digest's form changed (merge_records --redigest-at)"
        )
    elif filled:
        record["notes"].append(
            f"source_sha256 of {filled} results measured before records carried it: the pairs' sources in "
            f"commit {commit} (merge_records --sources-at)"
        )
    return filled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="+")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--sources-at", metavar="COMMIT", help="fill missing source digests from this git commit")
    parser.add_argument(
        "--redigest-at", metavar="COMMIT", help="recompute every source digest from this git commit (the tree measured)"
    )
    args = parser.parse_args(argv)
    try:
        records = []
        for path in args.parts:
            with open(path, encoding="utf-8") as handle:
                records.append(json.load(handle))
        merged = merge(records)
        if args.sources_at:
            fill_sources(merged, args.sources_at)
        if args.redigest_at:
            fill_sources(merged, args.redigest_at, every=True)
        validate_record(merged)
    except (OSError, ValueError, KeyError) as error:
        print(f"merge_records: {error}", file=sys.stderr)
        return 2
    with open(args.output, "w", encoding="utf-8") as handle:
        json.dump(merged, handle, indent=1)
        handle.write("\n")
    print(f"merged {len(records)} records, {len(merged['results'])} results -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
