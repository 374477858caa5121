"""`agent_browser`: the direct tool, one native command with the wrapper guarantees.

This package is DESIGN's pipeline, one module per stage (read `execute.py` first). Other tools
import only the names below, never the stage modules.
"""

from __future__ import annotations

from agent_browser_tools.tools.agent_browser.execute import (
    NAME,
    OBSERVATION_KEYS,
    handle,
    preview_plan,
    run,
    run_observation,
)
from agent_browser_tools.tools.agent_browser.finish import finish as result_from_observation
from agent_browser_tools.tools.agent_browser.finish import rejected
from agent_browser_tools.tools.agent_browser.helpers import current_page_url
from agent_browser_tools.tools.agent_browser.hooks import Hooks, PostHook
from agent_browser_tools.tools.agent_browser.sessions import close_owned

__all__ = [
    "NAME",
    "OBSERVATION_KEYS",
    "Hooks",
    "PostHook",
    "close_owned",
    "current_page_url",
    "handle",
    "preview_plan",
    "rejected",
    "result_from_observation",
    "run",
    "run_observation",
]
