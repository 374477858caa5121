"""The live page of a batch the watchdog stopped: `timeoutPartialProgress.livePage`.

Why: the page the finished steps last reported is not where the browser is now (the stopped
step may have navigated), and the model decides the next call from where it is. The read goes
past the still-busy daemon (`engine.live_page`), is bounded to about a second, and never
touches the page; when it cannot be read, the reason is said instead of a guess.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from agent_browser_tools.engine import live_page
from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.redaction import redact_text, redact_url
from agent_browser_tools.settings import ENGINE_ACTION_TIMEOUT_CAP_MS
from agent_browser_tools.tools.agent_browser.call import DirectCall

ENGINE_BUSY = (
    "The engine keeps running step {step} after the watchdog stop, until it ends or the "
    "engine gives it up (its action timeout, up to {cap} s; about 30 s for a command stuck "
    "behind a JavaScript dialog); commands on this session wait behind it meanwhile."
)
"""Measured on engine 0.39.4: the daemon serves one command at a time, an `eval` of a promise
that never settles ends at the action timeout, a `get url` behind an open `alert` at ~30 s."""


async def add(call: DirectCall, envelope: Envelope) -> Envelope:
    """The envelope with the live page (or why it is unknown) added to its progress record."""
    progress = envelope.extra.get("timeoutPartialProgress")
    key = call.key
    if not isinstance(progress, dict) or key is None:
        return envelope
    found = await live_page.read(call.rt.socket_dir(key), key.session, key.namespace)
    added = {**progress, "livePage": shown(found)}
    added["engineBusy"] = ENGINE_BUSY.format(
        step=progress.get("timedOutStep"), cap=ENGINE_ACTION_TIMEOUT_CAP_MS // 1000
    )
    return replace(envelope, extra={**envelope.extra, "timeoutPartialProgress": added})


def shown(found: live_page.LivePage) -> dict[str, Any]:
    """The model's view of the read: URL and title redacted, or the reason it failed (pure)."""
    if found.url is None:
        return {"url": None, "unknownBecause": found.unread or "the browser named no URL"}
    out: dict[str, Any] = {"url": redact_url(found.url), "readFrom": "browser-devtools"}
    if found.title is not None:
        out["title"] = redact_text(found.title)
    return out
