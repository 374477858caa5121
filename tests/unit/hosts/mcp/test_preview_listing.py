"""A new stdio conversation answers `tools/list` before it opens (see hosts/mcp/stdio.py): the
listing must be the one the opened conversation gives, the conversation must not be opened
for it, and a conversation that then cannot start says so in its first call's result."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import Client

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.hosts.mcp import convert
from agent_browser_tools.hosts.mcp.conversations import (
    ConversationRegistry,
    ServerClosing,
)
from agent_browser_tools.hosts.mcp.sdk_import import gc_paused
from agent_browser_tools.hosts.mcp.server import Ctx, build_server
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.catalog import listed_at_start
from agent_browser_tools.tools.registry import ToolSpec


def _wire(specs: list[ToolSpec]) -> list[dict[str, Any]]:
    return [convert.tool_to_mcp(spec).model_dump(by_alias=True, mode="json") for spec in specs]


@pytest.mark.parametrize("allowlist", [None, frozenset({"agent_browser", "agent_browser_qa"})])
@pytest.mark.parametrize("search_key", [False, True])
async def test_the_preview_is_what_a_new_conversation_lists(
    allowlist: frozenset[str] | None, search_key: bool, tmp_path: Path
) -> None:
    env = {"AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")}
    if search_key:
        env["EXA_API_KEY"] = "exa-test-key"
    settings = Settings.load(env=env, cwd=tmp_path)
    tools = BrowserTools(settings=settings, cwd=tmp_path, tools=allowlist, persist=False)
    try:
        opened = _wire(tools.listed_tools())
    finally:
        await tools.aclose()
    preview = _wire(listed_at_start(settings, allowlist))
    assert preview == opened
    names = [tool["name"] for tool in preview]
    assert ("agent_browser_web_search" in names) is (search_key and allowlist is None)


def _refuse(key: str) -> BrowserTools:
    raise AssertionError("tools/list must not open the conversation")


async def test_the_registry_answers_from_the_preview_until_the_conversation_opens(
    tmp_path: Path,
) -> None:
    settings = Settings.load(env={"AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "s")})
    asked: list[str] = []

    def preview(key: str) -> list[ToolSpec]:
        asked.append(key)
        return listed_at_start(settings)[:1]

    registry = ConversationRegistry(_refuse, preview=preview)
    assert [spec.name for spec in registry.listed_tools("stdio")] == ["agent_browser"]
    assert (asked, len(registry)) == (["stdio"], 0)

    opened = ConversationRegistry(
        lambda key: BrowserTools(settings=settings, cwd=tmp_path, persist=False), preview=preview
    )
    opened.get("stdio")
    try:
        assert len(opened.listed_tools("stdio")) > 1  # the conversation's own, not the preview
        assert asked == ["stdio"]
    finally:
        await opened.close_all()


async def test_a_closing_registry_lists_nothing(tmp_path: Path) -> None:
    registry = ConversationRegistry(_refuse, preview=lambda key: [])
    await registry.close_all()
    with pytest.raises(ServerClosing):
        registry.listed_tools("stdio")


@contextlib.asynccontextmanager
async def serving(state: Path, cwd: Path) -> AsyncIterator[Client]:
    settings = Settings.load(env={"AGENT_BROWSER_TOOLS_STATE_DIR": str(state)}, cwd=cwd)
    registry = ConversationRegistry(
        lambda key: BrowserTools(settings=settings, cwd=cwd),
        preview=lambda key: listed_at_start(settings),
    )

    def key_of(ctx: Ctx) -> str:
        return "stdio"

    server = build_server(registry, key_of, stateless_era=True)
    async with Client(server, mode="legacy") as connected:
        yield connected
    await registry.close_all()


async def test_a_conversation_that_cannot_start_says_so_in_its_first_call(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state"
    state.write_text("the state dir was replaced by a file")
    async with serving(state, tmp_path) as connected:
        names = [tool.name for tool in (await connected.list_tools()).tools]
        assert names[:3] == ["agent_browser", "agent_browser_code", "agent_browser_tools"]
        called = await connected.call_tool("agent_browser_tools", {})
        assert called.is_error
        assert called.meta is not None
        assert called.meta[convert.DETAILS_META_KEY]["conversationUnavailable"] is True
        text = called.content[0]
        assert isinstance(text, types.TextContent)
        assert "cannot start" in text.text


@pytest.mark.parametrize("enabled_before", [True, False])
def test_gc_paused_restores_the_collector_as_it_was(enabled_before: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled_before else gc.disable)()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled_before
    finally:
        gc.unfreeze()
        (gc.enable if was else gc.disable)()
