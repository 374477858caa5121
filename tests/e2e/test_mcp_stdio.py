"""End to end over stdio: the official MCP client spawns `agent-browser-tools serve`.

Each test starts its own server process (so its own conversation and managed browser) on the
module's private engine socket dir, and checks that the browser is closed once the server has
gone (stdin EOF or SIGTERM). The cancel test comes first on purpose: the engine daemon finishes
a cancelled `wait` on its own, and the other tests overlap that.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.subscriptions import ToolsListChanged

from tests.e2e import scenarios
from tests.support.fixture_server import FixtureServer
from tests.support.mcp_server import (
    ab,
    details_of,
    eventually,
    live_sessions,
    serve_env,
    server_pids,
    stdio_client,
    text_of,
)
from tests.support.real_engine import EngineEnv, track_socket_dir

pytestmark = pytest.mark.real_engine

CLOSE_WINDOW_S = 15.0


@pytest.fixture
def env(engine_env: EngineEnv, tmp_path: Path) -> dict[str, str]:
    track_socket_dir(engine_env.socket_dir)
    return serve_env(engine_env, tmp_path / "state")


async def assert_closed(socket_dir: Path, session: str) -> None:
    gone = await eventually(lambda: session not in live_sessions(socket_dir), CLOSE_WINDOW_S)
    assert gone, f"managed session {session} still has a live engine daemon"


async def test_cancelling_a_call_kills_its_engine_child(
    env: dict[str, str], fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    async with stdio_client(env) as client:
        await scenarios.cancel_kills_engine_child(client, fixture_site, engine_env.socket_dir)


async def test_browse_over_stdio_and_close_on_eof(
    env: dict[str, str], fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    async with stdio_client(env) as client:
        await scenarios.check_listing(client)
        session = await scenarios.browse(client, fixture_site)
    await assert_closed(engine_env.socket_dir, session)


async def test_sigterm_closes_the_managed_browser(
    env: dict[str, str], fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    state_dir = Path(env["AGENT_BROWSER_TOOLS_STATE_DIR"])
    async with stdio_client(env, "--conversation", "sigterm-test") as client:
        opened = await ab(client, "open", fixture_site.url("page-b.html"))
        assert not opened.is_error, text_of(opened)
        session = details_of(opened)["sessionName"]
        assert session in live_sessions(engine_env.socket_dir)
        (pid,) = server_pids(state_dir)
        os.kill(pid, signal.SIGTERM)
        assert await eventually(lambda: not server_pids(state_dir), timeout=CLOSE_WINDOW_S)
    await assert_closed(engine_env.socket_dir, session)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_enabling_an_unavailable_capability_changes_nothing(
    env: dict[str, str], mode: str
) -> None:
    messages: list[Any] = []
    async with stdio_client(env, scenarios.ALLOW_ALWAYS_ON, mode=mode, messages=messages) as c:
        if mode == "legacy":
            await scenarios.enable_unavailable(c, messages)
            return
        assert c.protocol_version == "2026-07-28"  # the per-request era, no handshake
        async with c.listen(tools_list_changed=True) as subscription:
            await scenarios.enable_unavailable(c, messages)
            with anyio.move_on_after(0.5) as waited:
                async for event in subscription:
                    raise AssertionError(f"unexpected {event!r}")
            assert waited.cancelled_caught


async def test_enabling_qa_announces_the_list_change(env: dict[str, str]) -> None:
    messages: list[Any] = []
    async with stdio_client(env, messages=messages) as client:
        await scenarios.enable_qa(client, messages)


async def test_enabling_qa_announces_the_list_change_on_a_listen_stream(
    env: dict[str, str],
) -> None:
    async with stdio_client(env, mode="auto") as client:
        async with client.listen(tools_list_changed=True) as subscription:
            result = await client.call_tool("agent_browser_tools", {"enable": ["qa"]})
            assert not result.is_error, text_of(result)
            with anyio.fail_after(5.0):
                event = await subscription.__anext__()
            assert isinstance(event, ToolsListChanged)
        names = {t.name for t in (await client.list_tools()).tools}
        assert "agent_browser_qa" in names


async def test_sigkilled_server_resumes_the_conversation_and_old_refs_stay_stale(
    env: dict[str, str], fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    """Snapshot, navigate, SIGKILL the server, restart it on the same conversation: the old
    ref is still refused and the page target is the real one (known, never wrong)."""
    state_dir = Path(env["AGENT_BROWSER_TOOLS_STATE_DIR"])
    with anyio.move_on_after(60):  # the killed client may not exit cleanly: bound it
        async with stdio_client(env, "--conversation", "restart-test") as client:
            await ab(client, "open", fixture_site.url("form.html"))
            snap = details_of(await ab(client, "snapshot", "-i"))
            old_ref = next(
                "@" + ref
                for ref, info in snap["refSnapshot"]["refs"].items()
                if info.get("role") == "textbox"
            )
            moved = await ab(client, "open", fixture_site.url("page-a.html"))
            session = details_of(moved)["sessionName"]
            (pid,) = server_pids(state_dir)
            os.kill(pid, signal.SIGKILL)
            assert await eventually(lambda: not server_pids(state_dir), timeout=CLOSE_WINDOW_S)
    assert session in live_sessions(engine_env.socket_dir), "SIGKILL cannot close the browser"
    async with stdio_client(env, "--conversation", "restart-test") as client:
        stale = await ab(client, "fill", old_ref, "x")
        assert stale.is_error and details_of(stale)["failureCategory"] == "stale-ref"
        url = details_of(await ab(client, "get", "url"))
        assert url["data"]["url"] == fixture_site.url("page-a.html")
        assert url["sessionName"] == session
    await assert_closed(engine_env.socket_dir, session)


@pytest.mark.parametrize("key", [None, "EXA_API_KEY", "BRAVE_API_KEY"])
async def test_web_search_is_listed_only_with_a_credential(
    env: dict[str, str], key: str | None
) -> None:
    clean = {k: v for k, v in env.items() if k not in ("EXA_API_KEY", "BRAVE_API_KEY")}
    if key is not None:
        clean[key] = "test-key-not-real-123456"
    async with stdio_client(clean) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert ("agent_browser_web_search" in names) is (key is not None)


async def test_client_roots_are_file_roots(
    env: dict[str, str], fixture_site: FixtureServer, tmp_path: Path
) -> None:
    for name in ("client-root", "sibling"):
        (tmp_path / name).mkdir()
    async with stdio_client(env, roots=[tmp_path / "client-root"]) as client:
        await scenarios.client_roots_confine_files(client, fixture_site, tmp_path)
