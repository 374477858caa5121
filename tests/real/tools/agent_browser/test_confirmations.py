"""`--confirm-actions` on the real engine: the setting is part of the daemon's identity.

Measured on 0.39.4: a later call (or a wrapper helper) without the flag makes the engine
replace the daemon, so the browser comes back blank and the pending confirmation is gone. The
wrapper repeats the session's setting on every call and helper; the offered `confirm` then
runs the click on the same page.
"""

from __future__ import annotations

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab, ref_for

pytestmark = pytest.mark.real_engine


async def test_a_pending_click_confirmed_through_the_next_action_runs_on_the_same_page(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    page = fixture_site.url("/form.html")
    assert not (await ab(browser_tools, "--confirm-actions", "click", "open", page)).is_error
    snapshot = await ab(browser_tools, "snapshot", "-i")
    assert not snapshot.is_error, snapshot.text
    assert "--confirm-actions" in snapshot.details["effectiveArgs"]

    click = await ab(browser_tools, "click", ref_for(snapshot, "button", "Submit"))
    assert click.details["failureCategory"] == "confirmation-required", click.text
    confirm = next(a for a in click.details["nextActions"] if a["id"] == "confirm-pending-action")
    confirmed = await browser_tools.call("agent_browser", confirm["params"])
    assert not confirmed.is_error, confirmed.text
    assert confirmed.details["data"]["confirmed"] is True
    assert "launched" not in str(confirmed.details.get("warnings", "")), "no relaunch"

    after = await ab(browser_tools, "get", "title")
    assert after.details["data"]["title"] == "Form submitted", "the click ran on the page"
    assert (await ab(browser_tools, "get", "url")).details["data"]["url"] == page


async def test_adding_the_setting_to_a_running_browser_is_refused_before_it_blanks_the_page(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    page = fixture_site.url("/form.html")
    assert not (await ab(browser_tools, "open", page)).is_error
    refused = await ab(browser_tools, "--confirm-actions", "click", "get", "url")
    assert refused.details["failureCategory"] == "validation-error", refused.text
    assert "sessionMode" in refused.text
    assert (await ab(browser_tools, "get", "url")).details["data"]["url"] == page
