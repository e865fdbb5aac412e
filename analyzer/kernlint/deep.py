"""Deep nesting: libcst's parser and its code generation recurse once per
level of nesting. `deep_call` runs the analysis of one file in a thread with a large
stack (STACK_SIZE; one long-lived thread, reused from file to file) and
a raised recursion limit (RECURSION_LIMIT), so nesting that CPython itself
accepts is analyzed; deeper nesting ends in a
RecursionError that the engine reports as a parse error ("too deeply
nested"), never as a crash. (A native stack overflow in libcst's parser
cannot be caught, so source.parse refuses, before libcst sees it, nesting
that CPython's own parser refuses.)
"""

from __future__ import annotations

import os
import queue
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

# The stack is reserved virtual memory; only the pages a deep file touches
# are used. 512 MiB holds RECURSION_LIMIT levels of libcst's code
# generation and its native parser's recursion with room to spare
# (tests/test_bad_input.py analyzes 3000-level sums).
STACK_SIZE = 512 * 1024 * 1024
RECURSION_LIMIT = 20_000

T = TypeVar("T")

_deep = threading.local()
_limit_lock = threading.Lock()
_limit_users = 0
_saved_limit = 0


class StillRunning(Exception):
    """`deep_call`'s timeout passed before the call returned. The call goes
    on in its thread, abandoned: a thread cannot be stopped."""


class NoDeepThread(Exception):
    """`deep_call` with a timeout, where no deep thread can be started."""


def deep_call(function: Callable[[], T], timeout: float | None = None) -> T:
    """`function()` in a thread with a large stack and a raised recursion
    limit; its result or exception comes back as if called directly. Nested
    calls run inline.

    With a `timeout` (seconds), StillRunning when the call has not returned
    by then, and NoDeepThread (the call not made) where no thread can be
    started; a nested call cannot be timed and is refused (ValueError). The
    wait ends on time while the call runs Python code; a call into C (CPython's
    parser) that holds the interpreter lock delays it until that returns."""
    if getattr(_deep, "active", False):
        if timeout is not None:
            raise ValueError("a nested deep_call cannot have a timeout")
        return function()
    outcome: list[Any] = []

    def target() -> None:
        global _limit_users, _saved_limit
        with _limit_lock:
            if _limit_users == 0:
                _saved_limit = sys.getrecursionlimit()
                sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
            _limit_users += 1
        try:
            outcome.append((True, function()))
        except BaseException as error:  # noqa: BLE001 - handed to the caller
            outcome.append((False, error))
        finally:
            with _limit_lock:
                _limit_users -= 1
                if _limit_users == 0:
                    sys.setrecursionlimit(_saved_limit)

    done = _run_deep(target)
    if done is None:
        if timeout is not None:
            raise NoDeepThread
        # No thread with that stack here (an unusual platform or ulimit):
        # run inline; deep files then stop earlier with a RecursionError.
        return function()
    if not done.wait(timeout):
        raise StillRunning
    ok, value = outcome[0]
    if ok:
        return value
    raise value


# One long-lived deep thread per process runs the calls one after another: a
# thread started per file paid for its fresh stack's pages again on every
# file (13% of lint time on flag-gems, issue 14). A call that finds it
# busy (another thread's call, or one abandoned by an interrupt) gets a
# thread of its own, as before.
_idle: list[_DeepThread] = []


class _DeepThread:
    def __init__(self) -> None:
        self.work: queue.SimpleQueue[tuple[Callable[[], None], threading.Event]] = queue.SimpleQueue()
        previous = threading.stack_size(STACK_SIZE)
        try:
            thread = threading.Thread(target=self._serve, name="kernlint-deep", daemon=True)
            thread.start()
        finally:
            threading.stack_size(previous)

    def _serve(self) -> None:
        _deep.active = True
        while True:
            target, done = self.work.get()
            target()
            del target  # its closure holds the call's result until the next call otherwise
            with _limit_lock:
                _idle.append(self)
            done.set()


def _forget_threads_after_fork() -> None:
    # A forked worker process inherits the list but not the threads.
    global _limit_lock
    _idle.clear()
    _limit_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_threads_after_fork)


def _run_deep(target: Callable[[], None]) -> threading.Event | None:
    """Start `target` on an idle deep thread (a new one if none is idle);
    the event is set when it returns. None: no such thread can be made."""
    with _limit_lock:
        worker = _idle.pop() if _idle else None
        if worker is None:
            try:
                worker = _DeepThread()
            except (RuntimeError, ValueError, MemoryError):
                return None
    done = threading.Event()
    worker.work.put((target, done))
    return done
