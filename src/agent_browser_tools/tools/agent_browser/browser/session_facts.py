"""Direct tool, after the answer and before journaling: what the session itself went through.

One stage for the session-level facts of a call, in this order: a known page that reads
`about:blank` (`blank_target`), a restored tab that took focus after an open
(`restored_focus`), whether the browser is an attachment (`attachment`), a launch that failed
on its Chrome profile (`profile_failure`), a pending reopen the call consumed
(`reopen_pending`) and the dir a managed browser's engine calls ran in
(`managedSessionCwd`).
"""

from __future__ import annotations

from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import Effect
from agent_browser_tools.tools.agent_browser.browser import (
    attachment,
    profile_failure,
    reopen_pending,
)
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.effects import restored_focus
from agent_browser_tools.tools.agent_browser.page import blank_target


async def after_answer(call: DirectCall, obs: Observation, effects: list[Effect]) -> None:
    """May add effects (a re-selected or blank page), warnings, next actions and details."""
    await blank_target.after_answer(call, obs, effects)
    await restored_focus.keep_focus(call, obs, effects)
    attachment.mark(call, obs)
    profile_failure.add_recovery(call, obs)
    reopen_pending.mark_consumed(call, obs)
    if call.plan.session.used_implicit_session:
        obs.extra["managedSessionCwd"] = str(call.rt.cwd)
