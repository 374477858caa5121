"""Direct tool: the answer when the operator's Selenium Grid gives the call no browser.

Nothing reached the engine, so nothing ran. A conversation at the operator's limit of grid
browsers is `policy-blocked`: closing one of them is the way on. A full grid (every slot busy
for the whole wait) is a `timeout`: the same call can succeed once a slot frees, and closing a
browser this conversation no longer needs frees one. A grid that refuses or cannot be reached
is an `upstream-error` for the operator to fix.
"""

from __future__ import annotations

from agent_browser_tools.grid_errors import GridUnavailable
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.tools.agent_browser.call import DirectCall


def grid_unavailable(call: DirectCall, exc: GridUnavailable) -> Observation:
    """The failed observation for `exc`, with the exact calls that can free a slot."""
    rt, key = call.rt, call.key
    grid = rt.grid
    held = (
        []
        if grid is None
        else [b for b in grid.open_browsers() if b.session != getattr(key, "session", None)]
    )
    if exc.limited:
        category = FailureCategory.POLICY_BLOCKED
        error = f"No browser for this call, so nothing ran: {exc}. Close one it no longer needs."
    elif exc.full:
        category = FailureCategory.TIMEOUT
        error = f"No browser for this call, so nothing ran: {exc}."
        if held:
            error += " This conversation holds: " + ", ".join(sorted({b.session for b in held}))
            error += "; close one it no longer needs, or retry in a while."
        else:
            error += " Retry in a while; the grid's other users hold every slot."
    else:
        category = FailureCategory.UPSTREAM_ERROR
        error = f"No browser for this call, so nothing ran: {exc}. Tell the operator."
    obs = Observation(success=False, failure_category=category, error=error)
    obs.extra["gridBrowser"] = {
        "full": exc.full,
        "limited": exc.limited,
        "grid": grid.config.shown if grid is not None else None,
        "waitS": grid.config.wait_s if grid is not None else None,
        "heldSessions": sorted({b.session for b in held}),
    }
    for browser in held:
        scope = ["--namespace", browser.namespace] if browser.namespace else []
        obs.next_actions.append(
            na.NextAction(
                id="close-grid-session",
                reason=f"Frees the grid slot session {browser.session} holds.",
                params={"args": [*scope, "--session", browser.session, "close"]},
            )
        )
    if exc.full:
        obs.next_actions.append(
            na.NextAction(
                id="retry-when-grid-frees",
                reason="The same call, once a grid slot is free.",
                params={"args": list(call.plan.args)},
            )
        )
    return obs
