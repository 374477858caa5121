"""`agent_browser_network_source` on the real engine, Chromium and the fixture site.

The conversation's execution directory is a copy of `tests/fixtures/network_app`, whose
`src/api.ts` holds the URL literal of the request `network-orders.html` makes (a 404 route of
the fixture server). Each test is its own conversation and always closes its browser. Engine
0.39.4 request rows carry no initiator metadata, so candidates come from the workspace search.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.state.models import PageTarget, SessionKey
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import tools_settings

pytestmark = pytest.mark.real_engine

NAME = "agent_browser_network_source"
APP = Path(__file__).resolve().parents[3] / "fixtures" / "network_app"
LITERAL = "/api/v1/orders/missing"
PASSWORD = "FAKEnetPw9q"
TOKEN = "FAKEnetTok_7Hq2Lx9Vw4Rz8Nc3Kp6"
SETTLE = ["wait", "--fn", "document.getElementById('status').textContent.includes(':')"]


@pytest.fixture
async def tools(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[BrowserTools]:
    workspace = tmp_path / "app"
    shutil.copytree(APP, workspace)
    tools = BrowserTools(settings=tools_settings(engine_env, tmp_path / "state"), cwd=workspace)
    try:
        enabled = await tools.call("agent_browser_tools", {"enable": ["network"]})
        assert not enabled.is_error, enabled.text
        yield tools
    finally:
        await tools.aclose()


async def _browse(tools: BrowserTools, url: str) -> None:
    for args in (["open", url], SETTLE):
        result = await tools.call("agent_browser", {"args": args})
        assert not result.is_error, result.text


def _target(tools: BrowserTools) -> PageTarget | None:
    state = tools.runtime.log.state
    assert state.managed_session is not None
    return state.session(SessionKey(session=state.managed_session)).target


def _lookup(result: ToolResult) -> dict[str, Any]:
    found: dict[str, Any] = result.details["networkSourceLookup"]
    return found


async def test_a_failing_fetch_is_traced_to_the_url_literal_in_the_workspace(
    tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    page = fixture_site.url("/network-orders.html")
    await _browse(tools, page)
    listed = await tools.call("agent_browser", {"args": ["network", "requests"]})
    actions = {a["id"]: a for a in listed.details["nextActions"]}
    lookup_action = actions["find-failed-request-source"]
    assert lookup_action["tool"] == NAME
    result = await tools.call(NAME, {"url": fixture_site.url(LITERAL)})
    assert not result.is_error, result.text
    found = _lookup(result)
    assert found["status"] == "failed-requests-found", found
    (failed,) = found["failedRequests"]
    assert failed["status"] == 404 and failed["url"].endswith(LITERAL)
    source = APP.joinpath("src", "api.ts").read_text(encoding="utf-8").split("\n")
    line = next(i for i, text in enumerate(source, start=1) if LITERAL in text)
    first = found["candidates"][0]
    assert (first["file"], first["line"], first["confidence"]) == ("src/api.ts", line, "medium")
    assert first["column"] == source[line - 1].index(LITERAL) + 1
    assert f"src/api.ts:{line}:{first['column']}" in result.text
    # The next action's exact params work as given, and a request URL never becomes the page.
    by_id = await tools.call(NAME, lookup_action["params"])
    assert _lookup(by_id)["status"] == "failed-requests-found", by_id.text
    target = _target(tools)
    assert target is not None and target.url == page


async def test_a_clean_page_has_no_failed_requests(
    tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await _browse(tools, fixture_site.url("/network-clean.html"))
    listed = await tools.call("agent_browser", {"args": ["network", "requests"]})
    assert "find-failed-request-source" not in [a["id"] for a in listed.details["nextActions"]]
    result = await tools.call(NAME, {"filter": "/api/"})
    assert not result.is_error, result.text
    found = _lookup(result)
    assert found["status"] == "no-failed-requests"
    assert found["failedRequests"] == [] and found["candidates"] == []


async def test_credentials_in_request_urls_are_redacted_in_text_and_details(
    tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """The page is opened with userinfo and a ?token=, and forwards the token to the failing
    API; a second navigation makes a failed document request that carries both."""
    base = fixture_site.base_url.replace("http://", f"http://fixture-user:{PASSWORD}@")
    await _browse(tools, f"{base}/network-secret.html?token={TOKEN}")
    opened = await tools.call("agent_browser", {"args": ["open", f"{base}{LITERAL}?token={TOKEN}"]})
    assert not opened.is_error, opened.text
    asked = {"url": f"{base}{LITERAL}?token={TOKEN}"}
    result = await tools.call(NAME, asked)
    assert not result.is_error, result.text
    found = _lookup(result)
    assert found["status"] == "failed-requests-found"
    assert len(found["failedRequests"]) == 2  # the forwarded fetch and the failed document
    shown = result.text + json.dumps(result.details)
    assert PASSWORD not in shown and TOKEN not in shown
    urls = [f["url"] for f in found["failedRequests"]]
    assert any("fixture-user:%5BREDACTED%5D@" in u for u in urls), urls
    assert all("token=%5BREDACTED%5D" in u or "token=[REDACTED]" in u for u in urls), urls
    assert found["candidates"][0]["file"] == "src/api.ts"
