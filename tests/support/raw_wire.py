"""Bytes the official MCP client cannot send, put on the wire under it.

The official client serializes with pydantic, which refuses a lone surrogate and deep nesting,
and it never writes invalid UTF-8 or a raw control character. Other clients and pipes do:
JavaScript's `JSON.stringify` writes `"\\ud800"` for half an emoji, a broken encoder writes
bytes that are not UTF-8. A test writes a marker string in a call's arguments; between the
official client and the real server (a relay process for stdio, an HTTP transport) each
marker's JSON becomes its raw bytes, and nothing else changes.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.stdio import stdio_client as stdio_transport
from mcp.client.streamable_http import streamable_http_client

from tests.support.mcp_server import SERVE_ARGS

DEEP_LEVELS = 100_000

DEEP_MARKER = b'"@@DEEP@@"'
SMALL_MARKERS: dict[bytes, bytes] = {
    b'"@@LONE@@"': b'"url\\ud800"',  # an escaped lone surrogate, as JavaScript writes it
    b'"@@BYTES@@"': b'"url\xff\xfe"',  # bytes that are not UTF-8
    b'"@@RAWNUL@@"': b'"url\x00"',  # a NUL byte, which no JSON encoder leaves unescaped
}
MARKERS = {**SMALL_MARKERS, DEEP_MARKER: b"[" * DEEP_LEVELS + b"]" * DEEP_LEVELS}


def substitute(body: bytes) -> bytes:
    for marker, raw in MARKERS.items():
        body = body.replace(marker, raw)
    return body


RELAY = f"""
import subprocess, sys
markers = {SMALL_MARKERS!r}
markers[{DEEP_MARKER!r}] = b"[" * {DEEP_LEVELS} + b"]" * {DEEP_LEVELS}
server = subprocess.Popen([sys.executable, *{SERVE_ARGS!r}, *sys.argv[1:]], stdin=subprocess.PIPE)
assert server.stdin is not None
for line in sys.stdin.buffer:
    for marker, raw in markers.items():
        line = line.replace(marker, raw)
    server.stdin.write(line)
    server.stdin.flush()
server.stdin.close()
sys.exit(server.wait())
"""
"""A relay between the client and `serve` (stdio): the server's stdout and stderr are the
relay's own, stdin lines pass through `substitute`."""


def relayed_stdio_client(env: dict[str, str], *args: str, errlog: TextIO) -> Client:
    """An official MCP `Client` on a stdio server behind the marker relay."""
    params = StdioServerParameters(
        command=sys.executable, args=["-c", RELAY, *args], env=env, cwd=str(Path.cwd())
    )
    return Client(stdio_transport(params, errlog=errlog), mode="legacy")


class Substituting(httpx2.AsyncBaseTransport):
    """An HTTP transport that puts each marker's raw bytes in the request body."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        changed = substitute(body)
        if changed != body:
            headers = [(k, v) for k, v in request.headers.items() if k.lower() != "content-length"]
            request = httpx2.Request(
                request.method,
                request.url,
                headers=headers,
                content=changed,
                extensions=request.extensions,
            )
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def substituting_http_client(url: str, **kwargs: Any) -> Client:
    """An official MCP `Client` over Streamable HTTP whose bodies pass `substitute`."""
    http = httpx2.AsyncClient(
        transport=Substituting(), timeout=httpx2.Timeout(30.0, read=300.0), **kwargs
    )
    return Client(streamable_http_client(url, http_client=http), mode="auto")
