"""A caller-owned tab moved by someone else is noticed before the next read (real engine).

The second client is the engine CLI itself on the same session and socket dir, as a user's
own `agent-browser --session NAME` in a terminal would be.
"""

from __future__ import annotations

import subprocess

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.state.models import SessionKey
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab, ref_for

pytestmark = pytest.mark.real_engine

SESSION = "drift-mine"


async def test_a_tab_navigated_by_another_client_is_detected_before_a_read(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    form, other = fixture_site.url("/form.html"), fixture_site.url("/clean.html")
    try:
        assert not (await ab(browser_tools, "--session", SESSION, "open", form)).is_error
        snapshot = await ab(browser_tools, "--session", SESSION, "snapshot", "-i")
        ref = ref_for(snapshot, "textbox", "Full name")

        rt = browser_tools.runtime
        outside = subprocess.run(
            [rt.engine.path, "--session", SESSION, "--json", "open", other],
            env=rt.env_for(SessionKey(session=SESSION)),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert outside.returncode == 0, outside.stderr

        read = await ab(browser_tools, "--session", SESSION, "get", "title")
        assert not read.is_error, read.text
        assert any("moved to" in w and other in w for w in read.details["warnings"]), read.text
        click = await ab(browser_tools, "--session", SESSION, "fill", ref, "Ada")
        assert click.details["failureCategory"] == "stale-ref", click.text
        assert "outside this conversation" in click.text
    finally:
        await ab(browser_tools, "--session", SESSION, "close")
