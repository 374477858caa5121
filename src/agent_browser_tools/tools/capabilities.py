"""`agent_browser_tools`: inventory and enabling of advanced tools.

`{}` returns the inventory plus the full guidance and command reference (on demand, so they
are not pushed into every context). `{"enable": [...]}` turns capabilities on for this
conversation; the host then re-lists tools (MCP: `notifications/tools/list_changed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_browser_tools import playbook
from agent_browser_tools.planning.inputs import explain_validation_error
from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.runtime import Runtime

NAME = "agent_browser_tools"
Capability = Literal["action", "qa", "electron", "source", "network"]


class ToolsInput(BaseModel):
    """`{}` for the inventory, or capabilities to enable."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    enable: list[Capability] | None = Field(
        default=None, description='Capabilities to enable, e.g. ["action", "qa"].'
    )


async def run(rt: Runtime, params: Mapping[str, Any]) -> ToolResult:
    try:
        inp = ToolsInput.model_validate(params)
    except ValidationError as exc:
        return response.refused(explain_validation_error(exc, NAME, "an optional `enable` list"))
    toolkit = rt.toolkit
    if toolkit is None:
        return response.refused("no tool registry is attached to this runtime")
    if inp.enable:
        outcome = toolkit.enable(inp.enable)
        rt.record_activation(sorted(toolkit.activated))
        enabled = [c for c, o in outcome.items() if o == "enabled"]
        failed = {c: o for c, o in outcome.items() if o.startswith(("unavailable", "unknown"))}
        lines = [f"{c}: {o}" for c, o in outcome.items()]
        names = [s.name for s in toolkit.listed()]
        lines.append("Active tools: " + ", ".join(names))
        details: dict[str, Any] = {
            "enable": outcome,
            "activeTools": names,
            "toolsChanged": bool(enabled),
        }
        if failed and not enabled:
            return response.text("\n".join(lines), FailureCategory.VALIDATION_ERROR, details)
        return response.text("\n".join(lines), SuccessCategory.COMPLETED, details)
    inventory = toolkit.inventory()
    rows = [f"- {r['name']} [{r['status']}]: {r['description']}" for r in inventory]
    text = "\n".join(["Tools:", *rows, "", playbook.FULL_GUIDANCE, playbook.command_reference()])
    details = {
        "inventory": inventory,
        "resources": ["agent-browser-tools://guidance", "agent-browser-tools://commands"],
    }
    return response.text(text, SuccessCategory.INSPECTION, details)
