"""`agent_browser` as strict function calling sends it: every field present, the unwanted
ones `null` (or `""` for stdin, what models send when `null` is not offered)."""

from __future__ import annotations

from typing import Any

import pytest

from agent_browser_tools import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.strict_schema import strict_violations

pytestmark = pytest.mark.real_engine


def _strict_parameters(tools: BrowserTools) -> dict[str, Any]:
    specs = tools.tool_specs("responses", strict=True)
    (spec,) = [s for s in specs if s["name"] == "agent_browser"]
    assert spec["strict"] is True
    parameters: dict[str, Any] = spec["parameters"]
    assert strict_violations(parameters) == []
    return parameters


async def test_a_strict_call_with_every_optional_field_null_drives_the_page(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    url = fixture_site.url("/tabs.html")
    call: dict[str, Any] = {"args": ["open", url], "stdin": None, "outputPath": None}
    call |= {"timeoutMs": None, "sessionMode": None}
    assert sorted(call) == sorted(_strict_parameters(browser_tools)["required"])
    opened = await browser_tools.call("agent_browser", call)
    assert not opened.is_error, opened.text
    title = await browser_tools.call("agent_browser", {**call, "args": ["get", "title"]})
    assert title.details["data"]["title"] == "Tabs"
    empty = {**call, "args": ["get", "url"], "stdin": ""}
    read = await browser_tools.call("agent_browser", empty)
    assert not read.is_error, read.text  # `""` stdin where nothing reads it counts as absent
    assert read.details["data"]["url"] == url
