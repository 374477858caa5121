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


def _planned(
    name: str, title: str, summary: str, description: str, capability: str, *, reads: bool
) -> ToolSpec:
    """A declared tool without a handler; `reads` says it would only read (hints)."""
    return ToolSpec(
        name=name,
        title=title,
        summary=summary,
        description=description,
        input_model=PlannedInput,
        handler=None,
        capability=capability,
        read_only_hint=reads,
        destructive_hint=False,
        open_world_hint=not reads,
        unavailable_reason=NOT_YET,
    )


SOURCE = _planned(
    "agent_browser_source",
    "UI source lookup",
    "source files behind a UI element",
    playbook.SOURCE,
    "source",
    reads=True,
)
NETWORK = _planned(
    "agent_browser_network_source",
    "Network failure source lookup",
    "failed requests traced to source",
    playbook.NETWORK_SOURCE,
    "network",
    reads=True,
)

SPECS = (SOURCE, NETWORK)
