"""HTTP bodies before the SDK (hosts/mcp/http_repair.py): bounded, read whole, repaired."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import pytest

from agent_browser_tools.hosts.mcp import http_repair
from agent_browser_tools.hosts.mcp.http_repair import BodyRepair
from agent_browser_tools.input_limits import MAX_MESSAGE_BYTES, REFUSAL_KEY

LONE = (
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call",'
    b'"params":{"name":"agent_browser","arguments":{"args":["\\ud800"]}}}'
)


class Recorder:
    """The app behind the middleware: what it read, or that it was never reached."""

    def __init__(self) -> None:
        self.bodies: list[bytes] = []
        self.reached = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.reached = True
        body = b""
        while True:
            message = await receive()
            if message["type"] != "http.request":
                self.bodies.append(b"<" + message["type"].encode() + b">")
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        self.bodies.append(body)


async def _run(
    chunks: list[bytes], *, method: str = "POST", length: int | None = None
) -> tuple[Recorder, list[MutableMapping[str, Any]]]:
    app = Recorder()
    headers = [(b"content-type", b"application/json")]
    if length is not None:
        headers.append((b"content-length", str(length).encode()))
    scope = {"type": "http", "method": method, "headers": headers, "path": "/mcp"}
    incoming = [
        {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1}
        for i, chunk in enumerate(chunks)
    ]
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return incoming.pop(0) if incoming else {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    await BodyRepair(app)(scope, receive, send)
    return app, sent


async def test_a_body_in_pieces_reaches_the_sdk_whole_and_repaired() -> None:
    app, sent = await _run([LONE[:20], LONE[20:50], LONE[50:]])
    assert len(app.bodies) == 1 and REFUSAL_KEY.encode() in app.bodies[0]
    assert sent == []


async def test_a_body_the_sdk_takes_is_passed_on_as_sent() -> None:
    body = b'{"jsonrpc":"2.0","id":1,"method":"ping"}'
    app, _ = await _run([body])
    assert app.bodies == [body]


async def test_a_declared_oversized_body_is_refused_unread() -> None:
    app, sent = await _run([b"{}"], length=MAX_MESSAGE_BYTES + 1)
    assert not app.reached
    assert sent[0]["status"] == 413 and (b"connection", b"close") in sent[0]["headers"]
    assert b"send less per call" in sent[1]["body"]


async def test_a_streamed_oversized_body_is_refused_once_it_passes_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(http_repair, "MAX_MESSAGE_BYTES", 10)
    app, sent = await _run([b"x" * 6, b"x" * 6, b"never read"])
    assert not app.reached and sent[0]["status"] == 413


async def test_other_methods_and_a_client_that_leaves_pass_through() -> None:
    app, _ = await _run([b""], method="GET")
    assert app.bodies == [b""]

    async def gone() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    recorder = Recorder()
    scope = {"type": "http", "method": "POST", "headers": [], "path": "/mcp"}

    async def send(message: MutableMapping[str, Any]) -> None:
        raise AssertionError("nothing to answer to a client that left")

    await BodyRepair(recorder)(scope, gone, send)
    assert recorder.bodies == [b"<http.disconnect>"]
