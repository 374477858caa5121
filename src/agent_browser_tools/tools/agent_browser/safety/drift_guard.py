"""Direct tool, under the lock and before dispatch: did a caller-owned tab move on its own?

A session the caller named (`--session`) is not the wrapper's alone: the user's own
`agent-browser --session NAME`, another client or the page itself can navigate its tab between
two calls. The journal would still hold the old page and its refs, and a read or a ref click
would be taken as acting on the page the model saw. So before a page-dependent command on such
a session, one live `get url` (session-scoped) is compared with the recorded page (query
significant, fragment not). When they differ, the new page is journaled and the old refs are
retired, so the guards then refuse a call that uses them (`stale-ref`, quoting why) and any
other read goes on and says the tab had moved. The wrapper's own managed sessions live in a
private socket dir nobody else can reach, so they are not re-read (cost: one engine call per
page-dependent call on a caller-owned session) unless they are attached to a browser the
wrapper did not start (`attachment`). When another tab merely took focus (a restored or
stray tab), the tab still showing the recorded page is re-selected instead, except in an
attached browser, where the switch is reported with `tab <id>` to go back (a person may
have switched on purpose); a reading of `about:blank` with no such tab is recorded with
recovery actions (`blank_target`).
"""

from __future__ import annotations

from agent_browser_tools.redaction import redact_url
from agent_browser_tools.state.stale_refs import allowed_on_unknown_target, normalize_url
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.tools.agent_browser.browser import attachment
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import current_page_url
from agent_browser_tools.tools.agent_browser.page import blank_target


def _page_dependent(call: DirectCall) -> bool:
    """Some step reads or acts on the current page before a navigation replaces it (see
    `allowed_on_unknown_target`)."""
    plan = call.plan
    matches = plan.row_matches if plan.row_matches is not None else (plan.match,)
    for match in matches:
        if match is None:
            continue
        if match.spec.page_effect is PageEffect.NAVIGATES:
            return False
        if not allowed_on_unknown_target(match):
            return True
    return False


async def check(call: DirectCall) -> None:
    """Journal a caller-owned tab that moved since the last call, and say so in the result."""
    key = call.key
    if key is None:
        return
    entry = call.rt.log.state.session(key)
    target = entry.target
    if not entry.active or entry.closed or target is None:
        return
    why = blank_target.ATTACHED if attachment.attached(call) else None
    if entry.ownership != "caller" and why is None:
        return
    if entry.target_unknown or not _page_dependent(call):
        return
    live = await current_page_url(call.rt, call.plan)
    if live is None or normalize_url(redact_url(live)) == normalize_url(target.url):
        return
    if why is None:
        found = await blank_target.reselect(call.rt, call.plan, key, target, live)
    else:
        found = await blank_target.report_switch(call.rt, call.plan, key, target, live, why)
    if found is None and blank_target.is_blank(live) and not blank_target.is_blank(target.url):
        found = blank_target.record_blank(call.plan, key, target)
    if found is not None:
        call.rt.log.complete(call.rt.next_call_id(), key, True, tuple(found.effects))
        call.warnings.append(found.warning)
        call.next_actions.extend(found.actions)
        return
    summary = (
        f"The tab of session {key.label} moved to {redact_url(live)} outside this conversation "
        f"(it was on {target.url}); refs from before were retired."
    )
    moved = blank_target.page_now(live, summary)
    call.rt.log.complete(call.rt.next_call_id(), key, True, moved)
    call.warnings.append(summary)
