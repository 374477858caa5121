"""Direct tool: is the call's browser an attachment the wrapper did not start?

An attached browser (`--cdp`, `--auto-connect`, the operator's `AGENT_BROWSER_CDP` /
`AGENT_BROWSER_AUTO_CONNECT`, or a desktop app `agent_browser_electron` attached) is someone
else's window: the user, the app or a page can move its tab between two calls, even when the
wrapper addresses it through its own managed session name. So such a session is re-read with a
live `get url` before page reads like a caller-owned one (`drift_guard`), and its results say
`attachedBrowserSession: true`. Remembered across resume: the attaching launch flags are kept
in the journal entry (`launch_flags`) until the session is closed. A grid browser
(`[browser] grid_url`) is reached over CDP too but is the session's own: no attachment.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import AppLaunch, ConversationState, SessionKey
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.tools.agent_browser.call import DirectCall

ELECTRON_TOOL = "agent_browser_electron"

ATTACH_FLAGS = frozenset({"--cdp", "--auto-connect"})
ATTACH_ENV = ("AGENT_BROWSER_CDP", "AGENT_BROWSER_AUTO_CONNECT")
_OFF = frozenset({"", "0", "false", "no", "off"})


def launch_of(state: ConversationState, key: SessionKey | None) -> AppLaunch | None:
    """The running desktop-app launch (`agent_browser_electron`) whose session `key` is."""
    if key is None:
        return None
    for launch in state.app_launches.values():
        if launch.session == key and launch.state == "running":
            return launch
    return None


def _attaching(flags: Iterable[str]) -> bool:
    for flag in flags:
        name, _, value = flag.partition("=")
        if name in ATTACH_FLAGS and value.strip().lower() not in _OFF - {""}:
            return True
    return False


def attached(call: DirectCall) -> bool:
    """The call's session is (or is becoming) an attachment."""
    key = call.key
    if key is None:
        return False
    state = call.rt.log.state
    entry = state.session(key)
    if _attaching(call.plan.session.launch_flags):
        return True
    if entry.active and not entry.closed and _attaching(entry.launch_flags):
        return True
    # A grid browser (`[browser] grid_url`) is reached over CDP too, but it is the session's
    # own: nobody else drives it, so it is no attachment.
    env = {} if call.rt.grid is not None else call.rt.env_for(key)
    if any(env.get(name, "").strip().lower() not in _OFF for name in ATTACH_ENV):
        return True
    return launch_of(state, key) is not None


def mark(call: DirectCall, obs: Observation) -> None:
    """`attachedBrowserSession: true` on a successful call that establishes or reuses one (a
    close ends it)."""
    match = call.plan.match
    if match is not None and match.spec.page_effect is PageEffect.CLOSE:
        return
    if obs.success and attached(call):
        obs.extra["attachedBrowserSession"] = True
