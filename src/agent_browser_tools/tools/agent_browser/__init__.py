"""`agent_browser`: the direct tool, one native command with the wrapper guarantees.

This package is DESIGN's pipeline: the stages of a call at the top (read `execute.py` first), the
features they call in subpackages by what they concern (`refs`, `safety`, `confirm`, `effects`,
`page`, `batches`, `files`, `browser`, `widgets`). Other tools import only the names below,
never the stage modules. Names load on first use, so that listing tools (which imports this
package's `spec`) does not load the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent_browser_tools.tools.agent_browser.browser.sessions import close_own_dir, close_owned
    from agent_browser_tools.tools.agent_browser.execute import (
        NAME,
        OBSERVATION_KEYS,
        handle,
        preview_plan,
        run,
        run_observation,
    )
    from agent_browser_tools.tools.agent_browser.finish import finish as result_from_observation
    from agent_browser_tools.tools.agent_browser.helpers import current_page_url, helper_call
    from agent_browser_tools.tools.agent_browser.hooks import Hooks, PostHook, compiled_call
    from agent_browser_tools.tools.agent_browser.safety.host_hook import (
        BeforeExecute,
        DispatchContext,
        host_call,
    )

__all__ = [
    "NAME",
    "OBSERVATION_KEYS",
    "BeforeExecute",
    "DispatchContext",
    "Hooks",
    "PostHook",
    "close_own_dir",
    "close_owned",
    "compiled_call",
    "current_page_url",
    "handle",
    "helper_call",
    "host_call",
    "preview_plan",
    "result_from_observation",
    "run",
    "run_observation",
]

_PACKAGE = "agent_browser_tools.tools.agent_browser"
_HOMES = {
    "NAME": ("execute", "NAME"),
    "OBSERVATION_KEYS": ("execute", "OBSERVATION_KEYS"),
    "handle": ("execute", "handle"),
    "preview_plan": ("execute", "preview_plan"),
    "run": ("execute", "run"),
    "run_observation": ("execute", "run_observation"),
    "result_from_observation": ("finish", "finish"),
    "current_page_url": ("helpers", "current_page_url"),
    "helper_call": ("helpers", "helper_call"),
    "BeforeExecute": ("safety.host_hook", "BeforeExecute"),
    "DispatchContext": ("safety.host_hook", "DispatchContext"),
    "host_call": ("safety.host_hook", "host_call"),
    "Hooks": ("hooks", "Hooks"),
    "PostHook": ("hooks", "PostHook"),
    "compiled_call": ("hooks", "compiled_call"),
    "close_own_dir": ("browser.sessions", "close_own_dir"),
    "close_owned": ("browser.sessions", "close_owned"),
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {_PACKAGE!r} has no attribute {name!r}")
    module, attr = home
    value = getattr(importlib.import_module(f"{_PACKAGE}.{module}"), attr)
    globals()[name] = value  # later lookups (and monkeypatches) see a plain attribute
    return value
