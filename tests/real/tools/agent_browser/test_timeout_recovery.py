"""A timed-out call's suggested retry works when followed, on the real engine."""

from __future__ import annotations

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine


async def test_the_suggested_retry_after_a_short_wait_budget_finishes(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """`wait 1500` stopped at 300 ms: the next action's budget covers 1500 ms and succeeds."""
    opened = await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    assert not opened.is_error, opened.text
    slow = await ab(browser_tools, "wait", "1500", timeoutMs=300)
    assert slow.details["failureCategory"] == "timeout", slow.text
    (retry,) = [a for a in slow.details["nextActions"] if a["id"] == "retry-with-longer-timeout"]
    assert retry["params"]["args"] == ["wait", "1500"]
    assert retry["params"]["timeoutMs"] > 1500
    followed = await browser_tools.call("agent_browser", retry["params"])
    assert not followed.is_error, followed.text
    assert followed.details["successCategory"] == "completed"
