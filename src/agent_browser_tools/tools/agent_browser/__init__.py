"""`agent_browser`: the direct tool, one native command with the wrapper guarantees.

This package is DESIGN's pipeline, one module per phase (read `execute.py` first). Other tools
import only the names below, never the phase modules.
"""

from __future__ import annotations

from agent_browser_tools.tools.agent_browser.execute import (
    NAME,
    OBSERVATION_KEYS,
    preview_plan,
    run,
    run_observation,
)
from agent_browser_tools.tools.agent_browser.hooks import Hooks, PostHook

__all__ = [
    "NAME",
    "OBSERVATION_KEYS",
    "Hooks",
    "PostHook",
    "preview_plan",
    "run",
    "run_observation",
]
