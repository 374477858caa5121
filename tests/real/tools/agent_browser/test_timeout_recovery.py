"""A timed-out call's suggested retry works when followed, on the real engine."""

from __future__ import annotations

import asyncio
import json
import time

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


async def test_a_batch_stopped_on_its_third_step_reports_the_first_two_and_retries_the_rest(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """The engine prints a batch's answer only at its end, so a slow step runs as its own
    segment: when the watchdog stops it, steps 1-2 are known done, and the retry payload
    holds step 3 on (never the finished `open`)."""
    page = fixture_site.url("/form.html")
    ready_at = int(time.time() * 1000) + 5_000  # step 3 can only finish after this moment
    rows = [
        ["open", page],
        ["get", "title"],
        ["wait", "--fn", f"Date.now() > {ready_at}"],
        ["get", "url"],
    ]
    stopped = await ab(browser_tools, "batch", stdin=json.dumps(rows), timeoutMs=3_000)
    assert stopped.details["failureCategory"] == "timeout", stopped.text
    progress = stopped.details["timeoutPartialProgress"]
    assert [s["status"] for s in progress["steps"]] == ["done", "done", "timed-out", "not-run"]
    assert progress["completedSteps"] == 2 and progress["pageReached"] == page

    actions = {a["id"]: a for a in stopped.details["nextActions"]}
    look = await browser_tools.call(
        "agent_browser", actions["verify-page-target-after-timeout"]["params"]
    )
    assert not look.is_error, look.text
    retry = actions["retry-remaining-batch-steps"]["params"]
    assert json.loads(retry["stdin"]) == rows[2:]
    while time.time() * 1000 < ready_at:  # the retry budget covers the wait; keep it short
        await asyncio.sleep(0.2)
    finished = await browser_tools.call("agent_browser", retry)
    assert not finished.is_error, finished.text
    assert finished.details["batchSteps"][-1]["result"]["url"] == page
