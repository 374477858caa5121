"""`agent_browser_tools`: inventory and enabling of advanced tools.

`{}` returns the inventory plus the full guidance and command reference (on demand, so they
are not pushed into every context). `{"enable": [...]}` turns capabilities on for this
conversation; the host then re-lists tools (MCP: `notifications/tools/list_changed`).

The handler needs the conversation's `Toolkit`; `bind` closes over it when the toolkit is
built, so the runtime never points back at the registry.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_browser_tools import playbook
from agent_browser_tools.planning.inputs import FORMER_FIELDS
from agent_browser_tools.results import response
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.tools.action.spec import SPEC as ACTION
from agent_browser_tools.tools.electron.spec import SPEC as ELECTRON
from agent_browser_tools.tools.network_source.spec import SPEC as NETWORK_SOURCE
from agent_browser_tools.tools.qa.spec import SPEC as QA
from agent_browser_tools.tools.registry import Toolkit, ToolSpec
from agent_browser_tools.tools.source.spec import SPEC as SOURCE

if TYPE_CHECKING:
    from agent_browser_tools.runtime import Runtime

NAME = "agent_browser_tools"

ADVANCED: tuple[ToolSpec, ...] = (ACTION, QA, ELECTRON, SOURCE, NETWORK_SOURCE)
"""The tools `enable` can turn on, in listing order."""

CAPABILITIES: tuple[str, ...] = tuple(s.capability for s in ADVANCED if s.capability)

if TYPE_CHECKING:
    Capability = str
else:
    Capability = Literal[CAPABILITIES]  # the schema's enum, derived from the specs


class ToolsInput(BaseModel):
    """`{}` for the inventory, or capabilities to enable."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    enable: list[Capability] | None = Field(
        default=None, description='Capabilities to enable, e.g. ["action", "qa"].'
    )


async def unbound(rt: Runtime, inp: ToolsInput) -> ToolResult:
    """The declared handler, before `bind` gives it a toolkit to list and enable."""
    return response.refused("no tool registry is attached to this runtime")


SPEC = ToolSpec(
    name=NAME,
    title="Browser tools: list and enable",
    summary="list / enable advanced tools",
    description=playbook.AGENT_BROWSER_TOOLS,
    input_model=ToolsInput,
    handler="agent_browser_tools.tools.capabilities:unbound",
    read_only_hint=False,  # enabling changes the tool list
    destructive_hint=False,
    open_world_hint=False,
    idempotent_hint=True,
    allowed="an optional `enable` list",
    field_hints=FORMER_FIELDS,
)


def bind(toolkit: Toolkit) -> ToolSpec:
    """`SPEC` with a handler that lists and enables the tools of `toolkit`."""

    async def handle(rt: Runtime, inp: ToolsInput) -> ToolResult:
        return run(rt, inp, toolkit)

    return dataclasses.replace(SPEC, handler=handle)


def run(rt: Runtime, inp: ToolsInput, toolkit: Toolkit) -> ToolResult:
    if inp.enable:
        return _enable(rt, inp.enable, toolkit)
    inventory = toolkit.inventory()
    rows = [f"- {r['name']} [{r['status']}]: {r['description']}" for r in inventory]
    text = "\n".join(["Tools:", *rows, "", playbook.FULL_GUIDANCE, playbook.command_reference()])
    details = {
        "inventory": inventory,
        "resources": ["agent-browser-tools://guidance", "agent-browser-tools://commands"],
    }
    return response.text(text, SuccessCategory.INSPECTION, details)


def _enable(rt: Runtime, capabilities: list[str], toolkit: Toolkit) -> ToolResult:
    outcome = toolkit.enable(capabilities)
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
