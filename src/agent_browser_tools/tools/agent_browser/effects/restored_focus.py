"""Direct tool: after a launch that restores state, the opened page keeps the focus.

An `open` on a browser started with a profile or restored state (`--profile`, `--restore`,
`--session-name`, `--state` or their operator variables) can launch with tabs of its own,
and one of them may take focus after the navigation. The engine then answers with the page it
opened, but the next command would act on the restored tab. So after such an open, one live
`get url` checks the active tab; when it is another page, the tab showing the opened page is
re-selected (never navigating; `blank_target.select_tab_showing`, not in an attached browser).
When no tab shows it, the live page is recorded and the result says how to get back.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent_browser_tools.redaction import redact_url
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import Effect
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.tools.agent_browser.browser import attachment
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import current_page_url
from agent_browser_tools.tools.agent_browser.page.blank_target import (
    page_now,
    same_page,
    select_tab_showing,
)

RESTORING_FLAGS = frozenset({"--profile", "--restore", "--session-name", "--state"})
RESTORING_ENV = (
    "AGENT_BROWSER_PROFILE",
    "AGENT_BROWSER_RESTORE",
    "AGENT_BROWSER_SESSION_NAME",
    "AGENT_BROWSER_STATE",
)


def _restoring(call: DirectCall) -> bool:
    if any(f.partition("=")[0] in RESTORING_FLAGS for f in call.plan.session.launch_flags):
        return True
    key = call.key
    if key is None:
        return False
    entry = call.rt.log.state.session(key)
    if any(f.partition("=")[0] in RESTORING_FLAGS for f in entry.launch_flags):
        return True
    env = call.rt.env_for(key)
    return any(env.get(name) for name in RESTORING_ENV)


def _opened_url(call: DirectCall, obs: Observation) -> str | None:
    match = call.plan.match
    if match is None or match.spec.page_effect is not PageEffect.NAVIGATES or call.plan.is_batch:
        return None
    url = obs.data.get("url") if isinstance(obs.data, Mapping) else None
    return url if isinstance(url, str) and url else None


async def keep_focus(call: DirectCall, obs: Observation, effects: list[Effect]) -> None:
    """Re-select the opened page's tab when a restored tab took focus after the open."""
    opened = _opened_url(call, obs) if obs.success else None
    if opened is None or call.key is None or not _restoring(call):
        return
    rt, plan = call.rt, call.plan
    live = await current_page_url(rt, plan)
    if live is None or same_page(live, redact_url(opened)):
        return
    attached = attachment.attached(call)
    selected = None if attached else await select_tab_showing(rt, plan, redact_url(opened))
    if selected is not None:
        obs.warnings.append(
            f"A restored tab ({redact_url(live)}) took focus after the open; the wrapper "
            f"re-selected tab {selected[0]}, which shows the opened page."
        )
        return
    not_selected = (
        "the wrapper does not switch tabs in an attached browser"
        if attached
        else ("no tab could be re-selected")
    )
    summary = (
        f"A restored tab took focus after the open: the active page is {redact_url(live)}, "
        f"not the opened {redact_url(opened)}, and {not_selected}. Use `tab list` "
        "and `tab <id>` to choose the page before acting."
    )
    effects += page_now(live, summary)
    obs.warnings.append(summary)
    prefix = na.session_prefix(call.key, not plan.session.used_implicit_session)
    obs.next_actions.append(
        na.NextAction(
            id="list-tabs-after-focus-steal",
            reason="See which tab shows the opened page, then select it with `tab <id>`.",
            params={"args": [*prefix, "tab", "list"]},
        )
    )
