"""cuDNN's fp32 (TF32) convolution rate by input channels, kernel size and stride, against the cost model's
conv-rate probes (3x3, stride 1, at three depths): which quantity the probes' rates should be read by.

The model reads a convolution's rate from the `flops_conv_k*` constants, interpolated in log GEMM depth
(input channels x taps). The probes are all 3x3, so their depth is 9 x their input channels, and a wider
kernel (a pool folded into the convolution, KL026; an 11x11 stem) at the same depth has far fewer input
channels. This sweep times convolutions of several shapes (CUDA events around the module call, median of
20, after 3 warm-up calls) and prints each one's measured rate beside the rate the record's probes give it
read by depth and read by input channels (depth / 9 of the probes), with the ratio of each to the
measurement.

Run on the GPU machine: `python bench/conv_rate.py --out FILE.json` (times and writes the rows), then
`python bench/conv_rate.py --rows FILE.json --calibration RECORD.json` (the table, from the calibration record
of the same GPU). bench/conv_rate_h200.md holds one run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "analyzer"), str(ROOT / "rules"), str(ROOT / "kernels")]

# (input channels, output channels, kernel, stride, input side)
SHAPES = (
    (3, 64, 3, 1, 256),  # the probes' shapes (batch aside)
    (16, 64, 3, 1, 256),
    (64, 128, 3, 1, 128),
    (8, 64, 3, 1, 384),  # KernelBench level2/65's convolution
    (8, 64, 6, 4, 384),  # ... with its 4x4 average pool folded in (KL026's fix)
    (16, 64, 6, 4, 256),
    (64, 64, 6, 4, 128),
    (32, 64, 3, 1, 256),
    (128, 128, 3, 1, 64),
    (16, 64, 5, 1, 256),
    (64, 64, 5, 1, 128),
    (16, 64, 7, 2, 256),
    (3, 64, 7, 2, 224),  # a ResNet stem
    (3, 96, 11, 4, 224),  # KernelBench level1/50
    (64, 64, 1, 1, 128),
    (256, 256, 1, 1, 56),
)
TARGET_FLOPS = 4e10  # each shape's batch is set to do about this much work


def measure(c_in: int, c_out: int, kernel: int, stride: int, side: int) -> dict:
    import torch

    out_side = (side - kernel) // stride + 1
    per_image = 2 * c_out * out_side**2 * c_in * kernel**2
    batch = max(1, round(TARGET_FLOPS / per_image))
    conv = torch.nn.Conv2d(c_in, c_out, kernel, stride=stride).cuda()
    x = torch.randn(batch, c_in, side, side, device="cuda")
    with torch.no_grad():
        for _ in range(3):
            conv(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(20):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            conv(x)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)
    us = sorted(times)[len(times) // 2]
    flops = per_image * batch
    return {
        "c_in": c_in,
        "c_out": c_out,
        "kernel": kernel,
        "stride": stride,
        "side": side,
        "batch": batch,
        "flops": flops,
        "us": us,
    }


def predicted(row: dict, constants: dict[str, float]) -> tuple[float, float, float]:
    """The probes' rate (flops per us) for this shape read by GEMM depth, by input channels, and as the cost
    model reads it (`kernlint.cost._conv_rate`: the smaller of the two)."""
    from kernlint import cost

    points = cost._numbered(constants, "flops_conv_k")
    depth = row["c_in"] * row["kernel"] ** 2
    by_channels = [(k // 9, rate) for k, rate in points]  # the probes are 3x3: their input channels
    window = (row["kernel"], row["kernel"], row["stride"], row["stride"], 1, 1)
    model = cost._conv_rate(constants, depth, "nn.Conv2d", window)
    assert model is not None
    return cost._interpolated(points, depth), cost._interpolated(by_channels, row["c_in"]), model


def modelled_us(row: dict, constants: dict[str, float]) -> float:
    """The cost model's time for the measured call (`kernlint.cost.gpu_us` of the convolution with its bias, as
    timed): a rate reading is not a time where the convolution is bound by its bytes (a 1x1)."""
    from kernlint import cost
    from kernlint.model.shapes import Op

    k, s, side, batch = row["kernel"], row["stride"], row["side"], row["batch"]
    out_side = (side - k) // s + 1
    in_bytes = 4 * batch * row["c_in"] * side**2
    weight_bytes = 4 * row["c_out"] * row["c_in"] * k * k
    out_bytes = 4 * batch * row["c_out"] * out_side**2
    op = Op(
        "gemm",
        0,
        bytes=in_bytes + weight_bytes + out_bytes,
        flops=row["flops"],
        path="tf32",
        in_bytes=(in_bytes, weight_bytes),
        out_bytes=out_bytes,
        conv_bias=True,
        elem_bytes=4,
        reduction=row["c_in"] * k * k,
        note="nn.Conv2d",
        conv_window=(k, k, s, s, 1, 1),
    )
    return cost.gpu_us(op, constants)


def table(rows: list[dict], constants: dict[str, float]) -> str:
    lines = [
        "| C_in | C_out | kernel | stride | batch | measured TFLOPS | by depth: TFLOPS (x measured) | "
        "by C_in: TFLOPS (x measured) | the cost model's: TFLOPS (x measured) | measured us | the cost model's "
        "time: us (x measured) |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    logs: dict[str, list[float]] = {"depth": [], "c_in": [], "the cost model's reading": []}
    times: list[float] = []
    for row in rows:
        rate = row["flops"] / row["us"]
        readings = predicted(row, constants)
        for values, reading in zip(logs.values(), readings):
            values.append(abs(math.log(reading / rate)))
        cells = " | ".join(f"{r / 1e6:.1f} ({r / rate:.2f})" for r in readings)
        us = modelled_us(row, constants)
        times.append(abs(math.log(us / row["us"])))
        lines.append(
            f"| {row['c_in']} | {row['c_out']} | {row['kernel']}x{row['kernel']} | {row['stride']} | {row['batch']} "
            f"| {rate / 1e6:.1f} | {cells} | {row['us']:,.0f} | {us:,.0f} ({us / row['us']:.2f}) |"
        )
    for name, values in logs.items():
        within = sum(1 for v in values if v <= math.log(1.5))
        lines.append(
            f"\nRead by {name}: within 1.5x of the measurement on {within} of {len(values)}; geometric mean "
            f"error {math.exp(sum(values) / len(values)):.2f}x."
        )
    within = sum(1 for v in times if v <= math.log(1.5))
    lines.append(
        f"\nThe cost model's time (its rate, its bytes and the bias's pass): within 1.5x of the measurement on "
        f"{within} of {len(times)}; geometric mean error {math.exp(sum(times) / len(times)):.2f}x."
    )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calibration", help="the calibration record of this GPU (without: time and write only)")
    parser.add_argument("--out", type=Path, help="write the measured rows here (JSON)")
    parser.add_argument("--rows", type=Path, help="print the table from rows measured earlier, timing nothing")
    args = parser.parse_args()
    if args.rows:
        rows = json.loads(args.rows.read_text())
    else:
        import torch

        rows = [measure(*shape) for shape in SHAPES]
        rows[0]["gpu"] = torch.cuda.get_device_name()
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1) + "\n")
    if args.calibration:
        from kernlint import cost

        calibration = cost.load_calibration(args.calibration)
        if calibration is None:
            raise SystemExit(f"{args.calibration}: not a calibration record")
        print(table(rows, {**cost.calibration().constants, **calibration.constants}))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("CUDA_MODULE_LOADING", "LAZY")
    raise SystemExit(main())
