"""Per-command diagnostics on the real engine, each in the situation the engine produces:
a route-mocked cross-origin fetch left without a response, `get text` on a selector whose
first match is a hidden tab, a function-shaped `eval` answering `{}`, and a long-running
start that offers its stop. Each test follows the result's next action. (`stream enable` is
the operator's: tests/real/engine/test_stream_guard.py.)"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine


def _action(result_details: dict[str, object], ident: str) -> dict[str, object]:
    actions = result_details.get("nextActions")
    assert isinstance(actions, list)
    found = [a for a in actions if a["id"] == ident]
    assert found, [a["id"] for a in actions]
    action = found[0]
    assert isinstance(action, dict)
    return action


async def _follow(tools: BrowserTools, action: dict[str, object]) -> ToolResult:
    params = action["params"]
    assert isinstance(params, dict)
    tool = action.get("tool", "agent_browser")
    assert isinstance(tool, str)
    return await tools.call(tool, params)


async def test_a_route_mocked_request_without_response_is_diagnosed_and_unroutable(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/tabs.html"))
    routed = await ab(
        browser_tools,
        "network",
        "route",
        "**/api/*",
        "--body",
        '{"mock":1}',
        "--resource-type",
        "fetch,xhr",  # a body that could answer a page load is refused (browser-endpoint)
    )
    assert not routed.is_error, routed.text
    await ab(browser_tools, "click", "#load")
    await asyncio.sleep(0.5)
    listed = await ab(browser_tools, "network", "requests")
    assert not listed.is_error, listed.text
    (diagnostic, *_) = listed.details["networkRouteDiagnostics"]
    assert diagnostic["reason"] == "pending-routed-request", diagnostic
    assert diagnostic["routePattern"] == "**/api/*" and diagnostic["mode"] == "mock-body"
    assert diagnostic["requestUrl"].endswith("/api/ok")
    assert "Network route diagnostics" in listed.text
    ids = [a["id"] for a in listed.details["nextActions"]]
    assert ids.index("remove-network-route") < ids.index("clear-network-requests-before-repro")
    unroute = _action(listed.details, "remove-network-route")
    assert not (await _follow(browser_tools, unroute)).is_error
    again = await ab(browser_tools, "network", "requests")
    assert "networkRouteDiagnostics" not in again.details, again.text


async def test_get_text_on_a_selector_whose_first_match_is_hidden_says_so(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/tabs.html"))
    text = await ab(browser_tools, "get", "text", ".panel")
    assert not text.is_error, text.text
    assert "hidden tab" in json.dumps(text.details["data"])  # the engine read the hidden one
    visibility = text.details["selectorTextVisibility"]
    assert visibility["matchCount"] == 2 and visibility["visibleCount"] == 1
    assert visibility["firstMatchVisible"] is False
    inspect = _action(text.details, "inspect-visible-text-candidates")
    candidates = await _follow(browser_tools, inspect)
    shown = json.dumps(candidates.details["data"])
    assert "Profile panel (shown tab)" in shown and "Billing panel" not in shown
    exact = await ab(browser_tools, "get", "text", "#panel-profile")
    assert "selectorTextVisibility" not in exact.details


async def test_a_function_shaped_eval_that_returns_an_empty_object_gets_the_hint(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/tabs.html"))
    shaped = await ab(browser_tools, "eval", "--stdin", stdin="() => ({ title: document.title })")
    assert not shaped.is_error and shaped.details["data"]["result"] == {}, shaped.text
    assert "serialized instead of called" in shaped.details["evalStdinHint"]
    called = await ab(
        browser_tools, "eval", "--stdin", stdin="(() => ({ title: document.title }))()"
    )
    assert called.details["data"]["result"] == {"title": "Tabs"}
    assert "evalStdinHint" not in called.details


async def test_a_long_running_start_offers_its_exact_stop(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/tabs.html"))
    started = await ab(browser_tools, "trace", "start")
    assert not started.is_error, started.text
    stop = _action(started.details, "stop-trace")
    assert stop["params"] == {"args": ["trace", "stop"]}
    saved = tmp_path / "trace.json"  # the stop takes an optional path, as its reason says
    stopped = await ab(browser_tools, *stop["params"]["args"], str(saved))
    assert not stopped.is_error, stopped.text
    assert saved.is_file()
