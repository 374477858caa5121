"""The five specialized tools: declared inactive with real handlers, and a direct call to an
inactive one answers with the exact enable call, which then makes the same call reach the tool
(no circular advice)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.settings import Settings

ADVANCED: dict[str, dict[str, Any]] = {
    "agent_browser_action": {"action": "click"},
    "agent_browser_qa": {},
    "agent_browser_electron": {"action": "nope"},
    "agent_browser_source": {"maxWorkspaceFiles": -1},
    "agent_browser_network_source": {"requestId": ""},
}
"""Each tool with input its own validation refuses: reaching the tool needs no browser."""


def _tools(tmp_path: Path) -> BrowserTools:
    settings = Settings.load(
        env={"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "s")},
        cwd=tmp_path,
    )
    return BrowserTools(settings=settings, persist=False, cwd=tmp_path)


def test_the_five_advanced_tools_are_declared_inactive_with_handlers(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    listed = {spec.name for spec in tools.listed_tools()}
    specs = tools.toolkit.specs
    for name in ADVANCED:
        assert name not in listed
        assert specs[name].implemented and specs[name].load_handler() is not None, name


@pytest.mark.parametrize("name", sorted(ADVANCED))
async def test_an_inactive_tool_answers_with_the_exact_enable_call(
    tmp_path: Path, name: str
) -> None:
    tools = _tools(tmp_path)
    refused = await tools.call(name, ADVANCED[name])
    assert refused.is_error and "enable it first" in refused.text
    (action,) = refused.details["nextActions"]
    assert action["tool"] == "agent_browser_tools"
    enabled = await tools.call(action["tool"], action["params"])
    assert not enabled.is_error, enabled.text
    assert name in {spec.name for spec in tools.listed_tools()}
    again = await tools.call(name, ADVANCED[name])
    assert "inactive" not in again.text and "not implemented" not in again.text, again.text
    assert again.details["failureCategory"] == "validation-error"
