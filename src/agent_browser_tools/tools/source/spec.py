"""`agent_browser_source` declared (advanced): candidate source files for a UI element.

Read-only: it reads the page (`is visible`, `get html`, `react tree/inspect`) and workspace
files, and changes neither.
"""

from __future__ import annotations

from agent_browser_tools import playbook
from agent_browser_tools.planning.inputs import FORMER_FIELDS
from agent_browser_tools.tools.registry import ToolSpec
from agent_browser_tools.tools.source.compile import ALLOWED, NAME, SourceInput

SPEC = ToolSpec(
    name=NAME,
    title="UI source lookup",
    summary="source files behind a UI element",
    description=playbook.SOURCE,
    input_model=SourceInput,
    handler="agent_browser_tools.tools.source.run:run",
    capability="source",
    read_only_hint=True,
    destructive_hint=False,
    open_world_hint=False,
    idempotent_hint=True,
    allowed=ALLOWED,
    field_hints=FORMER_FIELDS,
)
