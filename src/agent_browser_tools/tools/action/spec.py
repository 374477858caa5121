"""`agent_browser_action` declared (advanced): locator and accessible-select actions."""

from __future__ import annotations

from agent_browser_tools import playbook
from agent_browser_tools.planning.inputs import FORMER_FIELDS
from agent_browser_tools.tools.action.schema import NAME, ActionInput
from agent_browser_tools.tools.registry import ToolSpec

SPEC = ToolSpec(
    name=NAME,
    title="Browser action by locator",
    summary="locator/select actions",
    description=playbook.ACTION,
    input_model=ActionInput,
    handler="agent_browser_tools.tools.action.run:run",
    capability="action",
    read_only_hint=False,
    destructive_hint=True,
    open_world_hint=True,
    idempotent_hint=False,
    field_hints=FORMER_FIELDS,
)
