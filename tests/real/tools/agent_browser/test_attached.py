"""A browser attached over CDP is re-read before page reads (real engine, real Chromium).

The browser is one this test starts itself with `--remote-debugging-port=0`, as a user's own
Chrome would be; the wrapper attaches with `--cdp PORT` (an operator-allowed flag). Its tab is
then moved by a second engine client on the same session (as the user's terminal could) and
the resumed conversation must notice before reading or acting with old refs.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.state.models import SessionKey
from tests.support.fixture_server import FixtureServer
from tests.support.own_chromium import own_chromium
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, ref_for, tools_settings

pytestmark = pytest.mark.real_engine


@pytest.fixture
def debug_port(engine_env: EngineEnv, tmp_path: Path) -> Iterator[int]:
    """A headless Chromium of the test's own with an OS-chosen DevTools port."""
    with own_chromium(engine_env, tmp_path / "own-chrome") as (_chrome, port):
        yield port


async def test_an_attached_tab_moved_outside_is_detected_after_resume(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path, debug_port: int
) -> None:
    form, other = fixture_site.url("/form.html"), fixture_site.url("/clean.html")
    settings = tools_settings(
        engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS="--cdp"
    )
    first = BrowserTools(settings=settings, cwd=tmp_path, conversation_id="attached-1")
    resumed: BrowserTools | None = None
    try:
        opened = await ab(first, "--cdp", str(debug_port), "open", form)
        assert not opened.is_error, opened.text
        assert opened.details["attachedBrowserSession"] is True
        snapshot = await ab(first, "snapshot", "-i")
        assert snapshot.details["attachedBrowserSession"] is True
        ref = ref_for(snapshot, "textbox", "Full name")
        session = opened.details["sessionName"]

        outside = subprocess.run(
            [first.runtime.engine.path, "--session", session, "--json", "open", other],
            env=first.runtime.env_for(SessionKey(session=session)),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert outside.returncode == 0, outside.stderr

        # A server killed and restarted resumes the conversation (the first never closed):
        # the attachment comes from the journal.
        resumed = BrowserTools(settings=settings, cwd=tmp_path, conversation_id="attached-1")
        read = await ab(resumed, "get", "title")
        assert not read.is_error, read.text
        assert read.details["attachedBrowserSession"] is True
        assert any("moved to" in w and other in w for w in read.details["warnings"]), read.text
        fill = await ab(resumed, "fill", ref, "Ada")
        assert fill.details["failureCategory"] == "stale-ref", fill.text
        assert "outside this conversation" in fill.text
    finally:
        await (resumed or first).aclose()


async def test_a_blank_tab_that_took_focus_is_not_read_as_the_page(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Another client opened a blank tab on the caller's session (as a restored or stray tab
    would take focus): the next read re-selects the tab still on the recorded page."""
    form = fixture_site.url("/form.html")
    session = "blank-steal"
    try:
        assert not (await ab(browser_tools, "--session", session, "open", form)).is_error
        rt = browser_tools.runtime
        outside = subprocess.run(
            [rt.engine.path, "--session", session, "--json", "tab", "new"],
            env=rt.env_for(SessionKey(session=session)),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert outside.returncode == 0, outside.stderr
        read = await ab(browser_tools, "--session", session, "get", "title")
        assert not read.is_error, read.text
        assert read.details["data"]["title"] == "Profile Form", read.text
        assert any("re-selected tab" in w for w in read.details["warnings"]), read.text
        url = await ab(browser_tools, "--session", session, "get", "url")
        assert url.details["data"]["url"] == form
    finally:
        await ab(browser_tools, "--session", session, "close")


async def test_a_tab_switch_in_an_attached_browser_is_reported_not_undone(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path, debug_port: int
) -> None:
    """Someone opened (and focused) another tab in the attached browser: the wrapper does not
    switch back on its own; it says where the recorded page is and how to select it."""
    form = fixture_site.url("/form.html")
    settings = tools_settings(
        engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS="--cdp"
    )
    tools = BrowserTools(settings=settings, cwd=tmp_path, conversation_id="attached-switch")
    try:
        opened = await ab(tools, "--cdp", str(debug_port), "open", form)
        assert not opened.is_error, opened.text
        session = opened.details["sessionName"]
        outside = subprocess.run(
            [tools.runtime.engine.path, "--session", session, "--json", "tab", "new"],
            env=tools.runtime.env_for(SessionKey(session=session)),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert outside.returncode == 0, outside.stderr
        read = await ab(tools, "get", "title")
        assert not read.is_error, read.text
        assert any("did not switch tabs" in w for w in read.details["warnings"]), read.text
        actions = {a["id"]: a["params"] for a in read.details["nextActions"]}
        still = await ab(tools, "get", "url")
        assert still.details["data"]["url"] != form, "the user's tab stays selected"
        back = await tools.call("agent_browser", actions["select-recorded-tab"])
        assert not back.is_error, back.text
        url = await ab(tools, "get", "url")
        assert url.details["data"]["url"] == form, url.text
    finally:
        await tools.aclose()
