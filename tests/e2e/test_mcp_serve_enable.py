"""`serve --enable`: advanced tools on from the start, seen by the official MCP client.

The first `tools/list` must already hold the enabled tools (over stdio the SDK answers it,
not the stdio front, whose recorded list has only the always-on tools), and the conversation
itself must count them as active. No browser is started: listing and the inventory need none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import cli_env
from tests.support.mcp_server import details_of, http_client, http_server, stdio_client

ALWAYS_ON = {"agent_browser", "agent_browser_code", "agent_browser_tools"}


def _statuses(details: dict[str, object]) -> dict[str, str]:
    rows = details["inventory"]
    assert isinstance(rows, list)
    return {row["name"]: row["status"] for row in rows}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_serve_enable_qa_lists_the_qa_tool_from_the_start(tmp_path: Path, mode: str) -> None:
    async with stdio_client(cli_env(tmp_path), "--enable", "qa", mode=mode) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        assert names == ALWAYS_ON | {"agent_browser_qa"}
        inventory = details_of(await client.call_tool("agent_browser_tools", {}))
    statuses = _statuses(inventory)
    assert statuses["agent_browser_qa"] == "active"
    assert statuses["agent_browser_action"] == "inactive"


async def test_without_enable_the_first_list_holds_only_the_always_on_tools(
    tmp_path: Path,
) -> None:
    """The control: the same start without `--enable` (served by the stdio front)."""
    async with stdio_client(cli_env(tmp_path)) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    assert names == ALWAYS_ON


async def test_serve_http_enable_lists_the_enabled_tools_in_every_session(
    tmp_path: Path,
) -> None:
    with http_server(cli_env(tmp_path), "--enable", "action,qa") as server:
        assert server.url is not None
        for _ in range(2):
            async with http_client(server.url) as client:
                names = {tool.name for tool in (await client.list_tools()).tools}
            assert names == ALWAYS_ON | {"agent_browser_action", "agent_browser_qa"}
