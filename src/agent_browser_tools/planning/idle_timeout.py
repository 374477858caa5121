"""`--idle-timeout` on a managed browser must equal the configured managed idle timeout (pure).

Every spawn on a wrapper-managed browser carries `AGENT_BROWSER_IDLE_TIMEOUT_MS` with the
server's configured value (`engine.environment`), and the engine treats the idle timeout as
part of a daemon's identity. A call asking for another value would either be ignored on a
running browser or make the next follow-up (which carries the configured value) relaunch it,
so such a call is refused before dispatch with the way to change the value: the operator sets
`AGENT_BROWSER_TOOLS_IDLE_TIMEOUT_MS` and restarts the server. Caller-owned sessions keep
their own flag. "Managed" is `planning.sessions.is_managed_name`, the same test the child
environment uses (`Runtime.caller_owned`).
"""

from __future__ import annotations

import re

from agent_browser_tools.planning.argv_rules import ArgvRejected
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.settings import ENV_PREFIX

FLAG = "--idle-timeout"
_UNITS = {"": 1, "ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000}
_VALUE = re.compile(r"^(\d+)(ms|s|m|h)?$")


def idle_timeout_ms(value: str) -> int | None:
    """The engine's `--idle-timeout` value in ms (`10s`, `3m`, `1h` or raw ms), else None."""
    match = _VALUE.match(value.strip().lower())
    if match is None:
        return None
    return int(match.group(1)) * _UNITS[match.group(2) or ""]


def check_idle_timeout(plan: ExecutionPlan, configured_ms: int) -> None:
    """Raise `ArgvRejected` when a managed call's `--idle-timeout` differs from the server's."""
    if plan.session.ownership != "managed":
        return
    for name, value in plan.checked.globals_:
        if name != FLAG:
            continue
        asked = idle_timeout_ms(value or "")
        if asked == configured_ms:
            continue
        raise ArgvRejected(
            f"{FLAG} {value} differs from this server's managed idle timeout "
            f"({configured_ms} ms), which every spawn on its managed browsers carries; a "
            f"different value would relaunch the browser on the next call. Leave {FLAG} out "
            f"(or pass {FLAG} {configured_ms}). To change it, the operator sets "
            f"{ENV_PREFIX}IDLE_TIMEOUT_MS={asked if asked is not None else '<ms>'} and "
            "restarts the server; or pass an explicit --session NAME for a browser of your own."
        )
