"""`details.closeAllApplied`: a `close --all` (direct or a batch row) reached the engine and
succeeded.

Why a marker: the effect clears every session of the namespace from live state, not just the
call's own; a caller (or a replay of the transcript) needs to see that it happened without
re-deriving it from argv.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import Effect, NamespaceClosed


def mark(obs: Observation, effects: Sequence[Effect]) -> None:
    """Set the marker when the recorded effects closed the whole namespace."""
    if any(isinstance(effect, NamespaceClosed) for effect in effects):
        obs.extra["closeAllApplied"] = True
