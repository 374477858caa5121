"""Arguments checked before dispatch, on the real engine (issue 33, item 2): `fill` without its
text, an unknown command and a ref no snapshot issued are validation errors that name the
usage, the nearest commands and `unknown-ref`; the page is untouched, and the refs the
conversation was shown still work."""

from __future__ import annotations

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab, ref_for

pytestmark = pytest.mark.real_engine


async def test_the_three_first_hour_mistakes_are_validation_errors(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    tools = browser_tools
    early = await ab(tools, "click", "@e999")  # no snapshot yet in this conversation
    assert early.is_error and early.details["failureCategory"] == "validation-error", early.text
    assert early.details["staleRef"]["reason"] == "unknown-ref"
    assert "Run `snapshot -i` first" in early.text

    await ab(tools, "open", fixture_site.url("/form.html"))
    form = await ab(tools, "snapshot", "-i")
    email = ref_for(form, "textbox", "Email")
    top = max(int(ref[1:]) for ref in form.details["refSnapshot"]["refs"])

    missing = await ab(tools, "fill", email)
    print(missing.text)
    assert missing.is_error and missing.details["failureCategory"] == "validation-error"
    assert "`fill` needs <text>, so nothing ran. Usage: `fill <selector> <text>`." in missing.text

    unknown = await ab(tools, "frobnicate")
    print(unknown.text)
    assert unknown.is_error and unknown.details["failureCategory"] == "validation-error"
    assert "`frobnicate` is not a command in agent-browser" in unknown.text
    assert "Nearest commands: `" in unknown.text
    assert "agent-browser-tools://commands resource" in unknown.text

    never = await ab(tools, "click", "@e999")
    print(never.text)
    assert never.is_error and never.details["failureCategory"] == "validation-error"
    assert never.details["staleRef"] == {"refs": ["@e999"], "step": None, "reason": "unknown-ref"}
    assert "@e999 was never issued by a snapshot in this conversation" in never.text
    assert f"the highest ref shown so far is @e{top}" in never.text

    # Nothing of those reached the page, and the issued refs act as before.
    value = await ab(tools, "get", "value", email)
    assert not value.is_error and value.details["data"]["value"] == "", value.text
    filled = await ab(tools, "fill", email, "ada@example.com")
    assert not filled.is_error, filled.text
    read = await ab(tools, "get", "value", email)
    assert read.details["data"]["value"] == "ada@example.com", read.text


async def test_a_ref_of_a_page_left_behind_stays_stale(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """Issued earlier, no longer valid: `stale-ref`, not `unknown-ref`."""
    tools = browser_tools
    await ab(tools, "open", fixture_site.url("/form.html"))
    email = ref_for(await ab(tools, "snapshot", "-i"), "textbox", "Email")
    await ab(tools, "open", fixture_site.url("/clean.html"))
    await ab(tools, "snapshot", "-i")
    old = await ab(tools, "fill", email, "x")
    assert old.is_error and old.details["failureCategory"] == "stale-ref", old.text
    assert old.details["staleRef"]["reason"] != "unknown-ref"
