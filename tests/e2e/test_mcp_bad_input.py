"""Issue 27, item 5 over the real MCP hosts: bad input is a tool error, and the server is
unaffected.

A real `serve` over stdio and over HTTP, driven by the official `mcp` client. Each bad input
(a NUL byte, a stdin nested 100,000 levels deep, an escaped lone surrogate, bytes that are not
UTF-8, a raw NUL, arguments nested 100,000 levels deep, absurd sizes, a `file://` URL as an
upload path) must answer `isError: true` with `failureCategory: validation-error` and the
limit named, and the same session must then answer a good call on the page it had open.
Inputs the official client cannot write are put on the wire under it (`raw_wire`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client

from tests.support.fixture_server import FixtureServer
from tests.support.leftovers import baseline, left_after_exit
from tests.support.mcp_server import (
    ab,
    details_of,
    http_server,
    ref_in,
    serve_env,
    text_of,
)
from tests.support.raw_wire import relayed_stdio_client, substituting_http_client
from tests.support.real_engine import EngineEnv, track_socket_dir

pytestmark = pytest.mark.real_engine

CONVERSATION_S = 240.0
DEEP = "[" * 100_000 + "]" * 100_000


def _nested(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"a": value}
    return value


# (name, tool, arguments, the limit details name or None, text the refusal must contain)
CASES: list[tuple[str, str, dict[str, Any], str | None, str]] = [
    ("nul-in-args", "agent_browser", {"args": ["get", "url\x00"]}, "nul-byte", "NUL byte"),
    ("nul-in-stdin", "agent_browser", {"args": ["eval", "--stdin"], "stdin": "1\x00"},
     "nul-byte", "`stdin`"),
    ("nul-in-code", "agent_browser_code", {"code": "return 1\x00"}, "nul-byte", "`code`"),
    ("deep-batch-stdin", "agent_browser", {"args": ["batch", "--bail"], "stdin": DEEP}, None,
     "more than 64 levels deep"),
    ("lone-surrogate-escape", "agent_browser", {"args": ["get", "@@LONE@@"]}, "lone-surrogate",
     "\\ud800"),
    ("invalid-utf8", "agent_browser", {"args": ["get", "@@BYTES@@"]}, "invalid-utf8",
     "not valid UTF-8 (0xff"),
    ("raw-nul", "agent_browser", {"args": ["get", "@@RAWNUL@@"]}, "nul-byte", "NUL byte"),
    ("deep-arguments", "agent_browser", {"args": ["get", "url"], "x": "@@DEEP@@"}, "nesting",
     "more than 32 levels deep"),
    ("nested-arguments", "agent_browser", {"args": ["get", "url"], "x": _nested(40)},
     "nesting", "more than 32 levels deep"),
    ("many-args", "agent_browser", {"args": ["get", *["url"] * 20_000]}, "items", "10,000"),
    ("huge-arg", "agent_browser", {"args": ["eval", "x" * 2_500_000]}, "string-size",
     "2,000,000"),
]  # fmt: skip


def assert_refused(result: types.CallToolResult, limit: str | None, says: str) -> None:
    details = details_of(result)
    assert result.is_error, text_of(result)[:500]
    assert details["failureCategory"] == "validation-error", details
    assert "failureCategory: validation-error" in text_of(result)
    assert says in text_of(result), text_of(result)[:800]
    if limit is not None:
        assert details["inputLimit"]["limit"] == limit, details["inputLimit"]


async def still_works(client: Client, page: str) -> None:
    """The same session answers a good call, on the page it had open."""
    now = await ab(client, "get", "url")
    assert not now.is_error and text_of(now).strip() == page, text_of(now)


async def exercise(client: Client, site: FixtureServer, workspace: Path) -> None:
    page = site.url("form.html")
    opened = await ab(client, "open", page)
    assert not opened.is_error, text_of(opened)
    for _name, tool, arguments, limit, says in CASES:
        assert_refused(await client.call_tool(tool, arguments), limit, says)
        await still_works(client, page)
    # A code cell may return a lone surrogate: the answer still reaches the client.
    cell = await client.call_tool("agent_browser_code", {"code": "return 'a\\ud800b'"})
    assert not cell.is_error and "a\ufffdb" in text_of(cell), text_of(cell)
    await upload_takes_paths_only(client, page, workspace)


async def upload_takes_paths_only(client: Client, page: str, workspace: Path) -> None:
    attachment = workspace / "note.txt"
    attachment.write_text("hello")
    snapshot = await ab(client, "snapshot", "-i")
    ref = ref_in(details_of(snapshot), "button", "Attachment")
    for url in (attachment.as_uri(), "FILE:" + str(attachment), "http://127.0.0.1:9/x.txt"):
        refused = await ab(client, "upload", ref, url)
        assert_refused(refused, None, "is a URL, but this takes a local file path")
        await still_works(client, page)
    fixed = await ab(client, "upload", ref, attachment.as_uri())
    assert f"give the path {attachment}, not {attachment.as_uri()}" in text_of(fixed)
    uploaded = await ab(client, "upload", ref, str(attachment))
    assert not uploaded.is_error, text_of(uploaded)
    await still_works(client, page)


def assert_no_traceback(text: str) -> None:
    assert "Traceback" not in text, text[-4000:]


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "workspace"
    path.mkdir()
    return path


async def test_stdio_bad_input_is_a_tool_error_and_the_server_is_unaffected(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path, workspace: Path
) -> None:
    track_socket_dir(engine_env.socket_dir)
    env = serve_env(engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_CWD=str(workspace))
    before = baseline()
    log_path = tmp_path / "server-stderr.log"
    with log_path.open("w+") as errlog, anyio.fail_after(CONVERSATION_S):
        async with relayed_stdio_client(env, errlog=errlog) as client:
            await exercise(client, fixture_site, workspace)
    assert await anyio.to_thread.run_sync(left_after_exit, before, engine_env.socket_dir) == []
    assert_no_traceback(log_path.read_text())


async def test_http_bad_input_is_a_tool_error_and_the_server_is_unaffected(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path, workspace: Path
) -> None:
    """Over HTTP a second conversation on the same server keeps working throughout."""
    track_socket_dir(engine_env.socket_dir)
    env = serve_env(engine_env, tmp_path / "state")
    with anyio.fail_after(CONVERSATION_S), http_server(env, "--file-root", str(workspace)) as srv:
        assert srv.url is not None
        async with substituting_http_client(srv.url) as other:
            other_page = fixture_site.url("page-a.html")
            assert not (await ab(other, "open", other_page)).is_error
            async with substituting_http_client(srv.url) as client:
                await exercise(client, fixture_site, workspace)
            await still_works(other, other_page)
        assert srv.proc.poll() is None, srv.log
        assert srv.stop() == 0, srv.log
    assert_no_traceback("\n".join(srv.log))


TOO_LARGE = 64 * 1024 * 1024 + 1


async def test_http_refuses_an_absurd_body_before_reading_it(
    engine_env: EngineEnv, tmp_path: Path
) -> None:
    """A body over the message limit is answered 413 from its declared length, and the
    server goes on serving."""
    env = serve_env(engine_env, tmp_path / "state")
    with anyio.fail_after(60), http_server(env) as srv:
        assert srv.url is not None
        with anyio.fail_after(30):
            refused = await anyio.to_thread.run_sync(_post_declared, srv.url, TOO_LARGE)
        assert refused.startswith(b"HTTP/1.1 413"), refused[:200]
        async with substituting_http_client(srv.url) as client:
            listed = await client.list_tools()
            assert any(tool.name == "agent_browser" for tool in listed.tools)
        assert srv.stop() == 0, srv.log


def _post_declared(url: str, length: int) -> bytes:
    """A POST that declares `length` bytes and sends 1 KiB: the answer, read raw."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    with socket.create_connection((host, port), timeout=20) as sock:
        head = (
            f"POST {parts.path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"Content-Length: {length}\r\n\r\n"
        )
        sock.sendall(head.encode() + b"{" * 1024)
        return sock.recv(4096)
