"""`agent_browser` declared: one native agent-browser command per call (the direct tool).

Light to import: the handler is named, not imported, so listing tools loads no executor.
"""

from __future__ import annotations

from agent_browser_tools import playbook
from agent_browser_tools.planning.inputs import ARG_EXAMPLES, FORMER_FIELDS, AgentBrowserInput
from agent_browser_tools.tools.registry import ToolSpec

SPEC = ToolSpec(
    name="agent_browser",
    title="Browser",
    summary="one native command",
    description=playbook.AGENT_BROWSER,
    input_model=AgentBrowserInput,
    handler="agent_browser_tools.tools.agent_browser.execute:handle",
    read_only_hint=False,
    destructive_hint=True,
    open_world_hint=True,
    idempotent_hint=False,
    field_hints=FORMER_FIELDS,
    field_examples=ARG_EXAMPLES,
)
