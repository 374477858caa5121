"""Scenario bodies shared by the stdio and HTTP end-to-end tests (same assertions, two wires)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from agent_browser_tools import playbook
from tests.support.fixture_server import FixtureServer
from tests.support.mcp_server import (
    ab,
    details_of,
    engine_children,
    eventually,
    ref_in,
    text_of,
    tool_list_changes,
    within,
)

ALWAYS_ON = {"agent_browser", "agent_browser_code", "agent_browser_tools"}
CANCEL_KILL_WINDOW_S = 5.0


async def check_listing(client: Client) -> None:
    """tools/list, instructions and the two resources."""
    listed = await client.list_tools()
    names = {tool.name for tool in listed.tools}
    assert names >= ALWAYS_ON
    assert "agent_browser_qa" not in names  # advanced tools stay off until enabled
    for tool in listed.tools:
        assert tool.description
        assert tool.input_schema.get("type") == "object"
        assert tool.title and tool.annotations is not None, tool.name
        assert tool.annotations.title == tool.title
        for hint in ("read_only_hint", "destructive_hint", "open_world_hint"):
            assert isinstance(getattr(tool.annotations, hint), bool), (tool.name, hint)
    hints = {tool.name: tool.annotations for tool in listed.tools}
    assert hints["agent_browser"] is not None and hints["agent_browser"].destructive_hint
    assert hints["agent_browser_tools"] is not None
    assert not hints["agent_browser_tools"].open_world_hint
    assert client.instructions == playbook.INSTRUCTIONS
    uris = {str(r.uri) for r in (await client.list_resources()).resources}
    assert uris == {"agent-browser-tools://guidance", "agent-browser-tools://commands"}
    guidance = await client.read_resource("agent-browser-tools://guidance")
    first = guidance.contents[0]
    assert isinstance(first, types.TextResourceContents)
    assert first.text == playbook.FULL_GUIDANCE


async def browse(client: Client, site: FixtureServer) -> str:
    """open -> snapshot -i -> click a ref -> failures -> progress -> screenshot.

    Returns the managed session name (so the caller can check it is closed later).
    """
    opened = await ab(client, "open", site.url("links.html"))
    assert not opened.is_error, text_of(opened)
    details = details_of(opened)
    assert details["resultCategory"] == "success"
    session = str(details["sessionName"])

    snapshot = await ab(client, "snapshot", "-i")
    assert not snapshot.is_error and "Go to Page A" in text_of(snapshot)
    link = ref_in(details_of(snapshot), "link", "Go to Page A")
    clicked = await ab(client, "click", link)
    assert not clicked.is_error, text_of(clicked)
    assert "page-a.html" in text_of(await ab(client, "get", "url"))

    stale = await ab(client, "click", link)  # the ref came from the page we left
    assert stale.is_error and details_of(stale)["failureCategory"] == "stale-ref"
    unknown = await client.call_tool("agent_browser", {"args": ["get", "url"], "bogus": 1})
    assert unknown.is_error and details_of(unknown)["resultCategory"] == "failure"

    await check_progress(client)

    shot = await ab(client, "screenshot")
    assert not shot.is_error and text_of(shot)
    images = [b for b in shot.content if isinstance(b, types.ImageContent)]
    assert images, "a screenshot attaches its image block"
    image = images[0]
    assert image.mime_type.startswith("image/") and len(image.data) > 100
    return session


async def check_progress(client: Client) -> None:
    """A call over ~2 s reports progress when the client asked for it."""
    ticks: list[tuple[float, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        ticks.append((progress, message))

    waited = await client.call_tool(
        "agent_browser", {"args": ["wait", "3000"]}, progress_callback=on_progress
    )
    assert not waited.is_error, text_of(waited)
    assert ticks, "no progress notification for a 3 s call"
    assert all(b[0] > a[0] for a, b in itertools.pairwise(ticks))


ALLOW_ALWAYS_ON = "--tools=agent_browser,agent_browser_tools"
"""A `serve` allowlist that excludes every advanced tool, so enabling one always fails."""


async def enable_unavailable(client: Client, messages: list[Any]) -> None:
    """Enabling a capability the allowlist excludes: isError and no list change."""
    before = {t.name for t in (await client.list_tools()).tools}
    result = await client.call_tool("agent_browser_tools", {"enable": ["qa"]})
    assert result.is_error
    details = details_of(result)
    assert details["toolsChanged"] is False
    assert details["enable"]["qa"].startswith("unavailable")
    await anyio.sleep(0.5)
    assert tool_list_changes(messages) == 0
    assert {t.name for t in (await client.list_tools()).tools} == before


async def enable_qa(client: Client, messages: list[Any]) -> None:
    """Enabling `qa` lists its tool and sends `notifications/tools/list_changed`."""
    result = await client.call_tool("agent_browser_tools", {"enable": ["qa"]})
    assert not result.is_error, text_of(result)
    assert details_of(result)["toolsChanged"] is True
    assert await eventually(lambda: tool_list_changes(messages) == 1, timeout=5.0)
    names = {t.name for t in (await client.list_tools()).tools}
    assert "agent_browser_qa" in names


async def cancel_kills_engine_child(client: Client, site: FixtureServer, socket_dir: Path) -> None:
    """Cancelling a slow call through the client kills its engine child within seconds."""
    opened = await ab(client, "open", site.url("page-a.html"))
    assert not opened.is_error, text_of(opened)
    async with anyio.create_task_group() as tg:
        tg.start_soon(ab, client, "wait", "30000")
        children = await eventually(
            lambda: engine_children(socket_dir, "wait", "30000"), timeout=15.0
        )
        assert children, "the engine child of `wait 30000` never appeared"
        tg.cancel_scope.cancel()
    left = await eventually(
        lambda: not engine_children(socket_dir, "wait", "30000"), timeout=CANCEL_KILL_WINDOW_S
    )
    assert left, f"engine child still running: {engine_children(socket_dir, 'wait', '30000')}"
    # The server still answers on the same connection.
    listed = await within(10.0, client.list_tools())
    assert {t.name for t in listed.tools} >= ALWAYS_ON


async def client_roots_confine_files(client: Client, site: FixtureServer, tmp_path: Path) -> None:
    """The client's `file://` root is a file root (and, when the server was given no dir, the
    execution dir) of its conversation; a sibling is not. (A shared HTTP server takes no
    client roots: `test_mcp_http.py`.)"""
    root, sibling = tmp_path / "client-root", tmp_path / "sibling"
    assert (await ab(client, "open", site.url("clean.html"))).is_error is False
    inside = await ab(client, "screenshot", str(root / "a.png"))
    assert not inside.is_error, text_of(inside)
    assert (root / "a.png").is_file()
    relative = await ab(client, "screenshot", "evidence/c.png")  # the first root is the cwd
    assert not relative.is_error, text_of(relative)
    assert (root / "evidence" / "c.png").is_file()
    outside = await ab(client, "screenshot", str(sibling / "b.png"))
    assert outside.is_error
    policy = details_of(outside)["policy"]
    assert policy == {
        "rule": "file-root",
        "subject": str(sibling / "b.png"),
        "allowWith": f"--file-root {sibling}",
    }
    assert not (sibling / "b.png").exists()
    await ab(client, "close")
