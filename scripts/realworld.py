"""Lint three real kernel libraries and compare every finding with a committed review.

    python scripts/realworld.py                 # fetch (once), lint, print the table
    python scripts/realworld.py --check         # exit 1 if a finding is not reviewed
    python scripts/realworld.py --write-docs    # regenerate docs/realworld.md
    python scripts/realworld.py --stubs         # print review entries to fill in

The corpora are downloaded from the package registry with pip into a cache
directory (`.cache/realworld/` by default, git-ignored) and never committed.
Every finding of a performance or hazard rule is matched to an entry of
`fixtures/realworld/review.toml` by (corpus, path, rule, line) or, when the
line moved, by a fingerprint of the reported source line. Precision is
true / (true + false) per rule per corpus. Findings of the internal (KL000,
KL9xx) and api rules are counted, not reviewed.

Runs with the three kernlint roots on PYTHONPATH (or kernlint installed) and
the standard library; linting goes through `python -m kernlint check`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from collections import Counter
from dataclasses import dataclass

import tomllib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REVIEW = os.path.join(REPO, "fixtures", "realworld", "review.toml")
DOCS = os.path.join(REPO, "docs", "realworld.md")
COMMAND = "python scripts/realworld.py --write-docs"


@dataclass(frozen=True)
class Corpus:
    name: str  # the distribution name, also the `corpus` field of review entries
    version: str
    package: str  # the import package linted, relative to the unpacked root


CORPORA = (
    Corpus("flag-gems", "5.0.2", "flag_gems"),
    Corpus("liger-kernel", "0.8.5", "liger_kernel"),
    Corpus("fla-core", "0.6.0", "fla"),
)

# Categories whose findings are reviewed; the rest are counted only.
UNREVIEWED_CATEGORIES = frozenset({"internal", "api"})
VERDICTS = ("true", "false", "unclear")


@dataclass(frozen=True)
class Finding:
    corpus: str
    path: str  # relative to the unpacked package root, e.g. flag_gems/ops/mm.py
    line: int
    column: int
    rule: str
    category: str
    severity: str
    message: str
    fingerprint: str


@dataclass(frozen=True)
class Entry:
    corpus: str
    path: str
    line: int
    rule: str
    fingerprint: str
    verdict: str
    reason: str
    kind: str  # the class of the finding (a short slug), for grouping


@dataclass(frozen=True)
class Miss:
    corpus: str
    path: str
    line: int
    rule: str
    reason: str
    kind: str


def fingerprint(text: str) -> str:
    """A short hash of one source line, blind to indentation and spacing."""
    squeezed = "".join(text.split())
    return hashlib.sha1(squeezed.encode("utf-8")).hexdigest()[:10]


# --- fetching -----------------------------------------------------------------


def unpacked_root(cache: str, corpus: Corpus) -> str:
    return os.path.join(cache, f"{corpus.name}-{corpus.version}")


def fetch(cache: str, corpus: Corpus) -> str:
    """Download and unpack the distribution once; return the directory that holds the package."""
    root = unpacked_root(cache, corpus)
    marker = os.path.join(root, ".unpacked")
    if os.path.exists(marker):
        return _package_parent(root, corpus)
    downloads = os.path.join(cache, "downloads")
    os.makedirs(downloads, exist_ok=True)
    archive = _existing_archive(downloads, corpus)
    if archive is None:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "--no-binary=:none:",
                f"{corpus.name}=={corpus.version}",
                "-d",
                downloads,
            ],
            check=True,
            stdout=sys.stderr,
        )
        archive = _existing_archive(downloads, corpus)
        if archive is None:
            raise SystemExit(f"pip downloaded nothing for {corpus.name}=={corpus.version}")
    os.makedirs(root, exist_ok=True)
    if archive.endswith((".whl", ".zip")):
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(root)
    else:
        with tarfile.open(archive) as tf:
            tf.extractall(root, filter="data")
    with open(marker, "w") as f:
        f.write(os.path.basename(archive) + "\n")
    return _package_parent(root, corpus)


def _existing_archive(downloads: str, corpus: Corpus) -> str | None:
    stem = corpus.name.replace("-", "_").lower() + "-" + corpus.version
    for name in sorted(os.listdir(downloads)):
        normalized = name.replace("-", "_").lower().replace("_" + corpus.version, "-" + corpus.version)
        if normalized.startswith(stem) and name.endswith((".whl", ".zip", ".tar.gz")):
            return os.path.join(downloads, name)
    return None


def _package_parent(root: str, corpus: Corpus) -> str:
    """The directory containing the import package (a wheel: the root; an sdist: one or two levels down)."""
    for parent, dirs, _files in os.walk(root):
        if corpus.package in dirs and os.path.exists(os.path.join(parent, corpus.package, "__init__.py")):
            return parent
        if parent.count(os.sep) - root.count(os.sep) >= 2:
            dirs[:] = []
    raise SystemExit(f"no {corpus.package}/ package under {root}")


# --- linting ------------------------------------------------------------------


def lint(cache: str, corpus: Corpus, parent: str) -> list[Finding]:
    # An empty config file: the defaults (every default rule), whatever
    # pyproject.toml lies above the cache.
    config = os.path.join(cache, "defaults.toml")
    with open(config, "w") as f:
        f.write("# kernlint defaults for the real-world run\n")
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "kernlint",
            "check",
            "--format",
            "json",
            "--exit-zero",
            # Opt-in rules whose fixes do not pay by default (KL010, KL015) are
            # still reviewed: a user who selects them gets these findings.
            "--extend-select",
            "KL010,KL015",
            "--config",
            config,
            corpus.package,
        ],
        cwd=parent,
        capture_output=True,
        text=True,
        check=False,
    )
    if process.returncode != 0:
        sys.stderr.write(process.stderr)
        raise SystemExit(f"kernlint failed on {corpus.name} (exit {process.returncode})")
    report = json.loads(process.stdout)
    lines_of: dict[str, list[str]] = {}
    findings = []
    for raw in report["findings"]:
        path = os.path.relpath(os.path.join(parent, raw["path"]), parent).replace(os.sep, "/")
        if path not in lines_of:
            with open(os.path.join(parent, path), encoding="utf-8", errors="replace") as f:
                lines_of[path] = f.read().splitlines()
        lines = lines_of[path]
        text = lines[raw["line"] - 1] if 0 < raw["line"] <= len(lines) else ""
        findings.append(
            Finding(
                corpus=corpus.name,
                path=path,
                line=raw["line"],
                column=raw.get("column", 0),
                rule=raw["code"],
                category=raw["category"],
                severity=raw["severity"],
                message=raw["message"],
                fingerprint=fingerprint(text),
            )
        )
    return sorted(findings, key=lambda f: (f.path, f.line, f.column, f.rule))


# --- the review file ----------------------------------------------------------


def read_review(path: str) -> tuple[str, list[Entry], list[Miss]]:
    """The review file and its siblings `review_*.toml` (one per reviewer or
    rule family, so that reviews done side by side merge without conflict);
    the newest `reviewed` date among them is the review's date."""
    import glob

    date, entries, misses = _read_one(path)
    for extra in sorted(glob.glob(os.path.join(os.path.dirname(path), "review_*.toml"))):
        more_date, more_entries, more_misses = _read_one(extra)
        date = max(date, more_date)
        entries += more_entries
        misses += more_misses
    return date, entries, misses


def _read_one(path: str) -> tuple[str, list[Entry], list[Miss]]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    entries = []
    for raw in data.get("finding", []):
        verdict = raw.get("verdict", "")
        if verdict not in VERDICTS:
            raise SystemExit(
                f"{path}: verdict {verdict!r} of {raw.get('path')}:{raw.get('line')} is not one of {VERDICTS}"
            )
        if not raw.get("reason", "").strip():
            raise SystemExit(f"{path}: {raw.get('path')}:{raw.get('line')} {raw.get('rule')} has no reason")
        entries.append(
            Entry(
                corpus=raw["corpus"],
                path=raw["path"],
                line=int(raw["line"]),
                rule=raw["rule"],
                fingerprint=raw.get("fingerprint", ""),
                verdict=verdict,
                reason=raw["reason"].strip(),
                kind=raw.get("class", ""),
            )
        )
    misses = [
        Miss(
            corpus=raw["corpus"],
            path=raw["path"],
            line=int(raw["line"]),
            rule=raw["rule"],
            reason=raw["reason"].strip(),
            kind=raw.get("class", ""),
        )
        for raw in data.get("miss", [])
    ]
    return str(data.get("reviewed", "")), entries, misses


def match(findings: list[Finding], entries: list[Entry]) -> tuple[dict[Finding, Entry], list[Entry]]:
    """Pair findings with entries: exact line first, then the same source line moved elsewhere."""
    paired: dict[Finding, Entry] = {}
    free = list(entries)
    exact = {(e.corpus, e.path, e.rule, e.line): e for e in entries}
    for finding in findings:
        entry = exact.get((finding.corpus, finding.path, finding.rule, finding.line))
        if entry is not None and entry in free:
            paired[finding] = entry
            free.remove(entry)
    for finding in findings:
        if finding in paired:
            continue
        candidates = [
            e
            for e in free
            if (e.corpus, e.path, e.rule, e.fingerprint)
            == (finding.corpus, finding.path, finding.rule, finding.fingerprint)
        ]
        if candidates:
            entry = min(candidates, key=lambda e: abs(e.line - finding.line))
            paired[finding] = entry
            free.remove(entry)
    return paired, free


# --- reporting ----------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    rule: str
    corpus: str
    findings: int
    true: int
    false: int
    unclear: int
    unreviewed: int

    @property
    def precision(self) -> str:
        judged = self.true + self.false
        return f"{self.true / judged:.2f}" if judged else "-"


def table(findings: list[Finding], paired: dict[Finding, Entry]) -> list[Row]:
    rows = []
    keys = sorted({(f.rule, f.corpus) for f in findings})
    for rule, corpus in keys:
        group = [f for f in findings if (f.rule, f.corpus) == (rule, corpus)]
        verdicts = Counter(paired[f].verdict if f in paired else "unreviewed" for f in group)
        rows.append(
            Row(
                rule,
                corpus,
                len(group),
                verdicts["true"],
                verdicts["false"],
                verdicts["unclear"],
                verdicts["unreviewed"],
            )
        )
    return rows


def markdown_table(rows: list[Row]) -> list[str]:
    out = [
        "| rule | corpus | findings | true | false | unclear | unreviewed | precision |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        out.append(
            f"| {r.rule} | {r.corpus} | {r.findings} | {r.true} | {r.false} | {r.unclear} | {r.unreviewed} | {r.precision} |"
        )
    return out


def class_table(findings: list[Finding], paired: dict[Finding, Entry]) -> list[str]:
    counts = Counter((f.rule, paired[f].verdict, paired[f].kind or "-") for f in findings if f in paired)
    out = ["| rule | verdict | class | findings |", "|---|---|---|---:|"]
    for (rule, verdict, kind), n in sorted(counts.items()):
        out.append(f"| {rule} | {verdict} | {kind} | {n} |")
    return out


def stub(finding: Finding) -> str:
    return "\n".join(
        [
            "[[finding]]",
            f'corpus = "{finding.corpus}"',
            f'path = "{finding.path}"',
            f"line = {finding.line}",
            f'rule = "{finding.rule}"',
            f'fingerprint = "{finding.fingerprint}"',
            'verdict = ""',
            'class = ""',
            f"# {finding.severity}: {finding.message}",
            'reason = ""',
            "",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache",
        default=os.path.join(REPO, ".cache", "realworld"),
        help="where the downloaded corpora are kept (default: .cache/realworld/)",
    )
    parser.add_argument(
        "--review",
        default=REVIEW,
        help="the review file (default: fixtures/realworld/review.toml)",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if any finding is not reviewed")
    parser.add_argument("--write-docs", action="store_true", help="regenerate docs/realworld.md")
    parser.add_argument(
        "--stubs",
        action="store_true",
        help="print review entries for the unreviewed findings",
    )
    args = parser.parse_args(argv)

    cache = os.path.abspath(args.cache)
    os.makedirs(cache, exist_ok=True)
    reviewed_findings: list[Finding] = []
    counted: Counter[tuple[str, str]] = Counter()
    for corpus in CORPORA:
        parent = fetch(cache, corpus)
        for finding in lint(cache, corpus, parent):
            if finding.category in UNREVIEWED_CATEGORIES:
                counted[(finding.rule, finding.corpus)] += 1
            else:
                reviewed_findings.append(finding)

    date, entries, misses = read_review(args.review)
    paired, orphans = match(reviewed_findings, entries)
    unreviewed = [f for f in reviewed_findings if f not in paired]

    if args.stubs:
        print("\n".join(stub(f) for f in unreviewed))
        return 0

    rows = table(reviewed_findings, paired)
    out: list[str] = []
    out.append(f"Real-world run: {', '.join(f'{c.name}=={c.version}' for c in CORPORA)}; review of {date}")
    out.append("")
    out.extend(markdown_table(rows))
    out.append("")
    out.append("Counted, not reviewed (internal and api rules):")
    out.extend(f"  {rule} {corpus}: {n}" for (rule, corpus), n in sorted(counted.items()) or [(("none", ""), 0)])
    out.append("")
    out.append(f"Findings not reviewed: {len(unreviewed)}")
    out.extend(f"  {f.corpus} {f.path}:{f.line} {f.rule} [{f.fingerprint}] {f.message}" for f in unreviewed)
    gone_true = [e for e in orphans if e.verdict == "true"]
    out.append(f"Reviewed TRUE findings that disappeared: {len(gone_true)}")
    out.extend(f"  {e.corpus} {e.path}:{e.line} {e.rule}: {e.reason}" for e in gone_true)
    out.append(f"Reviewed entries whose finding is gone (any verdict): {len(orphans)}")
    out.extend(f"  {e.corpus} {e.path}:{e.line} {e.rule} ({e.verdict})" for e in orphans)
    out.append(f"Known misses (kernlint silent where an expert would flag): {len(misses)}")
    out.extend(f"  {m.corpus} {m.path}:{m.line} {m.rule} [{m.kind}]: {m.reason}" for m in misses)
    print("\n".join(out))

    if args.write_docs:
        write_docs(
            date,
            rows,
            counted,
            reviewed_findings,
            paired,
            unreviewed,
            gone_true,
            orphans,
            misses,
        )
    if args.check and unreviewed:
        return 1
    return 0


def write_docs(date, rows, counted, findings, paired, unreviewed, gone_true, orphans, misses) -> None:
    miss_counts = Counter((m.rule, m.kind or "-") for m in misses)
    doc = [
        "# kernlint on real kernel libraries",
        "",
        "<!-- generated by scripts/realworld.py --write-docs; do not edit by hand -->",
        "",
        f"Corpora: {', '.join(f'`{c.name}=={c.version}`' for c in CORPORA)} from the package registry.",
        f"Review date: {date}. Every finding of a performance or hazard rule was read in its",
        "source and judged in `fixtures/realworld/review.toml` (one entry per finding, with its reason).",
        "",
        f"Regenerate: `{COMMAND}` (with the three kernlint roots on PYTHONPATH);",
        "`python scripts/realworld.py --check` exits 1 while a finding is not reviewed.",
        "",
        "## Precision per rule and corpus",
        "",
        "precision = true / (true + false)",
        "",
        *markdown_table(rows),
        "",
        "Counted, not reviewed (internal and api rules): "
        + (", ".join(f"{rule} {corpus}: {n}" for (rule, corpus), n in sorted(counted.items())) or "none")
        + ".",
        "",
        "## Findings by class",
        "",
        *class_table(findings, paired),
        "",
        "## Known misses (kernlint is silent where an expert would flag)",
        "",
        "| rule | class | count |",
        "|---|---|---:|",
        *(f"| {rule} | {kind} | {n} |" for (rule, kind), n in sorted(miss_counts.items())),
        "",
        "## Drift",
        "",
        f"- findings not reviewed: {len(unreviewed)}",
        f"- reviewed true findings that disappeared: {len(gone_true)}",
        f"- reviewed entries whose finding is gone: {len(orphans)}",
        "",
    ]
    with open(DOCS, "w") as f:
        f.write("\n".join(doc))


if __name__ == "__main__":
    sys.exit(main())
