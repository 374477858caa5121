"""The declared tools of this release, built into a `Toolkit` for one conversation."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agent_browser_tools import playbook
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools import agent_browser, capabilities
from agent_browser_tools.tools.registry import Toolkit, ToolSpec

NOT_YET = "not implemented in this release"


def compact_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema without decorative `title`s (they cost tokens on every turn)."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {
                k: strip(v)
                for k, v in node.items()
                if not (k == "title" and isinstance(v, str))
            }
        if isinstance(node, list):
            return [strip(item) for item in node]
        return node

    schema: dict[str, Any] = strip(model.model_json_schema())
    return schema


def _advanced(capability: str) -> ToolSpec:
    name, description = playbook.ADVANCED[capability]
    empty: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": True}
    return ToolSpec(name, description, empty, None, capability, NOT_YET)


def build_specs(settings: Settings) -> dict[str, ToolSpec]:
    """Every tool this release declares, in listing order."""
    specs = [
        ToolSpec(
            "agent_browser",
            playbook.AGENT_BROWSER,
            compact_schema(AgentBrowserInput),
            agent_browser.run,
        ),
        ToolSpec(
            "agent_browser_tools",
            playbook.AGENT_BROWSER_TOOLS,
            compact_schema(capabilities.ToolsInput),
            capabilities.run,
        ),
    ]
    specs += [_advanced(c) for c in playbook.ADVANCED]
    return {spec.name: spec for spec in specs}


def build_toolkit(settings: Settings, allowlist: frozenset[str] | None = None) -> Toolkit:
    return Toolkit(specs=build_specs(settings), allowlist=allowlist)
