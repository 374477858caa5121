"""Direct tool, at dispatch: the endpoint guard's part in the engine round trip.

The checks before the dispatch (`endpoint_guard`) refuse URLs and pages on a browser's own
DevTools or stream port; what goes out with the call is this: every caller-written page script
behind a guard statement made now (`script_guard`: the ports ordinary servers hold at this
moment are the only local ports script may run on), and the answer settled (`settle`): guard
refusals as `policy-blocked`, content that came from such a port withheld. Used by the
dispatch and by every later segment of a batch (`segments`).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

from agent_browser_tools.engine.browser_ports import browser_held, listeners
from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.planning.grid_endpoints import GridEndpoints
from agent_browser_tools.planning.local_origins import local_port
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.planning.policy import calls_of
from agent_browser_tools.planning.script_guard import (
    ScriptGuard,
    content_sources,
    endpoint_sources,
    withhold,
)
from agent_browser_tools.taxonomy import CommandMatch


def script_guard(plan: ExecutionPlan, grid: GridEndpoints | None = None) -> ScriptGuard | None:
    """The guard for this call's page scripts, made now (at dispatch): the ports ordinary
    servers hold at this moment are the only local ports script may run on, and never the
    operator's Selenium Grid (`grid`). None when the call runs no page script, or where
    listening ports cannot be read (no `/proc`)."""
    if not any(match.runs_page_script for match in script_matches(plan)):
        return None
    now = listeners()
    if now is None:
        return None
    grid = grid or GridEndpoints()
    return ScriptGuard(
        ordinary=now.others - grid.loopback_ports,
        nonce=secrets.token_hex(8),
        grid_hosts=grid.hosts,
    )


def settle(
    envelope: Envelope, guard: ScriptGuard | None, grid: GridEndpoints | None = None
) -> Envelope:
    """The engine's answer as the model may see it: guard refusals as `policy-blocked`, the
    caller's scripts in echoes, and content that came from a browser's own endpoint or the
    operator's grid (a `read` that followed a redirect there, a page read on such a page)
    withheld."""
    if guard is not None:
        envelope = guard.settle(envelope)
    if grid and any(grid.matches(url) for url in content_sources(envelope)):
        return withhold(envelope, frozenset(), grid)
    sources = endpoint_sources(envelope)
    if not sources:
        return envelope
    ports = {port for url in sources if (port := local_port(url)) is not None}
    return withhold(envelope, browser_held(ports))


def script_matches(plan: ExecutionPlan) -> Iterator[CommandMatch]:
    """Every command of the call the taxonomy knows (each batch row's included)."""
    for _where, _globals, match in calls_of(plan.checked):
        if match is not None:
            yield match
