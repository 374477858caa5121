"""The settings every conversation would refuse, checked once before a server listens.

Kept apart from `api` so a server can check them at start without importing the API (and with
it the runtime and engine modules) before its first client's handshake; `BrowserTools`
applies the same check to every conversation it opens.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_browser_tools.engine.isolation import shared_session_names
from agent_browser_tools.grid_settings import grid_config
from agent_browser_tools.launch_options import operator_launch_env
from agent_browser_tools.planning.policy import ModelPolicy
from agent_browser_tools.settings import Settings, image_responses


def check_settings(settings: Settings, *, shared_sessions: Iterable[str] = ()) -> None:
    """Raise `SettingsError` (with the fix) now for operator launch, policy, isolation or
    result settings every conversation would refuse later."""
    ModelPolicy.from_settings(settings)
    image_responses(settings)
    operator_launch_env(settings)
    grid_config(settings, shared_session_names(settings, shared_sessions))
