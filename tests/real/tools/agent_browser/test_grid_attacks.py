"""Attacks on grid mode, against a real Selenium Grid 4 standalone on 127.0.0.1 (3 slots).

A stranger's review found these ways to lose a grid browser, leak one, or reach another
conversation's; each test tries one and asserts the safe behaviour. Every test ends with the
grid emptied (whatever a failure left), so one failure does not cascade.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.grid_conversations import (
    grid_config,
    grid_tools,
    killed_server,
    owned,
    owners,
)
from tests.support.leftovers import baseline, started_here
from tests.support.real_engine import EngineEnv
from tests.support.selenium_grid import Grid, module_grid
from tests.support.tools import ab

grid = module_grid(3, session_request_timeout_s=5)

PAGE = "data:text/html,<title>{title}</title><button>Go</button>"

Factory = Callable[..., BrowserTools]


_owned = owned
_owners = owners
_config = grid_config


def _wipe(grid: Grid) -> list[str]:
    left = [s["id"] for s in grid.sessions()]
    for sid in left:
        with contextlib.suppress(Exception):
            grid.delete_session(sid)
    return left


@pytest_asyncio.fixture
async def conversation(engine_env: EngineEnv, tmp_path: Path, grid: Grid) -> AsyncIterator[Factory]:
    opened: list[BrowserTools] = []

    def make(conversation_id: str, state: str = "state", browser: str = "") -> BrowserTools:
        tools = grid_tools(
            engine_env, tmp_path, grid.url, conversation_id, wait_s=3, state=state, browser=browser
        )
        opened.append(tools)
        return tools

    try:
        yield make
    finally:
        for tools in opened:
            with contextlib.suppress(Exception):
                await tools.aclose()
        await asyncio.sleep(1.0)
        _wipe(grid)


def _local_chromium(before: set[tuple[int, int]], engine_env: EngineEnv) -> list[str]:
    return [str(p) for p in started_here(before, engine_env.socket_dir) if p.kind == "chromium"]


def _killed_server(engine_env: EngineEnv, tmp_path: Path, grid: Grid, cid: str) -> None:
    killed_server(engine_env, tmp_path, grid, cid, PAGE.format(title=cid))


# --- F1: a resumed conversation holds no owner lock; any other conversation's sweep ends it --


@pytest.mark.asyncio
async def test_resumed_conversation_browser_is_not_swept_by_another_conversation(
    conversation: Factory, grid: Grid, engine_env: EngineEnv, tmp_path: Path
) -> None:
    _killed_server(engine_env, tmp_path, grid, "resumed")
    (kept,) = _owned(grid)
    resumed = conversation("resumed")
    title = await ab(resumed, "get", "title")
    assert not title.is_error and title.text.strip() == "resumed", title.text
    # A second, live conversation of the same server (same state dir) needs a browser.
    other = conversation("other")
    assert not (await ab(other, "open", PAGE.format(title="other"))).is_error
    assert kept in _owned(grid), "the live resumed conversation's grid browser was swept"
    again = await ab(resumed, "get", "title")
    assert not again.is_error, again.text


# --- F2: a call cancelled while the grid starts its browser leaks the session ---------------


@pytest.mark.asyncio
async def test_cancel_during_session_create_leaves_no_grid_session(
    conversation: Factory, grid: Grid
) -> None:
    from agent_browser_tools.engine.grid_client import GridClient

    real = GridClient._blocking

    def slow_answer(self: GridClient, method: str, path: str, *rest: object) -> object:
        answer = real(self, method, path, *rest)  # type: ignore[arg-type]
        if method == "POST":
            time.sleep(2.0)  # a remote grid answers a new session after seconds
        return answer

    a = conversation("cancelled")
    grid_browsers = a.runtime.grid
    assert grid_browsers is not None
    client = grid_browsers.client
    client._blocking = slow_answer.__get__(client)  # type: ignore[method-assign]
    task = asyncio.create_task(ab(a, "open", PAGE.format(title="C")))
    await asyncio.sleep(1.0)  # POST /session in flight
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await a.aclose()
    await asyncio.sleep(3.0)
    left = _owners(grid)
    assert left == {}, f"grid sessions left after the conversation ended: {left}"


# --- F3: `quit` / `exit` aliases of close -----------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("verb", ["quit", "exit"])
async def test_close_aliases_end_the_grid_browser(
    conversation: Factory, grid: Grid, verb: str
) -> None:
    a = conversation(f"alias-{verb}")
    assert not (await ab(a, "open", PAGE.format(title="Q"))).is_error
    (first,) = _owned(grid)
    closed = await ab(a, verb)
    assert not closed.is_error, closed.text
    assert first not in _owned(grid), f"`{verb}` left the grid browser running"


# --- F4: the engine's own `doctor` (model-allowed) --------------------------------------------


@pytest.mark.asyncio
async def test_engine_doctor_starts_no_local_chromium(
    conversation: Factory, engine_env: EngineEnv
) -> None:
    before = baseline()
    a = conversation("doctor")
    await ab(a, "doctor")
    await asyncio.sleep(0.5)
    local = _local_chromium(before, engine_env)
    assert local == [], f"a local Chromium started in grid mode: {local}"


@pytest.mark.asyncio
async def test_quit_on_a_session_without_browser_creates_no_grid_session(
    conversation: Factory, grid: Grid
) -> None:
    a = conversation("quit-fresh")
    await ab(a, "--session", "never-opened", "quit")
    assert _owned(grid) == [], "a `quit` made the grid start a browser"


# --- F5: close then open inside one engine batch ---------------------------------------------


@pytest.mark.asyncio
async def test_close_then_open_in_one_batch_gives_a_fresh_browser(
    conversation: Factory, grid: Grid, fixture_site: FixtureServer
) -> None:
    a = conversation("batch-reopen")
    url = fixture_site.url("/tabs.html")
    assert not (await ab(a, "open", url)).is_error
    assert not (await ab(a, "eval", "document.cookie = 'kept=1; path=/'")).is_error
    (first,) = _owned(grid)
    result = await ab(a, "batch", "close", f"open {url}")
    assert not result.is_error, result.text
    cookies = await ab(a, "cookies", "get")
    assert "name=kept" not in cookies.text, "close inside a batch kept the old browser's cookies"
    assert first not in _owned(grid), "close inside a batch kept the old grid browser"


# --- F6: a create that times out in the grid's queue ends the conversation's other browsers --


@pytest.mark.asyncio
async def test_a_queued_create_that_times_out_ends_no_other_browser(
    conversation: Factory, grid: Grid
) -> None:
    a, b = conversation("queued-a"), conversation("queued-b")
    assert not (await ab(a, "--session", "keep", "open", PAGE.format(title="keep"))).is_error
    assert not (await ab(b, "open", PAGE.format(title="B"))).is_error
    (kept,) = [sid for sid, owner in _owners(grid).items() if owner.endswith("/queued-a")]
    # One slot left; two calls of conversation a race for it.
    results = await asyncio.gather(
        ab(a, "--session", "s2", "open", PAGE.format(title="s2")),
        ab(a, "--session", "s3", "open", PAGE.format(title="s3")),
    )
    assert any(not r.is_error for r in results), [r.text for r in results]
    assert kept in _owned(grid), "a timed-out create ended the conversation's live browser"
    still = await ab(a, "--session", "keep", "get", "title")
    assert not still.is_error and still.text.strip() == "keep", still.text


# --- F7: one conversation reaches another's grid browser over the grid itself -------------
# The grid's /status lists every session with the socket that drives its browser, and
# Selenium checks no Origin on those sockets: the grid's origins are browser endpoints.


@pytest.mark.asyncio
@pytest.mark.parametrize(
    "call",
    [
        ["open", "{grid}/status"],
        ["read", "{grid}/status"],
        ["tab", "new", "{grid}/status"],
        ["open", "{local}/status"],
        ["batch", "get title", "open {grid}/status"],
        ["network", "route", "{grid}/*", "--body", "<script>fetch('/status')</script>"],
    ],
)
async def test_the_model_cannot_reach_the_grid(
    conversation: Factory, grid: Grid, call: list[str]
) -> None:
    a = conversation("reach")
    assert not (await ab(a, "open", PAGE.format(title="start"))).is_error
    local = grid.url.replace("127.0.0.1", "localhost")
    args = [word.format(grid=grid.url, local=local) for word in call]
    refused = await ab(a, *args)
    assert refused.is_error, refused.text
    assert refused.details["failureCategory"] == "policy-blocked", refused.details
    assert refused.details["policy"]["rule"] == "browser-endpoint"
    assert "sessionId" not in refused.text and "se:cdp" not in refused.text


@pytest.mark.asyncio
async def test_a_page_that_moves_itself_to_the_grid_is_neither_read_nor_scripted(
    conversation: Factory, grid: Grid, fixture_site: FixtureServer
) -> None:
    """A hostile page navigates itself to the grid's /status: the model's reads of it are
    withheld and its scripts do not run there, so no session id reaches anyone."""
    victim, attacker = conversation("victim"), conversation("attacker")
    assert not (await ab(victim, "open", fixture_site.url("/tabs.html"))).is_error
    assert not (await ab(attacker, "open", fixture_site.url("/tabs.html"))).is_error
    # Its answer may already be withheld: the page it names is the grid's by then.
    await ab(attacker, "eval", f"location.href = {json.dumps(grid.url + '/status')}; 1")
    await asyncio.sleep(1.0)
    assert (await ab(attacker, "get", "url")).text.strip().endswith("/status")
    ids = [s["id"] for s in grid.sessions()]
    for read in (["get", "text", "body"], ["snapshot"], ["eval", "document.body.innerText"]):
        answer = await ab(attacker, *read)
        assert answer.is_error, answer.text
        assert answer.details["failureCategory"] == "policy-blocked", answer.details
        shown = answer.text + json.dumps(answer.details)
        assert not any(sid in shown for sid in ids), f"{read} showed a grid session id"


@pytest.mark.asyncio
async def test_no_answer_names_a_grid_session_id(conversation: Factory, grid: Grid) -> None:
    """A session id is all it takes to drive its browser: not even a lost one is named."""
    a = conversation("ids")
    shown = [await ab(a, "open", PAGE.format(title="I")), await ab(a, "get", "title")]
    (sid,) = _owned(grid)
    grid.delete_session(sid)
    shown.append(await ab(a, "get", "title"))
    assert shown[-1].details["failureCategory"] == "tab-gone"
    for answer in shown:
        assert sid not in answer.text + json.dumps(answer.details)


# --- F8: one conversation cannot take every slot -------------------------------------------


@pytest.mark.asyncio
async def test_one_conversation_holds_no_more_than_its_share_of_the_grid(
    conversation: Factory, grid: Grid, engine_env: EngineEnv, tmp_path: Path
) -> None:
    capped = "grid_max_per_conversation = 2\n"
    hog, other = conversation("hog", browser=capped), conversation("starved", browser=capped)
    for name in ("h0", "h1"):
        assert not (await ab(hog, "--session", name, "open", PAGE.format(title=name))).is_error
    refused = await ab(hog, "--session", "h2", "open", PAGE.format(title="h2"))
    assert refused.is_error and refused.details["failureCategory"] == "policy-blocked"
    assert refused.details["gridBrowser"]["limited"] is True
    closes = [n["params"]["args"] for n in refused.details["nextActions"]]
    assert ["--session", "h0", "close"] in closes and ["--session", "h1", "close"] in closes
    assert not (await ab(other, "open", PAGE.format(title="x"))).is_error
    assert not (await ab(hog, *closes[0])).is_error
    assert not (await ab(hog, "--session", "h2", "open", PAGE.format(title="h2"))).is_error


# --- F9: a journal write that fails after the grid handed out a session ---------------------


@pytest.mark.asyncio
async def test_journal_write_failure_after_create_leaves_no_grid_session(
    conversation: Factory, grid: Grid
) -> None:
    from agent_browser_tools.state.sqlite_journal import JournalWriteError

    a = conversation("full-disk")
    log = a.runtime.log
    real = log.record_grid_browser

    def broken(browser: object) -> None:
        raise JournalWriteError("database or disk is full", "grid-session")

    log.record_grid_browser = broken  # type: ignore[method-assign]
    result = await ab(a, "open", PAGE.format(title="D"))
    assert result.is_error, result.text
    log.record_grid_browser = real  # type: ignore[method-assign]
    await a.aclose()
    await asyncio.sleep(1.0)
    left = _owners(grid)
    assert left == {}, f"grid session left after a journal write failure: {left}"


# --- F10: resume with a session the grid already dropped ------------------------------------


@pytest.mark.asyncio
async def test_resume_with_a_session_the_grid_dropped(
    conversation: Factory, grid: Grid, engine_env: EngineEnv, tmp_path: Path
) -> None:
    _killed_server(engine_env, tmp_path, grid, "dropped")
    (sid,) = _owned(grid)
    grid.delete_session(sid)
    resumed = conversation("dropped")
    lost = await ab(resumed, "get", "title")
    assert lost.details["failureCategory"] == "tab-gone", lost.details
    again = await ab(resumed, "open", PAGE.format(title="again"))
    assert not again.is_error, again.text
    assert (await ab(resumed, "get", "title")).text.strip() == "again"


# --- F11: two calls of one conversation on one key at once ----------------------------------


@pytest.mark.asyncio
async def test_two_calls_on_one_key_create_one_grid_session(
    conversation: Factory, grid: Grid
) -> None:
    a = conversation("same-key")
    results = await asyncio.gather(
        ab(a, "open", PAGE.format(title="one")), ab(a, "open", PAGE.format(title="two"))
    )
    assert all(not r.is_error for r in results), [r.text for r in results]
    await asyncio.sleep(0.5)
    held = _owners(grid)
    assert len(held) == 1, f"two grid sessions for one engine session: {held}"


# --- F12: a grid behind basic auth: credentials and attaching -------------------------------


@pytest.mark.asyncio
async def test_grid_with_credentials(
    engine_env: EngineEnv, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import base64
    import urllib.request

    from tests.support import selenium_grid as sg

    real_argv, real_http = sg._argv, sg._http

    def argv(port: int, max_sessions: int, timeout_s: int) -> list[str]:
        auth = ["--username", "gridder", "--password", "pw-s3cret"]
        return [*real_argv(port, max_sessions, timeout_s), *auth]

    def http(
        method: str, url: str, body: object | None = None, *, timeout: float = sg.HTTP_TIMEOUT_S
    ) -> object:
        real_request = urllib.request.Request

        class Authed(real_request):  # type: ignore[misc,valid-type]
            def __init__(self, *x: object, **y: object) -> None:
                super().__init__(*x, **y)
                token = base64.b64encode(b"gridder:pw-s3cret").decode()
                self.add_header("Authorization", "Basic " + token)

        monkeypatch.setattr(urllib.request, "Request", Authed)
        try:
            return real_http(method, url, body, timeout=timeout)
        finally:
            monkeypatch.setattr(urllib.request, "Request", real_request)

    monkeypatch.setattr(sg, "_argv", argv)
    monkeypatch.setattr(sg, "_http", http)
    g = sg.start_grid(1, session_request_timeout_s=5)
    try:
        url = g.url.replace("http://", "http://gridder:pw-s3cret@")
        a = grid_tools(engine_env, tmp_path, url, "authed", wait_s=3)
        try:
            opened = await ab(a, "open", PAGE.format(title="auth"))
            assert "pw-s3cret" not in opened.text + json.dumps(opened.details)
            assert not opened.is_error, "a grid behind basic auth cannot be attached to"
        finally:
            await a.aclose()
        wrong = url.replace("pw-s3cret", "wrong-pw-s3cret")
        b = grid_tools(engine_env, tmp_path, wrong, "wrong", wait_s=3, state="state2")
        try:
            refused = await ab(b, "open", PAGE.format(title="auth"))
            assert "s3cret" not in refused.text + json.dumps(refused.details)
        finally:
            await b.aclose()
    finally:
        await asyncio.sleep(0.5)
        g.stop()


# --- F2b: SIGTERM of an HTTP server while a call's grid browser starts -----------------------


@pytest.mark.asyncio
async def test_sigterm_during_session_create_leaves_no_grid_session(
    grid: Grid, engine_env: EngineEnv, tmp_path: Path
) -> None:
    from tests.support.mcp_server import ab as mcp_ab
    from tests.support.mcp_server import http_client, http_server, serve_env

    env = serve_env(
        engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_CONFIG=str(_config(tmp_path, 3))
    )
    try:
        with http_server(env, "--grid-url", grid.url) as server:
            assert server.url is not None
            clients = contextlib.AsyncExitStack()
            try:
                client = await clients.enter_async_context(http_client(server.url))
                task = asyncio.create_task(mcp_ab(client, "open", PAGE.format(title="T")))
                await asyncio.sleep(1.0)  # session start, MCP init and status done; POST in flight
                assert await asyncio.to_thread(server.stop) == 0
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
            finally:
                with contextlib.suppress(BaseException):
                    await clients.aclose()
        await asyncio.sleep(3.0)
        left = _owners(grid)
        assert left == {}, f"grid sessions left after the server stopped: {left}"
    finally:
        _wipe(grid)
