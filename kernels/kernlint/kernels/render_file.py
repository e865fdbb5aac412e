"""Render `kernlint verify FILE` records as one Markdown summary.

    python -m kernlint.kernels.render_file A.json B.json > summary.md

Every number comes from the records.  Records of files checked against the
same reference (same sha256) are also compared with each other: the first
record's ModelNew time over each later one's, per timing mode.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
from kernlint.kernels.timing import MODES

LABELS = {
    "graph": "CUDA graph",
    "eager": "eager (10 calls)",
    "kernelbench": "KernelBench (flush)",
    "events_no_flush": "events, no flush",
}


def _f(v, fmt="{:.2f}") -> str:
    return "–" if v is None else fmt.format(v)


def _mode_cell(m: dict | None, mode: str) -> str:
    if not m:
        return "–"
    spread = m["repeat_medians_us"]
    text = f"{m['median_us']:.2f} [{min(spread):.2f}–{max(spread):.2f}]"
    return text + (f", mean {m['mean_us']:.2f}" if mode == "kernelbench" else "")


def render_markdown(records: list[tuple[str, dict]]) -> str:
    first = records[0][1]
    env = first["environment"]
    out = [f"# kernlint verify FILE: {env['gpu']}", ""]
    for source, rec in records:
        out.append(
            f"- `{rec['command']}` on {rec['date']} (record `{source}`; torch {rec['environment']['torch']}, "
            f"triton {rec['environment']['triton']}): **{'correct' if rec['ok'] else 'FAILED'}**"
        )
    settings = first["settings"]
    out += ["", f"Correctness: {settings['correctness']}. Errors: {settings['error_metric']}.", ""]
    if settings.get("timing"):
        out.append(
            "Times in µs per call: median over all samples of "
            f"{settings['timing'].get('repeats')} repeats, in brackets the range of the repeats' medians."
        )
        out += [f"- **{LABELS[m]}**: {settings['timing'][m]}" for m in MODES if m in settings["timing"]]
        out += [
            f"- **memory floor**: {settings['memory_floor']}",
            f"- **compute floor**: {settings['compute_floor']}",
            "",
        ]
    out.append(
        "| file | model | status | trials passed | max abs / rel err | "
        + " | ".join(LABELS[m] for m in MODES)
        + " | memory floor | compute floor |"
    )
    out.append("|---" * (7 + len(MODES)) + "|")
    for _, rec in records:
        for m in rec["models"]:
            c = m["correctness"]
            t = m["timing"] or {}
            comp = m["compute"] or {}
            out.append(
                f"| {rec['file']['path']} | {m['class']} ({os.path.basename(m['path'])}) | {m['status']} "
                f"| {'–' if not c else str(c['passed']) + '/' + str(c['trials'])} "
                f"| {'–' if not c else _f(c['max_abs_err'], '{:.1e}') + ' / ' + _f(c['max_rel_err'], '{:.1e}')} | "
                + " | ".join(_mode_cell(t.get(mode), mode) for mode in MODES)
                + f" | {_f((m['memory'] or {}).get('floor_us'))} "
                f"| {_f(comp.get('floor_us'))}{' (' + comp['dtype'] + ')' if comp else ''} |"
            )
    out += [
        "",
        (
            "Speedup of ModelNew over Model in the same run (ratio of medians; KernelBench's own figure is the "
            "ratio of means):"
        ),
        "",
        "| file | " + " | ".join(LABELS[m] for m in MODES) + " | KernelBench, means |",
        "|---" * (len(MODES) + 2) + "|",
    ]
    for _, rec in records:
        sp = rec["speedup"] or {}
        out.append(
            f"| {rec['file']['path']} | "
            + " | ".join(_f(sp.get(m), "{:.2f}×") for m in MODES)
            + f" | {_f(sp.get('kernelbench_mean'), '{:.2f}×')} |"
        )
    base = records[0][1]
    same = [(p, r) for p, r in records[1:] if r["reference"]["sha256"] == base["reference"]["sha256"]]
    if same:
        out += [
            "",
            (
                f"ModelNew of `{base['file']['path']}` over ModelNew of each later file (same reference; "
                "records from separate runs):"
            ),
            "",
            "| file | " + " | ".join(LABELS[m] for m in MODES) + " |",
            "|---" * (len(MODES) + 1) + "|",
        ]
        for _, rec in same:
            cells = []
            for mode in MODES:
                a = (base["models"][1]["timing"] or {}).get(mode)
                b = (rec["models"][1]["timing"] or {}).get(mode)
                cells.append(_f(a["median_us"] / b["median_us"], "{:.2f}×") if a and b else "–")
            out.append(f"| {rec['file']['path']} | " + " | ".join(cells) + " |")
    for _, rec in records:
        if rec["findings"] is None:
            out += ["", f"{rec['file']['path']}: {rec['lint']['note']}"]
            continue
        out += ["", f"Findings in `{rec['file']['path']}` ({rec['lint']['source']}): {len(rec['findings'])}"]
        if rec["findings"]:
            out += ["", "| line:col | rule | library claim |", "|---|---|---|"]
            out += [
                f"| {f['line']}:{f['column']} | {f['code']} {f['name']} | {f['claim'] or 'none (not a performance rule)'} |"
                for f in rec["findings"]
            ]
    notes = [f"{rec['file']['path']}: {n}" for _, rec in records for n in rec["notes"]]
    notes += [
        f"{rec['file']['path']} {m['class']}: {n}" for _, rec in records for m in rec["models"] for n in m["notes"]
    ]
    if notes:
        out += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"


@click.command("render-file")
@click.argument("records", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
def render_command(records):
    """Render `kernlint verify FILE` RECORDS as one Markdown summary on stdout."""
    click.echo(render_markdown([(r, json.loads(Path(r).read_text())) for r in records]), nl=False)


if __name__ == "__main__":
    render_command()
