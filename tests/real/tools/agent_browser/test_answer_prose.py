"""What the model reads after `find`, a confirmed action and `close`, on the real engine
(0.39.4): one sentence of ours, never the engine's JSON, its marker selector or `launchHash`
(the fake-engine walk over every captured answer is `tests/fake/.../test_prose_walk.py`)."""

from __future__ import annotations

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine

INTERNALS = ('{"', "launchHash", "data-agent-browser-located", "lifecycle", "restoreStatus")


def _prose(result: ToolResult, line: str) -> None:
    assert not result.is_error, result.text
    assert line in result.text.splitlines(), result.text
    assert not [n for n in INTERNALS if n in result.text], result.text


async def test_find_and_close_answer_in_prose(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    assert not (await ab(browser_tools, "open", fixture_site.url("/form.html"))).is_error
    filled = await ab(browser_tools, "find", "label", "Full name", "fill", "Ada")
    _prose(filled, 'Filled the field labelled "Full name".')
    assert (await ab(browser_tools, "get", "value", "#full-name")).details["data"]["value"] == (
        "Ada"
    )
    clicked = await ab(browser_tools, "find", "text", "Subscribe", "click")
    _prose(clicked, 'Clicked the element found by text "Subscribe".')
    _prose(await ab(browser_tools, "close"), "Closed the browser session.")


async def test_a_confirmed_action_says_what_it_approved_and_what_it_did(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    gate = ["--session", "prose-confirm", "--confirm-actions", "click"]
    try:
        assert not (await ab(browser_tools, *gate, "open", fixture_site.url("/form.html"))).is_error
        pending = await ab(browser_tools, *gate, "click", "#subscribe")
        assert pending.details["failureCategory"] == "confirmation-required", pending.text
        action = next(
            a for a in pending.details["nextActions"] if a["id"] == "confirm-pending-action"
        )
        confirmed = await browser_tools.call("agent_browser", action["params"])
        _prose(confirmed, "Approved `click`; it ran: Clicked #subscribe.")
        json_answer = await ab(browser_tools, *gate, "--json", "is", "checked", "#subscribe")
        assert '"checked": true' in json_answer.text, "caller --json keeps the structured data"
    finally:
        closed = await ab(browser_tools, *gate, "close")
    _prose(closed, "Closed the browser session.")
