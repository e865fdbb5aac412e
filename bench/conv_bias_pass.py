"""What a convolution's bias costs PyTorch on the GPU, by module: KL004's plan drops it from the
convolution and adds it in the Triton kernel that reads the output, and the cost model prices the bias as a
pass of its own over the output (read, add, write at the broadcast probe's rate, `kernlint.cost.gpu_us`).

For each shape (KernelBench level 2's, as fixtures/fresh* use them) the module is timed with and without its
bias (CUDA-graph replay, triton.testing.do_bench_cudagraph, median) and the kernels of one call with the bias
are listed (torch.profiler): a separate elementwise kernel is the bias pass; none means cuDNN (or PyTorch's
own kernel) adds it in the convolution.

Run on the GPU machine: `python bench/conv_bias_pass.py OUT.json`; bench/conv_bias_pass_h200.md holds one run.
"""

from __future__ import annotations

import json
import sys

# (module, in channels, out channels, kernel, stride, padding, output padding, input shape without channels)
SHAPES = (
    ("ConvTranspose3d", 32, 64, 3, 2, 1, 1, (16, 16, 32, 32)),  # fresh3's ee07, fresh4's fd08
    ("ConvTranspose3d", 32, 64, 3, 2, 1, 1, (32, 16, 32, 32)),  # fresh's cc07
    ("ConvTranspose3d", 16, 32, 3, 2, 1, 1, (16, 16, 32, 32)),  # fresh4's fa10, fresh's ca09
    ("ConvTranspose3d", 32, 64, 5, 2, 2, 0, (16, 32, 32, 32)),  # level2/78 (fresh5's gc11)
    ("ConvTranspose2d", 64, 64, 3, 1, 0, 0, (128, 256, 256)),  # fresh3's ea09
    ("Conv3d", 3, 16, 4, 1, 0, 0, (1024, 16, 32, 32)),  # fresh's ch11
    ("Conv2d", 8, 64, 3, 1, 0, 0, (128, 256, 256)),  # fresh5's gc10
    ("Conv2d", 3, 16, 3, 1, 0, 0, (128, 32, 32)),
)


def measure(module: str, c_in, c_out, kernel, stride, padding, output_padding, shape) -> dict:
    import torch
    import triton.testing as tt
    from torch.profiler import ProfilerActivity, profile

    kind = getattr(torch.nn, module)
    extra = {"output_padding": output_padding} if module.startswith("ConvTranspose") else {}
    x = torch.randn(shape[0], c_in, *shape[1:], device="cuda")
    row: dict = {
        "module": module,
        "c_in": c_in,
        "c_out": c_out,
        "kernel": kernel,
        "stride": stride,
        "input": [shape[0], c_in, *shape[1:]],
    }
    with torch.no_grad():
        for bias in (True, False):
            layer = kind(c_in, c_out, kernel, stride=stride, padding=padding, bias=bias, **extra).cuda()
            y = layer(x)
            row["out_bytes"] = y.numel() * y.element_size()
            row["bias_us" if bias else "no_bias_us"] = round(
                tt.do_bench_cudagraph(lambda layer=layer: layer(x), rep=100) * 1e3, 1
            )
            if bias:
                torch.cuda.synchronize()
                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    layer(x)
                    torch.cuda.synchronize()
                row["kernels"] = [
                    [e.key[:70], round(e.device_time_total, 1)] for e in prof.key_averages() if e.device_time_total
                ]
    return row


def main() -> None:
    import torch

    rows = []
    for shape in SHAPES:
        row = measure(*shape)
        rows.append(row)
        print(
            f"{row['module']} {row['c_in']}->{row['c_out']} k{row['kernel']} s{row['stride']} {row['input']}: "
            f"bias {row['bias_us']:.1f} us, no bias {row['no_bias_us']:.1f} us, "
            f"out {row['out_bytes'] / 1e6:.0f} MB",
            flush=True,
        )
        for name, us in row["kernels"]:
            print(f"    {us:10.1f} us  {name}", flush=True)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as handle:
            json.dump({"gpu": torch.cuda.get_device_name(), "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
