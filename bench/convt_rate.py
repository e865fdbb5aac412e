"""cuDNN's fp32 (TF32) transposed-convolution rate by kernel size and stride: the calibration's
`conv_transpose3d_kK` / `conv_transpose2d_kK` probes are 3-wide at stride 2, and KernelBench level 2's
ConvTranspose3d of kernel 5, stride 2 (problem 78) measured about 6x slower than those probes' rates price it.

Each shape is timed as a module call without bias (CUDA events, median of 20 after 3 warm-up calls) and its
rate counted as the cost model counts a transposed convolution: 2 x input positions x output channels x input
channels x taps.

Run on the GPU machine: `python bench/convt_rate.py OUT.json`; bench/convt_rate_h200.md holds one run.
"""

from __future__ import annotations

import json
import sys

# (dims, input channels, output channels, kernel, stride, padding, input side, batch)
SHAPES = (
    (3, 3, 16, 3, 2, 1, 32, 8),  # the calibration's probes
    (3, 16, 32, 3, 2, 1, 32, 8),
    (3, 64, 64, 3, 2, 1, 16, 8),
    (3, 32, 64, 5, 2, 2, 32, 16),  # KernelBench level2/78
    (3, 32, 64, 3, 2, 1, 32, 16),  # ... at kernel 3
    (3, 32, 64, 4, 2, 1, 32, 16),  # ... at kernel 4
    (3, 32, 64, 5, 1, 2, 32, 16),  # ... at stride 1
    (3, 32, 64, 2, 2, 0, 32, 16),  # ... kernel = stride (no overlap)
    (3, 16, 32, 5, 2, 2, 32, 16),
    (3, 64, 64, 5, 2, 2, 16, 16),
    (3, 32, 64, 4, 2, 1, 16, 32),
    (3, 3, 16, 5, 2, 2, 32, 16),
    (2, 32, 64, 5, 2, 2, 128, 16),
    (2, 64, 64, 4, 2, 1, 64, 16),
    (2, 64, 64, 3, 2, 1, 64, 16),
)


def measure(dims, c_in, c_out, kernel, stride, padding, side, batch) -> dict:
    import torch

    module = (torch.nn.ConvTranspose3d if dims == 3 else torch.nn.ConvTranspose2d)(
        c_in, c_out, kernel, stride=stride, padding=padding, bias=False
    ).cuda()
    x = torch.randn(batch, c_in, *([side] * dims), device="cuda")
    with torch.no_grad():
        for _ in range(3):
            y = module(x)
        torch.cuda.synchronize()
        times = []
        for _ in range(20):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            module(x)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end) * 1000.0)
    us = sorted(times)[len(times) // 2]
    flops = 2 * batch * side**dims * c_out * c_in * kernel**dims
    return {
        "dims": dims,
        "c_in": c_in,
        "c_out": c_out,
        "kernel": kernel,
        "stride": stride,
        "padding": padding,
        "side": side,
        "batch": batch,
        "out_shape": list(y.shape),
        "flops": flops,
        "us": round(us, 1),
        "tflops": round(flops / us / 1e6, 2),
    }


def main() -> None:
    import torch

    torch.backends.cudnn.allow_tf32 = True
    rows = []
    for shape in SHAPES:
        row = measure(*shape)
        rows.append(row)
        print(
            f"| {row['dims']}d | {row['c_in']} -> {row['c_out']} | k{row['kernel']} s{row['stride']} p{row['padding']} "
            f"| {row['side']} x{row['batch']} | {row['us']:10.1f} us | {row['tflops']:6.2f} TFLOPS |",
            flush=True,
        )
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as handle:
            json.dump({"gpu": torch.cuda.get_device_name(), "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
