"""The MCP server object: handlers over a `ConversationRegistry`, on the SDK's lowlevel `Server`.

Contract of `build_server`:

- `tools/list` answers the `listed_tools()` of the caller's conversation (name, title,
  description, inputSchema, annotations), never cached by clients (`ttlMs` 0, private);
  before a conversation is open, the registry's preview of it when the host gave one (see
  `conversations`).
- `tools/call` runs the call on the caller's conversation and answers `result_to_mcp(result)`.
  A call that takes longer than ~2 s reports progress every ~2 s when the client sent a
  progressToken. A cancelled request cancels the handler, which kills the engine child (see
  `conversations`). When a call's details carry `toolsChanged: true` (a successful enable), the
  client is told the tool list changed: on handshake-era connections by a
  `notifications/tools/list_changed` on the request's own stream (so it also reaches HTTP
  clients without a standalone GET stream), on 2026-07-28 connections by a
  `ToolsListChanged` event on the `subscriptions/listen` bus (when the host serves one).
- Before a conversation's first tool call (and the first after the client announces a change)
  the client's `file://` roots become file roots of the conversation (`roots`).
- `resources/list` / `resources/read` serve `agent-browser-tools://guidance` and
  `agent-browser-tools://commands`.
- `instructions` is `playbook.INSTRUCTIONS`; the tools capability advertises `listChanged`.
- Which conversation a request belongs to is the host's decision (`key_of`): stdio has one,
  HTTP has one per MCP session. `key_of` returning None means the request cannot be served
  (e.g. a stateless HTTP request), and the client gets an `INVALID_REQUEST` error naming why.
- A conversation that cannot start (`ConversationUnavailable`: e.g. the state dir's disk
  filled up after the server started) fails `tools/call` as an `aborted` result naming the
  fix, and `tools/list` (which has no result to carry it) as an `INTERNAL_ERROR` with the same
  one line, unless the registry answered it from a preview; nothing is logged as a traceback,
  and the next request tries again.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent_browser_tools import __version__, playbook
from agent_browser_tools.hosts.mcp import convert, roots
from agent_browser_tools.hosts.mcp.conversations import (
    Conversation,
    ConversationRegistry,
    ConversationUnavailable,
    ServerClosing,
    Tick,
)

logger = logging.getLogger(__name__)

SERVER_NAME = "agent-browser-tools"
NO_SESSION = (
    "this server keeps one browser per MCP session; connect with the initialize handshake "
    "(protocol 2025-11-25 or earlier) over a stateful Streamable HTTP session"
)

Ctx = ServerRequestContext[Any, Any]
KeyOf = Callable[[Ctx], str | None]


class BrowserToolsServer(Server[Any]):
    """The lowlevel `Server`, advertising `tools.listChanged` on every transport.

    The Streamable HTTP manager builds each session's `InitializeResult` from
    `create_initialization_options()` with no arguments, so the default is set here.
    """

    def create_initialization_options(
        self,
        notification_options: NotificationOptions | None = None,
        experimental_capabilities: dict[str, dict[str, Any]] | None = None,
        extensions: dict[str, dict[str, Any]] | None = None,
    ) -> InitializationOptions:
        return super().create_initialization_options(
            notification_options or NotificationOptions(tools_changed=True),
            experimental_capabilities,
            extensions,
        )


class _Handlers:
    """The request handlers, bound to one registry and one conversation-keying rule."""

    def __init__(
        self,
        registry: ConversationRegistry,
        key_of: KeyOf,
        bus: InMemorySubscriptionBus | None,
    ) -> None:
        self.registry = registry
        self.key_of = key_of
        self.bus = bus

    def key(self, ctx: Ctx) -> str:
        key = self.key_of(ctx)
        if key is None:
            raise MCPError(types.INVALID_REQUEST, NO_SESSION)
        return key

    def conversation(self, ctx: Ctx) -> Conversation:
        try:
            return self.registry.get(self.key(ctx))
        except ServerClosing as exc:
            raise MCPError(types.INVALID_REQUEST, str(exc)) from None

    async def list_tools(
        self, ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        try:
            listed = self.registry.listed_tools(self.key(ctx))
        except ServerClosing as exc:
            raise MCPError(types.INVALID_REQUEST, str(exc)) from None
        except ConversationUnavailable as exc:
            raise MCPError(types.INTERNAL_ERROR, str(exc)) from None
        return types.ListToolsResult(
            tools=[convert.tool_to_mcp(spec) for spec in listed], ttl_ms=0, cache_scope="private"
        )

    async def call_tool(
        self, ctx: Ctx, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        try:
            conversation = self.conversation(ctx)
        except ConversationUnavailable as exc:
            return convert.result_to_mcp(exc.result(params.name))
        await roots.sync_roots(ctx, conversation)
        result = await conversation.call(
            params.name, params.arguments or {}, _progress_ticker(ctx, params.name)
        )
        if result.details.get("toolsChanged") is True and not result.is_error:
            await self.announce_tools_changed(ctx)
        return convert.result_to_mcp(result)

    async def announce_tools_changed(self, ctx: Ctx) -> None:
        """Tell the client to re-list tools, in the way its protocol era allows."""
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            if self.bus is not None:
                await self.bus.publish(ToolsListChanged())
            return
        with contextlib.suppress(Exception):
            await ctx.session.send_notification(
                types.ToolListChangedNotification(), related_request_id=ctx.request_id
            )

    async def roots_list_changed(self, ctx: Ctx, params: types.NotificationParams) -> None:
        key = self.key_of(ctx)
        with contextlib.suppress(ServerClosing, ConversationUnavailable):
            if key is not None:
                roots.roots_changed(self.registry.get(key))

    async def list_resources(
        self, ctx: Ctx, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=convert.resource_list())

    async def read_resource(
        self, ctx: Ctx, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        uri = str(params.uri)
        text = convert.read_resource_text(uri)
        if text is None:
            raise MCPError(types.INVALID_PARAMS, f"Unknown resource: {uri}")
        contents = types.TextResourceContents(uri=uri, mime_type="text/markdown", text=text)
        return types.ReadResourceResult(contents=[contents])


def _progress_ticker(ctx: Ctx, name: str) -> Tick | None:
    """A tick callback sending progress for this request, or None without a progressToken."""
    if ctx.meta is None or ctx.meta.get("progress_token") is None:
        return None

    async def tick(elapsed_s: float) -> None:
        with contextlib.suppress(Exception):  # progress is best-effort, never fails the call
            await ctx.session.report_progress(
                round(elapsed_s, 1), None, f"{name} still running after {elapsed_s:.0f} s"
            )

    return tick


async def _refuse_discover(ctx: Ctx, params: types.RequestParams | None) -> types.DiscoverResult:
    raise MCPError(types.METHOD_NOT_FOUND, "Method not found", "server/discover")


def build_server(
    registry: ConversationRegistry,
    key_of: KeyOf,
    *,
    stateless_era: bool,
) -> BrowserToolsServer:
    """The MCP server over `registry`; see the module docstring.

    `stateless_era` serves the 2026-07-28 per-request era too (with a `subscriptions/listen`
    bus for tool-list changes): right for stdio, where the process is the conversation. HTTP
    passes False: `server/discover` is then refused, so clients negotiate a stateful session
    (which is what a conversation is keyed on).
    """
    bus = InMemorySubscriptionBus() if stateless_era else None
    handlers = _Handlers(registry, key_of, bus)
    server = BrowserToolsServer(
        SERVER_NAME,
        version=__version__,
        instructions=playbook.INSTRUCTIONS,
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_resources=handlers.list_resources,
        on_read_resource=handlers.read_resource,
        on_subscriptions_listen=ListenHandler(bus) if bus is not None else None,
    )
    server.add_notification_handler(
        "notifications/roots/list_changed", types.NotificationParams, handlers.roots_list_changed
    )
    if not stateless_era:
        server.add_request_handler("server/discover", types.RequestParams, _refuse_discover)
    return server
