"""Render a `kernlint verify` record as a Markdown table and a bar chart.

    python -m kernlint.kernels.render kernels/measurements/h100.json \\
        --markdown kernels/measurements/h100.md --png kernels/measurements/h100.png

Every number comes from the record; speedups are recomputed from its
before/after times.  matplotlib is imported only when a PNG is asked for.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
from kernlint.kernels.timing import mean_speedup_by_repeat
from kernlint.provenance import is_current


def _f(v, fmt="{:.1f}"):
    return "–" if v is None else fmt.format(v)


def _host_cost_table(record):
    """Host cost per call (eager minus graph) of each after kernel beside a plain launch of it."""
    rows = [r for r in record["results"] if r.get("after_plain")]
    if not rows:
        return []
    out = [
        "",
        f"Host cost per call, µs: {record['settings']['timing'].get('host', 'eager - graph')}.",
        "",
        "| pair | shape | before | after | after, plain launch | after / plain |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        ratio = r.get("host_cost_ratio")
        out.append(
            f"| {r['pair']} | {r['shape']} | {_f(r['before'].get('host_us'))} | {_f(r['after'].get('host_us'))} "
            f"| {_f(r['after_plain']['host_us'])} | {'–' if ratio is None else f'{ratio:.2f}×'} |"
        )
    return out


def changed_since_measured(record: dict) -> list[str]:
    """The record's pairs whose current code differs from what was measured."""
    pairs = sorted({r["pair"] for r in record["results"]})
    return [
        p
        for p in pairs
        if is_current(
            p,
            {r.get("source_sha256") for r in record["results"] if r["pair"] == p},
            {r.get("source_bytes_sha256") for r in record["results"] if r["pair"] == p},
        )
        is not True
    ]


def render_markdown(record: dict, source: str | None = None) -> str:
    env = record["environment"]
    out = []
    out.append(f"# kernlint verify: {env['gpu']}")
    out.append("")
    out.append(
        f"Measured {record['date']} with `{record['command']}`"
        + (f" (record `{source}`)" if source else "")
        + f"; torch {env['torch']}, triton {env['triton']}, CUDA {env.get('cuda')}, driver {env.get('driver')},"
        f" {env.get('sm_count')} SMs, Python {env['python']}."
    )
    timing = record["settings"].get("timing")
    if timing:
        out.append("")
        out.append(
            f"Times are medians in µs. **graph**: {timing['graph']} (GPU time, no launch overhead). "
            f"**eager**: {timing['eager']} (includes Python launch overhead). Input sets rotate so that "
            f"weights are not timed out of L2. Speedup = before / after. Error = "
            f"{record['settings']['error_metric']}; tolerance {record['settings']['tolerance']}, "
            f"{record['settings']['trials']} trials of fresh random inputs."
        )
    changed = changed_since_measured(record)
    if changed:
        out.append("")
        out.append(
            "**Changed since measured** (kernlint.provenance: the pair's code no longer matches the digest "
            "recorded with its results, so its rows describe the earlier code; "
            "`kernlint verify --pair PAIR` measures it again): " + ", ".join(f"`{p}`" for p in changed) + "."
        )
    out.append("")
    out.append(
        "| pair | rules | shape (M×K×N) | before graph / eager | after graph / eager | speedup graph / eager "
        "| reference graph | rel. error before / after | after config |"
    )
    out.append("|---|---|---|---|---|---|---|---|---|")
    for r in record["results"]:
        b, a, ref = r["before"], r["after"], r["reference"]
        if b["graph_us"] and a["graph_us"]:
            sp = f"**{b['graph_us'] / a['graph_us']:.2f}×** / {b['eager_us'] / a['eager_us']:.2f}×"
        else:
            sp = "–"
        ok = "" if r["ok"] else " **FAIL**"
        out.append(
            f"| {r['pair']}{ok} | {', '.join(r['rules'])} | {r['shape']} {r['dims']} "
            f"| {_f(b['graph_us'])} / {_f(b['eager_us'])} | {_f(a['graph_us'])} / {_f(a['eager_us'])} | {sp} "
            f"| {_f(ref['graph_us'])} | {b['rel_err']:.1e} / {a['rel_err']:.1e} | {a.get('config') or '–'} |"
        )
    out += _host_cost_table(record)
    out += _modes_table(record)
    out.append("")
    out.append(
        "| shape | bytes moved | DRAM floor @ "
        f"{record['settings']['stated_dram_tb_s']} TB/s | DRAM floor @ measured copy "
        f"{_f(record['settings'].get('measured_copy_tb_s'), '{:.2f}')} TB/s "
        "| copy moving the same bytes, graph | torch._int_mm + torch epilogue graph / eager | torch._int_mm alone graph |"
    )
    out.append("|---|---|---|---|---|---|---|")
    for name, s in record["shapes"].items():
        im = s.get("int_mm") or {}
        out.append(
            f"| {name} {s['dims']} | {s['bytes'] / 1e6:.2f} MB | {_f(s['dram_floor_us'], '{:.2f}')} µs "
            f"| {_f(s['dram_floor_measured_bw_us'], '{:.2f}')} µs "
            f"| {_f(s.get('copy_same_bytes_graph_us'), '{:.2f}')} µs "
            f"| {_f(im.get('graph_us'))} / {_f(im.get('eager_us'))} µs | {_f(im.get('alone_graph_us'))} µs |"
        )
    if record.get("acceptance"):
        out.append("")
        out.append("Targets:")
        out.append("")
        for c in record["acceptance"]:
            out.append(f"- {'PASS' if c['ok'] else 'MISS'}: {c['check']} — measured {c['value']}")
    notes = list(record.get("notes", []))
    for name, s in record["shapes"].items():
        notes += [f"{name}: {n}" for n in s.get("notes", [])]
    for r in record["results"]:
        notes += [f"{r['pair']} {r['shape']}: {n}" for n in r.get("notes", [])]
    if notes:
        out.append("")
        out.append("Notes:")
        out.append("")
        out += [f"- {n}" for n in notes]
    return "\n".join(out) + "\n"


MODE_LABELS = {
    "graph": "CUDA graph",
    "eager": "eager (10 calls)",
    "kernelbench": "KernelBench (flush)",
    "events_no_flush": "events, no flush",
}


def _spread(m: dict) -> str:
    lo, hi = min(m["repeat_medians_us"]), max(m["repeat_medians_us"])
    return f"{lo:.1f}–{hi:.1f}" if len(m["repeat_medians_us"]) > 1 else f"{lo:.1f}"


def _mean_spread(m: dict) -> str:
    lo, hi = min(m["repeat_means_us"]), max(m["repeat_means_us"])
    return f"{lo:.1f}–{hi:.1f}" if len(m["repeat_means_us"]) > 1 else f"{lo:.1f}"


def _modes_table(record: dict) -> list[str]:
    """Every timing mode side by side, where the record has them (records before the modes have not)."""
    rows = [r for r in record["results"] if (r["before"].get("modes") and r["after"].get("modes"))]
    if not rows:
        return []
    out = [
        "",
        (
            "Every timing mode (µs per call: median over all samples; in brackets the range of the medians "
            "of the repeats; KernelBench mode also gives the mean, which KernelBench reports, with the range of the "
            "repeats' means, and the speedup of the means repeat by repeat, so that a spike in one repeat shows as one):"
        ),
        "",
        "| pair | shape | mode | before | after | speedup (medians) | reference |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        for mode, label in MODE_LABELS.items():
            b, a = r["before"]["modes"].get(mode), r["after"]["modes"].get(mode)
            if not (b and a):
                continue
            ref = (r["reference"].get("modes") or {}).get(mode)

            def cell(m, mode=mode):
                text = f"{m['median_us']:.1f} [{_spread(m)}]"
                return text + (f", mean {m['mean_us']:.1f} [{_mean_spread(m)}]" if mode == "kernelbench" else "")

            speedup = f"{b['median_us'] / a['median_us']:.2f}×"
            if mode == "kernelbench":
                by_repeat = mean_speedup_by_repeat(b, a)
                speedup += f"; mean {b['mean_us'] / a['mean_us']:.2f}× [{' / '.join(f'{x:.2f}' for x in by_repeat)}]"
            out.append(
                f"| {r['pair']} | {r['shape']} | {label} | {cell(b)} | {cell(a)} "
                f"| {speedup} | {cell(ref) if ref else '–'} |"
            )
    return out


def render_png(record: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shapes = list(record["shapes"])
    pairs = list(dict.fromkeys(r["pair"] for r in record["results"]))
    by = {(r["pair"], r["shape"]): r for r in record["results"]}
    fig, axes = plt.subplots(1, len(shapes), figsize=(5.5 * len(shapes), 4.8), squeeze=False)
    series = [
        ("before", "graph_us", "before (graph)", "#d62728", None),
        ("after", "graph_us", "after (graph)", "#2ca02c", None),
        ("before", "eager_us", "before (eager)", "#d62728", "//"),
        ("after", "eager_us", "after (eager)", "#2ca02c", "//"),
    ]
    if any(r["before"].get("modes") for r in record["results"]):
        series += [
            ("before", "kernelbench", "before (KernelBench)", "#d62728", "xx"),
            ("after", "kernelbench", "after (KernelBench)", "#2ca02c", "xx"),
        ]
    width = 0.8 / len(series)
    for ax, shape in zip(axes[0], shapes):
        for j, (which, key, label, color, hatch) in enumerate(series):
            xs, ys = [], []
            for i, pair in enumerate(pairs):
                r = by.get((pair, shape))
                value = r and (
                    r[which].get(key)
                    if key.endswith("_us")
                    else (r[which].get("modes") or {}).get(key, {}).get("median_us")
                )
                if value:
                    xs.append(i + (j - (len(series) - 1) / 2) * width)
                    ys.append(value)
            ax.bar(
                xs,
                ys,
                width,
                label=label,
                color=color,
                alpha=1.0 if hatch is None else 0.45,
                hatch=hatch,
                edgecolor="black",
                linewidth=0.4,
            )
        for i, pair in enumerate(pairs):
            r = by.get((pair, shape))
            if r and r["before"]["graph_us"] and r["after"]["graph_us"]:
                s = r["before"]["graph_us"] / r["after"]["graph_us"]
                ax.annotate(
                    f"{s:.1f}×",
                    (i, r["before"]["graph_us"]),
                    ha="center",
                    va="bottom",
                    fontsize=8,
                    xytext=(0, 3),
                    textcoords="offset points",
                )
        floor = record["shapes"][shape].get("dram_floor_us")
        if floor:
            ax.axhline(floor, color="gray", linestyle=":", linewidth=1, label="DRAM floor")
        ax.set_yscale("log")
        ax.set_xticks(range(len(pairs)))
        labels = []
        for pair in pairs:
            rules = next(r["rules"] for r in record["results"] if r["pair"] == pair)
            labels.append("+".join(rules) if len(rules) == 1 else "seed\n(all fixes)")
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_title(f"{shape} (M×K×N = {record['shapes'][shape]['dims']})", fontsize=10)
        ax.set_ylabel("time per call (µs, log)")
    axes[0][0].legend(fontsize=7, loc="upper right")
    fig.suptitle(
        f"kernlint reference-fix pairs, before vs after — {record['environment']['gpu']}, "
        f"{record['date'][:10]}; annotated: graph speedup",
        fontsize=10,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@click.command("render")
@click.argument("record_file", type=click.Path(exists=True, dir_okay=False))
@click.option("--markdown", "markdown_out", type=click.Path(dir_okay=False), help="Write the Markdown table here.")
@click.option("--png", "png_out", type=click.Path(dir_okay=False), help="Write the bar chart here.")
def render_command(record_file, markdown_out, png_out):
    """Render a kernlint verify RECORD_FILE as Markdown (stdout by default) and a PNG chart."""
    record = json.loads(Path(record_file).read_text())
    md = render_markdown(record, source=record_file)
    if markdown_out:
        Path(markdown_out).write_text(md)
    elif not png_out:
        click.echo(md, nl=False)
    if png_out:
        render_png(record, png_out)


if __name__ == "__main__":
    render_command()
