"""The declared tools of this release, built into a `Toolkit` for one conversation.

Each tool is declared once, in its own `spec.py`; this module only lists them in listing
order. Importing it loads no tool machinery: handlers are named, not imported.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_browser_tools.settings import Settings
from agent_browser_tools.tools import capabilities
from agent_browser_tools.tools.agent_browser.spec import SPEC as AGENT_BROWSER
from agent_browser_tools.tools.code.spec import SPEC as CODE
from agent_browser_tools.tools.registry import Toolkit, ToolSpec
from agent_browser_tools.tools.web_search import web_search_available
from agent_browser_tools.tools.web_search.spec import SPEC as WEB_SEARCH


def declared(*, web_search: bool = True) -> list[ToolSpec]:
    """Every tool this release declares, in listing order (web search only if asked)."""
    search = [WEB_SEARCH] if web_search else []
    return [AGENT_BROWSER, CODE, capabilities.SPEC, *search, *capabilities.ADVANCED]


def build_specs(settings: Settings) -> dict[str, ToolSpec]:
    """The tools of a conversation under `settings`: web search only when a key resolves."""
    specs = declared(web_search=web_search_available(settings))
    return {spec.name: spec for spec in specs}


def build_toolkit(settings: Settings, allowlist: frozenset[str] | None = None) -> Toolkit:
    toolkit = Toolkit(specs=build_specs(settings), allowlist=allowlist)
    toolkit.specs[capabilities.NAME] = capabilities.bind(toolkit)
    return toolkit


def listed_at_start(
    settings: Settings, allowlist: frozenset[str] | None = None, enable: Iterable[str] = ()
) -> list[ToolSpec]:
    """What a new conversation lists before the model enables anything (`enable`: what the
    host turns on at start, `serve --enable`): `BrowserTools.listed_tools()` of a fresh
    conversation, without opening one (its journal, runtime and engine modules), so a host
    can answer a client's first `tools/list` sooner."""
    toolkit = build_toolkit(settings, allowlist)
    toolkit.enable(enable)
    return toolkit.listed()
