"""Commands the engine answers itself reach it as the caller wrote them (contract rows 33 and
54): the wrapper adds `--json` and the managed session, nothing else."""

from __future__ import annotations

import pytest

from agent_browser_tools import playbook
from agent_browser_tools.api import BrowserTools
from tests.fake.tools.agent_browser.test_argv import (
    MANAGED,
    PAGE,
    _call,
    _fresh_engine_cache,
    _open_rule,
    tools,
)
from tests.support.fake import FakeEngine

__all__ = ["_fresh_engine_cache", "tools"]  # fixtures, used by name


# --- snapshot forms (contract row 33) -------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [["snapshot", "-i"], ["snapshot", "--compact"], ["snapshot", "-i", "-c"], ["snapshot"]],
)
async def test_snapshot_forms_reach_the_engine_as_asked(
    tools: BrowserTools, fake_engine: FakeEngine, args: list[str]
) -> None:
    """Interactive, compact and full snapshots are the engine's own: the wrapper adds
    `--json` and the session, and keeps the caller's flags as written."""
    _open_rule(fake_engine)
    snapshot = {"origin": PAGE, "snapshot": '- button "Go" [ref=e1]'}
    fake_engine.on(
        {"command": ["snapshot"]},
        envelope={"data": {**snapshot, "refs": {"e1": {"role": "button", "name": "Go"}}}},
    )
    await _call(tools, {"args": ["open", PAGE]})
    result = await _call(tools, {"args": args})
    assert not result.is_error, result.text
    assert ["--json", "--session", MANAGED, *args] in fake_engine.argvs()
    assert result.details["args"] == args
    assert 'button "Go"' in result.text


def test_the_instructions_say_to_batch_three_or_more_reads() -> None:
    assert "Three or more reads on one page: batch them" in playbook.INSTRUCTIONS


@pytest.mark.parametrize(
    "args",
    [
        ["webmcp", "list"],
        ["webmcp", "invoke", "add_note", "--params", '{"text":"hi"}'],
        ["webmcp", "result", "inv-1"],
        ["webmcp", "cancel", "inv-1"],
    ],
)
async def test_webmcp_commands_reach_the_engine_as_asked(
    tools: BrowserTools, fake_engine: FakeEngine, args: list[str]
) -> None:
    """Contract row 54: the four WebMCP commands pass through on the managed session."""
    _open_rule(fake_engine)
    fake_engine.on({"command": ["webmcp"]}, envelope={"data": {"status": "completed"}})
    await _call(tools, {"args": ["open", PAGE]})
    result = await _call(tools, {"args": args})
    assert not result.is_error, result.text
    assert ["--json", "--session", MANAGED, *args] in fake_engine.argvs()
    assert result.details["args"] == args
