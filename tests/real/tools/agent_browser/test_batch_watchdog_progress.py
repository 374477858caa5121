"""A batch the watchdog stops in any step reports what finished, where the page is, and the
retry of what never ran, on the real engine (one engine call per step: `stepwise`).

The engine's own action timeout is 6 s here (25 s in production), so the stopped step ends
soon after the watchdog stop and the session is usable again within the test.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, tools_settings

pytestmark = pytest.mark.real_engine

ENGINE_ACTION_MS = "6000"


@pytest_asyncio.fixture
async def quick_tools(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[BrowserTools]:
    """A conversation whose engine gives up on a stuck action after 6 s; closed at teardown."""
    settings = tools_settings(
        engine_env, tmp_path / "state", AGENT_BROWSER_DEFAULT_TIMEOUT=ENGINE_ACTION_MS
    )
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    try:
        yield tools
    finally:
        await tools.aclose()


def _progress(stopped: ToolResult, statuses: list[str]) -> dict[str, Any]:
    assert stopped.details["failureCategory"] == "timeout", stopped.text
    progress: dict[str, Any] = stopped.details["timeoutPartialProgress"]
    assert [s["status"] for s in progress["steps"]] == statuses, progress
    assert "Timeout partial progress" in stopped.text and "Page now" in stopped.text
    return progress


def _actions(result: ToolResult) -> dict[str, dict[str, Any]]:
    return {a["id"]: a for a in result.details["nextActions"]}


async def test_a_batch_stuck_in_an_eval_reports_the_steps_before_it_and_the_live_page(
    quick_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Steps 1-2 done, the eval timed out, 4-5 never sent; the page is read past the busy
    engine; the retry holds only steps 4-5 and runs once the engine frees."""
    page = fixture_site.url("/form.html")
    rows = [
        ["open", page],
        ["get", "title"],
        ["eval", "new Promise(() => {})"],
        ["get", "url"],
        ["get", "title"],
    ]
    started = time.monotonic()
    stopped = await ab(quick_tools, "batch", "--bail", stdin=json.dumps(rows), timeoutMs=4_000)
    assert time.monotonic() - started < 8, "the page read after the stop must be quick"
    progress = _progress(stopped, ["done", "done", "timed-out", "not-run", "not-run"])
    assert progress["completedSteps"] == 2 and progress["timedOutStep"] == 3
    assert progress["livePage"] == {
        "url": page,
        "title": "Profile Form",
        "readFrom": "browser-devtools",
    }
    assert "step 3" in progress["engineBusy"]
    retry = _actions(stopped)["retry-remaining-batch-steps"]
    assert json.loads(retry["params"]["stdin"]) == rows[3:]
    assert "Step 3 may have acted" in retry["safety"]

    look = await quick_tools.call(
        "agent_browser", _actions(stopped)["verify-page-target-after-timeout"]["params"]
    )
    assert not look.is_error, look.text  # waits for the engine to give up on the eval
    finished = await quick_tools.call("agent_browser", retry["params"])
    assert not finished.is_error, finished.text
    assert finished.details["batchSteps"][0]["result"]["url"] == page


async def test_a_batch_stuck_behind_a_click_that_opened_a_dialog_names_the_dialog(
    quick_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Without auto-dismissed dialogs the engine's click answers at once (`dialogOpened`)
    and the next step waits on the `alert`: steps 1-2 done, step 3 timed out, step 4 never
    sent. The page is still read (title and URL), the dialog is named with its recovery,
    and after `dialog accept` the retry (a read: from step 3) runs."""
    page = fixture_site.url("/dialogs.html")
    opened = await ab(quick_tools, "--no-auto-dialog", "open", page)
    assert not opened.is_error, opened.text
    rows = [["get", "title"], ["click", "#alert"], ["get", "url"], ["get", "title"]]
    stopped = await ab(
        quick_tools, "--no-auto-dialog", "batch", "--bail", stdin=json.dumps(rows), timeoutMs=2_500
    )
    progress = _progress(stopped, ["done", "done", "timed-out", "not-run"])
    assert progress["livePage"]["url"] == page and progress["livePage"]["title"] == "Dialogs"
    assert progress["dialogOpenedAtStep"] == 2
    assert "Step 2 reported a JavaScript dialog opening" in stopped.text
    actions = _actions(stopped)
    retry = actions["retry-remaining-batch-steps"]["params"]
    assert json.loads(retry["stdin"]) == rows[2:]
    assert actions["inspect-dialog-after-timeout"]["params"]["args"][-2:] == ["dialog", "status"]

    # waits until the engine gives up on step 3 (~30 s for a read stuck behind a dialog)
    accepted = await ab(quick_tools, "--no-auto-dialog", "dialog", "accept", timeoutMs=45_000)
    assert not accepted.is_error, accepted.text
    finished = await quick_tools.call("agent_browser", retry)
    assert not finished.is_error, finished.text
    assert finished.details["batchSteps"][0]["result"]["url"] == page


async def test_a_batch_stuck_in_a_wait_retries_from_the_wait(
    quick_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """A wait cannot act: the retry starts at the wait itself, and the live page is named."""
    page = fixture_site.url("/clean.html")
    ready_at = int(time.time() * 1000) + 4_000
    rows = [["open", page], ["wait", "--fn", f"Date.now() > {ready_at}"], ["get", "title"]]
    stopped = await ab(quick_tools, "batch", "--bail", stdin=json.dumps(rows), timeoutMs=2_500)
    progress = _progress(stopped, ["done", "timed-out", "not-run"])
    assert progress["livePage"]["url"] == page and progress["livePage"]["title"] == "Clean Page"
    retry = _actions(stopped)["retry-remaining-batch-steps"]["params"]
    assert json.loads(retry["stdin"]) == rows[1:]
    look = await quick_tools.call(
        "agent_browser", _actions(stopped)["verify-page-target-after-timeout"]["params"]
    )
    assert not look.is_error, look.text
    finished = await quick_tools.call("agent_browser", retry)
    assert not finished.is_error, finished.text
    assert finished.details["batchSteps"][-1]["result"]["title"] == "Clean Page"
