"""Cleanup of one launch: close its session, stop only its app, verify, remove its profile.

Order matters: the native session is closed first (for an attached browser the engine only
detaches), then the app's own process tree is stopped (`engine.apps`: only the session the
launch created), then the debug port must be closed, and only then is the private launch dir
(profile and output logs) removed. A profile is never removed while any of the app's
processes still runs: a live app would recreate files in it, and the partial cleanup must be
retryable with the same record.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_browser_tools.engine import apps
from agent_browser_tools.engine.daemons import is_live_daemon, read_daemon_pid
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import AppLaunch, BrowserClosed
from agent_browser_tools.tools import agent_browser
from agent_browser_tools.tools.agent_browser import Hooks
from agent_browser_tools.tools.electron import records
from agent_browser_tools.tools.electron.schema import NAME

PORT_CLOSE_WAIT_S = 5.0
DAEMON_EXIT_WAIT_S = 3.0
STOPPED_SUMMARY = (
    "the desktop app of this session was gone, so cleanup stopped the engine daemon that "
    "still served it; its page and refs are gone."
)


@dataclass
class Outcome:
    launch_id: str
    session_closed: bool | None = None
    """None: there was no session to close."""
    left_pids: list[int] = field(default_factory=list)
    port_closed: bool = True
    profile: str = "absent"
    errors: list[str] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return (
            self.session_closed is not False
            and not self.left_pids
            and self.port_closed
            and self.profile == "absent"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "launchId": self.launch_id,
            "complete": self.complete,
            "sessionClosed": self.session_closed,
            "processesLeft": self.left_pids,
            "portClosed": self.port_closed,
            "userDataDirState": self.profile,
            "errors": self.errors,
        }

    def remaining(self) -> str:
        parts = []
        if self.session_closed is False:
            parts.append("the native session did not confirm its close")
        if self.left_pids:
            parts.append(f"app processes {self.left_pids} still run")
        if not self.port_closed:
            parts.append("the debug port still answers")
        if self.profile != "absent":
            parts.append(f"the profile is {self.profile}")
        return "; ".join(parts) or "nothing"


def _serving(rt: Runtime, launch: AppLaunch) -> int | None:
    key = launch.session
    pid = read_daemon_pid(rt.socket_dir(key), key.session, key.namespace)
    return pid if pid is not None and is_live_daemon(pid) else None


async def close_session(rt: Runtime, launch: AppLaunch, timeout_ms: int) -> bool | None:
    """`close` on the launch's session when an engine daemon serves it (None: none does).

    For an app that died first, the engine may answer the close with a CDP connection error
    (it tries to reach the dead endpoint); what counts is that no daemon serves the session
    afterwards."""
    if _serving(rt, launch) is None:
        return None
    params = {"args": ["--session", launch.session.session, "close"], "timeoutMs": timeout_ms}
    result = await agent_browser.run(rt, params, hooks=Hooks(tool=NAME))
    if not result.is_error:
        return True
    # The daemon of this launch's own session (our socket dir, our session name) is left
    # serving a dead endpoint: stop it, as a close would have.
    daemon = _serving(rt, launch)
    if daemon is not None and not await apps.stop_pid(daemon, is_live_daemon, DAEMON_EXIT_WAIT_S):
        return False
    lost = BrowserClosed(summary=STOPPED_SUMMARY, reason="browser-lost")
    rt.log.complete(rt.next_call_id(), launch.session, True, (lost,))
    return True


async def teardown(rt: Runtime, launch: AppLaunch, budget_ms: int) -> Outcome:
    """Clean up `launch` as far as possible and journal the record's new state.

    `budget_ms` applies separately to the session close and to the app's exit after SIGTERM
    (then SIGKILL gets a short grace); there is no combined deadline (contract)."""
    outcome = Outcome(launch.launch_id)
    outcome.session_closed = await close_session(rt, launch, budget_ms)
    if launch.pid is not None:
        outcome.left_pids = await apps.stop_tree(launch.pid, launch.pid_start, budget_ms / 1000)
    if launch.port is not None:
        outcome.port_closed = await _port_closes(launch.port)
    directory = records.launch_dir(rt, launch.launch_id)
    if not outcome.left_pids:
        await asyncio.to_thread(shutil.rmtree, directory, True)
    outcome.profile = records.profile_state(str(directory))
    if outcome.complete:
        records.save(rt, launch, state="cleaned", ended_at=time.time(), note=None)
    else:
        note = f"cleanup incomplete: {outcome.remaining()}"
        records.save(rt, launch, state="cleanup-failed", note=note)
    return outcome


async def _port_closes(port: int) -> bool:
    deadline = time.monotonic() + PORT_CLOSE_WAIT_S
    while await apps.port_open(port):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.1)
    return True


def remove_unstarted(rt: Runtime, launch: AppLaunch) -> None:
    """A launch that never spawned: remove its dir and journal it cleaned."""
    shutil.rmtree(Path(records.launch_dir(rt, launch.launch_id)), ignore_errors=True)
    records.save(rt, launch, state="cleaned", ended_at=time.time(), note="never started")
