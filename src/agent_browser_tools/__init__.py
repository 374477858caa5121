"""agent-browser-tools: a safe, token-lean browser layer for LLM agents.

`BrowserTools` is the in-process API; `agent-browser-tools serve` exposes the same tools over
MCP. See the README for set-up. Names are imported on first use, so that importing one
submodule (the CLI, the MCP host) does not load every tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_browser_tools.api import BrowserTools, SyncBrowserTools
    from agent_browser_tools.results.tool_result import ImageBlock, TextBlock, ToolResult
    from agent_browser_tools.tools.registry import ToolSpec

__all__ = [
    "BrowserTools",
    "ImageBlock",
    "SyncBrowserTools",
    "TextBlock",
    "ToolResult",
    "ToolSpec",
]
__version__ = "0.1.0"

_HOMES = {
    "BrowserTools": "agent_browser_tools.api",
    "SyncBrowserTools": "agent_browser_tools.api",
    "ImageBlock": "agent_browser_tools.results.tool_result",
    "TextBlock": "agent_browser_tools.results.tool_result",
    "ToolResult": "agent_browser_tools.results.tool_result",
    "ToolSpec": "agent_browser_tools.tools.registry",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'agent_browser_tools' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home), name)
