"""`fill` on a button ref is refused before the engine sees it (real engine and Chromium).

Without the guard, engine 0.39.4 answers `fill <button ref> text` with success, so the model
would believe a field holds text it never got."""

from __future__ import annotations

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab, ref_for

pytestmark = pytest.mark.real_engine


async def test_fill_on_a_button_is_refused_and_the_offered_snapshot_finds_the_field(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    assert not (await ab(browser_tools, "open", fixture_site.url("/form.html"))).is_error
    snap = await ab(browser_tools, "snapshot", "-i")
    submit = ref_for(snap, "button", "Submit")
    refused = await ab(browser_tools, "fill", submit, "Ada")
    assert refused.details["failureCategory"] == "validation-error", refused.text
    assert refused.details["notEditable"]["role"] == "button"
    assert (
        "agentBrowserStarted" not in refused.details or not refused.details["agentBrowserStarted"]
    )
    title = await ab(browser_tools, "get", "title")
    assert title.details["data"]["title"] != "Form submitted", "nothing was pressed"
    (action,) = refused.details["nextActions"]
    fresh = await browser_tools.call("agent_browser", action["params"])
    field = next(
        "@" + ref
        for ref, info in fresh.details["refSnapshot"]["refs"].items()
        if info.get("role") == "textbox"
    )
    filled = await ab(browser_tools, "fill", field, "Ada")
    assert not filled.is_error, filled.text
