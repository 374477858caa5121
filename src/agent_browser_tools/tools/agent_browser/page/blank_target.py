"""Direct tool: a known page that suddenly reads `about:blank` is never taken silently.

A tab restored or opened by someone else can take focus, and a replaced daemon starts on a
blank page: then `get url` (the model's, or the wrapper's own probe) answers `about:blank`
although the session was on a real page and nothing asked to navigate. Recording that as the
page would make the next read or click act on a blank tab as if it were the known one. So the
wrapper first looks for the recorded page in another tab of the session and re-selects it
(best effort, never navigating); when no tab has it, `about:blank` is recorded as what it is,
the old refs are retired, and the result says so with the exact recovery calls.

The wrapper switches tabs itself only where nobody else's choice is undone: never in an
attached browser (a person or an app may have switched on purpose) and never after a call
that may have opened the tab (a click's popup can read `about:blank` while it loads, and
switching back would abandon it). There the switch is reported with `tab list` and
`tab <id>` as the recovery calls (`report_switch`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_url
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.next_actions import NextAction
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import (
    Effect,
    PageTarget,
    RefsInvalidated,
    SessionKey,
    TabSelected,
    TargetObserved,
)
from agent_browser_tools.state.stale_refs import normalize_url
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.tools.agent_browser.browser import attachment
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import current_page_url, helper_data

BLANK = "about:blank"
_STILL = frozenset({PageEffect.NONE, PageEffect.MAY_NAVIGATE})
"""Page effects of commands that do not ask for another page (`open`, history, tab/window
switches and closes may legitimately end on a blank page)."""
ATTACHED = "this browser is attached, and a person or an app may have switched on purpose"
_MAY_SWITCH_BACK = frozenset({PageEffect.NONE})
"""Only after a read-only call may the wrapper select another tab by itself."""


@dataclass
class Recovery:
    """What the wrapper did about a blank reading: journal effects, the sentence for the
    result and the next actions."""

    effects: list[Effect]
    warning: str
    actions: list[NextAction] = field(default_factory=list)


def page_now(url: str, summary: str, title: str | None = None) -> list[Effect]:
    """The session's page is now `url` and its refs from before are retired (the summary says
    why): how every tab-drift finding is recorded. The tab the refs were read on keeps them
    (`state.tab_refs`): another tab took focus, or the wrapper re-selected one."""
    return [
        TabSelected(url=url, summary=summary),
        TargetObserved(url=url, title=title, keep_refs=False),
        RefsInvalidated(reason="page-transition", summary=summary),
    ]


def is_blank(url: str | None) -> bool:
    return url is not None and url.strip().lower().split("#", 1)[0] == BLANK


def _effects_all_in(plan: ExecutionPlan, effects: frozenset[PageEffect]) -> bool:
    matches = plan.row_matches if plan.row_matches is not None else (plan.match,)
    return all(m is not None and m.spec.page_effect in effects for m in matches)


def should_not_navigate(plan: ExecutionPlan) -> bool:
    """No step of the call asks for another page or tab."""
    return _effects_all_in(plan, _STILL)


async def select_tab_showing(rt: Runtime, plan: ExecutionPlan, url: str) -> tuple[str, str] | None:
    """Select the inactive tab whose page is `url` and check the focus landed there: (tab id,
    live URL), else None. Never navigates. The direct tool's only automatic tab switch."""
    tab = await tab_showing(rt, plan, url)
    if tab is None or await helper_data(rt, plan, ["tab", tab]) is None:
        return None
    live = await current_page_url(rt, plan)
    if live is None or not same_page(live, url):
        return None
    return tab, live


async def reselect(
    rt: Runtime, plan: ExecutionPlan, key: SessionKey, target: PageTarget, seen: str
) -> Recovery | None:
    """Select the tab that still shows `target` when another tab (`seen`) took focus; None
    when no tab shows it or the selection did not land there. Never navigates."""
    selected = await select_tab_showing(rt, plan, target.url)
    if selected is None:
        return None
    tab, live = selected
    summary = (
        f"The active tab of session {key.label} showed {redact_url(seen)}; the wrapper "
        f"re-selected tab {tab}, which is still on {target.url}. Refs from before were "
        "retired: take new ones with snapshot -i."
    )
    moved = page_now(live, summary, target.title)
    prefix = na.session_prefix(key, not plan.session.used_implicit_session)
    return Recovery(moved, summary, [na.refresh_interactive_refs(prefix)])


async def report_switch(
    rt: Runtime, plan: ExecutionPlan, key: SessionKey, target: PageTarget, seen: str, why: str
) -> Recovery | None:
    """The active tab shows `seen` while tab N still has `target`: record `seen`, retire the
    refs and offer `tab N`, without switching (`why` says why not). None when no tab has it."""
    tab = await tab_showing(rt, plan, target.url)
    if tab is None:
        return None
    summary = (
        f"The active tab of session {key.label} shows {redact_url(seen)}, not {target.url}, "
        f"which is still open in tab {tab}. The wrapper did not switch tabs: {why}. "
        f"{redact_url(seen)} is now its recorded page and refs from before were retired. "
        f"Recover: `tab {tab}` to go back (then snapshot -i), or `tab list` to choose."
    )
    moved = page_now(seen, summary)
    prefix = na.session_prefix(key, not plan.session.used_implicit_session)
    actions = [
        NextAction(
            id="list-tabs-after-tab-switch",
            reason="See which tab shows which page before acting.",
            params={"args": [*prefix, "tab", "list"]},
        ),
        NextAction(
            id="select-recorded-tab",
            reason=f"Go back to {target.url} in tab {tab}, then take new refs.",
            params={"args": [*prefix, "tab", tab]},
        ),
    ]
    return Recovery(moved, summary, actions)


async def recover(
    rt: Runtime, plan: ExecutionPlan, key: SessionKey, target: PageTarget, why: str | None
) -> Recovery:
    """Re-select the tab that still shows `target` (only when `why` is None; else report it),
    else record `about:blank` with guidance."""
    if why is None:
        found = await reselect(rt, plan, key, target, BLANK)
    else:
        found = await report_switch(rt, plan, key, target, BLANK, why)
    return found if found is not None else record_blank(plan, key, target)


def record_blank(plan: ExecutionPlan, key: SessionKey, target: PageTarget) -> Recovery:
    """`about:blank` becomes the recorded page; the result says how to get back."""
    prefix = na.session_prefix(key, not plan.session.used_implicit_session)
    summary = (
        f"The tab of session {key.label} shows {BLANK}, not {target.url} where it was, and no "
        f"tab of the session still has that page: {BLANK} is now its recorded page and refs "
        f"from before were retired. Recover: `tab list` then `tab <id>` if the page is in "
        f"another tab, else `open {target.url}`."
    )
    blank = page_now(BLANK, summary)
    actions = [
        NextAction(
            id="list-tabs-after-blank-target",
            reason=f"Find the tab that still shows {target.url}, then select it with `tab <id>`.",
            params={"args": [*prefix, "tab", "list"]},
        ),
        na.reopen_recorded_url(prefix, target.url),
    ]
    return Recovery(blank, summary, actions)


async def after_answer(call: DirectCall, obs: Observation, effects: list[Effect]) -> None:
    """A call that should not navigate left the known page reading `about:blank`."""
    key = call.key
    if key is None or not obs.success or not should_not_navigate(call.plan):
        return
    entry = call.rt.log.state.session(key)
    target = entry.target
    if target is None or entry.target_unknown or is_blank(target.url):
        return
    observed = [e for e in effects if isinstance(e, TargetObserved)]
    if not observed or not is_blank(observed[-1].url):
        return
    found = await recover(call.rt, call.plan, key, target, no_switch_reason(call))
    effects[:] = [e for e in effects if not isinstance(e, TargetObserved)] + found.effects
    obs.warnings.append(found.warning)
    obs.next_actions.extend(found.actions)


def no_switch_reason(call: DirectCall) -> str | None:
    """Why the wrapper must not select another tab by itself after `call`, or None."""
    if attachment.attached(call):
        return ATTACHED
    if not _effects_all_in(call.plan, _MAY_SWITCH_BACK):
        return "the call may have opened this tab (a popup or a new tab still loading)"
    return None


async def tab_showing(rt: Runtime, plan: ExecutionPlan, url: str) -> str | None:
    """The id of a tab (not the active one) whose URL is the recorded page's."""
    data = await helper_data(rt, plan, ["tab", "list"])
    tabs = data.get("tabs") if isinstance(data, Mapping) else None
    for tab in tabs if isinstance(tabs, list) else []:
        if not isinstance(tab, Mapping) or tab.get("active") is True:
            continue
        tab_url, tab_id = tab.get("url"), tab.get("tabId")
        if isinstance(tab_url, str) and isinstance(tab_id, str) and same_page(tab_url, url):
            return tab_id
    return None


def same_page(live: str, recorded: str) -> bool:
    return normalize_url(redact_url(live)) == normalize_url(recorded)
