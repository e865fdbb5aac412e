"""Where the host time of one call of the library's autotuned `after` kernel goes.

    python -m kernlint.kernels.profile_launch [--pair seed_all_fixes] [--shape seed] [--calls 2000]

For each shape it calls the pair's `after` model three ways, the launch mode
of `kernlint.kernels._launch` switched around the same model and inputs:

  * autotuner: through `@triton.autotune` + `@triton.heuristics` on every
    call, as the kernel is declared (what the library did before `_launch`);
  * plain: `jit_fn[grid](..., **config, num_warps=.., num_stages=..)` with
    the config the autotuner chose: Triton's own launch path, no autotuner;
  * direct: the compiled kernel's launcher with the resolved grid and
    constexprs (what the library does now).

For each it prints the eager time per call of 10 back-to-back calls and the
CUDA-graph time (`kernlint verify`'s method), their difference (the host
cost per call), and a cProfile of `--calls` calls, top functions by own
time.  Needs a CUDA GPU.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys

MODES = ("autotuner", "plain", "direct")


def _profile(fn, calls: int, top: int) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        fn()
    profiler.disable()
    text = io.StringIO()
    stats = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(top)
    # Keep the table only: the header names this machine's paths and clock.
    lines = text.getvalue().splitlines()
    start = next(i for i, line in enumerate(lines) if "function calls" in line)
    return "\n".join(line.rstrip() for line in lines[start:] if line.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", default="seed_all_fixes")
    parser.add_argument("--shape", action="append", help="shape name (repeatable; default seed and decode)")
    parser.add_argument("--calls", type=int, default=2000, help="calls under cProfile per mode")
    parser.add_argument("--top", type=int, default=14, help="functions shown per profile")
    args = parser.parse_args(argv)

    import importlib

    import torch
    import triton
    import triton.testing as triton_testing
    from kernlint.kernels import verify
    from kernlint.kernels._launch import launch_mode

    if not torch.cuda.is_available():
        print("profile_launch: needs a CUDA GPU", file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    ref = importlib.import_module(f"kernlint.kernels.{args.pair}.reference")
    after = importlib.import_module(f"kernlint.kernels.{args.pair}.after")
    shapes = args.shape or ["seed", "decode"]
    print(f"# Launch profile: `{args.pair}` after kernel on {torch.cuda.get_device_name(0)}")
    print()
    print(
        f"torch {torch.__version__}, triton {triton.__version__}, Python {sys.version.split()[0]}. "
        f"Command: `python -m kernlint.kernels.profile_launch {' '.join(argv or sys.argv[1:])}`."
    )
    print()
    summary = [
        "| shape | mode | eager µs per call (10 back-to-back) | CUDA graph µs | host µs per call |",
        "|---|---|---|---|---|",
    ]
    profiles = []
    for shape in shapes:
        dims = ref.SHAPES[shape]
        torch.manual_seed(0)
        model = after.ModelNew(*ref.get_init_inputs(dims)).cuda().eval()
        inputs = ref.get_inputs(dims, device="cuda", generator=torch.Generator().manual_seed(1))
        with torch.no_grad():
            model(*inputs)  # autotunes and resolves the key
            torch.cuda.synchronize()
            for mode in MODES:
                with launch_mode(mode):
                    call = lambda: model(*inputs)  # noqa: E731, B023 - called within this iteration
                    call()
                    eager, graph = verify._bench(torch, triton_testing, call)
                    summary.append(
                        f"| {shape} {verify._dims_str(dims)} | {mode} | {eager:.1f} | {graph:.2f} "
                        f"| {eager - graph:.1f} |"
                    )
                    torch.cuda.synchronize()
                    profiles.append((shape, mode, _profile(call, args.calls, args.top)))
                    torch.cuda.synchronize()
    print("\n".join(summary))
    for shape, mode, text in profiles:
        print()
        print(f"## cProfile: {shape}, {mode}, {args.calls} calls (top {args.top} by own time)")
        print()
        print("```")
        print(text)
        print("```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
