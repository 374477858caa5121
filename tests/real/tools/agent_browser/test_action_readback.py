"""Element actions are read back: `details.actionEffect` names the element and what it holds,
and an action the page did not take fails with a next action that works (real engine and
Chromium, engine 0.39.4).

The engine answers these with success whatever happened: `fill` on a date part leaves the
input empty, `check` on a box whose click is cancelled leaves it unchecked, `fill` on a field
that takes only key events changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab, ref_for

pytestmark = pytest.mark.real_engine

PASSWORD = "hunter2-Correct-Horse"


async def _open(tools: BrowserTools, site: FixtureServer, page: str) -> ToolResult:
    assert not (await ab(tools, "open", site.url(page))).is_error
    snap = await ab(tools, "snapshot", "-i")
    assert not snap.is_error, snap.text
    return snap


def _who(effect: dict[str, Any]) -> tuple[str, str, str]:
    return effect["verb"], effect["role"], effect["name"]


def _effect(result: ToolResult) -> dict[str, Any]:
    effect = result.details.get("actionEffect")
    assert isinstance(effect, dict), result.details
    return effect


async def _value(tools: BrowserTools, selector: str) -> str:
    read = await ab(tools, "eval", f"document.querySelector({json.dumps(selector)}).value")
    assert not read.is_error, read.text
    return str(read.details["data"]["result"])


async def test_each_action_names_its_element_and_reads_the_effect_back(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    snap = await _open(browser_tools, fixture_site, "effects.html")
    name = ref_for(snap, "textbox", "Display name")
    filled = await ab(browser_tools, "fill", name, "Ada Lovelace")
    assert not filled.is_error, filled.text
    assert _effect(filled) == {
        "verb": "filled",
        "ref": name,
        "role": "textbox",
        "name": "Display name",
        "value": "Ada Lovelace",
        "valueHidden": False,
        "checked": None,
        "verified": True,
        "expected": "Ada Lovelace",
    }
    # What the model reads: a line naming the field and the value read back, and the routine
    # refresh (nothing measured whether the page around the field re-rendered).
    assert filled.text.splitlines() == [
        f'Filled textbox "Display name" ({name}) = "Ada Lovelace"',
        "Refs may have changed: snapshot -i",
    ]
    typed = await ab(browser_tools, "type", name, " II")
    assert _effect(typed)["verb"] == "typed" and _effect(typed)["value"] == "Ada Lovelace II"
    assert _effect(typed)["verified"] is True

    selected = await ab(browser_tools, "select", ref_for(snap, "combobox", "Colour"), "Blue")
    assert not selected.is_error, selected.text
    effect = _effect(selected)
    assert _who(effect) == ("selected", "combobox", "Colour")
    assert (effect["value"], effect["expected"], effect["verified"]) == (["Blue"], ["Blue"], True)
    assert selected.text.splitlines()[0].startswith('Selected "Blue" in combobox "Colour" (@e')

    checked = await ab(browser_tools, "check", ref_for(snap, "checkbox", "Remember me"))
    effect = _effect(checked)
    assert _who(effect) == ("checked", "checkbox", "Remember me")
    assert (effect["checked"], effect["verified"]) == (True, True)
    assert checked.text.splitlines()[0].startswith('Checked checkbox "Remember me" (@e')

    radio = await ab(browser_tools, "click", ref_for(snap, "radio", "Pro"))
    effect = _effect(radio)
    assert _who(effect) == ("clicked", "radio", "Pro")
    assert (effect["checked"], effect["expected"], effect["verified"]) == (True, True, True)
    assert radio.text.splitlines()[0].endswith('radio "Pro" (' + effect["ref"] + "), now checked")
    assert "unverified" not in radio.text

    button = await ab(browser_tools, "click", ref_for(snap, "button", "Save"))
    assert not button.is_error, button.text
    effect = _effect(button)
    assert _who(effect) == ("clicked", "button", "Save")
    assert effect["verified"] is None and effect["checked"] is None
    assert button.text.splitlines()[0] == f'Clicked button "Save" ({effect["ref"]})'


async def test_a_fill_on_a_date_part_fails_and_the_offered_key_presses_set_it(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    snap = await _open(browser_tools, fixture_site, "booking.html")
    month = ref_for(snap, "spinbutton", "Month Month")
    filled = await ab(browser_tools, "fill", month, "2026-05-14")
    assert filled.is_error, filled.text
    assert filled.details["failureCategory"] == "upstream-error"
    effect = _effect(filled)
    assert (effect["value"], effect["expected"], effect["verified"]) == ("", "2026-05-14", False)
    assert "date input" in filled.details["error"] and "2026-05-14" in filled.details["error"]
    assert await _value(browser_tools, "#checkin") == "", "the engine's fill set nothing"
    (action,) = [a for a in filled.details["nextActions"] if a["id"] == "enter-date-by-keys"]
    followed = await browser_tools.call("agent_browser", action["params"])
    assert not followed.is_error, followed.text
    assert await _value(browser_tools, "#checkin") == "2026-05-14"

    hours = ref_for(snap, "spinbutton", "Hours Hours")
    timed = await ab(browser_tools, "fill", hours, "14:45")
    assert timed.details["failureCategory"] == "upstream-error", timed.text
    (action,) = [a for a in timed.details["nextActions"] if a["id"] == "enter-date-by-keys"]
    assert not (await browser_tools.call("agent_browser", action["params"])).is_error
    assert await _value(browser_tools, "#arrival") == "14:45"


async def test_a_date_in_an_unreadable_format_says_which_format_to_give(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    snap = await _open(browser_tools, fixture_site, "booking.html")
    filled = await ab(browser_tools, "fill", ref_for(snap, "spinbutton", "Day Day"), "next Tuesday")
    assert filled.details["failureCategory"] == "upstream-error", filled.text
    assert "YYYY-MM-DD" in filled.details["error"]
    assert _effect(filled)["verified"] is False


async def test_a_check_the_page_cancels_is_reported_not_applied(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    snap = await _open(browser_tools, fixture_site, "effects.html")
    locked = ref_for(snap, "checkbox", "Locked option")
    checked = await ab(browser_tools, "check", locked)
    assert checked.is_error, checked.text
    assert checked.details["failureCategory"] == "upstream-error"
    assert (_effect(checked)["checked"], _effect(checked)["verified"]) == (False, False)
    assert "still unchecked" in checked.details["error"]
    ids = [a["id"] for a in checked.details["nextActions"]]
    assert "inspect-after-no-op" in ids
    clicked = await ab(browser_tools, "click", locked)
    assert clicked.details["failureCategory"] == "upstream-error", clicked.text
    assert (_effect(clicked)["expected"], _effect(clicked)["verified"]) == (True, False)


async def test_a_password_fill_never_shows_its_value(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    snap = await _open(browser_tools, fixture_site, "effects.html")
    password = ref_for(snap, "textbox", "Password")
    filled = await ab(browser_tools, "fill", password, PASSWORD)
    assert not filled.is_error, filled.text
    effect = _effect(filled)
    assert (effect["value"], effect["expected"], effect["valueHidden"]) == (None, None, True)
    assert effect["verified"] is True
    assert PASSWORD not in filled.text
    assert PASSWORD not in json.dumps(filled.details)


async def test_a_fill_a_key_only_field_ignores_is_retyped_by_the_offered_key_presses(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    snap = await _open(browser_tools, fixture_site, "effects.html")
    code = ref_for(snap, "textbox", "Promo code")
    filled = await ab(browser_tools, "fill", code, "save-10")
    assert filled.details["failureCategory"] == "upstream-error", filled.text
    assert (_effect(filled)["value"], _effect(filled)["verified"]) == ("", False)
    (action,) = [a for a in filled.details["nextActions"] if a["id"] == "retype-with-keystrokes"]
    assert not (await browser_tools.call("agent_browser", action["params"])).is_error
    assert await _value(browser_tools, "#code") == "SAVE-10"
