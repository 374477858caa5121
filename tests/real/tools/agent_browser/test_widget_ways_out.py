"""Hard widgets from their real libraries: an action that did not take gets a way out that
works, and what counts is what the page holds (real engine and Chromium, engine 0.39.4).

The fixture (`tests/fixtures/widgets_app`, built from npm by its `build.sh`) holds a native
range input, an ARIA slider drawn from divs, noUiSlider, CodeMirror 6, Quill, select2 on a
native select, an ARIA autocomplete that commits only a chosen option, flatpickr read-only and
typed, and a native date input. The engine's `fill`/`select` answers success on each and
leaves most of them as they were (`benchmarks/widget_follow.py` prints both sides).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import WIDGETS_APP_DIR, FixtureServer
from tests.support.tools import ab, ref_for
from tests.support.widget_follower import (
    CASES,
    PAGE,
    READ_VALUES,
    WidgetCase,
    follow,
    page_values,
    ref_of,
)

pytestmark = pytest.mark.real_engine


def _require_bundle() -> None:
    """CI must have built the fixture (`.ci/run` does): fail there, skip only locally."""
    if (WIDGETS_APP_DIR / "dist" / "widgets.js").is_file():
        return
    message = f"widgets fixture bundle missing: run {WIDGETS_APP_DIR / 'build.sh'}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


async def _open(tools: BrowserTools, site: FixtureServer) -> dict[str, Any]:
    _require_bundle()
    assert not (await ab(tools, "open", site.url(PAGE))).is_error
    snap = await ab(tools, "snapshot", "-i")
    assert not snap.is_error, snap.text
    refs: dict[str, Any] = snap.details["refSnapshot"]["refs"]
    return refs


async def _held(tools: BrowserTools) -> dict[str, str]:
    read = await ab(tools, "eval", READ_VALUES)
    assert not read.is_error, read.text
    return page_values(read.details["data"])


def _call(tools: BrowserTools) -> Any:
    async def call(params: Mapping[str, Any]) -> ToolResult:
        return await tools.call("agent_browser", dict(params))

    return call


@pytest.mark.parametrize("case", CASES, ids=[c.label for c in CASES])
async def test_the_generic_follower_sets_every_widget_and_nothing_else(
    browser_tools: BrowserTools, fixture_site: FixtureServer, case: WidgetCase
) -> None:
    refs = await _open(browser_tools, fixture_site)
    before = await _held(browser_tools)
    assert before[case.key] != case.value
    calls, still_error = await follow(
        _call(browser_tools), case, ref_of(refs, case.role, case.name)
    )
    after = await _held(browser_tools)
    assert after[case.key] == case.value, (case.label, calls, after)
    assert not still_error, case.label
    others = {k: v for k, v in after.items() if k != case.key}
    assert others == {k: v for k, v in before.items() if k != case.key}, "another widget moved"


async def test_a_slider_is_moved_by_the_tool_and_says_how(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    refs = await _open(browser_tools, fixture_site)
    threads = ref_of(refs, "slider", "Threads")
    moved = await ab(browser_tools, "fill", threads, "4")
    assert not moved.is_error, moved.text
    effect = moved.details["actionEffect"]
    assert (effect["value"], effect["verified"]) == ("4", True)
    assert "key presses (Home, 3 ArrowRight)" in moved.text
    assert (await _held(browser_tools))["threads"] == "4"


async def test_a_value_the_slider_cannot_hold_offers_the_nearest_that_work(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    refs = await _open(browser_tools, fixture_site)
    volume = ref_of(refs, "slider", "Volume")
    refused = await ab(browser_tools, "fill", volume, "38.5")
    assert refused.details["failureCategory"] == "upstream-error", refused.text
    assert "the nearest values are 38 or 39" in refused.details["error"]
    actions = refused.details["nextActions"]
    assert [a["params"]["args"] for a in actions[:2]] == [
        ["fill", volume, "38"],
        ["fill", volume, "39"],
    ]
    assert not (await browser_tools.call("agent_browser", actions[1]["params"])).is_error
    assert (await _held(browser_tools))["volume"] == "39"
    outside = await ab(browser_tools, "fill", volume, "80")
    assert outside.is_error and "range is 0 to 50" in outside.details["error"]
    assert [a["params"]["args"][-1] for a in outside.details["nextActions"][:1]] == ["50"]


async def test_an_autocomplete_fill_commits_only_an_option_of_that_name(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Typed text alone commits nothing in the ARIA combobox pattern. "Lyon" is an option and
    is picked; "Lyo" is typed text only (a search box keeps it): the call succeeds, warns that
    nothing was chosen, and offers the listed option, which commits it."""
    refs = await _open(browser_tools, fixture_site)
    city = ref_of(refs, "combobox", "City")
    partial = await ab(browser_tools, "fill", city, "Lyo")
    assert not partial.is_error, partial.text
    assert 'no option named "Lyo" (shown: "Lyon")' in " ".join(partial.details["warnings"])
    assert (await _held(browser_tools))["city"] == ""
    (way,) = [a for a in partial.details["nextActions"] if a["id"] == "fill-reachable-value"]
    assert way["params"]["args"] == ["fill", city, "Lyon"]
    assert not (await browser_tools.call("agent_browser", way["params"])).is_error
    assert (await _held(browser_tools))["city"] == "Lyon"


async def test_a_code_editor_fill_replaces_its_text(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """CodeMirror inserts a programmatic fill at its cursor, beside the old query; the way
    out selects all and inserts the text, so brackets and quotes arrive as asked."""
    refs = await _open(browser_tools, fixture_site)
    sql = ref_of(refs, "textbox", "SQL query")
    query = "select count(*) from books where title = 'Nana' and (id > 2)"
    filled = await ab(browser_tools, "fill", sql, query)
    assert not filled.is_error, filled.text
    assert "select-all and inserted text" in filled.text
    assert (await _held(browser_tools))["sql"] == query


async def test_a_date_picker_day_is_clicked_in_its_calendar(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """flatpickr's field is read-only: the tool opens the calendar, moves month by month with
    its controls (backwards too) and clicks the day; a written date is read as well."""
    refs = await _open(browser_tools, fixture_site)
    departure = ref_of(refs, "textbox", "Departure")
    picked = await ab(browser_tools, "fill", departure, "March 15, 2025")
    assert not picked.is_error, picked.text
    assert "in its calendar" in picked.text
    assert (await _held(browser_tools))["departure"] == "2025-03-15"


async def test_a_date_into_a_plain_field_presses_nothing_else_on_a_dated_page(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Hostile page: 31 buttons labelled "Delete entry from March N, 2027", 31 archive links
    labelled with bare dates that lead away, and an element with a planted widget mark. None
    is a calendar the field opened; the fill stays a plain fill."""
    assert not (await ab(browser_tools, "open", fixture_site.url("dated-entries.html"))).is_error
    snap = await ab(browser_tools, "snapshot", "-i")
    note = ref_for(snap, "textbox", "Note date")
    filled = await ab(browser_tools, "fill", note, "2027-03-15")
    assert not filled.is_error, filled.text
    assert "calendar" not in filled.text
    log = await ab(browser_tools, "get", "text", "#log")
    assert log.details["data"]["text"] == "nothing pressed"
    url = await ab(browser_tools, "get", "url")
    assert url.details["data"]["url"].endswith("/dated-entries.html")
    assert filled.details["actionEffect"]["verified"] is True


async def test_an_option_that_leaves_the_page_is_reported_and_old_refs_stop(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """The way out clicks the option named as asked; that option is a link. The result says
    where the page went (the url is read again after the click), and a ref from the old page
    is refused instead of acting on the new one."""
    assert not (await ab(browser_tools, "open", fixture_site.url("jump-combobox.html"))).is_error
    snap = await ab(browser_tools, "snapshot", "-i")
    jump, stay = ref_for(snap, "combobox", "Go to"), ref_for(snap, "button", "Stay here")
    moved = await ab(browser_tools, "fill", jump, "Page B")
    assert "/page-b.html" in moved.text and "(URL changed)" in moved.text, moved.text
    url = await ab(browser_tools, "get", "url")
    assert url.details["data"]["url"].endswith("/page-b.html")
    old = await ab(browser_tools, "click", stay)
    assert old.is_error and old.details["failureCategory"] == "stale-ref", old.text


async def test_an_option_of_another_list_is_never_picked(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """ "Page C" is an option only of the page's other, always-shown list (a link away); the
    combobox's own list (its aria-controls) has none. The typed text stays as typed, the call
    says no option has that name, and nothing is clicked."""
    assert not (await ab(browser_tools, "open", fixture_site.url("jump-combobox.html"))).is_error
    snap = await ab(browser_tools, "snapshot", "-i")
    typed = await ab(browser_tools, "fill", ref_for(snap, "combobox", "Go to"), "Page C")
    assert not typed.is_error, typed.text
    assert 'no option named "Page C"' in " ".join(typed.details["warnings"])
    url = await ab(browser_tools, "get", "url")
    assert url.details["data"]["url"].endswith("/jump-combobox.html")


async def test_no_way_out_runs_when_the_session_asks_for_confirmations(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Under `--confirm-actions` the tool sends no key presses or clicks of its own: the
    fill fails as not taken and the slider stays where the engine left it."""
    _require_bundle()
    page = fixture_site.url(PAGE)
    assert not (await ab(browser_tools, "--confirm-actions", "click", "open", page)).is_error
    snap = await ab(browser_tools, "snapshot", "-i")
    volume = ref_for(snap, "slider", "Volume")
    refused = await ab(browser_tools, "fill", volume, "37")
    assert refused.details["failureCategory"] == "upstream-error", refused.text
    assert "key presses" not in refused.text
    read = await ab(browser_tools, "eval", "document.getElementById('volume').value")
    assert read.details["data"]["result"] == "25"
