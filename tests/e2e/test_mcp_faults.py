"""Faults over the real MCP hosts (official SDK client, real engine and Chromium).

Every test ends with a count of the engine daemons and browsers that the server started and
that are still alive (it must be 0), and checks what the model was told: the failure category
in the visible text, and, where the tool offers next actions, that the first one works when a
client follows it exactly as given.

- A conversation whose first call fails still launched a daemon and a browser: ending the
  conversation (stdin EOF over stdio, session DELETE over HTTP) must close them, and over HTTP
  the server must keep serving its other conversations.
- A server SIGKILLed mid-call cannot close anything: the server resumed on the same
  conversation must refuse the old refs (the page target is unknown after an interrupted
  call), offer a recovery that works, and close the browser the killed server launched.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types as types
import pytest
from mcp import Client

from tests.support.fixture_server import FixtureServer
from tests.support.leftovers import Baseline, baseline, left_after_exit, started_here
from tests.support.mcp_server import (
    ab,
    details_of,
    engine_children,
    eventually,
    http_client,
    http_server,
    live_sessions,
    ref_in,
    serve_env,
    server_pids,
    stdio_client,
    text_of,
)
from tests.support.real_engine import EngineEnv, ProcInfo, track_socket_dir

pytestmark = pytest.mark.real_engine

UNREACHABLE = "http://127.0.0.1:1/"
BLOCKING_CONFIG = '[browser]\nallowed_domains = ["example.invalid"]\n'
SLOW_MS = 8000
"""How long the interrupted call runs: long enough to SIGKILL the server while it does."""
CONVERSATION_S = 120.0
"""Bound on one conversation (launch, a few calls, close)."""
KILL_S = 30.0
"""Bound on reaching the engine with the call to interrupt, and on the killed client ending."""
BROWSER = {"engine", "chromium"}
"""The process kinds of a launched browser: an engine daemon and Chromium."""


@pytest.fixture
def env(engine_env: EngineEnv, tmp_path: Path) -> dict[str, str]:
    track_socket_dir(engine_env.socket_dir)
    return serve_env(engine_env, tmp_path / "state")


@pytest.fixture
def errlog(tmp_path: Path) -> Iterator[TextIO]:
    """A file that takes the stdio servers' stderr (the SDK needs a real file)."""
    with (tmp_path / "server-stderr.log").open("w+") as log:
        yield log


def assert_no_traceback(log: TextIO | list[str]) -> None:
    """Nothing in the server's stderr (a file, or the lines `HttpServer` kept) is a traceback."""
    if isinstance(log, list):
        text = "\n".join(log)
    else:
        log.flush()
        log.seek(0)
        text = log.read()
    assert "Traceback" not in text, text


async def left_over(before: Baseline, socket_dir: Path) -> list[ProcInfo]:
    """Daemons and browsers started since `before` under `socket_dir` still alive once they
    had time to exit."""
    return await anyio.to_thread.run_sync(left_after_exit, before, socket_dir)


def assert_told(result: types.CallToolResult, *categories: str) -> dict[str, Any]:
    """The call failed with one of `categories`, and the visible text names it and the error."""
    details = details_of(result)
    assert result.is_error, text_of(result)
    category = details["failureCategory"]
    assert category in categories, details
    assert f"failureCategory: {category}" in text_of(result)
    assert str(details["error"]) in text_of(result)
    return details


def own_dir(socket_dir: Path, session: str) -> Path:
    """The conversation socket dir holding `session`'s daemon."""
    found = [pid.parent for pid in socket_dir.rglob(f"{session}.pid")]
    assert len(found) == 1, f"{session}: {found}"
    return found[0]


def launched(procs: list[ProcInfo]) -> set[str]:
    return {p.kind for p in procs}


# --- a first call that fails, then the conversation ends --------------------------------


async def test_stdio_failed_first_call_then_eof_leaves_nothing(
    env: dict[str, str], engine_env: EngineEnv, errlog: TextIO
) -> None:
    before = baseline()
    with anyio.fail_after(CONVERSATION_S):
        async with stdio_client(env, errlog=errlog) as client:
            assert_told(await ab(client, "open", UNREACHABLE), "upstream-error")
            started = started_here(before, engine_env.socket_dir)
            assert launched(started) >= BROWSER, started
    assert await left_over(before, engine_env.socket_dir) == []
    assert_no_traceback(errlog)


@pytest.mark.parametrize("blocked", [False, True], ids=["unreachable", "blocked-domain"])
async def test_http_failed_first_call_then_session_end_leaves_nothing_of_it(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path, blocked: bool
) -> None:
    """Another conversation keeps its browser and the server keeps serving it."""
    track_socket_dir(engine_env.socket_dir)
    extra, url, category = {}, UNREACHABLE, "upstream-error"
    if blocked:
        config = tmp_path / "operator.toml"
        config.write_text(BLOCKING_CONFIG)
        extra = {"AGENT_BROWSER_TOOLS_CONFIG": str(config)}
        url, category = fixture_site.url("form.html"), "policy-blocked"
    env = serve_env(engine_env, tmp_path / "state", **extra)
    with anyio.fail_after(2 * CONVERSATION_S), http_server(env) as server:
        assert server.url is not None
        async with http_client(server.url) as other:
            kept = await ab(other, "get", "url")  # launches its browser on a blank page
            assert not kept.is_error, text_of(kept)
            other_session = str(details_of(kept)["sessionName"])
            before = baseline()
            async with http_client(server.url) as client:
                details = assert_told(await ab(client, "open", url), category)
                mine = own_dir(engine_env.socket_dir, str(details["sessionName"]))
                started = started_here(before, mine)
                assert launched(started) >= BROWSER, started
            assert await left_over(before, mine) == []
            assert server.proc.poll() is None, server.log
            assert other_session in live_sessions(engine_env.socket_dir)
            assert text_of(await ab(other, "get", "url")) == text_of(kept)
        assert server.stop() == 0, server.log
    assert_no_traceback(server.log)


# --- the server SIGKILLed mid-call, then resumed -----------------------------------------


async def kill_server_mid_call(
    client: Client, state_dir: Path, socket_dir: Path, *args: str
) -> None:
    """Send `agent_browser ARGS`, SIGKILL the server once the engine runs it and its session
    has a live daemon, and check that the call never got an answer."""
    answers: list[object] = []

    async def call() -> None:
        try:
            answers.append(await ab(client, *args))
        except Exception as exc:  # the connection died under the call
            answers.append(exc)

    async with anyio.create_task_group() as tg:
        tg.start_soon(call)
        running = await eventually(
            lambda: engine_children(socket_dir, *args) and live_sessions(socket_dir), KILL_S
        )
        assert running, f"{args} never reached a live engine daemon"
        (pid,) = server_pids(state_dir)
        os.kill(pid, signal.SIGKILL)
        assert await eventually(lambda: not server_pids(state_dir), KILL_S)
        with anyio.move_on_after(KILL_S):
            while not answers:
                await anyio.sleep(0.1)
        tg.cancel_scope.cancel()
    assert not any(isinstance(a, types.CallToolResult) for a in answers), answers


async def test_sigkill_mid_call_then_resume_recovers_and_closes_the_browser(
    env: dict[str, str], fixture_site: FixtureServer, engine_env: EngineEnv, errlog: TextIO
) -> None:
    state_dir = Path(env["AGENT_BROWSER_TOOLS_STATE_DIR"])
    socket_dir = engine_env.socket_dir
    conversation = ("--conversation", "killed-mid-call")
    before = baseline()
    with anyio.fail_after(CONVERSATION_S):
        async with stdio_client(env, *conversation, errlog=errlog) as client:
            opened = await ab(client, "open", fixture_site.url("form.html"))
            assert not opened.is_error, text_of(opened)
            session = str(details_of(opened)["sessionName"])
            snap = details_of(await ab(client, "snapshot", "-i"))
            old_ref = ref_in(snap, "textbox", "Full name")
            await kill_server_mid_call(client, state_dir, socket_dir, "wait", str(SLOW_MS))
    assert session in live_sessions(socket_dir), "SIGKILL cannot close the browser"

    with anyio.fail_after(CONVERSATION_S):
        async with stdio_client(env, *conversation, errlog=errlog) as client:
            stale = await ab(client, "fill", old_ref, "Ada")
            details = assert_told(stale, "tab-drift", "stale-ref")
            assert details["sessionTabTargetUnknown"] is True, details
            first = details["nextActions"][0]
            params = first["params"]
            shown = f"- {first['id']}: {shlex.join(params['args'])} "
            shown += json.dumps({"stdin": params["stdin"]})
            assert shown in text_of(stale)  # the exact call, as the model reads it
            followed = await client.call_tool(first["tool"], first["params"])
            assert not followed.is_error, text_of(followed)
            fresh = details_of(await ab(client, "snapshot", "-i"))
            filled = await ab(client, "fill", ref_in(fresh, "textbox", "Full name"), "Ada")
            assert not filled.is_error, text_of(filled)
            assert details_of(filled)["sessionName"] == session  # the same browser, resumed
    assert await left_over(before, socket_dir) == []
    assert_no_traceback(errlog)


async def test_sigkill_during_the_first_call_then_resume_closes_its_browser(
    env: dict[str, str], fixture_site: FixtureServer, engine_env: EngineEnv, errlog: TextIO
) -> None:
    """The killed server journaled the first call's intent only; the resumed one owns the
    browser that call launched and closes it when its client leaves."""
    state_dir = Path(env["AGENT_BROWSER_TOOLS_STATE_DIR"])
    socket_dir = engine_env.socket_dir
    conversation = ("--conversation", "killed-first-call")
    slow = fixture_site.url(f"slow.html?ms={SLOW_MS}")
    before = baseline()
    with anyio.fail_after(CONVERSATION_S):
        async with stdio_client(env, *conversation, errlog=errlog) as client:
            await kill_server_mid_call(client, state_dir, socket_dir, "open", slow)
    # The cut-off call's engine child lives on and finishes launching the browser.
    up = await eventually(lambda: launched(started_here(before, socket_dir)) >= BROWSER, KILL_S)
    assert up, started_here(before, socket_dir)

    with anyio.fail_after(CONVERSATION_S):
        async with stdio_client(env, *conversation, errlog=errlog) as client:
            pass  # connect, then leave without a single request
    assert await left_over(before, socket_dir) == []
    assert_no_traceback(errlog)


# --- next actions on a failed first call ------------------------------------------------


@pytest.mark.parametrize("blocked", [False, True], ids=["unreachable", "blocked-domain"])
async def test_a_failed_first_call_offers_next_actions(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path, blocked: bool
) -> None:
    track_socket_dir(engine_env.socket_dir)
    extra, url = {}, UNREACHABLE
    if blocked:
        config = tmp_path / "operator.toml"
        config.write_text(BLOCKING_CONFIG)
        extra = {"AGENT_BROWSER_TOOLS_CONFIG": str(config)}
        url = fixture_site.url("form.html")
    env = serve_env(engine_env, tmp_path / "state", **extra)
    with anyio.fail_after(CONVERSATION_S):
        async with stdio_client(env) as client:
            failed = await ab(client, "open", url)
            actions = details_of(failed).get("nextActions")
            assert isinstance(actions, list) and actions, details_of(failed)
            followed = await client.call_tool(actions[0]["tool"], actions[0]["params"])
            assert not followed.is_error, text_of(followed)
