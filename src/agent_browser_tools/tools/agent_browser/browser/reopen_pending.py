"""`sessionTabReopenPending`: a closed or lost browser's page still waits to be reopened.

When the wrapper closed a session's browser (conversation end, cleanup) or found it lost, the
journal keeps the page it was on, and page calls are refused with `reopen-recorded-url` (the
full recorded URL, fragment included) instead of reading a relaunched blank browser. Every
result on such a session says `sessionTabReopenPending: true` until a call navigates it (the
offered reopen or any explicit navigation); that call says `false`: the obligation was
consumed, whether or not the navigation succeeded. The wrapper never reopens on its own: that
needs the engine's managed restore, which this server does not use.
"""

from __future__ import annotations

from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import SessionPageState
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.tools.agent_browser.call import DirectCall


def pending(entry: SessionPageState) -> bool:
    """The wrapper closed (or lost) this browser and its recorded page was not reopened."""
    return entry.closed and entry.target is not None


def mark_consumed(call: DirectCall, obs: Observation) -> None:
    """Before journaling: a navigation on a session with a pending reopen consumed it."""
    if call.key is None or not pending(call.rt.log.state.session(call.key)):
        return
    matches = call.plan.row_matches if call.plan.row_matches is not None else (call.plan.match,)
    if any(m is not None and m.spec.page_effect is PageEffect.NAVIGATES for m in matches):
        obs.extra["sessionTabReopenPending"] = False
