"""`details.closeAllApplied`: a `close --all` (direct or a batch row) reached the engine and
succeeded.

Why a marker: the effect clears every session of the namespace from live state, not just the
call's own; a caller (or a replay of the transcript) needs to see that it happened without
re-deriving it from argv.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import Effect, NamespaceClosed


def mark(plan: ExecutionPlan, obs: Observation, effects: Sequence[Effect]) -> None:
    """Set the marker when the recorded effects closed the whole namespace: a batch records
    that effect only for a row that succeeded; a direct call must have succeeded itself (a
    failed one still clears state, conservatively, but did not "apply" anything)."""
    closed = any(isinstance(effect, NamespaceClosed) for effect in effects)
    if closed and (obs.success or plan.is_batch):
        obs.extra["closeAllApplied"] = True
