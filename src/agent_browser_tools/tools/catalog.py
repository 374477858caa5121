"""The declared tools of this release, built into a `Toolkit` for one conversation."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from agent_browser_tools import playbook
from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools import capabilities, web_search
from agent_browser_tools.tools.action.schema import ActionInput
from agent_browser_tools.tools.code import schema as code_input
from agent_browser_tools.tools.qa import compile as qa_compile
from agent_browser_tools.tools.registry import Toolkit, ToolSpec

NOT_YET = "not implemented in this release"
_TOOLS = "agent_browser_tools.tools."


def compact_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema, trimmed of what costs tokens on every turn but says nothing:
    decorative `title`s, and `anyOf [T, null]` + `default: null` for optional fields (an
    optional field is simply omitted; validation still accepts an explicit null)."""

    def strip(node: Any) -> Any:
        if isinstance(node, list):
            return [strip(item) for item in node]
        if not isinstance(node, dict):
            return node
        out = {k: strip(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
        options = out.get("anyOf")
        if isinstance(options, list) and {"type": "null"} in options and len(options) == 2:
            (kept,) = [o for o in options if o != {"type": "null"}]
            del out["anyOf"]
            out = {**kept, **out}
            if out.get("default", 0) is None:
                del out["default"]
        return out

    schema: dict[str, Any] = strip(model.model_json_schema())
    schema.pop("description", None)  # the tool's own description says it; don't pay twice
    return schema


def _advanced(capability: str) -> ToolSpec:
    name, description = playbook.ADVANCED[capability]
    if capability == "action":
        schema = compact_schema(ActionInput)
        return ToolSpec(name, description, schema, _TOOLS + "action.run:run", capability)
    if capability == "qa":
        schema = compact_schema(qa_compile.QaInput)
        return ToolSpec(name, description, schema, _TOOLS + "qa.run:run", capability)
    empty: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": True}
    return ToolSpec(name, description, empty, None, capability, NOT_YET)


def build_specs(settings: Settings) -> dict[str, ToolSpec]:
    """Every tool this release declares, in listing order."""
    specs = [
        ToolSpec(
            "agent_browser",
            playbook.AGENT_BROWSER,
            compact_schema(AgentBrowserInput),
            _TOOLS + "agent_browser:run",
        ),
        ToolSpec(
            code_input.NAME,
            code_input.DESCRIPTION,
            compact_schema(code_input.CodeInput),
            _TOOLS + "code.run:run",
        ),
        ToolSpec(
            "agent_browser_tools",
            playbook.AGENT_BROWSER_TOOLS,
            compact_schema(capabilities.ToolsInput),
            capabilities.run,
        ),
    ]
    if web_search.web_search_available(settings):
        specs.append(
            ToolSpec(
                web_search.NAME,
                web_search.DESCRIPTION,
                compact_schema(web_search.INPUT_MODEL),
                _TOOLS + "web_search:run",
            )
        )
    specs += [_advanced(c) for c in playbook.ADVANCED]
    return {spec.name: spec for spec in specs}


def build_toolkit(settings: Settings, allowlist: frozenset[str] | None = None) -> Toolkit:
    return Toolkit(specs=build_specs(settings), allowlist=allowlist)
