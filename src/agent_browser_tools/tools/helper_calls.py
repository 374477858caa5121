"""Argv for the wrapper's own helper calls (probes, filters) on a call's browser session.

Helpers address exactly the session the call used and repeat the launch flags the wrapper
repeats for it (see `planning.sessions._relaunch_guard`): a helper that omitted them could
make the engine relaunch a blank browser under the agent's feet.
"""

from __future__ import annotations

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.state.models import SessionKey


def session_args(key: SessionKey, launch: tuple[str, ...] = ()) -> list[str]:
    """`--json [--namespace NS] --session NAME [launch flags...]`."""
    args = ["--json"]
    if key.namespace is not None:
        args += ["--namespace", key.namespace]
    return [*args, "--session", key.session, *launch]


def helper_args(plan: ExecutionPlan) -> list[str] | None:
    """Prefix for a helper call on the plan's session, or None for sessionless calls."""
    key = plan.session.key
    if key is None:
        return None
    inject = plan.session.inject
    launch = tuple(inject[2:]) if inject[:1] == ("--session",) else ()
    return session_args(key, launch)
