"""Grid mode against a real Selenium Grid 4 standalone (two Chromium slots, on 127.0.0.1).

Each conversation's browser is a WebDriver session of the grid, driven by the real engine
over the session's `se:cdp` endpoint. One grid serves the whole module (it takes seconds to
start); every test ends with the grid holding no session of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import signal
import socket
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import anyio
import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.hosts.cli.doctor import run_doctor
from tests.support.fixture_server import FixtureServer
from tests.support.grid_conversations import (
    grid_config,
    grid_tools,
    killed_server,
    owned,
    owners,
)
from tests.support.leftovers import baseline, started_here
from tests.support.mcp_server import ab as mcp_ab
from tests.support.mcp_server import http_client, http_server, serve_env, text_of
from tests.support.real_engine import EngineEnv
from tests.support.selenium_grid import Grid, module_grid
from tests.support.tools import ab, tools_settings

grid = module_grid(2, session_request_timeout_s=5)

PAGE = "data:text/html,<title>{title}</title><button>Go</button>"

Factory = Callable[..., BrowserTools]


@pytest_asyncio.fixture
async def conversation(engine_env: EngineEnv, tmp_path: Path, grid: Grid) -> AsyncIterator[Factory]:
    """Makes conversations on the grid (one state dir: one server); all closed at teardown."""
    opened: list[BrowserTools] = []

    def make(conversation_id: str) -> BrowserTools:
        tools = grid_tools(engine_env, tmp_path, grid.url, conversation_id)
        opened.append(tools)
        return tools

    try:
        yield make
    finally:
        for tools in opened:
            await tools.aclose()
        assert _owned(grid) == [], "a conversation's grid session outlived it"


_owned = owned


def _owners(grid: Grid) -> list[str]:
    return sorted(owners(grid).values())


def _local_browsers(before: set[tuple[int, int]], engine_env: EngineEnv) -> list[str]:
    """Chromium processes started since `before` by the engine (not by the grid)."""
    procs = started_here(before, engine_env.socket_dir)
    return [str(p) for p in procs if p.kind == "chromium"]


@pytest.mark.asyncio
async def test_two_conversations_get_two_grid_browsers_with_their_own_cookies(
    conversation: Factory, grid: Grid, engine_env: EngineEnv, fixture_site: FixtureServer
) -> None:
    """Both browsers are on one origin, so only separate browsers keep the cookie apart."""
    before = baseline()
    a, b = conversation("grid-a"), conversation("grid-b")
    opened = await ab(a, "open", fixture_site.url("/tabs.html"))
    assert not opened.is_error, opened.text
    assert not (await ab(b, "open", fixture_site.url("/tabs.html"))).is_error
    assert len(_owned(grid)) == 2
    assert [o.rsplit("/", 1)[-1] for o in _owners(grid)] == ["grid-a", "grid-b"]
    set_cookie = await ab(a, "eval", "document.cookie = 'who=a; path=/'; document.cookie")
    assert not set_cookie.is_error, set_cookie.text
    assert "name=who" in (await ab(a, "cookies", "get")).text
    theirs = await ab(b, "cookies", "get")
    assert not theirs.is_error and "name=who" not in theirs.text, theirs.text
    assert not (await ab(b, "tab", "new", fixture_site.url("/tabs.html"))).is_error
    tabs_a = await ab(a, "--json", "tab", "list")
    assert len(json.loads(tabs_a.text)["data"]["tabs"]) == 1, "b's new tab showed up in a"
    assert _local_browsers(before, engine_env) == []


@pytest.mark.asyncio
async def test_close_frees_the_slot_and_a_full_grid_is_a_clear_bounded_answer(
    conversation: Factory, grid: Grid
) -> None:
    a, b, c = conversation("full-a"), conversation("full-b"), conversation("full-c")
    assert not (await ab(a, "open", PAGE.format(title="A"))).is_error
    assert not (await ab(b, "open", PAGE.format(title="B"))).is_error
    assert grid.free_slots() == 0
    with anyio.fail_after(120):  # a hang fails here; the wait itself is the config's 2 s
        refused = await ab(c, "open", PAGE.format(title="C"))
    assert refused.is_error
    assert refused.details["failureCategory"] == "timeout", refused.details
    assert refused.details["gridBrowser"]["full"] is True
    assert "no browser slot" in refused.text and "nothing ran" in refused.text
    retry = [a for a in refused.details["nextActions"] if a["id"] == "retry-when-grid-frees"]
    assert retry and retry[0]["params"]["args"] == ["open", PAGE.format(title="C")]
    assert refused.details["gridBrowser"]["waitS"] == 2
    assert len(_owned(grid)) == 2, "the refused call left a session behind"
    closed = await ab(a, "close")
    assert not closed.is_error, closed.text
    assert grid.free_slots() == 1
    assert not any(o.endswith("/full-a") for o in _owners(grid))
    assert not (await ab(c, "open", PAGE.format(title="C"))).is_error
    assert (await ab(c, "get", "title")).text.strip() == "C"


@pytest.mark.asyncio
async def test_a_grid_browser_killed_on_the_grid_is_found_lost_on_the_next_call(
    conversation: Factory, grid: Grid
) -> None:
    a = conversation("killed")
    assert not (await ab(a, "open", PAGE.format(title="K"))).is_error
    (session,) = [s for s in grid.sessions() if "abt:owner" in s["capabilities"]]
    os.kill(int(session["capabilities"]["goog:processID"]), signal.SIGKILL)
    await asyncio.sleep(0.5)
    lost = await ab(a, "get", "title")
    assert lost.is_error
    assert lost.details["failureCategory"] == "tab-gone", lost.details
    assert lost.details["browserLost"]["cause"] == "grid-session-lost"
    reopen = [n for n in lost.details["nextActions"] if n["id"] == "reopen-recorded-url"]
    assert reopen and reopen[0]["params"]["args"] == ["open", PAGE.format(title="K")]
    assert session["id"] not in [s["id"] for s in grid.sessions()], "the dead session holds"
    again = await ab(a, *reopen[0]["params"]["args"])
    assert not again.is_error, again.text
    assert (await ab(a, "get", "title")).text.strip() == "K"
    assert len(_owned(grid)) == 1


def _server_killed_mid_conversation(
    engine_env: EngineEnv, tmp_path: Path, grid: Grid, conversation_id: str, title: str
) -> None:
    killed_server(engine_env, tmp_path, grid, conversation_id, PAGE.format(title=title))


@pytest.mark.asyncio
async def test_a_restarted_server_reattaches_on_resume_and_ends_what_no_one_resumes(
    conversation: Factory, grid: Grid, engine_env: EngineEnv, tmp_path: Path
) -> None:
    _server_killed_mid_conversation(engine_env, tmp_path, grid, "resumed", "Resumed")
    (kept,) = _owned(grid)
    resumed = conversation("resumed")
    title = await ab(resumed, "get", "title")
    assert not title.is_error and title.text.strip() == "Resumed", title.text
    assert _owned(grid) == [kept], "resuming must re-attach, not start another browser"
    await resumed.aclose()
    assert _owned(grid) == []

    _server_killed_mid_conversation(engine_env, tmp_path, grid, "abandoned", "Gone")
    (orphan,) = _owned(grid)
    fresh = conversation("fresh")
    assert not (await ab(fresh, "open", PAGE.format(title="F"))).is_error
    assert orphan not in _owned(grid), "the killed server's browser was not given back"
    assert len(_owned(grid)) == 1
    # Its engine daemon is still attached to the ended session: resuming the conversation
    # once and ending it (the fixture's teardown) closes the daemon.
    conversation("abandoned")


@pytest.mark.asyncio
async def test_an_http_server_on_the_grid_launches_no_local_browser_and_leaves_no_session(
    grid: Grid, engine_env: EngineEnv, tmp_path: Path, fixture_site: FixtureServer
) -> None:
    """Two MCP clients of one `serve --http --grid-url`: each conversation is a grid session,
    no Chromium starts here, and once the server stops (clients still connected) the grid
    holds none of its sessions."""
    before = baseline()
    env = serve_env(
        engine_env,
        tmp_path / "state",
        AGENT_BROWSER_TOOLS_CONFIG=str(grid_config(tmp_path, 2)),
    )
    with anyio.fail_after(120), http_server(env, "--grid-url", grid.url) as server:
        assert server.url is not None
        clients = contextlib.AsyncExitStack()
        try:
            for _client in ("one", "two"):
                client = await clients.enter_async_context(http_client(server.url))
                opened = await mcp_ab(client, "open", fixture_site.url("/tabs.html"))
                assert not opened.is_error, text_of(opened)
            assert len(_owned(grid)) == 2
            assert _local_browsers(before, engine_env) == []
            assert server.stop() == 0, server.log
            assert _owned(grid) == [], "the stopped server left grid sessions behind"
        finally:
            with contextlib.suppress(Exception):  # the server is gone: goodbyes fail
                await clients.aclose()


def test_doctor_checks_the_grid_and_runs_its_smoke_on_a_grid_browser(
    grid: Grid, engine_env: EngineEnv, tmp_path: Path
) -> None:
    before = baseline()
    settings = tools_settings(
        engine_env,
        tmp_path / "state",
        AGENT_BROWSER_TOOLS_GRID_URL=grid.url,
        AGENT_BROWSER_TOOLS_CONFIG=str(grid_config(tmp_path, 2)),
    )
    out = io.StringIO()
    assert run_doctor(settings, out) == 0, out.getvalue()
    report = out.getvalue()
    assert f"Selenium Grid at {grid.url}: 2 of 2 slots free" in report, report
    assert "read its title 'agent-browser-tools doctor'; ended it" in report, report
    assert grid.sessions() == []
    assert _local_browsers(before, engine_env) == []


def test_doctor_says_when_the_grid_cannot_be_reached(engine_env: EngineEnv, tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = tools_settings(
        engine_env,
        tmp_path / "state",
        AGENT_BROWSER_TOOLS_GRID_URL=f"http://user:pw-secret@127.0.0.1:{port}",
    )
    out = io.StringIO()
    assert run_doctor(settings, out) == 1
    report = out.getvalue()
    assert "could not be reached" in report and "start the grid" in report, report
    assert "pw-secret" not in report


@pytest.mark.asyncio
async def test_a_close_inside_a_batch_ends_the_grid_browser_before_the_next_launch(
    conversation: Factory, grid: Grid, fixture_site: FixtureServer
) -> None:
    """The engine's close only detaches from a grid browser; the session's next launch must
    still be a new browser, without the old one's cookies."""
    a = conversation("batch-close")
    assert not (await ab(a, "open", fixture_site.url("/tabs.html"))).is_error
    assert not (await ab(a, "eval", "document.cookie = 'kept=1; path=/'")).is_error
    (first,) = _owned(grid)
    closed = await ab(a, "batch", "get title", "close")
    assert not closed.is_error, closed.text
    assert not (await ab(a, "open", fixture_site.url("/tabs.html"))).is_error
    (second,) = _owned(grid)
    assert second != first, "the closed session's browser was reused"
    cookies = await ab(a, "cookies", "get")
    assert not cookies.is_error and "name=kept" not in cookies.text, cookies.text


@pytest.mark.asyncio
async def test_a_grid_browser_is_the_sessions_own_not_an_attachment(
    conversation: Factory,
) -> None:
    """No `attachedBrowserSession`, and no live URL re-read before page reads (the guard for
    browsers someone else drives): a `get title` is one engine call, as with a local one."""
    a = conversation("own")
    assert not (await ab(a, "open", PAGE.format(title="Own"))).is_error
    spawns = a.runtime.spawns
    title = await ab(a, "get", "title")
    assert not title.is_error and "attachedBrowserSession" not in title.details
    assert a.runtime.spawns - spawns == 1
