"""Per-kernel GPU times of KernelBench-style files' `ModelNew` (torch.profiler over 10 calls after 5 warm-up
calls), and the config each @triton.autotune kernel of the file chose. For finding which kernel of a file
makes a measured difference (a GPU is needed; it imports and runs the files it is given: run it only on files
you trust).

    python scripts/profile_kernels.py FILE...
"""

import importlib.util
import sys


def profile(path: str) -> None:
    import torch
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile

    spec = importlib.util.spec_from_file_location("profiled", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    torch.manual_seed(0)
    model = module.ModelNew(*module.get_init_inputs()).cuda()
    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in module.get_inputs()]
    with torch.no_grad():
        for _ in range(5):
            model(*inputs)
        torch.cuda.synchronize()
        with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(10):
                model(*inputs)
            torch.cuda.synchronize()
    print(f"===== {path}")
    for event in sorted(prof.key_averages(), key=lambda e: -e.device_time_total)[:6]:
        if event.device_time_total:
            print(
                f"  {event.key[:60]:60s} calls {event.count:3d}  mean {event.device_time_total / event.count:9.1f} us"
            )
    for name in sorted(vars(module)):
        kernel = getattr(module, name)
        if hasattr(kernel, "best_config") and hasattr(kernel, "configs"):
            print(f"  {name} chose {getattr(kernel, 'best_config', None)}")


if __name__ == "__main__":
    for path in sys.argv[1:]:
        profile(path)
