"""The stdio front: a new conversation's handshake answered while the SDK imports.

Why: nearly all of a stdio server's start is importing the MCP SDK (its ~460 pydantic
models), and an MCP client waits for `initialize` and `tools/list` before the model can act.
The front starts before that import: a reader thread takes stdin lines, the import runs in a
background thread, and the main thread answers `initialize`, `ping` and `tools/list` from the
SDK's recorded answers (`front_answers`), keeping every other line. Once the import is done it
hands over: the SDK's own stdio transport (`stdio_server`) reads the replayed `initialize`, the
kept lines and everything after from the front, and writes through it, the answer to the
replay dropped (the client already has one). Nothing of the SDK is replaced: the same server
parses, dispatches and serializes every message it would have seen, in the same order.

Like the SDK's transport, the front keeps the wire to itself: fd 0 reads the null device and
fd 1 writes to stderr while it serves (a stray `print` or a child cannot corrupt the
protocol), the wire living on private duplicates; both are restored at the end.

Endings before the handoff: EOF (the client left) with nothing but `notifications/initialized`
kept, SIGTERM/SIGINT, or a closed stdout end the server with 0 once the import has finished
(no conversation was opened, so nothing needs closing); EOF with kept requests is handed to
the SDK like any line, so they are answered as before. A resumed conversation (`--conversation`)
and HTTP do not use the front.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import io
import json
import logging
import os
import queue
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

from agent_browser_tools.hosts.mcp.front_answers import Front, FrontData, listed_names, load_data
from agent_browser_tools.hosts.mcp.options import ServeOptions
from agent_browser_tools.settings import Settings

logger = logging.getLogger(__name__)

LINE, EOF, LOADED, FAILED, STOP = "line", "eof", "loaded", "failed", "stop"
FRONT_SWITCH_INTERVAL_S = 0.001
"""While the import holds the interpreter, let the thread with a client's line run soon."""

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
            if self._loop is None or self._queue is None:
                self._items.put(item)
            else:
                self._loop.call_soon_threadsafe(self._queue.put_nowait, item)

    def put_from_signal(self, item: Item) -> None:
        """For a signal handler: it runs on the main thread, which may hold the lock."""
        loop, target = self._loop, self._queue
        if loop is None or target is None:
            self._items.put(item)
        else:
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


def _read_lines(fd: int, inbox: Inbox) -> None:
    """Stdin lines decoded as the SDK's transport decodes them (UTF-8, bad bytes replaced,
    universal newlines), then EOF."""
    stream = io.TextIOWrapper(
        os.fdopen(fd, "rb", closefd=False), encoding="utf-8", errors="replace"
    )
    try:
        for line in stream:
            inbox.put((LINE, line))
    except (OSError, ValueError) as exc:
        logger.info("stdin read failed: %s", exc)
    inbox.put((EOF, None))


def _start_thread(target: Callable[[], None], name: str) -> threading.Thread:
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    return thread


class _Import:
    """`load()` in a background thread; the inbox hears `LOADED` or `FAILED` when it ends."""

    def __init__(self, load: Callable[[], FrontedServe], inbox: Inbox) -> None:
        self._load = load
        self._inbox = inbox
        self.value: FrontedServe | None = None
        _start_thread(self._run, "abt-sdk-import")

    def _run(self) -> None:
        try:
            self.value = self._load()
        except BaseException as exc:  # re-raised on the main thread
            self._inbox.put((FAILED, exc))
        else:
            self._inbox.put((LOADED, None))


@dataclass
class Phase:
    """How the front's part ended: hand over to the SDK (and whether stdin already ended)."""

    hand_over: bool
    eof: bool


def answer_until_loaded(front: Front, inbox: Inbox, wire: Wire) -> Phase:
    """Answer what the front can until the import is done (see the module docstring)."""
    ended = eof = False
    while True:
        kind, value = inbox.get()
        if kind == LINE and not ended:
            answer = front.take(value)
            if answer is not None:
                try:
                    wire.write(answer + "\n")
                except OSError:  # the client closed its end: an ending, not a failure
                    ended = True
        elif kind == EOF:
            eof = True
            ended = ended or not front.passthrough
        elif kind == STOP:
            ended = True
        elif kind == FAILED:
            raise value
        elif kind == LOADED:
            return Phase(hand_over=not ended, eof=eof)


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


FrontedServe = Callable[[ServeOptions, Settings, Handoff | None], Coroutine[Any, Any, int]]


@contextlib.contextmanager
def _signals_to(inbox: Inbox) -> Iterator[None]:
    """SIGTERM/SIGINT become `STOP` until the host installs its own handlers (asyncio's)."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        inbox.put_from_signal((STOP, signum))

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def _quick_switching() -> Iterator[None]:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(FRONT_SWITCH_INTERVAL_S)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def _web_search(settings: Settings) -> bool:
    from agent_browser_tools.tools.web_search import web_search_available

    return web_search_available(settings)


def front_for(
    settings: Settings, allowlist: frozenset[str] | None, data: FrontData | None = None
) -> Front:
    """The front of a new conversation under `settings` and the `--tools` allowlist."""
    data = data or load_data()
    return Front(data, listed_names(data, allowlist, _web_search(settings)))


def serve_fronted(
    options: ServeOptions, settings: Settings, load: Callable[[], FrontedServe]
) -> int:
    """Serve stdio with the front before the SDK (`load` imports the transport's serve
    function); returns the exit code."""
    front = front_for(settings, options.tools)
    inbox = Inbox()
    with claimed_stdio() as wire, _signals_to(inbox):
        _start_thread(lambda: _read_lines(wire.stdin_fd, inbox), "abt-stdin")
        with _quick_switching():
            loading = _Import(load, inbox)
            phase = answer_until_loaded(front, inbox, wire)
        if not phase.hand_over or loading.value is None:
            return 0
        private_id = f"agent-browser-tools-front-{uuid.uuid4().hex}"
        replayed = front.initialize_params is not None
        handoff = Handoff(
            FrontStdin(front.handoff_lines(private_id), inbox, phase.eof),
            FrontStdout(wire, private_id if replayed else None),
        )
        return asyncio.run(loading.value(options, settings, handoff))
