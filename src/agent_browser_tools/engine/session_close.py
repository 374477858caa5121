"""Did a call close its session, and is its daemon gone yet?

After `close` (or a batch's `close` row) the engine's daemon takes about a second to exit on
0.39.4, and its pid file goes first; a call that reaches the dying daemon is accepted and
dropped ("Invalid response: EOF"). So the runtime notes a call that closed its session
(`may_close` before, `answered_closed` after) and the next call on that session waits for
the old daemon (`wait_for_exit`) before it starts.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence

from agent_browser_tools.engine.daemons import is_live_daemon
from agent_browser_tools.engine.runner import RawOutcome
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.taxonomy.lookup import resolve_command, split_global_flags


def may_close(args: Sequence[str], stdin: str | None) -> bool:
    """Whether the call may end its session: `close` or an alias, or a batch with such a row
    (a row string, or a JSON row on stdin); the answer then says whether it did
    (`answered_closed`)."""
    _, rest = split_global_flags(args)
    match = resolve_command(rest)
    if match is None or _closes(rest):
        return match is not None
    if not match.spec.stdin_without_flag:  # not a batch
        return False
    rows = [row.split() for row in rest[len(match.tokens) :]]
    return any(_closes(row) for row in rows + _json_rows(stdin))


def _closes(words: Sequence[str]) -> bool:
    match = resolve_command(words) if words else None
    return match is not None and match.spec.page_effect is PageEffect.CLOSE


def _json_rows(stdin: str | None) -> list[list[str]]:
    try:
        rows = json.loads(stdin) if stdin else []
    except ValueError:
        return []
    if not isinstance(rows, list):
        return []
    return [[str(w) for w in row] for row in rows if isinstance(row, list)]


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
