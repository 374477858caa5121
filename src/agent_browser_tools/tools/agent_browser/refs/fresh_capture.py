"""The one use of a confirmed snapshot's refs (`refSnapshotFresh`), instead of a re-read.

Why: under `--confirm-actions snapshot` the identity re-read (`identity`) is itself a gated
snapshot: it would stop on its own pending control and take the engine's one pending slot.
The model just approved a complete snapshot, so its refs stand in for the re-read once, if
the page is still exactly where it was captured: `get url` (not gated by a snapshot policy)
compared on the complete URL, fragment included, since a fragment route can swap the view
without a navigation. A DOM-only change on the same URL is not resampled on this one use.
"""

from __future__ import annotations

from agent_browser_tools.redaction import redact_url
from agent_browser_tools.state.models import FreshCapture
from agent_browser_tools.state.stale_refs import StaleRef
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import current_page_url


async def check(call: DirectCall, capture: FreshCapture, ids: tuple[str, ...]) -> StaleRef | None:
    """None when the live URL is the capture's; else the refusal (the marker is spent either
    way: the call's completion, or the next one's, clears it)."""
    live = await current_page_url(call.rt, call.plan)
    if live is not None and redact_url(live.strip()) == capture.url.strip():
        return None
    shown = ", ".join("@" + i for i in ids)
    where = "could not be read" if live is None else f"is now {redact_url(live)}"
    reason = (
        f"{shown} came from the confirmed snapshot of {capture.url}, but the page URL {where} "
        "(compared with its fragment)."
    )
    return StaleRef(refs=ids, reason=reason, code="element-changed")
