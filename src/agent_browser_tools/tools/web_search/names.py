"""The web search tool's name and search types, apart from its pydantic input model.

Why: whether the tool is listed (`web_search_available`, reading `config`) is decided before
a stdio client's first answer (`hosts/mcp/stdio_front`), and that needs these names, not the
input model (`schema`, which re-exports them) and the pydantic import it brings.
"""

from __future__ import annotations

NAME = "agent_browser_web_search"

SEARCH_TYPES: tuple[str, ...] = ("auto", "fast", "instant", "deep-lite", "deep", "deep-reasoning")
