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

The wire and the inbox every thread reports to are in `front_io`, the SDK transport's
streams after the handoff in `front_handoff`.

Endings before the handoff: EOF (the client left) with nothing but `notifications/initialized`
kept, SIGTERM/SIGINT, or a closed stdout end the server with 0 once the import has finished
(no conversation was opened, so nothing needs closing); EOF with kept requests is handed to
the SDK like any line, so they are answered as before. A resumed conversation (`--conversation`)
and HTTP do not use the front.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

from agent_browser_tools.hosts.mcp.front_answers import Front, FrontData, listed_names, load_data
from agent_browser_tools.hosts.mcp.front_handoff import FrontStdin, FrontStdout, Handoff
from agent_browser_tools.hosts.mcp.front_io import (
    EOF,
    FAILED,
    LINE,
    LOADED,
    STOP,
    Inbox,
    Wire,
    claimed_stdio,
    read_lines,
)
from agent_browser_tools.hosts.mcp.options import ServeOptions
from agent_browser_tools.settings import Settings

FRONT_SWITCH_INTERVAL_S = 0.001
"""While the import holds the interpreter, let the thread with a client's line run soon."""


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
        _start_thread(lambda: read_lines(wire.stdin_fd, inbox), "abt-stdin")
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
