"""`agent_browser_code` declared: sandboxed JavaScript cells over the same browser.

Light to import: the sandbox and the bridge load only when a cell runs.
"""

from __future__ import annotations

from agent_browser_tools import playbook
from agent_browser_tools.tools.code.schema import FIELD_HINTS, NAME, CodeInput
from agent_browser_tools.tools.registry import ToolSpec

SPEC = ToolSpec(
    name=NAME,
    title="Browser code cell",
    summary="loops, branches, aggregation",
    description=playbook.AGENT_BROWSER_CODE,
    input_model=CodeInput,
    handler="agent_browser_tools.tools.code.run:run",
    read_only_hint=False,
    destructive_hint=True,
    open_world_hint=True,
    idempotent_hint=False,
    field_hints=FIELD_HINTS,
)
