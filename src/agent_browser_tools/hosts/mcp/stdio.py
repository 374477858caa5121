"""MCP over stdio: one conversation for the whole process.

Start-up: a new conversation's handshake (`initialize`, `tools/list`) is answered by the stdio
front while this module and the SDK import (`stdio_front`); the transport then continues from
the front (`front`). Once loaded, `tools/list` of a new conversation is answered from the
catalog, and the conversation (its journal; the API, runtime and engine modules) opens on its
first call.

Lifecycle: a resumed conversation (`--conversation ID`) is opened at start, so the browsers it
owns are closed at exit even if no request comes. The server runs until stdin reaches EOF or
the process gets SIGTERM/SIGINT. Either way it then cancels the calls in flight (killing their
engine children) and closes the managed browsers its conversation launched (bounded by the
session-close timeout) before exiting 0.
MCP clients give a server about 2 s after closing stdin before they signal it, so closing is
concurrent and starts immediately.

The SDK reads stdin in a worker thread that cannot be interrupted; after a signal, when that
read is still blocked once everything is closed, the process exits without waiting for it.

A client that closes its end of stdout (it went away) is an ending like EOF, not a failure:
the server closes its browsers and exits 0 without a word on stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys
import uuid
from typing import TYPE_CHECKING, Any

from mcp.server.stdio import stdio_server

from agent_browser_tools.hosts.mcp.conversations import ConversationRegistry
from agent_browser_tools.hosts.mcp.options import ServeOptions
from agent_browser_tools.hosts.mcp.server import Ctx, build_server
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.catalog import listed_at_start

if TYPE_CHECKING:
    from agent_browser_tools.api import BrowserTools
    from agent_browser_tools.hosts.mcp.front_handoff import Handoff
    from agent_browser_tools.tools.registry import ToolSpec

logger = logging.getLogger(__name__)

STDIO_KEY = "stdio"
TRANSPORT_EXIT_GRACE_S = 1.0


async def _run_transport(registry: ConversationRegistry, front: Handoff | None) -> None:
    def key_of(ctx: Ctx) -> str:
        return STDIO_KEY

    server = build_server(registry, key_of, stateless_era=True)
    # The SDK's transport reads and writes through the front's streams (`stdio_front`), or
    # the same streams without a front, so every line passes the same repair (POSIX only).
    with contextlib.ExitStack() as stack:
        if front is None and sys.platform != "win32":
            from agent_browser_tools.hosts.mcp.front_handoff import direct_handoff

            front = stack.enter_context(direct_handoff())
        streams: dict[str, Any] = {}
        if front is not None:
            streams = {"stdin": front.stdin, "stdout": front.stdout}
        async with stdio_server(**streams) as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())


def _resume(registry: ConversationRegistry, conversation_id: str) -> None:
    """Open a resumed conversation at once, not on its first request: it may own a browser
    that a killed server launched (a call cut off mid-flight), and only an open conversation
    closes its browsers at exit, even when the client leaves without a single request."""
    try:
        registry.get(STDIO_KEY)
    except Exception as exc:  # the first request opens it again and reports the error
        logger.warning("could not resume conversation %s yet: %s", conversation_id, exc)


async def serve_stdio(
    options: ServeOptions, settings: Settings, front: Handoff | None = None
) -> int:
    """Serve MCP on stdin/stdout until EOF or a signal; returns the exit code. With `front`,
    the stdio front served the start and the transport continues from it."""
    conversation_id = options.conversation or uuid.uuid4().hex

    def factory(key: str) -> BrowserTools:
        from agent_browser_tools.api import BrowserTools  # on the first call: see `preview`

        tools = BrowserTools(
            conversation_id=conversation_id,
            settings=settings,
            tools=options.tools,
            shared_sessions=options.shared_sessions,
            file_roots=options.file_roots,
            unrestricted_files=options.unrestricted_files,
            persist=not options.ephemeral_state,
        )
        tools.toolkit.enable(options.enable)  # `serve --enable`
        return tools

    def preview(key: str) -> list[ToolSpec]:
        return listed_at_start(settings, options.tools, options.enable)

    # A new conversation answers `tools/list` before it opens (see `conversations`); a
    # resumed one may have enabled tools, and is opened at once anyway (`_resume`).
    new = options.conversation is None
    registry = ConversationRegistry(factory, preview=preview if new else None)
    if options.conversation is not None:
        _resume(registry, options.conversation)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    transport = loop.create_task(_run_transport(registry, front))
    stopper = loop.create_task(stop.wait())
    try:
        await asyncio.wait({transport, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopper.cancel()
        await registry.close_all()
    if not transport.done():
        transport.cancel()
        await asyncio.wait({transport}, timeout=TRANSPORT_EXIT_GRACE_S)
    if not transport.done():
        # Only the uninterruptible stdin read is left, and every browser is closed.
        logger.info("stdio transport still blocked on stdin; exiting")
        sys.stderr.flush()
        os._exit(0)
    with contextlib.suppress(asyncio.CancelledError):
        exc = transport.exception()
        if exc is not None and not _client_gone(exc):
            logger.error("stdio transport failed: %r", exc)
            return 1
    return 0


def _client_gone(exc: BaseException) -> bool:
    """`exc` only says the client closed its end of the pipe (possibly inside task groups)."""
    if isinstance(exc, BaseExceptionGroup):
        return all(_client_gone(inner) for inner in exc.exceptions)
    return isinstance(exc, (BrokenPipeError, ConnectionResetError))
