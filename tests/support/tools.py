"""Building `BrowserTools` against the real engine fixtures (a private socket and state dir)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.settings import Settings
from tests.support.real_engine import EngineEnv


def tools_settings(engine_env: EngineEnv, state_dir: Path, **env: str) -> Settings:
    return Settings.load(
        env={**engine_env.env, "AGENT_BROWSER_TOOLS_STATE_DIR": str(state_dir), **env},
        cwd=state_dir.parent,
    )


@pytest_asyncio.fixture
async def browser_tools(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[BrowserTools]:
    """A fresh conversation whose managed browser is closed at teardown."""
    tools = BrowserTools(settings=tools_settings(engine_env, tmp_path / "state"), cwd=tmp_path)
    try:
        yield tools
    finally:
        await tools.aclose()


async def ab(tools: BrowserTools, *args: str, **params: Any) -> ToolResult:
    """Call `agent_browser` with argv shorthand."""
    return await tools.call("agent_browser", {"args": list(args), **params})


def ref_for(result: ToolResult, role: str, name: str) -> str:
    for ref_id, info in result.details["refSnapshot"]["refs"].items():
        if info.get("role") == role and info.get("name") == name:
            return f"@{ref_id}"
    raise AssertionError(f"no {role} {name!r} in snapshot refs")


def assert_policy_blocked(
    result: ToolResult, rule: str, subject: str | None = None
) -> dict[str, Any]:
    """`result` is a `policy-blocked` refusal by `rule` (of `subject`); returns its policy."""
    assert result.is_error, result.text
    assert result.details["failureCategory"] == "policy-blocked", result.details
    policy: dict[str, Any] = result.details["policy"]
    assert policy["rule"] == rule, policy
    if subject is not None:
        assert policy["subject"] == subject, policy
    return policy
