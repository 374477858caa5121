"""The SDK stdio transport's streams after the stdio front's handoff.

Why: the SDK's own transport (`stdio_server`) goes on serving the client, so every message
is parsed, dispatched and serialized by the SDK exactly as without the front; these streams
only give it the lines the front kept (after the replayed `initialize`) and then the live
ones, and write its output to the wire minus its answer to the replay (the client already
has the front's).

Without a front (a resumed conversation, `serve --enable`), `direct_handoff` gives the SDK the
same streams with nothing kept: every stdin line then comes through the one reader
(`front_io.read_lines`), which repairs the lines the SDK could not parse (`wire_repair`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from agent_browser_tools.hosts.mcp.front_io import (
    LINE,
    Inbox,
    Item,
    Wire,
    claimed_stdio,
    read_lines,
)

logger = logging.getLogger(__name__)


class FrontStdin:
    """The SDK transport's stdin after the handoff: the front's replay, then live lines."""

    def __init__(self, first: list[str], inbox: Inbox, eof: bool) -> None:
        self._first = first
        self._inbox = inbox
        self._eof = eof
        self._queue: asyncio.Queue[Item] | None = None

    def __aiter__(self) -> FrontStdin:
        return self

    async def __anext__(self) -> str:
        if self._first:
            return self._first.pop(0)
        if self._eof:
            raise StopAsyncIteration
        if self._queue is None:
            self._queue = self._inbox.attach(asyncio.get_running_loop())
        kind, value = await self._queue.get()
        if kind == LINE:
            return str(value)
        # EOF, or a stop signal that came before the host installed its own handlers.
        self._eof = True
        raise StopAsyncIteration


class FrontStdout:
    """The SDK transport's stdout after the handoff: the wire, minus the SDK's answer to the
    replayed `initialize` (the client got the front's)."""

    def __init__(self, wire: Wire, drop_id: str | None) -> None:
        self._wire = wire
        self._drop_id = drop_id

    async def write(self, text: str) -> int:
        if not self._is_replay_answer(text):
            import anyio.to_thread  # loaded with the SDK by now

            await anyio.to_thread.run_sync(self._wire.write, text)
        return len(text)

    async def flush(self) -> None:
        return None

    def _is_replay_answer(self, text: str) -> bool:
        if self._drop_id is None or self._drop_id not in text:
            return False
        message = json.loads(text)
        if not isinstance(message, dict) or message.get("id") != self._drop_id:
            return False
        if "error" in message:
            logger.warning("the SDK refused the replayed initialize: %s", message["error"])
        self._drop_id = None
        return True


@dataclass(frozen=True)
class Handoff:
    """The stdio transport's streams when the front served the start."""

    stdin: FrontStdin
    stdout: FrontStdout


@contextlib.contextmanager
def direct_handoff() -> Iterator[Handoff]:
    """The SDK transport's streams when no front served the start (see the module
    docstring): the wire claimed as the front claims it, and a daemon thread reading it."""
    inbox = Inbox()
    with claimed_stdio() as wire:
        reader = threading.Thread(
            target=read_lines, args=(wire.stdin_fd, inbox), name="abt-stdin", daemon=True
        )
        reader.start()
        yield Handoff(FrontStdin([], inbox, eof=False), FrontStdout(wire, None))
