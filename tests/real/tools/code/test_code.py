"""`agent_browser_code` on the real engine and Chromium against the fixture site.

Each test gets its own `Runtime` (one conversation, one managed browser) whose engine
daemons live in the module's private socket dir; the managed browser is closed at teardown
through `close_owned`, which only knows it because inner calls took the ordinary ownership
path.
"""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.planning.sessions import managed_base_name
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.models import SessionKey
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.agent_browser import close_owned
from agent_browser_tools.tools.code.spec import SPEC as CODE
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv, track_socket_dir

pytestmark = pytest.mark.real_engine


@pytest.fixture
async def rt(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[Runtime]:
    track_socket_dir(engine_env.socket_dir)
    env = {k: v for k, v in engine_env.env.items() if k != "AGENT_BROWSER_DOWNLOAD_PATH"}
    env["AGENT_BROWSER_TOOLS_STATE_DIR"] = str(tmp_path / "state")
    runtime = Runtime(Settings.load(env=env, cwd=tmp_path), cwd=tmp_path)
    try:
        yield runtime
    finally:
        closed = await close_owned(runtime)
        assert all(closed.values()), closed


async def cell(rt: Runtime, code: str, **extra: Any) -> ToolResult:
    return await CODE.call(rt, {"code": code, **extra})


async def direct(rt: Runtime, *args: str) -> ToolResult:
    result: ToolResult = await agent_browser.run(rt, {"args": list(args)})
    return result


async def test_a_cell_visits_three_pages_and_emits_their_titles(
    rt: Runtime, fixture_site: FixtureServer
) -> None:
    pages = [fixture_site.url(p) for p in ("page-a.html", "page-b.html", "links.html")]
    code = f"""
      const titles = [];
      for (const page of {pages!r}) {{
        const opened = await browser({{ args: ['open', page] }});
        if (!opened.success) throw new Error(opened.error);
        const title = await browser({{ args: ['get', 'title'] }});
        titles.push(title.data.title);
      }}
      emit(titles);
    """
    result = await cell(rt, code)
    assert not result.is_error, result.text
    assert result.details["data"] == ["Page A", "Page B", "Links"]
    assert result.details["codeRun"] == {
        "callCount": 6,
        "emitCount": 1,
        "failedCallCount": 0,
        "rejectedCallCount": 0,
        "timedOut": False,
        "aborted": False,
    }
    assert [row["args"][0] for row in result.details["codeSteps"]] == ["open", "get"] * 3
    managed = SessionKey(session=managed_base_name(rt.root_id))
    assert managed in rt.owned_sessions  # registered through the ordinary path
    target = rt.log.state.session(managed).target
    assert target is not None and target.url == pages[2]
    assert '"Page A"' in result.text


async def test_a_caught_inner_failure_is_still_listed(
    rt: Runtime, fixture_site: FixtureServer
) -> None:
    code = f"""
      await browser({{ args: ['open', {fixture_site.url("form.html")!r}] }});
      const clicked = await browser({{ args: ['click', '#does-not-exist'] }});
      const title = await browser({{ args: ['get', 'title'] }});
      emit({{ clicked: clicked.success, category: clicked.failureCategory,
              title: title.data.title }});
    """
    result = await cell(rt, code)
    assert not result.is_error, result.text
    assert result.details["data"] == {
        "clicked": False,
        "category": "selector-not-found",
        "title": "Profile Form",
    }
    assert result.details["codeRun"]["failedCallCount"] == 1
    failures = result.details["failures"]
    assert [(f["call"], f["args"], f["failureCategory"]) for f in failures] == [
        (2, ["click", "#does-not-exist"], "selector-not-found")
    ]
    assert "Element not found" in failures[0]["error"]
    assert "call 2 `click #does-not-exist`: selector-not-found" in result.text


async def test_navigation_in_a_cell_makes_old_refs_stale(
    rt: Runtime, fixture_site: FixtureServer
) -> None:
    opened = await direct(rt, "open", fixture_site.url("links.html"))
    assert not opened.is_error, opened.text
    snapshot = await direct(rt, "snapshot", "-i")
    assert not snapshot.is_error, snapshot.text
    old_ref = "@" + next(iter(snapshot.details["refSnapshot"]["refs"]))

    code = (
        f"return (await browser({{ args: ['open', {fixture_site.url('page-b.html')!r}] }})).success"
    )
    moved = await cell(rt, code)
    assert moved.details.get("data") is True, moved.text

    stale = await direct(rt, "click", old_ref)
    assert stale.is_error
    assert stale.details["failureCategory"] == "stale-ref", stale.details
    fresh = await direct(rt, "snapshot", "-i")
    assert not fresh.is_error
    assert fresh.details["sessionTabTarget"]["url"] == fixture_site.url("page-b.html")
    assert rt.log.state.pending_intents == {}


async def test_explicit_session_is_caller_owned(
    rt: Runtime, fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    name = f"code-{rt.conversation_id[:8]}"
    try:
        code = f"return (await browser({{ args: ['open', {fixture_site.url('page-a.html')!r}] }}))"
        result = await cell(rt, code + ".data.title", session=name)
        assert result.details["data"] == "Page A", result.text
        assert result.details["usedImplicitSession"] is False
        assert SessionKey(session=name) not in rt.owned_sessions
    finally:
        # The explicit session lives in the conversation's own socket dir.
        own = {**engine_env.env, "AGENT_BROWSER_SOCKET_DIR": str(rt.socket_dir(None))}
        subprocess.run(
            [str(engine_env.binary), "--json", "--session", name, "close"],
            env=own,
            capture_output=True,
            timeout=60,
            check=False,
        )
