"""Deep nesting: libcst's parser and visitors recurse once per level of
nesting. `deep_call` runs the analysis of one file in a thread with a large
stack (STACK_SIZE) and a raised recursion limit (RECURSION_LIMIT), so nesting
that CPython itself accepts is analyzed; deeper nesting ends in a
RecursionError that the engine reports as a parse error ("too deeply
nested"), never as a crash. (A native stack overflow in libcst's parser
cannot be caught, so source.parse refuses, before libcst sees it, nesting
that CPython's own parser refuses.)
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

# The stack is reserved virtual memory; only the pages a deep file touches
# are used. 512 MiB holds RECURSION_LIMIT levels of libcst's visitors with
# room to spare (measured: 3000-level expressions need under 64 MiB).
STACK_SIZE = 512 * 1024 * 1024
RECURSION_LIMIT = 20_000

T = TypeVar("T")

_deep = threading.local()
_limit_lock = threading.Lock()
_limit_users = 0
_saved_limit = 0


def deep_call(function: Callable[[], T]) -> T:
    """`function()` in a thread with a large stack and a raised recursion
    limit; its result or exception comes back as if called directly. Nested
    calls run inline."""
    if getattr(_deep, "active", False):
        return function()
    outcome: list[Any] = []

    def target() -> None:
        global _limit_users, _saved_limit
        _deep.active = True
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

    try:
        with _limit_lock:
            previous = threading.stack_size(STACK_SIZE)
            try:
                thread = threading.Thread(target=target, name="kernlint-deep", daemon=True)
                thread.start()
            finally:
                threading.stack_size(previous)
    except (RuntimeError, ValueError, MemoryError):
        # No thread with that stack here (an unusual platform or ulimit):
        # run inline; deep files then stop earlier with a RecursionError.
        return function()
    thread.join()
    ok, value = outcome[0]
    if ok:
        return value
    raise value
