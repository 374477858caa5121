"""Nothing leaks and nothing lies after a conversation ends (real engine and Chromium).

A conversation whose every call failed still launched a daemon and a browser: `aclose` must
close them. A conversation resumed after a normal close must know its browser is gone, refuse
old refs with that reason, and name a reopen call that works when followed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.leftovers import baseline, left_after_exit, started_here
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, ref_for, tools_settings

pytestmark = pytest.mark.real_engine


@pytest.mark.parametrize("blocked", [False, True], ids=["unreachable", "blocked-domain"])
async def test_a_conversation_whose_calls_all_failed_leaves_nothing_running(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path, blocked: bool
) -> None:
    env: dict[str, str] = {}
    url = "http://127.0.0.1:1/"
    if blocked:
        config = tmp_path / "operator.toml"
        config.write_text('[browser]\nallowed_domains = ["example.invalid"]\n')
        env["AGENT_BROWSER_TOOLS_CONFIG"] = str(config)
        url = fixture_site.url("/form.html")
    before = baseline()
    settings = tools_settings(engine_env, tmp_path / "state", **env)
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    try:
        failed = await ab(tools, "open", url)
        assert failed.is_error, failed.text
        started = started_here(before, engine_env.socket_dir)
        assert any(p.kind == "engine" for p in started), "the failed call launched a daemon"
    finally:
        await tools.aclose()
    assert left_after_exit(before, engine_env.socket_dir) == []


async def test_a_resumed_conversation_knows_its_browser_was_closed(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    before = baseline()
    settings = tools_settings(engine_env, tmp_path / "state")
    page = fixture_site.url("/form.html")
    async with BrowserTools(settings=settings, cwd=tmp_path, conversation_id="closed-1") as first:
        assert not (await ab(first, "open", page)).is_error
        snapshot = await ab(first, "snapshot", "-i")
        ref = ref_for(snapshot, "textbox", "Full name")
    assert left_after_exit(before, engine_env.socket_dir) == []

    resumed = BrowserTools(settings=settings, cwd=tmp_path, conversation_id="closed-1")
    try:
        click = await ab(resumed, "click", ref)
        assert click.details["failureCategory"] == "stale-ref", click.text
        assert click.details["staleRef"]["reason"] == "browser-closed"
        assert "The browser is closed" in click.text
        (action,) = click.details["nextActions"]
        assert action["params"]["args"] == ["open", page]
        assert started_here(before, engine_env.socket_dir) == [], "nothing sent"

        reopened = await resumed.call("agent_browser", action["params"])
        assert not reopened.is_error, reopened.text
        fresh = await ab(resumed, "snapshot", "-i")
        filled = await ab(resumed, "fill", ref_for(fresh, "textbox", "Full name"), "Ada")
        assert not filled.is_error, filled.text
    finally:
        await resumed.aclose()
    assert left_after_exit(before, engine_env.socket_dir) == []
