"""`agent_browser_qa` through `BrowserTools` on the real engine, Chromium and the fixture site.

Each test is its own conversation (its own managed browser, so its own page-error buffer) and
always `aclose()`s it. Engine 0.39.4 facts these tests rely on: `errors --clear` does not empty
the page-error buffer (the residue stays readable), a `<link rel="icon" href="/favicon.ico">`
miss is an `Other` row with status 404, and a navigation in native text mode leaves the wrapper
without an observed page target.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.settings import Settings
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.second_engine import chosen_engine

pytestmark = pytest.mark.real_engine

UNVERIFIED = "page-error check could not be verified"


class Qa:
    """One conversation with `qa` enabled."""

    def __init__(self, tools: BrowserTools) -> None:
        self.tools = tools

    async def qa(self, **params: Any) -> ToolResult:
        return await self.tools.call("agent_browser_qa", params)

    async def browser(self, *args: str) -> ToolResult:
        result = await self.tools.call("agent_browser", {"args": list(args)})
        assert not result.is_error, f"{args} failed: {result.text}"
        return result

    async def url(self) -> str:
        result = await self.browser("get", "url")
        url: str = result.details["data"]["url"]
        return url


@pytest.fixture
async def conv(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[Qa]:
    env = {**engine_env.env, "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")}
    tools = BrowserTools(settings=Settings.load(env=env, cwd=tmp_path), cwd=tmp_path, persist=False)
    try:
        enabled = await tools.call("agent_browser_tools", {"enable": ["qa"]})
        assert not enabled.is_error, enabled.text
        yield Qa(tools)
    finally:
        await tools.aclose()


def _preset(result: ToolResult) -> dict[str, Any]:
    preset: dict[str, Any] = result.details["qaPreset"]
    return preset


def _commands(result: ToolResult) -> list[str]:
    return [row[0] for row in result.details["compiledJob"]["steps"]]


def _assert_qa_failure(result: ToolResult) -> dict[str, Any]:
    assert result.is_error, result.text
    assert result.details["failureCategory"] == "qa-failure", result.text
    preset = _preset(result)
    assert preset["passed"] is False and preset["failedChecks"]
    return preset


# ----- URL QA -------------------------------------------------------------------------------


async def test_url_qa_passes_on_a_clean_page(conv: Qa, fixture_site: FixtureServer) -> None:
    url = fixture_site.url("clean.html")
    result = await conv.qa(url=url, expectedText="All systems nominal")

    assert not result.is_error, result.text
    preset = _preset(result)
    assert preset["passed"] is True and preset["failedChecks"] == [] and preset["warnings"] == []
    assert preset["summary"].startswith("QA preset passed: ")
    assert "QA preset passed" in result.text
    compiled = result.details["compiledQaPreset"]
    assert compiled["args"] == ["batch", "--bail"] and compiled["failFast"] is True
    assert compiled["checks"]["url"] == url and compiled["checks"]["attached"] is False
    assert compiled["checks"]["diagnosticsResetAtStart"] is True
    assert result.details["compiledJob"]["steps"] == compiled["steps"]
    assert all(step["success"] for step in result.details["batchSteps"])
    assert await conv.url() == url


async def test_missing_expected_text_is_a_qa_failure(conv: Qa, fixture_site: FixtureServer) -> None:
    result = await conv.qa(
        url=fixture_site.url("clean.html"), expectedText=["Status", "Maintenance window"]
    )

    preset = _assert_qa_failure(result)
    assert preset["failedChecks"] == [
        'expected text "Maintenance window" not visible: Wait timed out after 5000ms'
    ]
    assert preset["notRunChecks"] == ["network requests check", "console check", "page-error check"]
    assert "QA preset failed" in result.text
    assert any(a["id"] == "inspect-page-after-qa-failure" for a in result.details["nextActions"])


async def test_hidden_text_is_not_visible_text(conv: Qa, fixture_site: FixtureServer) -> None:
    url = fixture_site.url("hidden-text.html")
    shown = await conv.qa(url=url, expectedText="Shown paragraph", expectedSelector="h1")
    assert not shown.is_error, shown.text

    hidden = await conv.qa(url=url, expectedText="Concealed hint text")
    assert _assert_qa_failure(hidden)["failedChecks"][0].startswith(
        'expected text "Concealed hint text" not visible'
    )
    invisible = await conv.qa(url=url, expectedSelector="#invisible-box")
    assert _assert_qa_failure(invisible)["failedChecks"][0].startswith(
        'expected selector "#invisible-box" not visible'
    )


async def test_a_page_with_console_and_page_errors_fails(
    conv: Qa, fixture_site: FixtureServer
) -> None:
    result = await conv.qa(url=fixture_site.url("console.html"), expectedText="Console Errors")

    failed = _assert_qa_failure(result)["failedChecks"]
    assert failed == [
        "1 console error(s): fixture console error: widget failed to load",
        "1 new page error(s): Error: fixture uncaught error: boom",
    ]
    assert {"read-console", "read-page-errors"} <= {a["id"] for a in result.details["nextActions"]}


async def test_a_missing_favicon_only_passes_with_a_warning(
    conv: Qa, fixture_site: FixtureServer
) -> None:
    result = await conv.qa(url=fixture_site.url("favicon-missing.html"), expectedText="Icon Check")

    assert not result.is_error, result.text
    preset = _preset(result)
    assert preset["passed"] is True and preset["failedChecks"] == []
    assert len(preset["warnings"]) == 1 and "/favicon.ico" in preset["warnings"][0]
    assert preset["summary"].startswith("QA preset passed with warnings: ")
    assert "Warning: benign icon miss" in result.text


async def test_a_failed_api_request_is_actionable(conv: Qa, fixture_site: FixtureServer) -> None:
    result = await conv.qa(url=fixture_site.url("api-fail.html"), expectedText="Dashboard")

    failed = _assert_qa_failure(result)["failedChecks"]
    assert len(failed) == 1 and "/api/fail: fetch request failed (HTTP 500)" in failed[0]
    inspect = [a for a in result.details["nextActions"] if a["id"] == "inspect-network-request"]
    assert len(inspect) == 1 and inspect[0]["params"]["args"][:2] == ["network", "request"]


async def test_screenshot_path_gives_a_verified_artifact(
    conv: Qa, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    shot = tmp_path / "qa-clean.png"
    result = await conv.qa(
        url=fixture_site.url("clean.html"), expectedText="Status", screenshotPath=str(shot)
    )

    assert not result.is_error, result.text
    assert result.details["artifactVerification"]["verified"] is True
    (entry,) = result.details["artifacts"]
    assert entry["state"] == "verified" and entry["path"] == str(shot)
    assert shot.read_bytes().startswith(b"\x89PNG")
    assert _commands(result)[-1] == "screenshot"


async def test_residue_after_the_native_clear_is_unverified_until_a_fresh_session(
    conv: Qa, fixture_site: FixtureServer
) -> None:
    await conv.browser("open", fixture_site.url("console.html"))
    url = fixture_site.url("clean.html")

    residue = await conv.qa(url=url, expectedText="All systems nominal")

    if chosen_engine() is not None:
        # Engine 0.41's `errors --clear` clears: no residue, nothing unverified.
        assert not residue.is_error, residue.text
        assert _preset(residue)["passed"] is True
        return
    preset = _assert_qa_failure(residue)
    assert preset["failedChecks"] == [UNVERIFIED]
    rerun = next(
        a for a in residue.details["nextActions"] if a["id"] == "rerun-qa-in-fresh-session"
    )
    assert rerun["tool"] == "agent_browser_qa" and rerun["params"]["sessionMode"] == "fresh"
    fresh = await conv.qa(**rerun["params"])
    assert not fresh.is_error, fresh.text
    assert _preset(fresh)["passed"] is True


# ----- attached QA --------------------------------------------------------------------------


async def test_attached_qa_checks_the_current_page_without_navigating(
    conv: Qa, fixture_site: FixtureServer
) -> None:
    url = fixture_site.url("clean.html")
    await conv.browser("open", url)

    result = await conv.qa(attached=True, expectedText="All systems nominal", checkConsole=True)

    assert not result.is_error, result.text
    assert _preset(result)["passed"] is True
    assert "open" not in _commands(result)
    assert not any(
        len(step) > 1 and step[-1] == "--clear" for step in result.details["compiledJob"]["steps"]
    )
    checks = result.details["compiledQaPreset"]["checks"]
    assert checks["attached"] is True and "url" not in checks
    assert checks["diagnosticsResetAtStart"] is False
    assert result.details["qaTargetVerification"] == {"verified": True, "url": url}
    assert await conv.url() == url


async def test_page_errors_from_before_the_check_are_unverified_not_new(
    conv: Qa, fixture_site: FixtureServer
) -> None:
    await conv.browser("open", fixture_site.url("console.html"))

    result = await conv.qa(attached=True, expectedText="Console Errors", checkErrors=True)

    preset = _assert_qa_failure(result)
    assert preset["failedChecks"] == [UNVERIFIED]
    assert not any("new page error" in check for check in preset["failedChecks"])
    assert any("pre-check error baseline" in warning for warning in preset["warnings"])
    assert _commands(result) == ["errors", "wait", "errors"]


async def test_attached_qa_refuses_an_unknown_target_without_running_the_batch(
    conv: Qa, fixture_site: FixtureServer
) -> None:
    await conv.browser("open", fixture_site.url("clean.html"))
    # A navigation in native text mode proves nothing about where the page landed.
    await conv.browser("--json", "false", "open", fixture_site.url("page-a.html"))

    result = await conv.qa(attached=True, expectedText="Page A")

    assert result.is_error and result.details["failureCategory"] == "tab-drift", result.text
    assert "batchSteps" not in result.details
    assert result.details["qaTargetVerification"]["verified"] is False
    assert _preset(result)["failedChecks"][0].startswith("target verification failed")
    ids = [a["id"] for a in result.details["nextActions"]]
    assert ids[:2] == ["verify-page-target", "list-tabs"]
    verify = result.details["nextActions"][0]
    assert verify["params"] == {"args": ["get", "url"]}
    # The exact recovery works: after `get url` the same check runs.
    assert await conv.url() == fixture_site.url("page-a.html")
    retried = await conv.qa(attached=True, expectedText="Page A")
    assert not retried.is_error, retried.text


async def test_attached_qa_refuses_a_blank_tab_and_a_browser_without_a_page(
    conv: Qa, fixture_site: FixtureServer
) -> None:
    nothing = await conv.qa(attached=True, expectedText="anything")
    assert nothing.details["failureCategory"] == "tab-drift", nothing.text
    assert "no page is open" in nothing.text

    await conv.browser("open", fixture_site.url("clean.html"))
    await conv.browser("tab", "new")
    blank = await conv.qa(attached=True, expectedText="All systems nominal")
    assert blank.details["failureCategory"] == "tab-drift", blank.text
    assert "about:blank" in blank.details["qaTargetVerification"]["reason"]
    assert "batchSteps" not in blank.details
    assert (
        json.loads(blank.details["compiledJob"]["stdin"]) == blank.details["compiledJob"]["steps"]
    )
