"""Each supported engine release is read with its own taxonomy (real).

CI runs this module on both releases (the wheel's 0.39.4, and 0.41.2 through
`scripts/second_engine.sh test`): the same words mean what the running engine makes of them.
"""

from __future__ import annotations

import pytest

from agent_browser_tools import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine


def _release(tools: BrowserTools) -> tuple[int, int, int]:
    version = tools.runtime.engine.version
    assert version is not None
    return version


async def test_wait_state_is_waits_own_option_from_0_41(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    opened = await ab(browser_tools, "open", fixture_site.url("form.html"))
    assert not opened.is_error, opened.text
    waited = await ab(browser_tools, "wait", "#full-name", "--state", "visible")
    if _release(browser_tools) >= (0, 41, 0):
        assert not waited.is_error, waited.text
    else:
        # 0.39.4 reads `--state` anywhere as the auth-state file to load: on a running
        # browser that is a launch flag, refused before the engine runs.
        assert waited.is_error and waited.details["failureCategory"] in (
            "validation-error",
            "policy-blocked",
        ), waited.text


async def test_unknown_and_operator_flags_never_reach_the_engine(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    opened = await ab(browser_tools, "open", fixture_site.url("form.html"))
    assert not opened.is_error, opened.text
    invented = await ab(browser_tools, "--frobnicate", "get", "url")
    assert invented.details["failureCategory"] == "validation-error", invented.text
    headers = await ab(
        browser_tools, "--cdp-headers", '{"Authorization": "Bearer x"}', "get", "url"
    )
    expected = "policy-blocked" if _release(browser_tools) >= (0, 41, 0) else "validation-error"
    assert headers.details["failureCategory"] == expected, headers.text
    still = await ab(browser_tools, "get", "url")
    assert still.details["data"]["url"] == fixture_site.url("form.html")
