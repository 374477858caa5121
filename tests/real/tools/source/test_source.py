"""`agent_browser_source` through `BrowserTools` on the real engine, Chromium and fixtures.

The React fixture (`tests/fixtures/react_app`) is a React 18 development build; `SaveButton`
(`src/SaveButton.tsx`, defined at line 6) renders `<button id="save">` at line 9. Each test's
execution dir holds a copy of the app's `src/` so the workspace search finds those lines.
Engine 0.39.4 facts relied on: `react tree`/`react inspect` need `--enable react-devtools` at
launch and otherwise fail with "React DevTools hook not installed"; `react inspect` reports a
component's location in the served script (the bundle), not the `.tsx` file.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.settings import Settings
from tests.support.fixture_server import REACT_APP_DIR, FixtureServer
from tests.support.real_engine import EngineEnv

pytestmark = pytest.mark.real_engine

BUNDLE = REACT_APP_DIR / "dist" / "app.js"


def require_bundle() -> None:
    """CI must have built the fixture (`.ci/run` does): fail there, skip only locally."""
    if BUNDLE.is_file():
        return
    message = f"React fixture bundle missing: run {REACT_APP_DIR / 'build.sh'}"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


class Conv:
    def __init__(self, tools: BrowserTools) -> None:
        self.tools = tools

    async def source(self, **params: Any) -> ToolResult:
        return await self.tools.call("agent_browser_source", params)

    async def browser(self, *args: str, **params: Any) -> ToolResult:
        result = await self.tools.call("agent_browser", {"args": list(args), **params})
        assert not result.is_error, f"{args} failed: {result.text}"
        return result


@pytest.fixture
async def conv(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[Conv]:
    workspace = tmp_path / "workspace"
    shutil.copytree(REACT_APP_DIR / "src", workspace / "src")
    env = {**engine_env.env, "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")}
    settings = Settings.load(env=env, cwd=workspace)
    tools = BrowserTools(settings=settings, cwd=workspace, persist=False)
    try:
        enabled = await tools.call("agent_browser_tools", {"enable": ["source"]})
        assert not enabled.is_error, enabled.text
        yield Conv(tools)
    finally:
        await tools.aclose()


def lookup_of(result: ToolResult) -> dict[str, Any]:
    found: dict[str, Any] = result.details["sourceLookup"]
    return found


def located(result: ToolResult, file: str, line: int) -> dict[str, Any]:
    for candidate in lookup_of(result)["candidates"]:
        if candidate.get("file") == file and candidate.get("line") == line:
            return dict(candidate)
    raise AssertionError(f"no candidate at {file}:{line}: {lookup_of(result)}")


async def test_selector_and_component_on_react_page(
    conv: Conv, fixture_site: FixtureServer
) -> None:
    require_bundle()
    url = fixture_site.url("/react/")
    await conv.browser("--enable", "react-devtools", "open", url)
    await conv.browser("wait", "#save")

    by_selector = await conv.source(selector="#save")
    assert not by_selector.is_error, by_selector.text
    assert lookup_of(by_selector)["status"] == "candidates-found"
    element = located(by_selector, "src/SaveButton.tsx", 9)
    assert element["confidence"] == "high" and element["component"] == "SaveButton"
    assert "rendered by SaveButton" in element["evidence"]
    assert lookup_of(by_selector)["candidates"][0] == element

    by_name = await conv.source(componentName="SaveButton")
    assert not by_name.is_error, by_name.text
    definition = located(by_name, "src/SaveButton.tsx", 6)
    assert definition["confidence"] == "high"
    usage = located(by_name, "src/Toolbar.tsx", 6)
    assert usage["confidence"] == "low"
    inspected = [c for c in lookup_of(by_name)["candidates"] if c["source"] == "react-inspect"]
    assert inspected and inspected[0]["scriptUrl"].endswith("/react/dist/app.js")
    assert by_name.details["compiledSourceLookup"]["steps"] == [["react", "tree"]]


async def test_without_devtools_explains_and_relaunch_works(
    conv: Conv, fixture_site: FixtureServer
) -> None:
    require_bundle()
    url = fixture_site.url("/react/")
    await conv.browser("open", url)
    await conv.browser("wait", "#save")

    first = await conv.source(selector="#save", componentName="SaveButton")
    assert not first.is_error, first.text  # DOM and workspace candidates still answer
    found = lookup_of(first)
    assert found["status"] == "candidates-found"
    assert any("--enable react-devtools" in note for note in found["limitations"])
    assert located(first, "src/SaveButton.tsx", 6)["confidence"] == "medium"
    actions = {a["id"]: a for a in first.details["nextActions"]}
    relaunch = actions["relaunch-with-react-devtools"]
    assert relaunch["tool"] == "agent_browser"
    assert relaunch["params"] == {
        "args": ["--enable", "react-devtools", "open", url],
        "sessionMode": "fresh",
    }

    opened = await conv.tools.call(relaunch["tool"], relaunch["params"])
    assert not opened.is_error, opened.text
    await conv.browser("wait", "#save")
    rerun = actions["rerun-source-lookup"]
    again = await conv.tools.call(rerun["tool"], rerun["params"])
    assert not again.is_error, again.text
    assert not any("react-devtools" in n for n in lookup_of(again)["limitations"])
    assert located(again, "src/SaveButton.tsx", 9)["confidence"] == "high"


async def test_page_without_react_gives_dom_and_workspace_candidates(
    conv: Conv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    (tmp_path / "workspace" / "src" / "Form.jsx").write_text(
        'export const Form = () => (\n  <form>\n    <input id="email" />\n  </form>\n);\n'
    )
    await conv.browser("--enable", "react-devtools", "open", fixture_site.url("form.html"))

    result = await conv.source(selector="#email")
    assert not result.is_error, result.text
    found = lookup_of(result)
    assert found["status"] == "candidates-found"
    sources = {c["source"] for c in found["candidates"]}
    assert sources == {"dom", "workspace-search"}, found
    assert located(result, "src/Form.jsx", 3)["confidence"] == "medium"
    assert any("No React renderer" in note for note in found["limitations"])


async def test_relaunch_is_not_offered_with_a_credential_in_the_url(
    conv: Conv, fixture_site: FixtureServer
) -> None:
    """The fresh-launch action would echo the page URL: never when it carries a credential."""
    require_bundle()
    secret = "tok_9f8e7d6c5b4a39281706f5e4d3c2b1a0"
    await conv.browser("open", fixture_site.url(f"/react/?access_token={secret}"))
    await conv.browser("wait", "#save")

    result = await conv.source(componentName="SaveButton")
    assert not result.is_error, result.text
    assert any("--enable react-devtools" in n for n in lookup_of(result)["limitations"])
    ids = [a["id"] for a in result.details.get("nextActions", [])]
    assert "relaunch-with-react-devtools" not in ids
    assert secret not in result.text and secret not in str(result.details)
