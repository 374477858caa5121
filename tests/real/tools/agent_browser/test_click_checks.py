"""Clicks on the real engine: a dialog the click opened or that covers the target is reported
(`overlayBlockers`), a click that reached nothing fails (`clickDispatch`), and
`pageChangeSummary` says "unverified" only when nothing was seen. Each test follows the next
actions the result gives."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab, ref_for

pytestmark = pytest.mark.real_engine

UNVERIFIED = "Action dispatched; application change unverified."


def _action(result: ToolResult, action_id: str) -> dict[str, Any]:
    actions: list[dict[str, Any]] = result.details["nextActions"]
    return next(a for a in actions if a["id"] == action_id)


async def _follow(tools: BrowserTools, result: ToolResult, action_id: str) -> ToolResult:
    return await tools.call("agent_browser", _action(result, action_id)["params"])


async def _status(tools: BrowserTools) -> str:
    return str((await ab(tools, "get", "text", "#status")).details["data"]["text"])


async def test_a_click_that_opens_a_dialog_reports_the_overlay(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Same URL, success, and a dialog now covers the page: one probe snapshot finds it."""
    await ab(browser_tools, "open", fixture_site.url("/clicks.html"))
    refs = await ab(browser_tools, "snapshot", "-i")
    opened = await ab(browser_tools, "click", ref_for(refs, "button", "Subscribe"))
    assert not opened.is_error, opened.text
    blockers = opened.details["overlayBlockers"]
    (candidate,) = blockers["candidates"]
    assert candidate["name"] == "Close" and "inside the dialog" in candidate["reason"]
    assert candidate["ref"][1:] in blockers["snapshot"]["refs"]
    assert "Possible overlay blockers" in opened.text
    summary = opened.details["pageChangeSummary"]
    assert summary["observed"] is True and summary["changeType"] == "mutation"
    assert summary["nextActionIds"][0] == "inspect-overlay-state"
    assert UNVERIFIED not in opened.text
    inspected = await _follow(browser_tools, opened, "inspect-overlay-state")
    assert inspected.details["overlayBlockers"]["candidates"][0]["name"] == "Close"
    closed = await _follow(browser_tools, opened, "try-overlay-blocker-candidate-1")
    assert not closed.is_error, closed.text
    assert "overlayBlockers" not in closed.details
    counted = await ab(browser_tools, "click", "#count")
    assert not counted.is_error, counted.text
    assert await _status(browser_tools) == "1"


async def test_a_covered_ref_click_reports_the_overlay(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """The engine refuses a covered target; the result already names the dismiss control."""
    await ab(browser_tools, "open", fixture_site.url("/modal.html"))
    refs = await ab(browser_tools, "snapshot", "-i")
    blocked = await ab(browser_tools, "click", ref_for(refs, "button", "Buy now"))
    assert blocked.is_error and "covered by" in blocked.text
    assert blocked.details["nextActions"][0]["id"] == "inspect-overlay-state"
    (candidate,) = blocked.details["overlayBlockers"]["candidates"]
    assert candidate["name"] == "Close"
    inspected = await _follow(browser_tools, blocked, "inspect-overlay-state")
    assert not inspected.is_error, inspected.text
    dismissed = await _follow(browser_tools, blocked, "try-overlay-blocker-candidate-1")
    assert not dismissed.is_error, dismissed.text
    fresh = await ab(browser_tools, "snapshot", "-i")
    bought = await ab(browser_tools, "click", ref_for(fresh, "button", "Buy now"))
    assert not bought.is_error, bought.text
    assert await _status(browser_tools) == "bought"


async def test_a_click_that_reaches_nothing_is_a_dispatch_miss(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """The button flees when the pointer arrives, so the engine's press lands on the page
    behind it and reports success: the probe saw no event reach the button."""
    await ab(browser_tools, "open", fixture_site.url("/clicks.html"))
    refs = await ab(browser_tools, "snapshot", "-i")
    ref = ref_for(refs, "button", "Runaway")
    missed = await ab(browser_tools, "click", ref)
    assert missed.is_error and "Click dispatch diagnostic" in missed.text
    assert missed.details["failureCategory"] == "upstream-error"
    assert missed.details["clickDispatch"] == {
        "status": "no-native-event-observed",
        "reason": "native-click-produced-no-target-dom-event",
        "nativeEventCount": 0,
        "target": {"kind": "accessible", "refId": ref, "role": "button", "name": "Runaway"},
    }
    assert "overlayBlockers" not in missed.details
    assert _action(missed, "retry-click-after-dispatch-miss")["params"]["args"] == ["click", ref]
    assert await _status(browser_tools) == "0"
    inspected = await _follow(browser_tools, missed, "inspect-click-dispatch-miss")
    assert not inspected.is_error, inspected.text
    retried = await _follow(browser_tools, missed, "retry-click-after-dispatch-miss")
    assert not retried.is_error, retried.text
    assert await _status(browser_tools) == "caught"


async def test_an_xpath_click_that_reaches_nothing_names_its_selector(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/clicks.html"))
    missed = await ab(browser_tools, "click", "xpath=//button[@id='runaway']")
    assert missed.is_error, missed.text
    target = missed.details["clickDispatch"]["target"]
    assert target == {"kind": "xpath", "selector": "xpath=//button[@id='runaway']"}


async def test_unverified_is_said_only_when_nothing_was_seen(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """A click that changed the DOM is observed; one that changed nothing is unverified;
    a screenshot is an artifact; a batch rolls its steps up. A navigation and a mutation both
    offer `inspect-after-mutation`, and following it gives current refs."""
    opened = await ab(browser_tools, "open", fixture_site.url("/clicks.html"))
    assert opened.details["pageChangeSummary"]["nextActionIds"] == ["inspect-after-mutation"]
    refs = await _follow(browser_tools, opened, "inspect-after-mutation")
    counted = await ab(browser_tools, "click", ref_for(refs, "button", "Count"))
    summary = counted.details["pageChangeSummary"]
    assert summary["observed"] is True and "DOM mutations" in summary["summary"]
    assert summary["nextActionIds"] == ["inspect-after-mutation"]
    assert UNVERIFIED not in counted.text
    again = await _follow(browser_tools, counted, "inspect-after-mutation")
    assert ref_for(again, "button", "Nothing") == ref_for(refs, "button", "Nothing")
    idle = await ab(browser_tools, "click", ref_for(refs, "button", "Nothing"))
    assert not idle.is_error, idle.text
    assert idle.details["pageChangeSummary"]["observed"] is False
    assert UNVERIFIED in idle.text and "overlayBlockers" not in idle.details
    shot = await ab(browser_tools, "screenshot", str(tmp_path / "shot.png"))
    assert shot.details["pageChangeSummary"] == {
        "command": "screenshot",
        "changeType": "artifact",
        "observed": True,
        "artifactCount": 1,
        "savedFilePath": str(tmp_path / "shot.png"),
        "summary": "screenshot: 1 of 1 artifact(s) verified on disk.",
        "nextActionIds": [],
    }
    batch = await ab(browser_tools, "batch", stdin='[["click", "#noop"], ["get", "title"]]')
    assert batch.details["pageChangeSummary"]["observed"] is False
    assert batch.text.count("application change unverified (dispatch-only steps 1)") == 1
    moved = await ab(
        browser_tools, "batch", stdin=f'[["open", "{fixture_site.url("/page-b.html")}"]]'
    )
    landed = moved.details["pageChangeSummary"]
    assert landed["changeType"] == "navigation" and landed["observed"] is True
    assert "application change unverified" not in moved.text


async def test_a_click_that_landed_on_a_re_rendered_copy_is_not_failed(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """The button is replaced when the pointer arrives, so the marked element gets no event,
    yet the copy's handler acts: the click stays a success, unverified, with no retry that
    would act twice."""
    await ab(browser_tools, "open", fixture_site.url("/clicks.html"))
    refs = await ab(browser_tools, "snapshot", "-i")
    swapped = await ab(browser_tools, "click", ref_for(refs, "button", "Swap"))
    assert not swapped.is_error, swapped.text
    assert swapped.details["clickDispatch"]["status"] == "no-target-event-page-changed"
    assert "no trusted pointer or click event reached" in swapped.text
    ids = [a["id"] for a in swapped.details["nextActions"]]
    assert "retry-click-after-dispatch-miss" not in ids and "inspect-click-dispatch-miss" in ids
    assert await _status(browser_tools) == "swapped"


async def test_a_page_that_mutates_by_itself_gives_no_mutation_evidence(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """A ticking clock changes the DOM during every click: a click that did nothing stays
    unverified instead of counting the clock's ticks as its own change."""
    await ab(browser_tools, "open", fixture_site.url("/clicks-noisy.html"))
    refs = await ab(browser_tools, "snapshot", "-i")
    idle = await ab(browser_tools, "click", ref_for(refs, "button", "Nothing"))
    assert not idle.is_error, idle.text
    assert "clickDispatch" not in idle.details, "the button itself got the press"
    assert idle.details["pageChangeSummary"]["observed"] is False
    assert UNVERIFIED in idle.text


async def test_a_banner_that_was_already_there_is_not_claimed_as_the_clicks_doing(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """A persistent cookie dialog: shown as evidence with the model's own refs, the click
    stays unverified, and the session keeps the refs of the model's snapshot."""
    await ab(browser_tools, "open", fixture_site.url("/banner.html"))
    refs = await ab(browser_tools, "snapshot", "-i")
    idle = await ab(browser_tools, "click", ref_for(refs, "button", "Nothing"))
    assert not idle.is_error, idle.text
    blockers = idle.details["overlayBlockers"]
    (candidate,) = blockers["candidates"]
    assert blockers["preexisting"] is True
    assert candidate["ref"] == ref_for(refs, "button", "Accept all")
    assert idle.details["pageChangeSummary"]["observed"] is False
    assert UNVERIFIED in idle.text
    again = await ab(browser_tools, "click", ref_for(refs, "button", "Nothing"))
    assert not again.is_error, "the model's refs are still the session's latest"
