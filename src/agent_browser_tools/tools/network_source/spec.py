"""`agent_browser_network_source` declared (advanced): failed requests traced to source.

Read-only: it reads the browser's request buffer and the workspace, and changes neither.
"""

from __future__ import annotations

from agent_browser_tools import playbook
from agent_browser_tools.planning.inputs import FORMER_FIELDS
from agent_browser_tools.tools.network_source.schema import ALLOWED, NAME, NetworkSourceInput
from agent_browser_tools.tools.registry import ToolSpec

SPEC = ToolSpec(
    name=NAME,
    title="Network failure source lookup",
    summary="failed requests traced to source",
    description=playbook.NETWORK_SOURCE,
    input_model=NetworkSourceInput,
    handler="agent_browser_tools.tools.network_source.run:run",
    capability="network",
    read_only_hint=True,
    destructive_hint=False,
    open_world_hint=False,
    idempotent_hint=True,
    allowed=ALLOWED,
    field_hints=FORMER_FIELDS,
)
