"""Advanced tools this release declares but does not implement.

They are listed in the inventory so an agent learns they exist; enabling one reports why it is
unavailable instead of pretending it works.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from agent_browser_tools import playbook
from agent_browser_tools.tools.registry import ToolSpec

NOT_YET = "not implemented in this release"


class PlannedInput(BaseModel):
    """Any object: the input shape is not designed yet."""

    model_config = ConfigDict(extra="allow")


ELECTRON = ToolSpec(
    name="agent_browser_electron",
    title="Electron app",
    summary="Electron desktop apps",
    description=playbook.ELECTRON,
    input_model=PlannedInput,
    handler=None,
    capability="electron",
    read_only_hint=False,
    destructive_hint=False,
    open_world_hint=True,
    unavailable_reason=NOT_YET,
)

SOURCE = ToolSpec(
    name="agent_browser_source",
    title="UI source lookup",
    summary="source files behind a UI element",
    description=playbook.SOURCE,
    input_model=PlannedInput,
    handler=None,
    capability="source",
    read_only_hint=True,
    destructive_hint=False,
    open_world_hint=False,
    unavailable_reason=NOT_YET,
)

NETWORK = ToolSpec(
    name="agent_browser_network_source",
    title="Network failure source lookup",
    summary="failed requests traced to source",
    description=playbook.NETWORK_SOURCE,
    input_model=PlannedInput,
    handler=None,
    capability="network",
    read_only_hint=True,
    destructive_hint=False,
    open_world_hint=False,
    unavailable_reason=NOT_YET,
)

SPECS = (ELECTRON, SOURCE, NETWORK)
