"""The MCP client's roots as file roots of its conversation.

When the client declares the `roots` capability, the server asks it for its roots
(`roots/list`) before the conversation's first tool call, and again before the next call after
the client sends `notifications/roots/list_changed`. Only `file://` roots count
(`BrowserTools.set_client_roots`). The question travels on the tool call's own stream and is
bounded by `ROOTS_TIMEOUT_S`: a client that does not answer leaves the conversation with the
execution dir and the operator's roots, which is the narrower choice. A shared (HTTP) server
does not ask: its clients' folders are not this host's, and each conversation works in its own
workspace.
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.message import ServerMessageMetadata

from agent_browser_tools.hosts.mcp.conversations import Conversation

logger = logging.getLogger(__name__)

ROOTS_TIMEOUT_S = 5.0

Ctx = ServerRequestContext[Any, Any]


def client_has_roots(ctx: Ctx) -> bool:
    capabilities = ctx.session.client_capabilities
    return capabilities is not None and capabilities.roots is not None


async def sync_roots(ctx: Ctx, conversation: Conversation) -> None:
    """Ask the client for its roots once, or again after it said they changed."""
    if conversation.roots_synced:
        return
    conversation.roots_synced = True  # a change announced while asking asks again
    if not client_has_roots(ctx) or conversation.tools.shared_server:
        return
    metadata = ServerMessageMetadata(related_request_id=ctx.request_id)
    try:
        with anyio.fail_after(ROOTS_TIMEOUT_S):
            result = await ctx.session.send_request(
                types.ListRootsRequest(), types.ListRootsResult, metadata=metadata
            )
    except Exception as exc:  # the client's answer only widens access: without it, stay narrow
        logger.warning("the client did not list its roots (%r); using the configured ones", exc)
        conversation.tools.set_client_roots(())
        return
    roots = conversation.tools.set_client_roots(str(root.uri) for root in result.roots)
    logger.info("client roots: %s", ", ".join(str(root) for root in roots) or "none")


def roots_changed(conversation: Conversation) -> None:
    """`notifications/roots/list_changed`: ask again before the next call."""
    conversation.roots_synced = False
