"""`agent_browser_electron` declared (advanced): wrapper-owned desktop app lifecycle.

It starts and stops host processes (so neither read-only nor idempotent) and stops only what
it launched itself (so not destructive of anything the user owns).
"""

from __future__ import annotations

from agent_browser_tools import playbook
from agent_browser_tools.planning.inputs import FORMER_FIELDS
from agent_browser_tools.tools.electron.schema import ALLOWED, NAME, ElectronInput
from agent_browser_tools.tools.registry import ToolSpec

SPEC = ToolSpec(
    name=NAME,
    title="Electron app",
    summary="Electron desktop apps",
    description=playbook.ELECTRON,
    input_model=ElectronInput,
    handler="agent_browser_tools.tools.electron.run:run",
    capability="electron",
    read_only_hint=False,
    destructive_hint=False,
    open_world_hint=True,
    idempotent_hint=False,
    allowed=ALLOWED,
    field_hints=FORMER_FIELDS,
)
