"""A saved state file opens only in the conversation that saved it, on a shared server (real).

On a server several conversations share, the server's execution dir stays a file root for
every conversation by absolute path, so a state file A saves there is a file B can name.
Encryption stops B reading it; the key being A's alone stops B loading it: B's `state load`
fails and B's browser never gets A's HttpOnly session cookie. A resumed A (same conversation
id, new browser) still loads its own file, and so does the single-user case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import SET_COOKIE_NAME, FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, tools_settings

pytestmark = pytest.mark.real_engine


def _server(engine_env: EngineEnv, tmp_path: Path, conversation: str | None = None) -> BrowserTools:
    served = tmp_path / "served"
    served.mkdir(exist_ok=True)
    return BrowserTools(
        settings=tools_settings(engine_env, tmp_path / "state"),
        cwd=served,
        shared_server=True,
        conversation_id=conversation,
    )


async def _ok(tools: BrowserTools, *args: str) -> ToolResult:
    result = await ab(tools, *args)
    assert not result.is_error, (args, result.text)
    return result


async def _cookie_names(tools: BrowserTools) -> set[str]:
    listed = await _ok(tools, "cookies")
    return {cookie["name"] for cookie in listed.details["data"]["cookies"]}


async def test_another_conversation_cannot_load_a_state_file_by_absolute_path(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    shared = tmp_path / "served" / "shared-state.json"
    a = _server(engine_env, tmp_path)
    b = _server(engine_env, tmp_path)
    try:
        await _ok(a, "open", fixture_site.url("set-cookie"))
        await _ok(a, "state", "save", str(shared))
        assert Path(f"{shared}.enc").is_file()

        await _ok(b, "open", fixture_site.url("form.html"))
        loaded = await ab(b, "state", "load", str(shared))
        assert loaded.is_error, loaded.text
        assert loaded.details["stateKeyHint"] in loaded.text, loaded.text
        assert SET_COOKIE_NAME not in await _cookie_names(b)
        batch = await ab(b, "batch", f"state load {shared}", "get url")
        assert SET_COOKIE_NAME not in await _cookie_names(b), batch.text
        # A third conversation names the file at launch (`--state`), its first call.
        c = _server(engine_env, tmp_path)
        try:
            launched = await ab(c, "--state", str(shared), "open", fixture_site.url("form.html"))
            if not launched.is_error:
                assert SET_COOKIE_NAME not in await _cookie_names(c), launched.text
        finally:
            await c.aclose()
    finally:
        await b.aclose()
        await a.aclose()

    resumed = _server(engine_env, tmp_path, a.conversation_id)
    try:
        await _ok(resumed, "open", fixture_site.url("form.html"))
        assert SET_COOKIE_NAME not in await _cookie_names(resumed)
        await _ok(resumed, "state", "load", str(shared))
        await _ok(resumed, "get", "url")  # a load leaves the page target unknown
        assert SET_COOKIE_NAME in await _cookie_names(resumed)
    finally:
        await resumed.aclose()
