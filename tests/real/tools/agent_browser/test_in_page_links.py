"""In-page links on the real engine (issue 33, item 5): a click on `#section` changed the URL
the model sees, so the result says so (never "application change unverified"), the refs of
the same document keep working, and the settle wait does not take a fragment move for a
navigation still on its way."""

from __future__ import annotations

import json
import time

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.tools.agent_browser.page import settle_scripts
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import RealSession
from tests.support.tools import ab, ref_for

pytestmark = pytest.mark.real_engine


async def test_an_in_page_link_click_says_the_url_changed(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    page = fixture_site.url("/anchors.html")
    await ab(browser_tools, "open", page)
    refs = await ab(browser_tools, "snapshot", "-i")
    started = time.monotonic()
    jumped = await ab(browser_tools, "click", ref_for(refs, "link", "Jump to section"))
    print(f"in-page link click: {time.monotonic() - started:.3f} s")  # not asserted
    assert not jumped.is_error, jumped.text
    assert "unverified" not in jumped.text
    assert f"-> URL changed to {page}#section (same page)" in jumped.text.splitlines()[0]
    assert jumped.details["navigationSummary"]["urlChanged"] is True
    assert jumped.details["navigationSummary"]["sameDocument"] is True
    summary = jumped.details["pageChangeSummary"]
    assert summary["observed"] is True and summary["changeType"] == "navigation"
    assert summary["url"] == f"{page}#section"
    settle = jumped.details["navigationSettle"]
    assert settle["navigated"] is False and settle["reason"] == "no-navigation", settle
    # A ref of the same document from the snapshot before the jump still works.
    back = await ab(browser_tools, "click", ref_for(refs, "link", "Back to top"))
    assert not back.is_error, back.text
    assert f"-> URL changed to {page}#top (same page)" in back.text
    assert (await ab(browser_tools, "get", "url")).details["data"]["url"] == f"{page}#top"


async def test_a_link_to_another_page_with_a_fragment_is_a_new_page(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """The fragment rule does not swallow a real navigation: another path is a new page and
    the refs from before it stay stale."""
    await ab(browser_tools, "open", fixture_site.url("/links.html"))
    refs = await ab(browser_tools, "snapshot", "-i")
    moved = await ab(browser_tools, "click", ref_for(refs, "link", "Page A details section"))
    assert not moved.is_error, moved.text
    assert '-> page "Page A" - ' in moved.text and "(url changed)" in moved.text
    assert "sameDocument" not in moved.details["navigationSummary"]
    assert moved.details["pageChangeSummary"]["summary"] == "click: now on Page A"
    stale = await ab(browser_tools, "click", ref_for(refs, "link", "Go to Page B"))
    assert stale.is_error and stale.details["failureCategory"] == "stale-ref", stale.text


def _settle_outcome(session: RealSession, since_ms: int) -> tuple[dict[str, object], float]:
    """Run the settle check as the direct tool's wait does, for an action that started at
    `since_ms`, with a skew so wide that the document counts as young by its `timeOrigin`
    alone: (the outcome it left, seconds the wait took)."""
    now = int(time.time() * 1000)
    check, _ = settle_scripts.wait_check(now, since_ms, 2_000, hold=False, skew=600_000)
    started = time.monotonic()
    session.ok("wait", "--fn", check, "--timeout", "5000")
    took = time.monotonic() - started
    raw = session.ok("eval", settle_scripts.OUTCOME_JS)["result"]
    assert isinstance(raw, str), raw
    outcome: dict[str, object] = json.loads(raw)
    return outcome, took


def test_a_fragment_move_on_a_busy_page_loaded_before_the_action_is_no_navigation(
    real_session: RealSession, fixture_site: FixtureServer
) -> None:
    """A document that had finished loading before the action is not the action's new page,
    however close its start was (the case a fast `open` then `#anchor` click hit): the wait
    ends at once instead of waiting for a DOM that never goes quiet."""
    real_session.ok("open", fixture_site.url("/anchors.html?busy"))
    real_session.ok("wait", "300")  # the counter ticks: the DOM is never quiet
    since = int(time.time() * 1000)
    real_session.ok("click", "a[href='#section']")
    outcome, took = _settle_outcome(real_session, since)
    print(f"settle wait after the fragment move: {took:.3f} s")  # not asserted
    assert outcome["navigated"] is False and outcome["settled"] is True, outcome
    assert outcome["reason"] == "no-navigation", outcome
    assert real_session.ok("get", "url")["url"].endswith("/anchors.html?busy#section")


def test_a_document_still_loading_after_the_action_is_still_its_new_page(
    real_session: RealSession, fixture_site: FixtureServer
) -> None:
    """The other side of the rule: a page the action opened had not loaded before it, so the
    check still waits for it (and, the DOM never going quiet, says so at the deadline)."""
    real_session.ok("open", fixture_site.url("/anchors.html"))
    since = int(time.time() * 1000)
    real_session.ok("click", "a[href='/anchors.html']")  # a new document at the same URL
    outcome, _ = _settle_outcome(real_session, since)
    assert outcome["navigated"] is True, outcome
