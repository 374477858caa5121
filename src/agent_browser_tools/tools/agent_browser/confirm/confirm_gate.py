"""Is a call's session under an engine confirmation policy? Then the wrapper's own page probes
(`eval`s) stay away.

Why: under `--confirm-actions` / `--action-policy` a helper `eval` can itself raise a pending
confirmation next to the model's (or be denied), so the click probe, the selector-visibility
read and the screenshot geometry sample are skipped. The engine takes the policy from three
places, and all three are checked: the call's launch flags (as the helpers repeat them), the
child environment (`AGENT_BROWSER_CONFIRM_ACTIONS`, `AGENT_BROWSER_ACTION_POLICY`: the
operator's variables pass through) and the engine config file it reads (`confirmActions`,
`actionPolicy`). A config file that cannot be read counts as gated: skipping a probe only
loses evidence, a queued prompt loses the model's confirmation.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from agent_browser_tools.engine.environment import ENGINE_CONFIG_ENV
from agent_browser_tools.planning.session_scope import acts_on_whole_dir
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import helper_args

CONFIRMATION_FLAGS = frozenset({"--confirm-actions", "--action-policy"})
CONFIRMATION_ENV = ("AGENT_BROWSER_CONFIRM_ACTIONS", "AGENT_BROWSER_ACTION_POLICY")
CONFIRMATION_KEYS = ("confirmActions", "actionPolicy")


def confirmation_gated(call: DirectCall) -> bool:
    """Whether the engine may guard this call's session with confirmations (see module)."""
    if set(helper_args(call.plan) or ()) & CONFIRMATION_FLAGS:
        return True
    env = call.rt.env_for(call.plan.session.key, whole_dir=acts_on_whole_dir(call.plan))
    return env_gated(env)


def env_gated(env: Mapping[str, str]) -> bool:
    """A confirmation variable in the child env, or a policy key in its config file."""
    if any(env.get(name, "").strip() for name in CONFIRMATION_ENV):
        return True
    path = env.get(ENGINE_CONFIG_ENV)
    if not path:
        return False
    try:
        seen = os.stat(path)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    global _last_config
    version = (path, seen.st_ino, seen.st_mtime_ns, seen.st_size)
    last = _last_config
    if last is not None and last[0] == version:
        return last[1]
    gated = _config_gated(Path(path))
    _last_config = (version, gated)
    return gated


_last_config: tuple[tuple[str, int, int, int], bool] | None = None
"""The last config file's verdict by its path, inode, mtime and size: a click asks several
times, and the file only changes when the operator edits it (a new inode, mtime or size)."""


def _config_gated(path: Path) -> bool:
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True
    return isinstance(config, dict) and any(config.get(k) for k in CONFIRMATION_KEYS)
