"""Refs of a fresh page on the real engine (issue 33, item 5): after a big page, a small
form's refs read top to bottom, each still names its own element, the big page's refs stay
stale, and the form's refs hold across later snapshots of the same document.

The engine numbers refs from one counter per browser, level by level of the accessibility
tree (0.39.4 and 0.41.2 alike): the form after a 1,258-ref page gets e1259.., its lists'
options after all its fields. The wrapper hands those same new ids out in document order.
"""

from __future__ import annotations

import re

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab, ref_for

pytestmark = pytest.mark.real_engine

_TREE_REF = re.compile(r"\bref=e(\d+)\]")


def _numbers(result: ToolResult) -> list[int]:
    """The ref numbers of a snapshot in the order its visible tree lists them."""
    assert not result.is_error, result.text
    return [int(n) for n in _TREE_REF.findall(result.text)]


async def _page_value(tools: BrowserTools, script: str) -> object:
    read = await ab(tools, "eval", script)
    assert not read.is_error, read.text
    return read.details["data"]["result"]


async def test_a_small_form_after_a_big_page_reads_top_to_bottom_and_acts_right(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    tools = browser_tools
    await ab(tools, "open", fixture_site.url("/docs.html"))
    big = await ab(tools, "snapshot", "-i")
    big_refs = big.details["refSnapshot"]["refs"]
    assert len(big_refs) > 1000
    top = max(int(ref[1:]) for ref in big_refs)
    big_link = "@" + next(r for r, info in big_refs.items() if info.get("role") == "link")

    await ab(tools, "open", fixture_site.url("/form.html"))
    form = await ab(tools, "snapshot", "-i")
    numbers = _numbers(form)
    print("form refs:", " ".join(f"e{n}" for n in numbers))
    assert len(numbers) == len(form.details["refSnapshot"]["refs"]) == 23
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers), numbers
    assert min(numbers) > top  # never an id the big page's elements were shown under

    # Every kind of element the engine numbered out of document order acts on itself.
    email = ref_for(form, "textbox", "Email")
    filled = await ab(tools, "fill", email, "ada@example.com")
    assert not filled.is_error, filled.text
    large = ref_for(form, "radio", "Large")
    checked = await ab(tools, "check", large)
    assert not checked.is_error, checked.text
    picked = await ab(tools, "select", ref_for(form, "combobox", "Flavor"), "Chocolate")
    assert not picked.is_error, picked.text
    nuts = await ab(tools, "click", ref_for(form, "option", "Nuts"))
    assert not nuts.is_error, nuts.text
    state = await _page_value(
        tools,
        "JSON.stringify([email.value, document.querySelector('#size-large').checked, "
        "flavor.value, [...toppings.selectedOptions].map(o => o.value)])",
    )
    assert state == '["ada@example.com",true,"chocolate",["nuts"]]'

    # A ref of the big page is stale on the form, whatever number it has.
    stale = await ab(tools, "click", big_link)
    assert stale.is_error and stale.details["failureCategory"] == "stale-ref", stale.text

    # The same document read again: every ref where it was.
    again = await ab(tools, "snapshot", "-i")
    assert again.details["refSnapshot"]["refs"] == form.details["refSnapshot"]["refs"]

    # A new element on the same document gets a new id; the others keep theirs, and a ref
    # remembered from the first snapshot still acts on its element.
    added = await ab(
        tools,
        "eval",
        "document.querySelector('h1').insertAdjacentHTML('afterend', "
        "'<button type=button>Help</button>'); 1",
    )
    assert not added.is_error, added.text
    grown = await ab(tools, "snapshot", "-i")
    grown_refs = grown.details["refSnapshot"]["refs"]
    help_ref = ref_for(grown, "button", "Help")
    assert int(help_ref[2:]) > max(numbers)
    assert {r: i for r, i in grown_refs.items() if r != help_ref[1:]} == (
        form.details["refSnapshot"]["refs"]
    )
    unchecked = await ab(tools, "uncheck", ref_for(form, "checkbox", "Subscribe"))
    assert not unchecked.is_error, unchecked.text
    submitted = await ab(tools, "click", ref_for(form, "button", "Submit"))
    assert not submitted.is_error, submitted.text
    result = await _page_value(tools, "document.querySelector('#result').textContent")
    assert isinstance(result, str)
    assert "Email: ada@example.com" in result and "Size: large" in result, result
    assert "Flavor: chocolate" in result and "Toppings: nuts" in result, result
