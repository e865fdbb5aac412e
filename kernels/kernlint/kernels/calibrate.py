"""Measure the constants of kernlint's cost model (`kernlint.cost`) on one GPU.

    kernels/kernlint/kernels/run_on_gpu.sh -m kernlint.kernels.calibrate --record calibration_h100.json

Every constant the cost model uses comes from a probe timed here, in the
same harness and modes as `kernlint verify` (`kernlint.kernels.timing`): a
probe is a small function of torch (or Triton) calls whose bytes and flops
are known, timed in CUDA-graph, eager and KernelBench mode. The record keeps
the probes' raw times; `kernlint.cost.derive_constants` turns them into the
model's constants when the record is read, so no constant is ever typed by
hand and a reader can check each one against the times it came from.

Probes (each name is a key of the record's "probes"):

  * ``copy_*``, ``add_fp16``: streaming bandwidth (bytes / graph time);
  * ``transpose_fp16``, ``transpose_fp32``: a transposed copy
    (``w.t().contiguous()``), which reads or writes with a stride;
  * ``gemm_*``: a large GEMM per execution path (fp32 FMA, tf32, fp16, bf16
    tensor cores, int8 ``torch._int_mm``); ``sdpa_fp16``: fused attention;
  * ``tiny_ops_N``: N one-element torch ops: the per-kernel GPU floor (graph),
    the host cost per torch op (eager) and how much of it KernelBench's L2
    flush hides (kernelbench); ``tiny_triton_N``: the same for Triton launches;
  * ``module_ops_N``: the same N ops in an ``nn.Module``'s forward, called as
    a harness calls a model: what a call costs beyond its ops;
  * ``tiny_alloc_N``: N small allocations (``torch.zeros``);
  * ``sync``: one tiny op and ``.item()``: the cost of a host sync.

torch and triton are imported only in `main`, on the GPU machine.
"""

from __future__ import annotations

import datetime as _dt
import json
import platform
import sys
import time

import click
from kernlint.kernels import timing

SCHEMA_VERSION = 1
TOOL = "kernlint calibrate"
TINY_COUNTS = (1, 8, 32)
REPEATS = 2


def _probes(torch, triton, tl):
    """(name, fn, facts) of every probe; facts: bytes moved, flops, ops, path."""
    dev = "cuda"
    probes = []

    def add(name, fn, **facts):
        probes.append((name, fn, facts))

    # Streaming: 1 GiB fp32 copy (read + write), a 256 Mi-element fp16 add (2 reads + 1 write).
    n = 1 << 28
    src = torch.empty(n, device=dev, dtype=torch.float32).uniform_()
    dst = torch.empty_like(src)
    add("copy_fp32_1g", lambda: dst.copy_(src), bytes=8 * n, ops=1)
    a16 = torch.randn(n, device=dev, dtype=torch.float16)
    b16 = torch.randn(n, device=dev, dtype=torch.float16)
    add("add_fp16", lambda: a16 + b16, bytes=6 * n, ops=1)
    # A mid-size copy (32 MiB): close to L2's size, what most layers move.
    m = 1 << 23
    src_m = torch.empty(m, device=dev, dtype=torch.float32).uniform_()
    dst_m = torch.empty_like(src_m)
    add("copy_fp32_32m", lambda: dst_m.copy_(src_m), bytes=8 * m, ops=1)

    # Transposed copies.
    w16 = torch.randn(8192, 8192, device=dev, dtype=torch.float16)
    add("transpose_fp16", lambda: w16.t().contiguous(), bytes=4 * 8192 * 8192, ops=1)
    w32 = torch.randn(8192, 8192, device=dev, dtype=torch.float32)
    add("transpose_fp32", lambda: w32.t().contiguous(), bytes=8 * 8192 * 8192, ops=1)

    # GEMMs, one per execution path.
    s = 8192
    for name, dtype in (("fp16", torch.float16), ("bf16", torch.bfloat16)):
        x = torch.randn(s, s, device=dev, dtype=dtype)
        y = torch.randn(s, s, device=dev, dtype=dtype)
        add(f"gemm_{name}", lambda x=x, y=y: x @ y, flops=2 * s**3, bytes=3 * 2 * s * s, ops=1, path=name)
    xf = torch.randn(s // 2, s // 2, device=dev)
    yf = torch.randn(s // 2, s // 2, device=dev)

    def fp32_gemm(tf32):
        def run():
            old = torch.backends.cuda.matmul.allow_tf32
            torch.backends.cuda.matmul.allow_tf32 = tf32
            try:
                return xf @ yf
            finally:
                torch.backends.cuda.matmul.allow_tf32 = old

        return run

    add("gemm_fp32", fp32_gemm(False), flops=2 * (s // 2) ** 3, bytes=3 * 4 * (s // 2) ** 2, ops=1, path="fp32")
    add("gemm_tf32", fp32_gemm(True), flops=2 * (s // 2) ** 3, bytes=3 * 4 * (s // 2) ** 2, ops=1, path="tf32")
    xi = torch.randint(-128, 127, (s, s), device=dev, dtype=torch.int8)
    yi = torch.randint(-128, 127, (s, s), device=dev, dtype=torch.int8)
    add("gemm_int8", lambda: torch._int_mm(xi, yi), flops=2 * s**3, bytes=2 * s * s + 4 * s * s, ops=1, path="int8")
    b, h, seq, d = 2, 16, 4096, 64
    q, k, v = (torch.randn(b, h, seq, d, device=dev, dtype=torch.float16) for _ in range(3))
    add(
        "sdpa_fp16",
        lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v),
        flops=4 * b * h * seq * seq * d,
        bytes=4 * 2 * b * h * seq * d,
        ops=1,
        path="attention_fp16",
    )

    # Launch-bound probes: N tiny ops, N tiny Triton launches, N tiny allocations.
    t = torch.ones(1, device=dev)

    @triton.jit
    def _tiny_kernel(ptr, BLOCK: tl.constexpr):  # type: ignore[name-defined]
        offs = tl.arange(0, BLOCK)
        tl.store(ptr + offs, tl.load(ptr + offs) + 1.0)

    for count in TINY_COUNTS:

        def ops(count=count):
            y = t
            for _ in range(count):
                y = y + 1.0
            return y

        def launches(count=count):
            for _ in range(count):
                _tiny_kernel[(1,)](t, BLOCK=1)
            return t

        def allocs(count=count):
            return [torch.zeros(16, device=dev) for _ in range(count)]

        class Ops(torch.nn.Module):
            # As a KernelBench harness calls it: through nn.Module.__call__.
            def forward(self, x, count=count):
                for _ in range(count):
                    x = x + 1.0
                return x

        module = Ops()
        add(f"tiny_ops_{count}", ops, ops=count, bytes=8 * count)
        add(f"module_ops_{count}", lambda module=module: module(t), ops=count, bytes=8 * count)
        add(f"tiny_triton_{count}", launches, triton_launches=count, bytes=8 * count)
        add(f"tiny_alloc_{count}", allocs, allocs=count, bytes=64 * count)
    add("sync", lambda: (t + 1.0).item(), ops=1, syncs=1, bytes=8)
    return probes


def _measure(torch, fn, facts):
    entry = dict(facts)
    fn()
    torch.cuda.synchronize()
    modes = {}
    if not facts.get("syncs"):
        modes["graph"] = timing.graph(fn, repeats=REPEATS)
    modes["eager"] = timing.eager(fn, repeats=REPEATS)
    modes["kernelbench"] = timing.cuda_events(torch, fn, flush=True, repeats=REPEATS)
    modes["events_no_flush"] = timing.cuda_events(torch, fn, flush=False, repeats=REPEATS)
    entry["modes"] = {mode: t.as_dict() for mode, t in modes.items()}
    return entry


@click.command("calibrate", context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--record", type=click.Path(dir_okay=False), required=True, help="Write the calibration record here.")
def main(record: str) -> None:
    """Time the cost model's probes on this GPU and write the record."""
    import torch
    import triton
    import triton.language as tl
    from kernlint.kernels.verify import _environment

    if not torch.cuda.is_available():
        click.echo("kernlint calibrate: no CUDA GPU", err=True)
        sys.exit(2)
    started = time.time()
    env = _environment(torch, triton, False)
    out = {
        "schema_version": SCHEMA_VERSION,
        "tool": TOOL,
        "command": "python -m kernlint.kernels.calibrate --record " + record,
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "environment": env,
        "settings": {"repeats": REPEATS, "timing": {mode: timing.DESCRIPTIONS[mode] for mode in timing.MODES}},
        "probes": {},
    }
    for name, fn, facts in _probes(torch, triton, tl):
        t0 = time.time()
        out["probes"][name] = _measure(torch, fn, facts)
        times = {m: v["median_us"] for m, v in out["probes"][name]["modes"].items()}
        click.echo(f"{name}: " + ", ".join(f"{m} {v:.2f} us" for m, v in times.items()) + f" [{time.time() - t0:.0f}s]")
    out["elapsed_s"] = round(time.time() - started, 1)
    with open(record, "w", encoding="utf-8") as handle:
        json.dump(out, handle, indent=1, sort_keys=False)
        handle.write("\n")
    # The constants themselves are derived whenever the record is read
    # (kernlint.cost.derive_constants); shown here for the log only.
    try:
        from kernlint.cost import derive_constants

        for key, value in derive_constants(out).items():
            click.echo(f"  {key} = {value}")
    except Exception as error:  # noqa: BLE001 - the record is written; the log line is a convenience
        click.echo(f"  (constants not derived here: {error})")
    click.echo(f"record written to {record} ({platform.node()})")


if __name__ == "__main__":
    main()
