"""Pure mapping between the tool layer and MCP wire types (no I/O, no SDK session state).

- `ToolSpec` -> `Tool` (name, title, description, inputSchema, and annotations: the spec's
  read-only / destructive / idempotent / open-world hints).
- `ToolResult` -> `CallToolResult`: `TextBlock` -> `TextContent`, `ImageBlock` ->
  `ImageContent` (same order), `isError` = `result.is_error`, and the details (audit/replay
  metadata, not for the model) under `_meta["agent-browser-tools/details"]`.
- The two on-demand documents (`FULL_GUIDANCE`, `command_reference()`) as MCP resources.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import mcp_types as types

from agent_browser_tools import playbook
from agent_browser_tools.input_limits import well_formed_data
from agent_browser_tools.results.tool_result import ImageBlock, TextBlock, ToolResult
from agent_browser_tools.tools.registry import ToolSpec

DETAILS_META_KEY = "agent-browser-tools/details"
"""Where a result's details travel in `CallToolResult._meta`."""

GUIDANCE_URI = "agent-browser-tools://guidance"
COMMANDS_URI = "agent-browser-tools://commands"


def tool_to_mcp(spec: ToolSpec) -> types.Tool:
    """One listed tool as an MCP `Tool`, with the spec's title and behaviour hints."""
    annotations = types.ToolAnnotations(
        title=spec.title,
        read_only_hint=spec.read_only_hint,
        destructive_hint=spec.destructive_hint,
        idempotent_hint=spec.idempotent_hint,
        open_world_hint=spec.open_world_hint,
    )
    return types.Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema,
        annotations=annotations,
    )


def _json_safe(details: dict[str, Any]) -> dict[str, Any]:
    """Details as plain JSON values (paths, enums and the like become strings), well-formed:
    a lone surrogate (which the SDK cannot write as UTF-8) becomes U+FFFD. Only a dump that
    escapes a surrogate at all (`\\udXXX`, also an emoji's pair) is looked at closer."""
    dumped = json.dumps(details, default=str)
    safe: dict[str, Any] = json.loads(dumped)
    if "\\ud" in dumped:
        safe = well_formed_data(safe)
    return safe


def content_to_mcp(result: ToolResult) -> list[types.ContentBlock]:
    """Model-visible blocks in their original order."""
    blocks: list[types.ContentBlock] = []
    for block in result.content:
        if isinstance(block, TextBlock):
            blocks.append(types.TextContent(text=block.text))
        elif isinstance(block, ImageBlock):
            blocks.append(types.ImageContent(data=block.data, mime_type=block.mime_type))
    return blocks


def result_to_mcp(result: ToolResult) -> types.CallToolResult:
    """A tool's answer as an MCP `CallToolResult` (content, isError, details in `_meta`)."""
    return types.CallToolResult(
        content=content_to_mcp(result),
        is_error=result.is_error,
        _meta={DETAILS_META_KEY: _json_safe(result.details)},
    )


_RESOURCES: dict[str, tuple[str, str, Callable[[], str]]] = {
    GUIDANCE_URI: (
        "guidance",
        "Full guidance for the browser tools: refs, sessions, output, timeouts, safety.",
        lambda: playbook.FULL_GUIDANCE,
    ),
    COMMANDS_URI: (
        "commands",
        "Reference of every native agent-browser command the agent_browser tool accepts.",
        playbook.command_reference,
    ),
}


def resource_list() -> list[types.Resource]:
    """The on-demand documents, as listed resources."""
    return [
        types.Resource(uri=uri, name=name, description=description, mime_type="text/markdown")
        for uri, (name, description, _) in _RESOURCES.items()
    ]


def read_resource_text(uri: str) -> str | None:
    """The text of a known resource, or None for an unknown URI."""
    entry = _RESOURCES.get(uri)
    return entry[2]() if entry is not None else None
