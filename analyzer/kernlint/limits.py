"""Limits that keep one pathological file from crashing or stalling a run.

Three guards, each turning a hostile file into a finding for that file:

- **Deep nesting**: see kernlint.deep (`deep_call`).
- **Size cap** (`--max-file-size`, bytes, default 1 MiB): a larger file is
  not read at all; it gets a KL901 file-too-large finding that names both
  options to raise. The cap and the budget agree: a generated kernel file
  just under the cap lints in about 6 s on a 2-core machine (bench.py).
- **Time budget** (`--timeout-per-file`, seconds, default 20): `run_jobs`
  lints each file in a worker process and kills the worker when the budget
  is spent; the file gets a KL902 timeout finding and the run goes on with a
  fresh worker. A worker that dies (a native crash in a dependency) gives a
  KL999 finding for its file. Killing a process is the only way to stop a
  stuck native parser; threads cannot be interrupted. The budget is wall-clock
  time, so a file near the limit can pass on a fast machine and time out on a
  slow one. kernlint's cost is libcst's parse and a little more (about
  7.5 s per MB of dense generated code on a 2-CPU machine, the largest real
  kernel file 186 KB), so the default leaves a file under the size cap
  three times the time it needs. A budget of 0 turns workers off and lints in
  this process, in order.

One small file (at most IN_PROCESS_MAX_BYTES, linted or diffed, not fixed
in place) is checked in this process: an editor on save or a hook with
one changed file would otherwise spend more on forking a worker than on
the file (issue 14). It runs in kernlint.deep's thread, and the run waits
for it at most the budget. On timeout the thread is abandoned, not
stopped: it is the run's only file, so nothing later sees what it leaves
half-done, and the run reports KL902 and ends. The wait cannot end inside
libcst's native parser, which holds the interpreter lock, and its time
grows faster than the file along long chains (`a+a+...`, `x[0][0]...`):
only a file that CPython parses into a tree at most
`source.PROMPT_DEPTH` deep is checked here (the check costs milliseconds
on such a file); any other goes to a worker. The worst case admitted
(64 KB of f-string placeholders) parses in under a second
(`bench/bench.py` measures it). What this gives up: a native crash would
end the run instead of becoming a KL999 finding for the file; source.parse
refuses the nesting known to crash libcst's parser before it sees it, and
tests/test_bad_input.py lints its hostile nestings and chains in the test
process itself. A fix job, which writes the file, always has a worker that
can be killed.

Workers are forked where the platform allows (Linux), so they start in
milliseconds with everything already imported; the results are put back in
the order of the jobs, so output does not depend on which worker finished
first.
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from kernlint.deep import NoDeepThread, StillRunning, deep_call
from kernlint.findings import FileResult
from kernlint.registry import all_rules
from kernlint.settings import Settings

if TYPE_CHECKING:
    from kernlint.fixes import FixOutcome

# What a job gives back: the lint result, or the fix outcome for a fix job.
JobResult: TypeAlias = "FileResult | FixOutcome"

MAX_WORKERS = 8
IN_PROCESS_MAX_BYTES = 64 * 1024


# ---- the time budget: one worker process per CPU, killed on timeout -------


@dataclass(frozen=True)
class Job:
    """One file to check: its path as reported, its bytes, and what to do
    (`fix` None: lint; "fix": lint and write safe fixes; "diff": compute
    them only)."""

    path: str
    data: bytes
    fix: str | None = None


def execute(job: Job, settings: Settings) -> JobResult:
    """Check one file in this process: a FileResult for a lint job, a
    fixes.FixOutcome for a fix job."""
    from kernlint import engine  # here: a run answered from the cache lints nothing

    # While a file is checked its libcst tree (hundreds of thousands of
    # nodes, acyclic, freed by reference counting) is alive, and every
    # collection of an older generation rescans it: 9% of flag-gems' CPU
    # time in one process (17.4 s with the collector on, 15.9 s off; issue
    # 24). The collector is off for the file and runs between files, where
    # whatever cycles the file's model left are collected.
    enabled = gc.isenabled()
    gc.disable()
    try:
        if job.fix is None:
            return engine.lint_bytes(job.path, job.data, settings)
        from kernlint.fixes import fix_file  # a lint-only run does without difflib and tempfile

        return fix_file(job.path, job.data, settings, write=job.fix == "fix")
    finally:
        if enabled:
            gc.enable()


def _prompt(job: Job) -> bool:
    from kernlint.source import parses_promptly

    return parses_promptly(job.data)


def run_jobs(
    jobs: list[Job],
    settings: Settings,
    timeout: float,
    on_unfinished: Callable[[Job, str], Any],
    workers: int | None = None,
) -> list[Any]:
    """`execute` for every job, in worker processes, each within `timeout`
    seconds; a job that runs out of time or whose worker dies gets
    `on_unfinished(job, why)` instead, where `why` is "timeout" or the
    cause of death. Results are in the order of `jobs`."""
    if timeout <= 0 or not jobs:
        with _lean_gc():
            return [execute(job, settings) for job in jobs]
    if len(jobs) == 1 and jobs[0].fix != "fix" and len(jobs[0].data) <= IN_PROCESS_MAX_BYTES and _prompt(jobs[0]):
        job = jobs[0]
        with _lean_gc():
            try:
                return [deep_call(lambda: _execute_or_crash(job, settings, "kernlint"), timeout=timeout)]
            except StillRunning:
                return [on_unfinished(job, "timeout")]
            except NoDeepThread:
                pass  # a worker, then
    # Imported only when there is work for a worker: a run answered from the
    # cache starts none, and multiprocessing is a tenth of its imports.
    import multiprocessing.connection

    context = _context()
    count = max(1, min(len(jobs), workers or os.cpu_count() or 1, MAX_WORKERS))
    _warm_up()
    results: list[Any] = [None] * len(jobs)
    # Results keep the order of `jobs`, whatever the order they are dealt in.
    pending = deque(_dealing_order(jobs, count))
    undealt = set(pending)
    # A worker's next jobs: the files of this run that its last file's
    # imports read (FileResult.dependencies). It keeps the trees of the
    # modules it parsed for an importer (kernlint.project), so their own
    # turn does not parse them again (issue 24).
    index_of = {os.path.normpath(job.path): index for index, job in enumerate(jobs)}
    follow: dict[_Worker, deque[int]] = {}

    def next_job(worker: _Worker) -> int:
        mine = follow.get(worker, deque())
        index = mine.popleft() if mine else pending.popleft()
        while index not in undealt:
            index = mine.popleft() if mine else pending.popleft()
        undealt.discard(index)
        return index

    idle: list[_Worker] = []
    busy: dict[_Worker, tuple[int, float]] = {}
    try:
        idle = [w for w in (_start(context, settings) for _ in range(count)) if w is not None]
        while undealt or busy:
            if not idle and not busy:
                # No worker can be started here (a daemonic process, a
                # process limit): check the rest in this process.
                for index in [i for i in pending if i in undealt]:
                    results[index] = execute(jobs[index], settings)
                break
            while undealt and idle:
                worker = idle.pop()
                index = next_job(worker)
                if worker.send(jobs[index]):
                    busy[worker] = (index, time.monotonic() + timeout)
                else:
                    results[index] = on_unfinished(jobs[index], worker.death())
                    worker.stop()
                    _replace(idle, context, settings)
            if not busy:
                continue
            wait_for = max(0.0, min(deadline for _, deadline in busy.values()) - time.monotonic())
            ready = multiprocessing.connection.wait([w.connection for w in busy], timeout=wait_for)
            for worker in [w for w in busy if w.connection in ready]:
                index, _ = busy.pop(worker)
                try:
                    results[index] = worker.connection.recv()
                    idle.append(worker)
                    if isinstance(results[index], FileResult):
                        read = (index_of.get(os.path.normpath(path)) for path, _ in results[index].dependencies)
                        follow[worker] = deque(i for i in read if i is not None and i in undealt)
                except (EOFError, OSError):
                    results[index] = on_unfinished(jobs[index], worker.death())
                    worker.stop()
                    _replace(idle, context, settings)
            now = time.monotonic()
            for worker in [w for w, (_, deadline) in busy.items() if deadline <= now]:
                index, _ = busy.pop(worker)
                results[index] = on_unfinished(jobs[index], "timeout")
                worker.stop()
                _replace(idle, context, settings)
    finally:
        for worker in [*idle, *busy]:
            worker.stop()
    return results


def _dealing_order(jobs: list[Job], count: int) -> list[int]:
    """Smallest files first: importers (wrappers around kernels) mostly
    are, so a module is parsed for them, and its tree kept, before its own
    turn (liger-kernel, one worker: 428 KB parsed twice largest first, 42
    KB smallest first). With several workers, a file over a tenth of a
    worker's share goes first, largest first: dealt out last, it would
    leave the other workers idle while it runs."""
    by_size = sorted(range(len(jobs)), key=lambda index: len(jobs[index].data))
    share = sum(len(job.data) for job in jobs) / count
    first = [index for index in by_size if count > 1 and len(jobs[index].data) > share / 10]
    ahead = set(first)
    return [*reversed(first), *(index for index in by_size if index not in ahead)]


def _start(context: Any, settings: Settings) -> _Worker | None:
    try:
        return _Worker(context, settings)
    except (OSError, AssertionError):  # AssertionError: a daemonic process may not fork
        return None


def _replace(idle: list[_Worker], context: Any, settings: Settings) -> None:
    worker = _start(context, settings)
    if worker is not None:
        idle.append(worker)


def _context() -> Any:
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _warm_up() -> None:
    """Load the rules and claims before forking, so that no worker repeats it."""
    all_rules()


class _Worker:
    def __init__(self, context: Any, settings: Settings) -> None:
        self.connection, child = context.Pipe(duplex=True)
        self.process = context.Process(target=_serve, args=(child, settings), daemon=True, name="kernlint-worker")
        self.process.start()
        child.close()

    def send(self, job: Job) -> bool:
        try:
            self.connection.send(job)
            return True
        except (OSError, ValueError):
            return False

    def death(self) -> str:
        self.process.join(timeout=1)
        code = self.process.exitcode
        if code is not None and code < 0:
            try:
                return f"the worker process was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"the worker process was killed by signal {-code}"
        return f"the worker process exited with status {code}"

    def stop(self) -> None:
        try:
            self.connection.close()
        except OSError:
            pass
        if self.process.is_alive():
            self.process.kill()
        self.process.join()


def _serve(connection: Any, settings: Settings) -> None:
    """A worker: check the jobs it is sent until the pipe closes."""
    # Ctrl-C is the parent's to handle; a worker just gets killed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _tune_gc()
    while True:
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        result = _execute_or_crash(job, settings, "the file's worker process")
        try:
            connection.send(result)
        except (OSError, ValueError):
            return
        except Exception as error:  # noqa: BLE001 - e.g. a result that does not pickle
            connection.send(_crash_result(job, error, "the file's worker process"))


def _execute_or_crash(job: Job, settings: Settings, where: str) -> JobResult:
    """`execute`; an exception escaping it is a KL999 finding for the file,
    naming `where` it ran."""
    try:
        return execute(job, settings)
    except BaseException as error:  # noqa: BLE001 - reported for this file
        return _crash_result(job, error, where)


# A libcst parse allocates hundreds of thousands of nodes, which free by
# reference counting (the tree has no cycles); the cyclic collector's
# default first-generation threshold (700) makes it rescan them every few
# hundred allocations (issue 14; bench.py's last column shows what it costs
# libcst's parse now, about 5%). A worker collects less often and never
# rescans what it inherited from its
# parent.
GC_THRESHOLDS = (10_000, 20, 20)


def _tune_gc() -> None:
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@contextlib.contextmanager
def _lean_gc() -> Iterator[None]:
    """The workers' collector settings, in this process, for the block."""
    saved = gc.get_threshold()
    _tune_gc()
    try:
        yield
    finally:
        gc.set_threshold(*saved)
        gc.unfreeze()


def _crash_result(job: Job, error: BaseException, where: str) -> JobResult:
    from kernlint import engine

    result = engine.internal_error_result(job.path, where, f"{type(error).__name__}: {error}")
    if job.fix is None:
        return result
    from kernlint.fixes import FixOutcome

    return FixOutcome(job.path, result, 0, job.data, job.data, "")
