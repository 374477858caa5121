"""A batch step that submits a form: the next step runs on the page the submit led to.

The order form answers its POST after 600 ms and redirects to a confirmation that answers
after another 600 ms; both pages have a `#summary`, so a step that ran on the old page reads
"Nothing ordered yet." instead of the confirmation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab, ref_for

pytestmark = pytest.mark.real_engine


async def _order_form(tools: BrowserTools, site: FixtureServer) -> dict[str, str]:
    opened = await ab(tools, "open", site.url("/order-form.html"))
    assert not opened.is_error, opened.text
    snap = await ab(tools, "snapshot", "-i")
    assert not snap.is_error, snap.text
    return {
        "name": ref_for(snap, "textbox", "Name"),
        "email": ref_for(snap, "textbox", "Email"),
        "size": ref_for(snap, "combobox", "Size"),
        "gift": ref_for(snap, "checkbox", "Gift wrap"),
        "submit": ref_for(snap, "button", "Place order"),
    }


def _rows(refs: dict[str, str], last: list[str]) -> list[list[str]]:
    return [
        ["fill", refs["name"], "Ada"],
        ["fill", refs["email"], "ada@example.com"],
        ["select", refs["size"], "large"],
        ["check", refs["gift"]],
        ["click", refs["submit"]],
        last,
    ]


def _step_line(result: ToolResult, step: int) -> str:
    return next(line for line in result.text.splitlines() if line[5:].startswith(f"{step}. "))


def _assert_submitted(result: ToolResult, refs: dict[str, str]) -> None:
    """Step lines are prose, the `check` row reads as the model wrote it, and the submit's
    line says where the page went (not "dispatched without an observed change")."""
    steps: list[dict[str, Any]] = result.details["batchSteps"]
    assert steps[4]["page"]["navigated"] is True, steps[4]
    assert steps[4]["page"]["title"] == "Order received"
    assert "dispatchOnly" not in steps[4]
    assert _step_line(result, 1) == (
        f'ok   1. fill {refs["name"]} Ada -> Filled textbox "Name" ({refs["name"]}) (not read back)'
    )
    assert _step_line(result, 4) == (
        f'ok   4. check {refs["gift"]} -> Checked checkbox "Gift wrap" ({refs["gift"]})'
    )
    submit = _step_line(result, 5)
    assert submit.startswith(f'ok   5. click {refs["submit"]} -> Clicked button "Place order"')
    assert '-> page "Order received" - ' in submit and submit.endswith("(url changed)")
    assert '{"' not in result.text.split("Summary:")[0], "raw engine JSON in the step lines"
    assert "Dispatched without an observed change" not in result.text
    assert "Sent before step 5 moved the page (not read back): 1. fill" in result.text


async def test_the_step_after_a_submit_reads_the_new_page(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    refs = await _order_form(browser_tools, fixture_site)
    rows = _rows(refs, ["get", "text", "#summary"])

    result = await ab(browser_tools, "batch", stdin=json.dumps(rows))

    assert not result.is_error, result.text
    assert result.details["batchSteps"][5]["result"]["text"] == "Your order is confirmed."
    assert _step_line(result, 6) == "ok   6. get text #summary -> Your order is confirmed."
    _assert_submitted(result, refs)
    assert result.details["pageChangeSummary"]["title"] == "Order received"


async def test_argument_rows_wait_for_the_new_page_too(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Rows given as argument strings carry the same settle (the arming row is inserted as a
    row string of its own)."""
    refs = await _order_form(browser_tools, fixture_site)
    rows = [" ".join(row) for row in _rows(refs, ["get", "title"])]

    result = await ab(browser_tools, "batch", *rows)

    assert not result.is_error, result.text
    assert _step_line(result, 6) == "ok   6. get title -> Order received"
    _assert_submitted(result, refs)


async def test_a_failure_after_the_submit_says_the_order_went_through(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """A ref of the old page after the submit: the step is refused, and the result says
    steps 1-5 took effect, so the model does not send the order again."""
    refs = await _order_form(browser_tools, fixture_site)
    rows = _rows(refs, ["click", refs["name"]])

    result = await ab(browser_tools, "batch", stdin=json.dumps(rows))

    assert result.is_error, result.text
    assert result.details["failureCategory"] == "stale-ref"
    assert result.text.splitlines()[0] == (
        'Took effect before step 6 failed: steps 1-5; step 5 moved the page to "Order received". '
        "Do not repeat them."
    )
    _assert_submitted(result, refs)
    title = await ab(browser_tools, "get", "title")
    assert title.text.startswith("Order received"), title.text
