"""Did a call close its session, and is its daemon gone yet?

After `close` (or a batch's `close` row) the engine's daemon takes about a second to exit on
0.39.4, and its pid file goes first; a call that reaches the dying daemon is accepted and
dropped ("Invalid response: EOF"). So the runtime notes a call that closed its session
(`may_close` before, `answered_closed` after) and the next call on that session waits for
the old daemon (`wait_for_exit`) before it starts.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from agent_browser_tools.engine.daemons import is_live_daemon
from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.taxonomy.lookup import split_global_flags


def may_close(args: Sequence[str], stdin: str | None) -> bool:
    """Whether the call may end its session: `close`, or a batch with a `close` row (a row
    string, or a JSON row on stdin); the answer then says whether it did (`answered_closed`)."""
    _, rest = split_global_flags(args)
    if rest[:1] == ["close"]:
        return True
    if rest[:1] != ["batch"]:
        return False
    rows = [row.split(maxsplit=1)[:1] for row in rest[1:]]
    return ["close"] in rows or (stdin is not None and '"close"' in stdin)


def answered_closed(raw: RawOutcome) -> bool:
    """Whether the engine answered that it closed a browser (JSON, or its text line)."""
    out = raw.stdout.replace(" ", "")
    return '"closed":true' in out or "Browserclosed" in out


async def wait_for_exit(pid: int, timeout_s: float) -> bool:
    """Wait (bounded) until daemon `pid` is gone; whether it went."""
    deadline = time.monotonic() + timeout_s
    while is_live_daemon(pid):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.02)
    return True
