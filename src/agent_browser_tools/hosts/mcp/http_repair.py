"""HTTP request bodies: bounded in size, and repaired before the MCP SDK parses them.

Why: the SDK reads a whole POST body into memory and answers 400 with a JSON-RPC parse error to
a message it cannot parse, so a call with a lone surrogate escape, bytes that are not UTF-8, a
raw control character or absurd nesting gets a transport error instead of a tool result that
says what to send instead (`wire_repair` makes such a body into one the SDK takes, whose call
the tool gate then refuses as a `validation-error`). A body over `MAX_MESSAGE_BYTES` is
answered 413 and the connection closed, before the rest of it is read.

This sits behind `http_guard`, so no body is read before the request is authenticated and its
Host/Origin are checked; the body timeout (`http_conn`) still bounds how long reading may take.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent_browser_tools.hosts.mcp.http_guard import Refusal
from agent_browser_tools.hosts.mcp.wire_repair import repair_body
from agent_browser_tools.input_limits import MAX_MESSAGE_BYTES

TOO_LARGE = Refusal(
    413,
    f"Request body over {MAX_MESSAGE_BYTES:,} bytes (the limit for one MCP message); "
    "send less per call",
)


class BodyRepair:
    """ASGI middleware: each POST body read whole (bounded), repaired, then handed on."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        if _declared_length(scope) > MAX_MESSAGE_BYTES:
            await _refuse(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away: pass it on
                await self.app(scope, _replay(message, receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > MAX_MESSAGE_BYTES:
                await _refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = repair_body(b"".join(chunks))
        whole: Message = {"type": "http.request", "body": body, "more_body": False}
        await self.app(scope, _replay(whole, receive), send)


def _declared_length(scope: Scope) -> int:
    for name, value in scope["headers"]:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


async def _refuse(send: Send) -> None:
    for message in TOO_LARGE.messages():
        await send(message)


def _replay(first: Message, receive: Receive) -> Receive:
    """A `receive` that yields `first`, then whatever the connection sends next."""
    pending = [first]

    async def replay() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return replay
