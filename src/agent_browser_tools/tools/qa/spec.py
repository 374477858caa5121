"""`agent_browser_qa` declared (advanced): a page check that ends in a verdict.

QA navigates (so it is not read-only) but changes nothing a user owns (so not destructive).
"""

from __future__ import annotations

from agent_browser_tools import playbook
from agent_browser_tools.planning.inputs import FORMER_FIELDS
from agent_browser_tools.tools.qa.compile import ALLOWED, NAME, QaInput
from agent_browser_tools.tools.registry import ToolSpec

SPEC = ToolSpec(
    name=NAME,
    title="Page QA check",
    summary="a page check with a verdict",
    description=playbook.QA,
    input_model=QaInput,
    handler="agent_browser_tools.tools.qa.run:run",
    capability="qa",
    read_only_hint=False,
    destructive_hint=False,
    open_world_hint=True,
    allowed=ALLOWED,
    field_hints=FORMER_FIELDS,
)
