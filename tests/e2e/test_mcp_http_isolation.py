"""Two conversations on one `serve --http` server cannot reach each other's browsers.

Client A opens a fixture page with a marker in its URL, localStorage and a cookie name; client
B, which knows A's engine session name, the name of A's socket dir and A's DevTools port (the
test finds them the way a local attacker would), tries every way in that worked before
isolation. Each attempt is either refused with a named category and policy rule, or harmless:
B never sees the marker, and A's page still answers, unchanged, afterwards. A control proves
the reads would show the marker (A sees it itself), so "B saw nothing" is not redaction.

Browsers are kept off the DevTools ports of browsers (`endpoint_guard`): from such an origin a
page could drive another conversation's browser over its CDP WebSocket. Script the model writes
never runs there (a guard in front of it, even when the page got there by itself), and routes
cannot plant page script there; the engine's stream server is kept off altogether, so no port
of ours takes a page's WebSocket: `test_listening_ports.py`.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from tests.support.devtools import devtools_port
from tests.support.fixture_server import FixtureServer
from tests.support.mcp_server import (
    HttpServer,
    ab,
    details_of,
    eventually,
    http_client,
    http_server,
    live_sessions,
    serve_env,
    session_dir,
    text_of,
)
from tests.support.real_engine import EngineEnv, track_socket_dir

pytestmark = pytest.mark.real_engine

CLOSE_WINDOW_S = 15.0
SHARED = "team-work"


@pytest.fixture(scope="module")
def server(engine_env: EngineEnv, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    track_socket_dir(engine_env.socket_dir)
    env = serve_env(engine_env, tmp_path_factory.mktemp("iso") / "state")
    with http_server(env, "--shared-session", SHARED) as running:
        yield running
    assert running.proc.returncode == 0, running.log


def _seen(result: types.CallToolResult) -> str:
    """Everything a client got back: the model-visible text and the details."""
    meta = json.dumps(result.meta, default=str) if result.meta else ""
    return text_of(result) + meta


async def _ok(client: Client, *args: str) -> types.CallToolResult:
    result = await ab(client, *args)
    assert not result.is_error, text_of(result)
    return result


async def _plant(a: Client, site: FixtureServer, mark: str) -> tuple[str, str]:
    """A opens a page carrying `mark` in URL, storage and cookie; returns (url, session)."""
    url = site.url(f"page-a.html?conversation={mark}")
    session = str(details_of(await _ok(a, "open", url))["sessionName"])
    await _ok(a, "storage", "local", "set", f"note-{mark}", "kept")
    await _ok(a, "cookies", "set", f"seen-{mark}", "1")
    await _ok(a, "eval", "window.clicks = 0; addEventListener('click', () => clicks++); 1")
    # Control: these reads show the marker to A itself.
    assert mark in _seen(await _ok(a, "get", "url"))
    assert mark in _seen(await _ok(a, "storage", "local", "get"))
    assert mark in _seen(await _ok(a, "cookies", "get"))
    return url, session


def _refused(result: types.CallToolResult, rule: str) -> dict[str, Any]:
    details = details_of(result)
    assert result.is_error and details["failureCategory"] == "policy-blocked", details
    assert details["policy"]["rule"] == rule, details
    return details


async def test_b_cannot_see_use_or_close_as_browser(
    server: HttpServer, fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    assert server.url is not None
    mark = f"iso{uuid.uuid4().hex[:10]}"
    base = engine_env.socket_dir
    async with http_client(server.url) as a:
        a_url, a_session = await _plant(a, fixture_site, mark)
        a_dir = session_dir(base, a_session)
        assert a_dir.parent == base and os.stat(a_dir).st_mode & 0o777 == 0o700
        port = devtools_port(a_dir)
        async with http_client(server.url) as b:
            # Attempts that run, but only ever on B's own browsers.
            listed = await _ok(b, "session", "list")
            assert a_session not in _seen(listed)
            as_a = ["--session", a_session]
            harmless = [
                [*as_a, "get", "url"],
                [*as_a, "cookies", "get"],
                [*as_a, "storage", "local", "get"],
                [*as_a, "snapshot", "-i"],
                [*as_a, "click", "body"],
                [*as_a, "eval", "document.title = 'taken'; location.href"],
                ["--namespace", f"../{a_dir.name}", *as_a, "get", "url"],
                ["--namespace", "..", *as_a, "storage", "local", "get"],
                [*as_a, "close"],
                ["close", "--all"],
            ]
            # Control: B's own browser of that name answers (a blank page, not A's).
            mine = await _ok(b, *as_a, "get", "url")
            assert text_of(mine).strip() == "about:blank"
            for args in harmless:
                result = await ab(b, *args)
                assert mark not in _seen(result), (args, _seen(result))
            # Attempts refused before anything runs, each with its category and rule.
            _refused(await ab(b, *as_a, "get", "cdp-url"), "operator-command")
            _refused(await ab(b, "get", "cdp-url"), "operator-command")
            _refused(await ab(b, "--cdp", str(port), "get", "url"), "operator-flag")
            _refused(await ab(b, "connect", str(port)), "operator-command")
            _refused(await ab(b, "state", "list"), "shared-store")
            escape = f"../{a_dir.name}/{a_session}"
            for name in (escape, str(a_dir / a_session)):
                _refused(await ab(b, "--session", name, "get", "url"), "session-name")
            b_session = str(details_of(await _ok(b, "get", "url"))["sessionName"])
            b_dir = session_dir(base, b_session)
            assert b_dir != a_dir
        # B is gone: its own dir (browsers included) went with it; A's browser is untouched.
        gone = await eventually(lambda: not b_dir.exists(), CLOSE_WINDOW_S)
        assert gone, f"B's socket dir outlived B: {sorted(b_dir.rglob('*'))}"
        assert a_session in live_sessions(a_dir)
        assert text_of(await _ok(a, "get", "url")).strip() == a_url
        assert text_of(await _ok(a, "get", "title")).strip() == "Page A"
        assert details_of(await _ok(a, "eval", "clicks"))["data"]["result"] == 0
    gone = await eventually(lambda: not a_dir.exists(), CLOSE_WINDOW_S)
    assert gone, f"A's socket dir outlived A: {sorted(a_dir.rglob('*'))}"


async def test_an_operator_shared_session_is_reachable_from_every_conversation(
    server: HttpServer, fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    assert server.url is not None
    mark = f"shared{uuid.uuid4().hex[:8]}"
    url = fixture_site.url(f"page-b.html?conversation={mark}")
    base = engine_env.socket_dir
    try:
        async with http_client(server.url) as a:
            opened = await _ok(a, "--session", SHARED, "open", url)
            assert details_of(opened)["usedImplicitSession"] is False
        assert SHARED in live_sessions(base) and (base / f"{SHARED}.sock").exists()
        async with http_client(server.url) as b:
            assert text_of(await _ok(b, "--session", SHARED, "get", "url")).strip() == url
            listed = await _ok(b, "--session", SHARED, "session", "list")
            assert SHARED not in text_of(listed)  # listing stays in B's own dir
            await _ok(b, "--session", SHARED, "close", "--all")  # closes B's own, not shared
            assert SHARED in live_sessions(base)
        assert SHARED in live_sessions(base)  # a conversation's end does not close it
    finally:
        async with http_client(server.url) as cleanup:
            await ab(cleanup, "--session", SHARED, "close")
    closed = await eventually(lambda: SHARED not in live_sessions(base), CLOSE_WINDOW_S)
    assert closed


async def test_b_cannot_reach_as_devtools_endpoint(
    server: HttpServer, fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    """Engine 0.39.4 launches Chromium with --remote-debugging-port: a page on
    `http://127.0.0.1:PORT/` may open A's CDP WebSocket. B is kept off that origin: by URL
    before dispatch, and by a page check before script when a page redirected itself there."""
    assert server.url is not None
    mark = f"iso{uuid.uuid4().hex[:10]}"
    async with http_client(server.url) as a:
        _url, a_session = await _plant(a, fixture_site, mark)
        port = devtools_port(session_dir(engine_env.socket_dir, a_session))
        async with http_client(server.url) as b:
            listing = await ab(b, "open", f"http://127.0.0.1:{port}/json/list")
            _refused(listing, "browser-endpoint")
            _refused(await ab(b, "tab", "new", f"http://localhost:{port}/json"), "browser-endpoint")
            hop = f"data:text/html,<script>location='http://127.0.0.1:{port}/json/list'</script>"
            await _ok(b, "open", hop)
            await _ok(b, "wait", "1000")
            drive = await ab(b, "eval", "--stdin", stdin=_CDP_READ_JS)
            _refused(drive, "browser-endpoint")
            leaked = [r for r in (listing, drive) if mark in _seen(r)]
            assert not leaked, [_seen(r)[:300] for r in leaked]


_CDP_READ_JS = """
(async () => {
  const pages = await (await fetch('/json/list')).json();
  const page = pages.find(p => p.type === 'page' && p.url.includes('conversation='));
  if (!page) return 'no page';
  return await new Promise(resolve => {
    const ws = new WebSocket(page.webSocketDebuggerUrl);
    ws.onopen = () => ws.send(JSON.stringify({id: 1, method: 'Runtime.evaluate',
      params: {expression: 'location.href + " " + document.cookie'}}));
    ws.onmessage = m => { resolve(m.data); ws.close(); };
    ws.onerror = () => resolve('refused');
    setTimeout(() => resolve('timeout'), 5000);
  });
})()
"""
