"""Direct tool: sessions attached to a desktop app that `agent_browser_electron` launched.

The engine only holds a CDP connection to such an app; when the app dies, it answers with a
connection error (or, for a reopened port, from another program). The wrapper knows better:
the launch record names the app's pid, start time and debug port. So a call on such a session
is refused before dispatch when the app is already gone, and fails after the answer when the
app or its port went away during the command: both as `tab-drift`, with recovery through
`agent_browser_electron` (status, cleanup, relaunch). `close` always passes: cleanup needs it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_browser_tools.engine import apps
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.next_actions import NextAction
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import (
    AppLaunch,
    Effect,
    RefsInvalidated,
    RefsRecorded,
    TargetUnknown,
)
from agent_browser_tools.taxonomy import PageEffect
from agent_browser_tools.tools.agent_browser.browser.attachment import ELECTRON_TOOL, launch_of
from agent_browser_tools.tools.agent_browser.call import DirectCall


async def loss(launch: AppLaunch) -> str | None:
    """Why the launch's app is no longer the recorded attachment (None: it still is): the
    pid with its start time, the profile on its command line, the port the profile
    advertises and that port answering must all match (after a restart too)."""
    pid = launch.pid
    if pid is None or not await asyncio.to_thread(apps.is_alive, pid, launch.pid_start):
        return f"its app process (pid {pid}) is no longer running"
    if not apps.names_profile(pid, launch.profile_dir):
        return f"pid {pid} no longer runs with the launch's profile"
    if launch.port is not None and apps.read_port(Path(launch.profile_dir)) != launch.port:
        return f"its profile no longer advertises debug port {launch.port}"
    if launch.port is not None and not await apps.port_open(launch.port):
        return f"its debug port {launch.port} is closed"
    return None


def _closes(call: DirectCall) -> bool:
    match = call.plan.match
    return match is not None and match.spec.page_effect is PageEffect.CLOSE


def _drift(call: DirectCall, launch: AppLaunch, reason: str, obs: Observation) -> None:
    obs.success = False
    obs.success_category = None
    obs.failure_category = FailureCategory.TAB_DRIFT
    obs.error = (
        f"Session {launch.session.session} is attached to {launch.app_name} "
        f"({launch.launch_id}), but {reason}: the answer cannot come from that app. Inspect or "
        "clean up the launch, then launch it again if needed."
    )
    params = {"launchId": launch.launch_id}
    obs.next_actions[:] = [
        NextAction(
            id="electron-status",
            tool=ELECTRON_TOOL,
            reason="Inspect the launch's process, port, profile and targets.",
            params={"action": "status", **params},
        ),
        NextAction(
            id="electron-cleanup",
            tool=ELECTRON_TOOL,
            reason="Close the session, stop what is left of the app, remove its profile.",
            params={"action": "cleanup", **params},
        ),
        NextAction(
            id="electron-relaunch",
            tool=ELECTRON_TOOL,
            reason="Start the app again in a new isolated profile (after cleanup).",
            params={"action": "launch", "executablePath": launch.executable},
            safety="A new launch has a new launchId and sessionName; old refs do not carry over.",
        ),
    ]


async def refusal(call: DirectCall) -> Observation | None:
    """Before dispatch: a `tab-drift` observation when the session's app is already gone."""
    launch = launch_of(call.rt.log.state, call.key)
    if launch is None or _closes(call):
        return None
    reason = await loss(launch)
    if reason is None:
        return None
    obs = Observation(success=False)
    _drift(call, launch, reason, obs)
    return obs


async def after_answer(call: DirectCall, obs: Observation, effects: list[Effect]) -> None:
    """After the answer: the app or its port went away during the command."""
    launch = launch_of(call.rt.log.state, call.key)
    if launch is None or _closes(call):
        return
    reason = await loss(launch)
    if reason is None:
        return
    summary = f"The desktop app of this session is gone ({reason}); its page and refs are lost."
    effects[:] = [e for e in effects if not isinstance(e, RefsRecorded)]
    effects += [
        TargetUnknown(summary=summary),
        RefsInvalidated(reason="browser-lost", summary=summary),
    ]
    _drift(call, launch, reason, obs)
