"""The stdio front's plumbing: the wire to the client, and one inbox for all that happens.

Why apart from the front's logic (`stdio_front`): these are the parts that touch descriptors,
threads and the event loop, shared by the front and by the SDK's transport after the handoff
(`front_handoff`).

Like the SDK's stdio transport, the front keeps the wire to itself: while it serves, fd 0
reads the null device and fd 1 writes to stderr (a stray `print` or a child cannot corrupt
the protocol), the wire living on private duplicates; both are restored at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import io
import logging
import os
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.hosts.mcp.wire_repair import repair_line

logger = logging.getLogger(__name__)

LINE, EOF, LOADED, FAILED, STOP = "line", "eof", "loaded", "failed", "stop"

Item = tuple[str, Any]


class Inbox:
    """Everything the main thread reacts to, in arrival order: stdin lines, EOF, the end of
    the import, a stop signal. Before the handoff it is read by a blocking `get`; after it,
    `attach` moves what is left into an asyncio queue that later items go to directly."""

    def __init__(self) -> None:
        self._items: queue.SimpleQueue[Item] = queue.SimpleQueue()  # put() is reentrant
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[Item] | None = None

    def put(self, item: Item) -> None:
        with self._lock:
            self._post(item)

    def put_from_signal(self, item: Item) -> None:
        """For a signal handler: it runs on the main thread, which may hold the lock."""
        self._post(item)

    def _post(self, item: Item) -> None:
        loop, target = self._loop, self._queue
        if loop is None or target is None:
            self._items.put(item)
            return
        with contextlib.suppress(RuntimeError):  # the loop has closed: nobody reads any more
            loop.call_soon_threadsafe(target.put_nowait, item)

    def get(self) -> Item:
        return self._items.get()

    def attach(self, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[Item]:
        with self._lock:
            # Loop first: a signal handler that runs meanwhile posts to the loop (the order
            # of a stop among lines does not matter); the reader thread waits for the lock.
            target: asyncio.Queue[Item] = asyncio.Queue()
            self._queue, self._loop = target, loop
            while not self._items.empty():
                target.put_nowait(self._items.get())
            return target


@dataclass
class Wire:
    """The private duplicates of the client's stdin and stdout (see the module docstring)."""

    stdin_fd: int
    stdout_fd: int

    def write(self, text: str) -> None:
        """All of `text`, blocking; raises `BrokenPipeError` once the client has gone."""
        data = text.encode("utf-8")
        while data:
            data = data[os.write(self.stdout_fd, data) :]


def _private_dup(fd: int) -> int:
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)


@contextlib.contextmanager
def claimed_stdio() -> Iterator[Wire]:
    """The wire on private descriptors, fd 0 on the null device and fd 1 on stderr meanwhile."""
    wire = Wire(_private_dup(0), _private_dup(1))
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
    finally:
        os.close(null)
    try:
        yield wire
    finally:
        with contextlib.suppress(OSError):
            os.dup2(wire.stdin_fd, 0)
            os.dup2(wire.stdout_fd, 1)


def read_lines(fd: int, inbox: Inbox) -> None:
    """Stdin lines decoded as UTF-8 with universal newlines, as the SDK's transport decodes
    them, then EOF. A line the SDK could not parse (invalid bytes, a lone surrogate escape, a
    raw control character, absurd nesting) is repaired first, so its call is answered
    (`wire_repair`); invalid bytes in any other line become U+FFFD, as the SDK makes them."""
    stream = io.TextIOWrapper(
        os.fdopen(fd, "rb", closefd=False), encoding="utf-8", errors="surrogateescape"
    )
    try:
        for line in stream:
            inbox.put((LINE, repair_line(line)))
    except (OSError, ValueError) as exc:
        logger.info("stdin read failed: %s", exc)
    inbox.put((EOF, None))
