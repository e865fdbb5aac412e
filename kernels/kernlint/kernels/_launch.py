"""Launch an autotuned Triton kernel for less host time than a plain launch.

A call through `@triton.autotune` + `@triton.heuristics` re-derives its
launch on every call: the autotuner zips the arguments into a dict, builds
its key (reading every tensor's dtype), looks the config up and merges its
kwargs; the heuristics zip the arguments again and call their lambdas; then
`JITFunction.run` binds the arguments, computes their specialization and a
cache key, finds the compiled kernel and calls the grid function.  Only the
last step, the C launcher, is work that a given problem needs every time.
`profile_launch.py` measures this (its findings are in
`measurements/launch_profile_h100.md`).

`AutotunedLauncher` pays for all of that once per problem key: the first
call goes through the autotuner (which benchmarks and launches the best
config), the launcher keeps the compiled kernel, its grid and its constexpr
values, and later calls with the same key hand the arguments straight to the
compiled kernel's launcher, exactly as `JITFunction.run` would at its end.
The key must hold everything the compiled kernel was specialized on: the
integer arguments, each pointer's 16-byte alignment, the device, the dtypes.

Under the Triton interpreter (`TRITON_INTERPRET=1`) there is no compiled
kernel: a resolved key is launched as a plain call of the jit function with
the resolved constexprs, which runs the same code in the interpreter.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import triton
from triton.runtime.autotuner import Autotuner, Heuristics

# How later calls of a resolved key are launched (`launch_mode` switches all
# launchers; measurement code uses it to time the same call three ways):
DIRECT = "direct"  # the compiled kernel's launcher, nothing else
PLAIN = "plain"  # `jit_fn[grid](..., **resolved_constexprs, num_warps=..)`: Triton's own launch path
AUTOTUNER = "autotuner"  # `autotuned_fn[grid](...)` on every call, as the kernel is declared
MODES = (DIRECT, PLAIN, AUTOTUNER)

_LAUNCHERS: list[AutotunedLauncher] = []
# Calls of every AutotunedLauncher so far (one increment per call): lets a
# harness ask whether a call goes through a launcher at all.
_CALLS = [0]


def launches_through(call: Callable[[], object]) -> bool:
    """Whether `call()` launches anything through an `AutotunedLauncher` (it is called once)."""
    before = _CALLS[0]
    call()
    return _CALLS[0] > before


@contextlib.contextmanager
def launch_mode(mode: str) -> Iterator[None]:
    """Launch every `AutotunedLauncher` in `mode` inside the block."""
    if mode not in MODES:
        raise ValueError(f"unknown launch mode {mode!r}; known: {', '.join(MODES)}")
    saved = [launcher.mode for launcher in _LAUNCHERS]
    for launcher in _LAUNCHERS:
        launcher.mode = mode
    try:
        yield
    finally:
        for launcher, old in zip(_LAUNCHERS, saved):
            launcher.mode = old


def specialization_key(device: int, values: tuple[Any, ...], tensors: tuple[Any, ...]) -> tuple[Any, ...]:
    """The key of a resolved launch: the device, the integer arguments (and
    whatever else picks the kernel, a dtype), and each pointer's 16-byte
    alignment, which is everything Triton specializes a compiled kernel on."""
    return (device, *values, *[t.data_ptr() & 15 for t in tensors])


def jit_function(kernel: Any) -> Any:
    """The `@triton.jit` function under any autotune/heuristics wrappers."""
    while isinstance(kernel, (Autotuner, Heuristics)):
        kernel = kernel.fn
    return kernel


def _hook_active(hook: Any) -> bool:
    # Triton's launch hooks are None or a callable in some versions and a
    # (possibly empty) chain of callables in others.
    return hook is not None and bool(getattr(hook, "calls", True))


@dataclass(frozen=True)
class ResolvedLaunch:
    """Everything a later call of one problem key needs besides its arguments."""

    sizes: dict[str, Any]  # the autotune key's arguments by name
    config: Any  # the triton.Config the autotuner chose
    grid: tuple[int, int, int]
    constexprs: tuple[Any, ...]  # the kernel's constexpr values, in parameter order
    meta: dict[str, Any]  # the same constexprs by name, for a plain launch
    options: dict[str, Any]  # num_warps, num_stages, ... for a plain launch
    compiled: Any  # triton's CompiledKernel, or None under the interpreter


class AutotunedLauncher:
    """Launches `kernel` (an `@triton.autotune` function) resolving its config once per key.

    `grid(meta)` gets the kernel's arguments and constexprs by name and
    returns the grid; it is called once per key.  The kernel's runtime
    parameters must come first and its constexprs last (a call passes the
    runtime arguments positionally and nothing else).
    """

    def __init__(self, kernel: Autotuner, grid: Callable[[dict[str, Any]], tuple[int, ...]]):
        self.kernel = kernel
        self.jit = jit_function(kernel)
        self.heuristics = []
        wrapper = kernel.fn
        while isinstance(wrapper, Heuristics):
            self.heuristics.append(wrapper)
            wrapper = wrapper.fn
        self.grid = grid
        self.mode = DIRECT
        self.resolved: dict[tuple, ResolvedLaunch] = {}
        _LAUNCHERS.append(self)

    def __call__(self, key: tuple, args: tuple) -> None:
        _CALLS[0] += 1
        launch = self.resolved.get(key)
        if launch is None:
            self.resolved[key] = self._resolve(args)
        elif self.mode == DIRECT and launch.compiled is not None:
            compiled = launch.compiled
            stream = self._current_stream(self._current_device())
            enter, leave = self._knobs.launch_enter_hook, self._knobs.launch_exit_hook
            full = args + launch.constexprs
            metadata = compiled.launch_metadata(launch.grid, stream, *full) if _hook_active(enter) else None
            compiled.run(
                *launch.grid, stream, compiled.function, compiled.packed_metadata, metadata, enter, leave, *full
            )
        elif self.mode == AUTOTUNER:
            self.kernel[self.grid](*args)
        else:
            self.jit[launch.grid](*args, **launch.meta, **launch.options)

    def _resolve(self, args: tuple) -> ResolvedLaunch:
        """Launch through the autotuner (tuning on a new key) and keep what it chose."""
        compiled = self.kernel[self.grid](*args)
        if hasattr(compiled, "result"):  # Triton's asynchronous compile mode hands back a future
            compiled = compiled.result()
        if not hasattr(compiled, "packed_metadata") or getattr(compiled, "function", None) is None:
            compiled = None  # the interpreter, or a Triton whose run returns nothing to launch
        else:
            # Looked up once: the same functions JITFunction.run asks on every call.
            driver = triton.runtime.driver.active
            self._current_device, self._current_stream = driver.get_current_device, driver.get_current_stream
            self._knobs = triton.knobs.runtime
        config = self.kernel.best_config
        named = dict(zip(self.jit.arg_names, args))
        meta = dict(config.kwargs)
        for heuristics in self.heuristics:
            for name, rule in heuristics.values.items():
                meta[name] = rule({**named, **meta})
        constexpr_names = self.jit.arg_names[len(args) :]
        grid = tuple(self.grid({**named, **meta})) + (1, 1)
        return ResolvedLaunch(
            sizes={name: named[name] for name in self.kernel.keys},
            config=config,
            grid=(grid[0], grid[1], grid[2]),
            constexprs=tuple(meta[name] for name in constexpr_names),
            meta={name: meta[name] for name in constexpr_names},
            options={k: v for k, v in config.all_kwargs().items() if k not in config.kwargs},
            compiled=compiled,
        )

    def configs(self, **sizes: Any) -> list[str]:
        """'BMxBNxBK split_k=S wW sS' of each config resolved for a key with these sizes."""
        found = []
        for launch in self.resolved.values():
            if all(launch.sizes.get(name) == value for name, value in sizes.items()):
                kw, cfg = launch.meta, launch.config
                found.append(
                    f"{kw.get('BLOCK_M', kw.get('ROWS'))}x{kw.get('BLOCK_N')}x{kw.get('BLOCK_K')}"
                    f" split_k={kw.get('SPLIT_K', 1)} w{cfg.num_warps} s{cfg.num_stages}"
                    + (" K-masked" if kw.get("UNMASKED_K") is False else "")
                )
        return sorted(set(found))
