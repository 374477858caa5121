"""Direct tool, under the lock and before anything reaches the engine: is the browser there?

A session the journal believes is open can have lost its browser behind the wrapper's back:
its engine daemon was killed or idled out, or Chromium crashed. The engine would hide that
(it starts a new daemon or relaunches a blank browser and answers the command there), so the
check runs before the first engine call of every call on an open session (see
`engine.daemons`; a pid file read and a few `/proc` reads). A loss is journaled like a close
(`BrowserClosed`, reason `browser-lost`): the page is unknown, refs fail with that reason, and
the guards then refuse page-dependent commands with the reopen call. A browser orphaned by a
dead daemon is stopped and its temporary profile removed (`engine.orphans`).

`after_answer` is the second line, for what a pre-check cannot see (no `/proc`, a crash during
the call): an answer whose lifecycle says the engine launched a browser for a session that
had one means the old page is gone and the command ran on a new blank one.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from agent_browser_tools import taxonomy
from agent_browser_tools.engine.daemons import (
    Health,
    check_daemon,
    has_browser_child,
    is_live_daemon,
    read_daemon_pid,
)
from agent_browser_tools.engine.orphans import Reaped, reap_orphans
from agent_browser_tools.redaction import REDACTED
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import (
    BrowserClosed,
    DaemonObserved,
    Effect,
    RefsInvalidated,
    RefsRecorded,
    SessionPageState,
    TargetUnknown,
)
from agent_browser_tools.tools.agent_browser.browser.sessions import journal_closed
from agent_browser_tools.tools.agent_browser.call import DirectCall

logger = logging.getLogger(__name__)

_CAUSES = {
    Health.NO_DAEMON: "its engine daemon is no longer running (an idle timeout, a close from "
    "outside this conversation, or a crash)",
    Health.DAEMON_DIED: "its engine daemon (pid {pid}) stopped running (killed or crashed)",
    Health.REPLACED: "another engine daemon serves the session now (the engine replaced pid "
    "{pid}, for example after a change of launch settings), with a new browser",
    Health.BROWSER_DIED: "its browser process ended (crashed or killed) while the engine "
    "daemon kept running",
}


async def check_before_dispatch(call: DirectCall) -> None:
    """Journal a lost browser (and stop its orphans) before the call reaches the engine."""
    rt, key = call.rt, call.key
    if key is None:
        return
    entry = rt.log.state.session(key)
    pid = entry.daemon_pid
    if not entry.active or entry.closed:
        return
    if rt.grid is not None:
        return  # the grid browser outlives a daemon; its loss shows in the answer (below)
    if pid is None:
        return
    directory = rt.socket_dir(key)
    health = check_daemon(
        directory, key.session, key.namespace, pid, had_browser=entry.daemon_browser
    )
    if health is Health.RUNNING:
        return
    reaped = Reaped() if is_live_daemon(pid) else await reap_orphans(pid, directory)
    summary = _summary(health, pid, reaped)
    journal_closed(rt, [key], summary, reason="browser-lost")
    call.browser_lost.update(
        {
            "cause": health.value,
            "daemonPid": pid,
            "stoppedProcesses": len(reaped.stopped),
            "removedProfiles": list(reaped.profiles),
            "summary": summary,
        }
    )


GRID_LOST = (
    "its browser on the Selenium Grid is gone (the grid ended the session: the browser crashed "
    "or was killed, the node went away, or the grid's session timeout expired). Its page and "
    "refs are lost."
)


async def grid_after_answer(call: DirectCall, obs: Observation, effects: list[Effect]) -> None:
    """A failed call on a grid browser the grid no longer serves: the browser is lost, like a
    local one that died. Asked only after a failure (an engine call on a dead endpoint fails,
    and nothing is launched here instead), so a live grid browser costs no extra request.

    The session's engine daemon, still attached to the dead endpoint, is closed, so the next
    call that needs a browser gets a new grid session."""
    rt, key = call.rt, call.key
    grid = rt.grid
    if grid is None or key is None or obs.success:
        return
    directory = str(rt.socket_dir(key))
    if await grid.alive(directory, key) is not False:
        return
    entry = rt.log.state.session(key)
    lost = await grid.lose(directory, key)
    scope = ["--namespace", key.namespace] if key.namespace else []
    raw = await rt.spawn(
        ["--json", *scope, "--session", key.session, "close"],
        timeout_ms=rt.settings.session_close_timeout_ms,
        session=key,
    )
    raw.discard_stdout()
    effects[:] = [BrowserClosed(summary=GRID_LOST, reason="browser-lost")]
    if lost is not None:  # its id drives its browser (`planning.grid_endpoints`): logged only
        logger.info("grid session %s of %s is lost", lost.session_id, key.label)
    call.browser_lost.update({"cause": "grid-session-lost", "summary": GRID_LOST})
    obs.extra["browserLost"] = dict(call.browser_lost)
    obs.failure_category = FailureCategory.TAB_GONE
    obs.error = f"The browser is gone: {GRID_LOST} So this command did not run. {_then(entry)}"
    obs.next_actions[:] = _reopen(call, entry)


def _summary(health: Health, pid: int, reaped: Reaped) -> str:
    text = _CAUSES[health].format(pid=pid)
    if reaped.stopped:
        text += f"; the {len(reaped.stopped)} browser processes it left behind were stopped" + (
            " and its temporary profile removed" if reaped.profiles else ""
        )
    if reaped.left:
        text += f" ({len(reaped.left)} could not be stopped)"
    return text + ". Its page and refs are lost."


def daemon_seen(call: DirectCall) -> list[Effect]:
    """The daemon serving the session after the call, for the next call's check."""
    key = call.key
    if key is None:
        return []
    pid = read_daemon_pid(call.rt.socket_dir(key), key.session, key.namespace)
    if pid is None:
        return []
    seen = DaemonObserved(pid=pid, browser=has_browser_child(pid))
    entry = call.rt.log.state.session(key)
    if (entry.daemon_pid, entry.daemon_browser) == (seen.pid, seen.browser):
        return []  # unchanged: nothing to journal
    return [seen]


def _proceeding_warning(lost: Mapping[str, Any]) -> str | None:
    """What a call that was let through (it navigates) says about the browser it replaced."""
    if not lost:
        return None
    return f"The session's browser was gone before this call: {lost['summary']}"


def after_answer(
    call: DirectCall, obs: Observation, effects: list[Effect], restarted: bool
) -> None:
    """An answer that launched a browser for a session that had one: the page was lost.

    A navigation only shows its launch (the page it asked for is what it got). Any other
    command ran on a new blank page: it fails as `tab-gone` with the reopen call."""
    key = call.key
    earlier = _proceeding_warning(call.browser_lost)
    if earlier is not None:
        obs.warnings.append(earlier)
        return
    if key is None or not restarted:
        return
    entry = call.rt.log.state.session(key)
    if not entry.active or entry.closed or call.plan.session.fresh:
        return
    summary = (
        "The engine launched a new browser for this call although the session had one: the "
        "old browser had crashed, been killed or been replaced, and its page and refs are lost."
    )
    obs.warnings.append(summary)
    call.browser_lost.update(cause="relaunched", summary=summary)
    obs.extra["browserLost"] = dict(call.browser_lost)
    if _first_step_navigates(call):
        return
    effects[:] = [e for e in effects if not isinstance(e, RefsRecorded)]
    effects += [
        TargetUnknown(summary=summary),
        RefsInvalidated(reason="browser-lost", summary=summary),
    ]
    obs.success = False
    obs.failure_category = FailureCategory.TAB_GONE
    obs.error = f"{summary} This command ran on the new blank page instead. {_then(entry)}"
    obs.next_actions[:] = _reopen(call, entry)


def _first_step_navigates(call: DirectCall) -> bool:
    matches = call.plan.row_matches if call.plan.row_matches is not None else (call.plan.match,)
    first = next((m for m in matches if m is not None), None)
    return first is not None and first.spec.page_effect is taxonomy.PageEffect.NAVIGATES


def _exact_url(entry: SessionPageState) -> str | None:
    url = entry.target.url if entry.target is not None else None
    return url if url is not None and REDACTED not in url and url != "about:blank" else None


def _then(entry: SessionPageState) -> str:
    url = _exact_url(entry)
    if url is None:
        return "Open the page you need, then run `snapshot -i`."
    return f"Reopen the last recorded page with `open {url}`, then run `snapshot -i`."


def _reopen(call: DirectCall, entry: SessionPageState) -> list[na.NextAction]:
    url = _exact_url(entry)
    if url is None:
        return []
    prefix = na.session_prefix(call.key, not call.plan.session.used_implicit_session)
    return [na.reopen_recorded_url(prefix, url)]
