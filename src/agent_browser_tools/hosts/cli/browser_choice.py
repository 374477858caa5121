"""Which browser executable the engine will launch, and which setting chose it.

Why: the engine's own `doctor` reports the system Chromium even when a variable or config
points the launch elsewhere, so doctor said OK and then failed its smoke test with a fix
naming the wrong thing. This reads the same inputs the engine gets, in the engine's order:
the child environment's `AGENT_BROWSER_EXECUTABLE_PATH` (set by the operator's `[browser]
executable_path`, which wins over an inherited variable), else `executablePath` in the engine
config file named by `AGENT_BROWSER_CONFIG`.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

EXECUTABLE_ENV = "AGENT_BROWSER_EXECUTABLE_PATH"
CONFIG_ENV = "AGENT_BROWSER_CONFIG"
CONFIG_KEY = "[browser] executable_path"


@dataclass(frozen=True)
class ChosenBrowser:
    """An executable some setting asks the engine to launch instead of its own choice."""

    path: str
    setting: str
    """Human name of the setting, e.g. `AGENT_BROWSER_EXECUTABLE_PATH`."""


def chosen_browser(
    child_env: Mapping[str, str], operator_env: Mapping[str, str]
) -> ChosenBrowser | None:
    """The executable the engine is told to launch (None: the engine picks its own).

    `child_env` is what the engine process gets; `operator_env` is what the operator's
    `[browser]` config section turned into variables (it tells the two sources apart).
    """
    value = child_env.get(EXECUTABLE_ENV)
    if value:
        configured = operator_env.get(EXECUTABLE_ENV) == value
        return ChosenBrowser(value, CONFIG_KEY if configured else EXECUTABLE_ENV)
    config = child_env.get(CONFIG_ENV)
    if not config:
        return None
    try:
        data = json.loads(Path(config).expanduser().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    path = data.get("executablePath") if isinstance(data, dict) else None
    if isinstance(path, str) and path:
        return ChosenBrowser(path, f"executablePath in {config} ({CONFIG_ENV})")
    return None


def executable_problem(path: str, child_env: Mapping[str, str]) -> str | None:
    """Why `path` cannot be launched, or None when it looks runnable."""
    if os.sep not in path:
        found = shutil.which(path, path=child_env.get("PATH"))
        return None if found else "not found on PATH"
    target = Path(path).expanduser()
    if not target.exists():
        return "no such file"
    if not target.is_file():
        return "not a file"
    if not os.access(target, os.X_OK):
        return "not executable"
    return None


def fix_for(chosen: ChosenBrowser) -> str:
    """The one-line remedy naming the setting to change."""
    return (
        f"point {chosen.setting} at a working Chrome/Chromium executable, or remove it "
        "to let the engine use the browser it finds itself"
    )
