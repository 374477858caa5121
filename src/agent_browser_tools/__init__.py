"""agent-browser-tools: a safe, token-lean browser layer for LLM agents.

`BrowserTools` is the in-process API; `agent-browser-tools serve` exposes the same tools over
MCP. See the README for set-up.
"""

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
