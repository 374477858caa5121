"""Each tab keeps its refs while the session is on another tab (pure).

Why: a model that looks at a second tab and comes back still holds the refs of the first
tab's snapshot; its page did not change, so refusing them (as a page transition did) makes
the model snapshot again for nothing, or loop. The engine itself forgets the first tab's
refs when the second is snapshotted (`Unknown ref` after switching back), and it numbers
refs from one counter for all tabs, so an id never names an element of two tabs.

The rule: switching away parks the session's refs under the tab they were read on; switching
to a tab makes its parked refs the session's again when the tab still shows the URL they
came from, else the tab has no refs (as before). Restored refs are proven before use like
any remembered ref: the page-side change log of that tab's document (`page_watch`), and when
that cannot prove them (it cannot, right after the switch: the engine no longer knows them)
the full re-read, which also makes the engine know them again. A closed tab's refs go.
"""

from __future__ import annotations

from agent_browser_tools.state.models import (
    RefInvalidation,
    RefSnapshot,
    SessionPageState,
    TabSelected,
)
from agent_browser_tools.state.stale_refs import normalize_url

PARKED_TABS = 8
"""Tabs whose refs are kept (the most recently left): enough for a task across a few tabs."""


def switched(entry: SessionPageState, effect: TabSelected) -> SessionPageState:
    """The session after moving to `effect.target` (or closing `effect.closed`)."""
    parked = {tab: refs for tab, refs in entry.parked.items() if tab != effect.closed}
    here = entry.tab
    left = here is not None and here not in (effect.closed, effect.target)
    if left and here is not None and entry.ref_snapshot is not None:
        parked.pop(here, None)
        parked[here] = entry.ref_snapshot
    restored = parked.pop(effect.target, None) if effect.target is not None else None
    if restored is not None and not _shows(restored, effect.url):
        restored = None
    if len(parked) > PARKED_TABS:
        parked = dict(list(parked.items())[-PARKED_TABS:])
    update: dict[str, object] = {"parked": parked, "tab": effect.target}
    if effect.target is not None and effect.target == here and effect.closed is None:
        return entry.model_copy(update=update)  # selecting the tab it is on changes nothing
    if restored is not None:
        update |= {"ref_snapshot": restored, "ref_invalidation": None}
    else:
        invalidation = RefInvalidation(reason="page-transition", summary=effect.summary)
        update |= {"ref_snapshot": None, "ref_invalidation": invalidation}
    return entry.model_copy(update=update)


def _shows(refs: RefSnapshot, url: str | None) -> bool:
    """The tab still shows the page its refs were read on."""
    if url is None or refs.target_url is None:
        return False
    return normalize_url(refs.target_url) == normalize_url(url)
