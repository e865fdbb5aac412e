"""The host time of one cuDNN convolution call by shape: the calibration's `layer_conv_N` probes (N calls of
one 3x3 convolution of 32 channels at [2, 32, 56, 56]) give about 23 us a call, but host-bound files of
KernelBench level 3 (ResNet-18, GoogLeNet at batch 2-10) measure 2-4.5x over the model's estimate, whose
largest host term is their convolutions.

For each shape, one nn.Conv2d (no bias, fp32, cuDNN's TF32 default) is called 200 times back to back: the
wall time per call before the synchronize (the host's issue time) and after it, the GPU time of one call
(CUDA-graph replay), and the kernels one call launches (torch.profiler). Then a chain of distinct layers, as a
network calls them: ResNet-18's convolutions at batch 2, each called once per pass.

Run on the GPU machine: `python bench/conv_host.py [OUT.json]`; bench/conv_host_h200.md holds one run.
"""

from __future__ import annotations

import json
import sys
import time

# (in channels, out channels, kernel, stride, input side, batch)
SHAPES = (
    (32, 32, 3, 1, 56, 2),  # the layer_conv probe's
    (64, 64, 3, 1, 56, 2),  # ResNet-18's layer1
    (128, 128, 3, 1, 28, 2),
    (256, 256, 3, 1, 14, 2),
    (512, 512, 3, 1, 7, 2),
    (3, 64, 7, 2, 224, 2),  # its stem
    (64, 128, 1, 2, 56, 2),  # a downsample
    (16, 16, 3, 1, 56, 2),
    (32, 32, 3, 1, 56, 16),
    (64, 64, 3, 1, 56, 16),
)
CALLS = 200


def _per_call(fn) -> tuple[float, float]:
    import torch

    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(CALLS):
        fn()
    issued = time.perf_counter()
    torch.cuda.synchronize()
    done = time.perf_counter()
    return (issued - start) / CALLS * 1e6, (done - start) / CALLS * 1e6


def _kernels(fn) -> list[str]:
    import torch
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [e.key[:60] for e in prof.key_averages() if e.device_time_total]


def main() -> None:
    import torch
    import triton.testing as tt

    rows = []
    with torch.no_grad():
        for c_in, c_out, k, s, side, batch in SHAPES:
            conv = torch.nn.Conv2d(c_in, c_out, k, stride=s, padding=k // 2, bias=False).cuda()
            x = torch.randn(batch, c_in, side, side, device="cuda")
            issue, wall = _per_call(lambda conv=conv, x=x: conv(x))
            gpu = tt.do_bench_cudagraph(lambda conv=conv, x=x: conv(x), rep=50) * 1e3
            kernels = _kernels(lambda conv=conv, x=x: conv(x))
            row = {
                "shape": [c_in, c_out, k, s, side, batch],
                "issue_us": round(issue, 1),
                "wall_us": round(wall, 1),
                "gpu_us": round(gpu, 1),
                "kernels": kernels,
            }
            rows.append(row)
            print(
                f"{c_in:4d}->{c_out:4d} k{k} s{s} {side:3d}^2 x{batch:2d}: issue {issue:6.1f} us/call, wall {wall:6.1f}, "
                f"gpu {gpu:6.1f}, {len(kernels)} kernels: {'; '.join(n[:40] for n in kernels)}",
                flush=True,
            )
        # ResNet-18's convolutions at batch 2, each a layer of its own, called in order.
        plan = (
            [(3, 64, 7, 2, 224)]
            + [(64, 64, 3, 1, 56)] * 4
            + [(64, 128, 3, 2, 56), (128, 128, 3, 1, 28)]
            + [(128, 128, 3, 1, 28)] * 2
            + [(128, 256, 3, 2, 28), (256, 256, 3, 1, 14)]
            + [(256, 256, 3, 1, 14)] * 2
            + [(256, 512, 3, 2, 14), (512, 512, 3, 1, 7)]
            + [(512, 512, 3, 1, 7)] * 2
        )
        layers = [
            (
                torch.nn.Conv2d(ci, co, k, stride=s, padding=k // 2, bias=False).cuda(),
                torch.randn(2, ci, side, side, device="cuda"),
            )
            for ci, co, k, s, side in plan
        ]

        def chain():
            for conv, x in layers:
                conv(x)

        issue, wall = _per_call(chain)
        print(
            f"ResNet-18's {len(layers)} convolutions, batch 2, once each: issue {issue:.1f} us/pass "
            f"({issue / len(layers):.1f} a convolution), wall {wall:.1f}",
            flush=True,
        )
        rows.append({"chain": len(layers), "issue_us": round(issue, 1), "wall_us": round(wall, 1)})
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as handle:
            json.dump({"gpu": torch.cuda.get_device_name(), "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
