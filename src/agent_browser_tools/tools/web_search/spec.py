"""`agent_browser_web_search` declared: live web search, listed when a key is configured."""

from __future__ import annotations

from agent_browser_tools import playbook
from agent_browser_tools.tools.registry import ToolSpec
from agent_browser_tools.tools.web_search.schema import NAME, WebSearchInput

SPEC = ToolSpec(
    name=NAME,
    title="Web search",
    summary="live web facts (Exa/Brave)",
    description=playbook.WEB_SEARCH,
    input_model=WebSearchInput,
    handler="agent_browser_tools.tools.web_search.run:run",
    read_only_hint=True,
    destructive_hint=False,
    open_world_hint=True,
    listed_when="an Exa or Brave key is configured",
)
