"""The MCP host without a browser: result mapping, `serve` option rules, and the server's
handlers driven in-process by the official client (legacy handshake era) with tools whose
handlers the test replaces (slow, or enable-able), so progress, cancellation and
`list_changed` are checked deterministically."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel

from agent_browser_tools import playbook
from agent_browser_tools.api import BrowserTools
from agent_browser_tools.hosts.mcp import conversations, convert
from agent_browser_tools.hosts.mcp.conversations import ConversationRegistry
from agent_browser_tools.hosts.mcp.http import security_settings
from agent_browser_tools.hosts.mcp.options import ServeRefused, is_loopback, resolve_options
from agent_browser_tools.hosts.mcp.server import Ctx, build_server
from agent_browser_tools.results.tool_result import ImageBlock, TextBlock, ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings

# --- mapping ---------------------------------------------------------------------------


def test_result_maps_blocks_error_flag_and_details() -> None:
    result = ToolResult(
        content=(TextBlock("Saved: shot.png"), ImageBlock(data="aGVsbG8=", mime_type="image/png")),
        details={"resultCategory": "success", "path": Path("/tmp/shot.png")},
        is_error=False,
    )
    mapped = convert.result_to_mcp(result)
    assert [type(b) for b in mapped.content] == [types.TextContent, types.ImageContent]
    image = mapped.content[1]
    assert isinstance(image, types.ImageContent)
    assert (image.data, image.mime_type) == ("aGVsbG8=", "image/png")
    assert mapped.is_error is False
    assert mapped.meta == {
        convert.DETAILS_META_KEY: {"resultCategory": "success", "path": "/tmp/shot.png"}
    }
    wire = mapped.model_dump(by_alias=True, mode="json", exclude_none=True)
    assert wire["isError"] is False and convert.DETAILS_META_KEY in wire["_meta"]


def test_failure_result_is_an_error() -> None:
    failed = ToolResult((TextBlock("Error: x"),), {"resultCategory": "failure"}, is_error=True)
    assert convert.result_to_mcp(failed).is_error is True


def test_resources_are_the_on_demand_documents() -> None:
    uris = {r.uri for r in convert.resource_list()}
    assert uris == {convert.GUIDANCE_URI, convert.COMMANDS_URI}
    assert convert.read_resource_text(convert.COMMANDS_URI)
    assert convert.read_resource_text("agent-browser-tools://nope") is None


# --- serve options ---------------------------------------------------------------------


def _resolve(**kw: Any) -> Any:
    args: dict[str, Any] = dict(
        http=True, host=None, port=None, token=None, tools=None, conversation=None, env={}
    )
    args.update(kw)
    return resolve_options(**args)


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
def test_loopback_hosts(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.com"])
def test_non_loopback_bind_needs_a_token(host: str) -> None:
    assert not is_loopback(host)
    with pytest.raises(ServeRefused, match="token"):
        _resolve(host=host)
    assert _resolve(host=host, token="t" * 16).token == "t" * 16
    env_token = _resolve(host=host, env={"AGENT_BROWSER_TOOLS_HTTP_TOKEN": "e" * 16})
    assert env_token.token == "e" * 16


def test_option_rules() -> None:
    defaults = _resolve()
    assert (defaults.host, defaults.port, defaults.token) == ("127.0.0.1", 8765, None)
    assert _resolve(tools="agent_browser, agent_browser_tools").tools == {
        "agent_browser",
        "agent_browser_tools",
    }
    with pytest.raises(ServeRefused, match="stdio"):
        _resolve(conversation="c1")
    with pytest.raises(ServeRefused, match="--http"):
        _resolve(http=False, port=9000)
    stdio = _resolve(http=False, conversation="c1", env={"AGENT_BROWSER_TOOLS_HTTP_TOKEN": "x"})
    assert (stdio.conversation, stdio.token) == ("c1", None)


def test_file_root_options(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "shared").mkdir()
    monkeypatch.chdir(tmp_path)
    options = _resolve(file_roots=("shared", str(tmp_path)), unrestricted_files=True)
    assert options.file_roots == (tmp_path / "shared", tmp_path)
    assert options.unrestricted_files is True
    with pytest.raises(ServeRefused, match="not a directory"):
        _resolve(file_roots=("missing",))
    assert _resolve().file_roots == () and _resolve().unrestricted_files is False


def test_host_and_origin_allowlists() -> None:
    loopback = security_settings(_resolve())
    assert loopback.enable_dns_rebinding_protection
    assert {"127.0.0.1:*", "localhost:*", "[::1]:*"} <= set(loopback.allowed_hosts)
    assert "http://localhost:*" in loopback.allowed_origins
    assert not any("evil" in host for host in loopback.allowed_hosts)
    lan_options = _resolve(host="192.168.1.5", token="t" * 16, allowed_hosts=("box.lan",))
    lan = security_settings(lan_options)
    assert {"192.168.1.5:*", "box.lan:*"} <= set(lan.allowed_hosts)
    assert "https://box.lan:*" in lan.allowed_origins


# --- the server, in-process ------------------------------------------------------------

Events = dict[str, Any]


def _tools(tmp_path: Path, events: Events, **kw: Any) -> BrowserTools:
    settings = Settings.load(env={"AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path)}, cwd=tmp_path)
    tools = BrowserTools(settings=settings, cwd=tmp_path, **kw)

    async def slow(rt: Runtime, inp: Slow) -> ToolResult:
        events["started"].set()
        try:
            await asyncio.sleep(inp.seconds)
        except asyncio.CancelledError:
            events["cancelled"] = True
            raise
        return ToolResult((TextBlock("done"),), {"resultCategory": "success"})

    specs = tools.toolkit.specs
    specs["agent_browser"] = replace(specs["agent_browser"], input_model=Slow, handler=slow)
    electron = next(s for s in specs.values() if s.capability == "electron")
    specs[electron.name] = replace(electron, input_model=Slow, handler=slow)  # enable-able now
    return tools


class Slow(BaseModel):
    """The replaced handlers' input: how long to take."""

    seconds: float = 0


@pytest.fixture(autouse=True)
def fast_ticks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(conversations, "TICK_S", 0.05)


@contextlib.asynccontextmanager
async def serving(tmp_path: Path) -> AsyncIterator[tuple[Client, Events, ConversationRegistry]]:
    """An in-process server over one conversation, and an official client connected to it.

    (A context manager, not an async fixture: the client's task group must be entered and
    left in the same task.)
    """
    events: Events = {"started": anyio.Event(), "cancelled": False, "messages": []}
    registry = ConversationRegistry(lambda key: _tools(tmp_path, events))

    def key_of(ctx: Ctx) -> str:
        return "one"

    server = build_server(registry, key_of, stateless_era=True)

    async def collect(message: Any) -> None:
        events["messages"].append(message)

    async with Client(server, mode="legacy", message_handler=collect) as connected:
        yield connected, events, registry
    await registry.close_all()


async def test_tools_list_and_instructions(tmp_path: Path) -> None:
    async with serving(tmp_path) as (connected, _events, _registry):
        names = [t.name for t in (await connected.list_tools()).tools]
        assert names == ["agent_browser", "agent_browser_code", "agent_browser_tools"]
        tools_capability = connected.server_capabilities.tools
        assert tools_capability is not None
        assert tools_capability.list_changed is True
        assert connected.instructions == playbook.INSTRUCTIONS


async def test_progress_ticks_while_a_call_runs(tmp_path: Path) -> None:
    async with serving(tmp_path) as (connected, _events, _registry):
        ticks: list[float] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            ticks.append(progress)

        result = await connected.call_tool(
            "agent_browser", {"seconds": 0.4}, progress_callback=on_progress
        )
        assert not result.is_error and len(ticks) >= 2
        assert ticks == sorted(ticks)


async def test_cancelled_request_cancels_the_tool_call(tmp_path: Path) -> None:
    async with serving(tmp_path) as (connected, events, _):
        async with anyio.create_task_group() as tg:
            tg.start_soon(connected.call_tool, "agent_browser", {"seconds": 30})
            with anyio.fail_after(5):
                await events["started"].wait()
            tg.cancel_scope.cancel()
        with anyio.fail_after(5):
            while not events["cancelled"]:
                await anyio.sleep(0.01)


async def test_enable_announces_list_change_once(tmp_path: Path) -> None:
    async with serving(tmp_path) as (connected, events, _):
        changed = await connected.call_tool("agent_browser_tools", {"enable": ["electron"]})
        assert not changed.is_error
        with anyio.fail_after(5):
            while not any(
                isinstance(m, types.ToolListChangedNotification) for m in events["messages"]
            ):
                await anyio.sleep(0.01)
        assert "agent_browser_electron" in {t.name for t in (await connected.list_tools()).tools}
        again = await connected.call_tool("agent_browser_tools", {"enable": ["electron"]})
        assert not again.is_error  # already enabled: no second announcement
        await anyio.sleep(0.1)
        count = sum(isinstance(m, types.ToolListChangedNotification) for m in events["messages"])
        assert count == 1


async def test_unknown_resource_is_a_protocol_error(tmp_path: Path) -> None:
    async with serving(tmp_path) as (connected, _events, _registry):
        with pytest.raises(MCPError):
            await connected.read_resource("agent-browser-tools://nope")


async def test_shutdown_interrupts_calls_and_refuses_new_conversations(tmp_path: Path) -> None:
    async with serving(tmp_path) as (connected, events, registry):
        async with anyio.create_task_group() as tg:
            tg.start_soon(connected.call_tool, "agent_browser", {"seconds": 30})
            with anyio.fail_after(5):
                await events["started"].wait()
            await registry.close_all()
        assert events["cancelled"]
        with pytest.raises(MCPError, match="shutting down"):
            await connected.list_tools()


async def test_an_idle_conversation_is_closed_and_a_busy_one_is_kept(tmp_path: Path) -> None:
    """HTTP reaps conversations idle past the session idle timeout: each is closed as at the
    end of its session (`BrowserTools.aclose`, so its managed browsers close)."""
    events: Events = {"started": anyio.Event(), "cancelled": False, "messages": []}
    closed: list[str] = []

    def factory(key: str) -> BrowserTools:
        tools = _tools(tmp_path, events, conversation_id=key)
        real_close = tools.aclose

        async def aclose() -> None:
            closed.append(key)
            await real_close()

        tools.aclose = aclose  # type: ignore[method-assign]
        return tools

    registry = ConversationRegistry(factory, idle_timeout_s=60)
    idle, busy, recent = registry.get("idle"), registry.get("busy"), registry.get("recent")
    idle.last_used -= 120
    busy.last_used -= 120
    call = asyncio.create_task(busy.call("agent_browser", {"seconds": 30}, None))
    with anyio.fail_after(5):
        await events["started"].wait()
    await registry.reap_idle()
    assert closed == ["idle"]
    assert len(registry) == 2 and registry.get("recent") is recent
    assert registry.get("idle") is not idle  # a later request starts a new conversation
    await registry.close_all()
    assert events["cancelled"] and call.done()


# --- client roots ----------------------------------------------------------------------


@contextlib.asynccontextmanager
async def serving_with_roots(
    tmp_path: Path, roots: list[str], asked: list[int]
) -> AsyncIterator[tuple[Client, ConversationRegistry]]:
    """A server whose client declares the roots capability and answers with `roots`."""
    events: Events = {"started": anyio.Event(), "cancelled": False, "messages": []}
    registry = ConversationRegistry(lambda key: _tools(tmp_path, events))

    def key_of(ctx: Ctx) -> str:
        return "one"

    async def list_roots(context: Any) -> types.ListRootsResult:
        asked.append(1)
        listed = [types.Root.model_validate({"uri": uri}) for uri in roots]
        return types.ListRootsResult(roots=listed)

    server = build_server(registry, key_of, stateless_era=True)
    async with Client(server, mode="legacy", list_roots_callback=list_roots) as connected:
        yield connected, registry
    await registry.close_all()


async def test_client_roots_become_file_roots_and_follow_changes(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    roots, asked = [first.as_uri()], list[int]()
    async with serving_with_roots(tmp_path, roots, asked) as (connected, registry):
        await connected.call_tool("agent_browser", {"seconds": 0})
        await connected.call_tool("agent_browser", {"seconds": 0})
        runtime = registry.get("one").tools.runtime
        assert runtime.client_roots == (first,)
        assert asked == [1], "asked once per conversation, not per call"
        roots[:] = [second.as_uri()]
        with pytest.warns(Warning):  # the SDK marks roots deprecated for the 2026 era
            await connected.send_roots_list_changed()
        with anyio.fail_after(5):
            while runtime.client_roots != (second,):
                await connected.call_tool("agent_browser", {"seconds": 0})
        assert first not in runtime.file_roots.all_roots and second in runtime.file_roots.all_roots


async def test_a_client_without_roots_keeps_the_execution_dir_only(tmp_path: Path) -> None:
    async with serving(tmp_path) as (connected, _events, registry):
        await connected.call_tool("agent_browser", {"seconds": 0})
        runtime = registry.get("one").tools.runtime
        assert runtime.client_roots == ()
        assert runtime.file_roots.all_roots == (tmp_path,)
