"""End to end over Streamable HTTP: the official MCP client against `serve --http`.

One server serves the whole module; every test opens its own MCP session, which is its own
conversation with its own managed browser, closed when the client deletes the session.
Security: a foreign Origin or Host is refused, a non-loopback bind without a token refuses to
start, and with a token a request without it gets 401.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from tests.e2e import scenarios
from tests.support.fixture_server import FixtureServer
from tests.support.mcp_server import (
    SERVE_ARGS,
    HttpServer,
    ab,
    details_of,
    eventually,
    http_client,
    http_server,
    live_sessions,
    serve_env,
    text_of,
)
from tests.support.real_engine import EngineEnv, track_socket_dir

pytestmark = pytest.mark.real_engine

CLOSE_WINDOW_S = 15.0
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "0"},
    },
}
POST_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def env(engine_env: EngineEnv, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    track_socket_dir(engine_env.socket_dir)
    return serve_env(engine_env, tmp_path_factory.mktemp("http") / "state")


@pytest.fixture(scope="module")
def server(env: dict[str, str]) -> Iterator[HttpServer]:
    with http_server(env) as running:
        yield running
    assert running.proc.returncode == 0, running.log


@pytest.fixture
def url(server: HttpServer) -> str:
    assert server.url is not None
    return server.url


async def test_cancelling_a_call_kills_its_engine_child(
    url: str, fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    async with http_client(url) as client:
        await scenarios.cancel_kills_engine_child(client, fixture_site, engine_env.socket_dir)


PAGES = [
    ("page-a.html", "Page A"),
    ("page-b.html", "Page B"),
    ("links.html", "Links"),
    ("clean.html", "Clean Page"),
]
CONVERSATIONS = 4
ROUNDS = 12  # 4 calls a round, plus 2 at the end: 50 calls per conversation


async def _converse(url: str, site: FixtureServer, n: int, sessions: dict[int, str]) -> int:
    """One conversation's 50 calls; every read must see this conversation's own page."""
    calls = 0
    async with http_client(url) as client:
        target = ""
        for step in range(ROUNDS):
            path, title = PAGES[(n + step) % len(PAGES)]
            target = site.url(f"{path}?conversation={n}&step={step}")
            opened = await ab(client, "open", target)
            assert not opened.is_error, text_of(opened)
            sessions.setdefault(n, str(details_of(opened)["sessionName"]))
            assert text_of(await ab(client, "get", "url")).strip() == target
            assert text_of(await ab(client, "get", "title")).strip() == title
            snapshot = await ab(client, "snapshot", "-i")
            assert not snapshot.is_error and target in text_of(snapshot)
            calls += 4
        assert text_of(await ab(client, "get", "url")).strip() == target
        assert not (await ab(client, "get", "title")).is_error
        calls += 2
    return calls


async def test_four_parallel_conversations_on_one_server(
    url: str, fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    """4 MCP sessions x 50 calls in parallel: own browser each, no cross-talk, no leftovers."""
    sessions: dict[int, str] = {}
    counts: list[int] = []

    async def run(n: int) -> None:
        counts.append(await _converse(url, fixture_site, n, sessions))

    async with anyio.create_task_group() as tg:
        for n in range(CONVERSATIONS):
            tg.start_soon(run, n)
    assert counts == [50] * CONVERSATIONS
    assert len(set(sessions.values())) == CONVERSATIONS  # one managed browser each
    left = await eventually(
        lambda: not set(sessions.values()) & live_sessions(engine_env.socket_dir),
        CLOSE_WINDOW_S,
    )
    assert left, f"browsers outlived their sessions: {live_sessions(engine_env.socket_dir)}"


async def test_browse_over_http_and_close_on_session_end(
    url: str, fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    async with http_client(url) as client:
        assert client.protocol_version == "2025-11-25"  # a stateful session, not stateless
        await scenarios.check_listing(client)
        session = await scenarios.browse(client, fixture_site)
        assert session in live_sessions(engine_env.socket_dir)
    gone = await eventually(
        lambda: session not in live_sessions(engine_env.socket_dir), CLOSE_WINDOW_S
    )
    assert gone, f"session {session} survived the end of its MCP session"


async def test_enabling_an_unavailable_capability_changes_nothing(
    env: dict[str, str],
) -> None:
    with http_server(env, scenarios.ALLOW_ALWAYS_ON) as restricted:
        assert restricted.url is not None
        messages: list[Any] = []
        async with http_client(restricted.url, messages=messages) as client:
            await scenarios.enable_unavailable(client, messages)


async def test_enabling_qa_announces_the_list_change(url: str) -> None:
    messages: list[Any] = []
    async with http_client(url, messages=messages) as client:
        await scenarios.enable_qa(client, messages)
    async with http_client(url) as other:  # another session is another conversation
        assert "agent_browser_qa" not in {t.name for t in (await other.list_tools()).tools}


async def test_foreign_origin_and_host_are_refused(url: str) -> None:
    async with httpx2.AsyncClient() as http:
        ok = await http.post(url, json=INIT, headers=POST_HEADERS)
        assert ok.status_code == 200
        evil_origin = {**POST_HEADERS, "Origin": "http://evil.example"}
        assert (await http.post(url, json=INIT, headers=evil_origin)).status_code == 403
        evil_host = {**POST_HEADERS, "Host": "evil.example"}
        assert (await http.post(url, json=INIT, headers=evil_host)).status_code == 421
        local_origin = {**POST_HEADERS, "Origin": "http://localhost:6274"}
        assert (await http.post(url, json=INIT, headers=local_origin)).status_code == 200


def test_non_loopback_bind_without_token_refuses_to_start(env: dict[str, str]) -> None:
    proc = subprocess.run(
        [sys.executable, *SERVE_ARGS, "--http", "--host", "0.0.0.0", "--port", "0"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "token" in proc.stderr and "AGENT_BROWSER_TOOLS_HTTP_TOKEN" in proc.stderr


async def test_token_is_required_when_configured(env: dict[str, str]) -> None:
    token_env = {**env, "AGENT_BROWSER_TOOLS_HTTP_TOKEN": "s3cret-token"}
    with http_server(token_env) as guarded:
        assert guarded.url is not None
        async with httpx2.AsyncClient() as http:
            bare = await http.post(guarded.url, json=INIT, headers=POST_HEADERS)
            assert bare.status_code == 401
            wrong = {**POST_HEADERS, "Authorization": "Bearer nope"}
            assert (await http.post(guarded.url, json=INIT, headers=wrong)).status_code == 401
        async with http_client(guarded.url, token="s3cret-token") as client:
            assert {t.name for t in (await client.list_tools()).tools} >= scenarios.ALWAYS_ON


async def test_shutdown_closes_the_browsers_of_open_sessions(
    env: dict[str, str], fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    """SIGTERM with a session still open: the server closes its browser and exits 0."""
    with http_server(env) as own:
        assert own.url is not None
        async with http_client(own.url) as client:
            opened = await ab(client, "open", fixture_site.url("page-b.html"))
            assert not opened.is_error, text_of(opened)
            session = str(details_of(opened)["sessionName"])
            assert session in live_sessions(engine_env.socket_dir)
            assert own.stop() == 0, own.log
    assert session not in live_sessions(engine_env.socket_dir)


async def test_a_shared_servers_client_roots_open_no_files(
    server: HttpServer, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """A client's roots name folders of its own machine: on a shared server they are not file
    roots (one that declared `file:///` would open this host), and relative paths land in the
    conversation's own workspace."""
    root = tmp_path / "client-root"
    root.mkdir()
    assert server.url is not None
    async with http_client(server.url, roots=[root]) as client:
        assert not (await ab(client, "open", fixture_site.url("clean.html"))).is_error
        refused = await ab(client, "screenshot", str(root / "a.png"))
        assert refused.is_error and details_of(refused)["policy"]["rule"] == "file-root"
        assert not (root / "a.png").exists()
        saved = await ab(client, "screenshot", "evidence/c.png")
        assert not saved.is_error, text_of(saved)
        [shot] = (server.cwd / "agent-browser-workspaces").glob("*/evidence/c.png")
        assert shot.is_file()
        await ab(client, "close")
