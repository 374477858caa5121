"""Settle after navigation on the real engine (issue 19, item 6): an action that starts a
navigation returns once the new page has loaded and its DOM went quiet, so the `snapshot -i`
taken right after the result is of the new page and lists the controls the next step needs.

The flow runs on `/slow/<page>?ms=400` (tests/support/fixture_server.py): every page answers
after 400 ms and every form POST answers 303 to its next page after another 400 ms, so the
engine's click returns long before the next document exists. The cart page builds its
Checkout link after `load`, a line at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, ref_for, tools_settings

pytestmark = pytest.mark.real_engine

SLOW = "/slow/{}?ms=400"

Control = tuple[str, str]


@pytest_asyncio.fixture
async def short_budget(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[BrowserTools]:
    """A conversation whose settle budget is 800 ms (`AGENT_BROWSER_TOOLS_SETTLE_MS`)."""
    async with _tools(engine_env, tmp_path, "800") as tools:
        yield tools


@pytest_asyncio.fixture
async def no_settle(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[BrowserTools]:
    """A conversation with settling turned off (`AGENT_BROWSER_TOOLS_SETTLE_MS=0`)."""
    async with _tools(engine_env, tmp_path, "0") as tools:
        yield tools


class _tools:
    def __init__(self, engine_env: EngineEnv, tmp_path: Path, settle_ms: str) -> None:
        settings = tools_settings(
            engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_SETTLE_MS=settle_ms
        )
        self.tools = BrowserTools(settings=settings, cwd=tmp_path)

    async def __aenter__(self) -> BrowserTools:
        return self.tools

    async def __aexit__(self, *exc: object) -> None:
        await self.tools.aclose()


def _settle(result: ToolResult) -> dict[str, Any]:
    assert not result.is_error, result.text
    settle: dict[str, Any] = result.details["navigationSettle"]
    return settle


async def _lands_on(
    tools: BrowserTools, result: ToolResult, page: str, title: str, controls: list[Control]
) -> ToolResult:
    """`result` waited for `page` to settle and says so; the snapshot taken right after is
    of that page and lists `controls` (role, name)."""
    settle = _settle(result)
    assert settle["navigated"] is True and settle["settled"] is True, settle
    assert "Page still loading" not in result.text
    summary = result.details["navigationSummary"]
    assert page in summary["url"] and summary["title"] == title, summary
    snap = await ab(tools, "snapshot", "-i")
    assert not snap.is_error, snap.text
    assert page in snap.details["refSnapshot"]["target"]["url"]
    for role, name in [("heading", title), *controls]:
        ref_for(snap, role, name)  # raises when the control is missing
    return snap


async def test_every_snapshot_after_a_navigating_action_is_of_the_new_page(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Five delayed page loads by link clicks and form POSTs answered 303 -> GET: each result
    names the new page, and each snapshot right after it has the controls of the next step."""
    tools = browser_tools
    await ab(tools, "open", fixture_site.url(SLOW.format("settle-home.html")))
    snap = await ab(tools, "snapshot", "-i")
    steps: list[tuple[str, str, str, list[Control]]] = [
        ("Browse catalog", "settle-catalog.html", "Catalog", [("button", "Add to cart")]),
        ("Add to cart", "settle-cart.html", "Cart", [("link", "Checkout")]),
        ("Checkout", "settle-checkout.html", "Checkout", [("textbox", "Name")]),
        ("Place order", "settle-done.html", "Order placed", [("link", "Back to store")]),
        ("Back to store", "settle-home.html", "Store home", [("link", "Browse catalog")]),
    ]
    roles = {"Add to cart": "button", "Place order": "button"}
    for name, page, title, controls in steps:
        if name == "Place order":
            filled = await ab(tools, "fill", ref_for(snap, "textbox", "Name"), "Ada")
            assert not filled.is_error, filled.text
        clicked = await ab(tools, "click", ref_for(snap, roles.get(name, "link"), name))
        snap = await _lands_on(tools, clicked, page, title, controls)


@pytest.mark.parametrize("think_s", [0.0, 1.5])
async def test_press_enter_that_submits_a_form_waits_for_the_next_page(
    browser_tools: BrowserTools, fixture_site: FixtureServer, think_s: float
) -> None:
    """`press Enter` in a text field submits its form (POST, 303, GET, 800 ms in all). No
    probe ran on the page since `open`, so no watcher is armed there; after a pause (a model
    thinking) the page is no longer young either, and the press gets one more poll."""
    tools = browser_tools
    await ab(tools, "open", fixture_site.url(SLOW.format("settle-checkout.html")))
    snap = await ab(tools, "snapshot", "-i")
    filled = await ab(tools, "fill", ref_for(snap, "textbox", "Name"), "Ada")
    assert not filled.is_error, filled.text
    await asyncio.sleep(think_s)
    pressed = await ab(tools, "press", "Enter")
    await _lands_on(tools, pressed, "settle-done.html", "Order placed", [("link", "Back to store")])


async def test_back_to_a_page_that_loads_again_waits_for_it(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """The catalog stays out of the back/forward cache, so `back` loads it again (400 ms)."""
    tools = browser_tools
    await ab(tools, "open", fixture_site.url(SLOW.format("settle-catalog.html")))
    snap = await ab(tools, "snapshot", "-i")
    added = await ab(tools, "click", ref_for(snap, "button", "Add to cart"))
    await _lands_on(tools, added, "settle-cart.html", "Cart", [("link", "Checkout")])
    back = await ab(tools, "back")
    await _lands_on(tools, back, "settle-catalog.html", "Catalog", [("button", "Add to cart")])


async def test_a_same_page_click_does_not_wait(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """A button that only changes the page: the first check finds no navigation announced.
    A key pressed on the page `open` just loaded (no watcher armed there yet, the document a
    few ms old) is no navigation either: that document was there before the key."""
    tools = browser_tools
    await ab(tools, "open", fixture_site.url(SLOW.format("settle-home.html")))
    tabbed = _settle(await ab(tools, "press", "Tab"))
    assert tabbed["navigated"] is False and tabbed["reason"] == "no-navigation", tabbed
    snap = await ab(tools, "snapshot", "-i")
    for count in ("1", "2"):
        clicked = await ab(tools, "click", ref_for(snap, "button", "Count"))
        settle = _settle(clicked)
        assert settle["navigated"] is False and settle["settled"] is True, settle
        assert settle["reason"] == "no-navigation", settle
        assert clicked.details["navigationSummary"]["title"] == "Store home"
        shown = await ab(tools, "get", "text", "#clicks")
        assert shown.details["data"]["text"] == count


async def test_a_page_still_loading_at_the_budget_returns_with_a_warning(
    short_budget: BrowserTools, fixture_site: FixtureServer
) -> None:
    """The history page answers at once but its load event waits 8 s for an image: the click
    returns at the 800 ms budget, says the page is still loading, and the page is there."""
    tools = short_budget
    await ab(tools, "open", fixture_site.url(SLOW.format("settle-home.html")))
    snap = await ab(tools, "snapshot", "-i")
    clicked = await ab(tools, "click", ref_for(snap, "link", "Order history"))
    settle = _settle(clicked)
    assert settle["settled"] is False and settle["reason"] == "loading", settle
    assert settle["navigated"] is True and settle["budgetMs"] == 800, settle
    assert 800 <= settle["waitedMs"] < 8_000, settle
    assert "Page still loading after" in clicked.text
    assert clicked.details["navigationSummary"]["title"] == "Order history"
    after = await ab(tools, "snapshot", "-i")
    ref_for(after, "link", "Back to store")


async def test_settle_ms_zero_turns_the_wait_off(
    no_settle: BrowserTools, fixture_site: FixtureServer
) -> None:
    """`AGENT_BROWSER_TOOLS_SETTLE_MS=0`: no wait, no `navigationSettle`, the click still
    works."""
    tools = no_settle
    await ab(tools, "open", fixture_site.url(SLOW.format("settle-home.html")))
    snap = await ab(tools, "snapshot", "-i")
    clicked = await ab(tools, "click", ref_for(snap, "link", "Browse catalog"))
    assert not clicked.is_error, clicked.text
    assert "navigationSettle" not in clicked.details
    assert "navigationSummary" in clicked.details
