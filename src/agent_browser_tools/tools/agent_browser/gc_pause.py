"""The cycle collector waits while a call builds its answer.

Why: a snapshot of a large page makes tens of thousands of small objects (refs, tree lines)
that live until the next snapshot. Python's cycle collector runs every few hundred
allocations, and each time enough of them survive it walks the whole heap: on a page of
1,500 rows that was two full walks per snapshot, more time than all the wrapper's own work.
Nothing a call builds forms reference cycles that must be freed while it runs, so the
collector is paused for the call and resumes right after (the first collection then sees
the call's survivors once). A host that switched the collector off keeps it off; concurrent
calls share one pause (a count).
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

_held = 0
_resume = False


@contextmanager
def paused() -> Iterator[None]:
    """Pause automatic collection for the `with` body (nested and concurrent bodies too)."""
    global _held, _resume
    if _held == 0:
        _resume = gc.isenabled()
        gc.disable()
    _held += 1
    try:
        yield
    finally:
        _held -= 1
        if _held == 0 and _resume:
            gc.enable()


def during(call: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, Coroutine[Any, Any, T]]:
    """Run the coroutine function `call` with collection paused (`paused`)."""

    @functools.wraps(call)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        with paused():
            return await call(*args, **kwargs)

    return wrapper
