"""A conversation that cannot start (its journal cannot be opened) fails that request with one
line naming the fix, keeps the server serving, and starts on the next request once fixed.

Driven in-process by the official client. The fault is real: the state dir was replaced by a
regular file after the server started, so opening the journal fails in `ensure_private_dir`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.hosts.mcp.conversations import ConversationRegistry
from agent_browser_tools.hosts.mcp.convert import DETAILS_META_KEY
from agent_browser_tools.hosts.mcp.server import Ctx, build_server
from agent_browser_tools.settings import Settings


@contextlib.asynccontextmanager
async def serving(state: Path, cwd: Path) -> AsyncIterator[tuple[Client, ConversationRegistry]]:
    settings = Settings.load(env={"AGENT_BROWSER_TOOLS_STATE_DIR": str(state)}, cwd=cwd)
    registry = ConversationRegistry(lambda key: BrowserTools(settings=settings, cwd=cwd))

    def key_of(ctx: Ctx) -> str:
        return "one"

    server = build_server(registry, key_of, stateless_era=True)
    async with Client(server, mode="legacy") as connected:
        yield connected, registry
    await registry.close_all()


async def test_an_unopenable_journal_fails_the_request_not_the_server(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "state"
    state.write_text("the state dir was replaced by a file")
    async with serving(state, tmp_path) as (connected, registry):
        with pytest.raises(MCPError) as listed:
            await connected.list_tools()
        assert listed.value.error.code == types.INTERNAL_ERROR
        assert "cannot start" in listed.value.error.message
        assert "--ephemeral-state" in listed.value.error.message

        called = await connected.call_tool("agent_browser_tools", {})
        assert called.is_error
        assert called.meta is not None
        details = called.meta[DETAILS_META_KEY]
        assert details["failureCategory"] == "aborted"
        assert details["conversationUnavailable"] is True
        text = called.content[0]
        assert isinstance(text, types.TextContent)
        assert text.text.startswith("Error: agent_browser_tools did not run: this conversation")
        assert str(state) in text.text and "AGENT_BROWSER_TOOLS_STATE_DIR" in text.text
        assert len(registry) == 0  # nothing half-made is kept

        state.unlink()  # the operator fixes the state dir: the same session starts now
        names = {tool.name for tool in (await connected.list_tools()).tools}
        assert "agent_browser" in names and len(registry) == 1
        inventory = await connected.call_tool("agent_browser_tools", {})
        assert not inventory.is_error
    assert not any(record.exc_info for record in caplog.records)
