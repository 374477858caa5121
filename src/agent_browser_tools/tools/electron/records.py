"""Launch records: the journaled ownership of each app, and live evidence checked against it.

Why journaled: the wrapper owns the app's process tree, its debug port and its private
profile only as long as it can prove it. Records survive a server restart (they are journal
events), so a new server can still inspect and clean up what an old one launched; but a
restored record is trusted for reuse only when the live process has the recorded pid and
start time, names the recorded profile, and the profile still advertises the recorded port
that still answers.
"""

from __future__ import annotations

import asyncio
import errno
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from agent_browser_tools.engine import apps
from agent_browser_tools.private_fs import ensure_private_dir
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import AppLaunch, SessionKey

ProfileState = Literal["present", "absent", "unknown"]
ACTIVE = ("launching", "running", "cleanup-failed")


def new_launch(rt: Runtime, name: str, executable: str, target_type: str) -> AppLaunch:
    """A fresh record with its private launch dir (profile inside) created now."""
    suffix = secrets.token_hex(5)
    launch_id = f"electron-{suffix}"
    directory = launch_dir(rt, launch_id)
    ensure_private_dir(directory)
    profile = ensure_private_dir(directory / "profile")
    return AppLaunch(
        launch_id=launch_id,
        app_name=name,
        executable=executable,
        profile_dir=str(profile),
        session=SessionKey(session=f"el-{suffix}"),
        target_type=target_type,
        created_at=time.time(),
    )


def launch_dir(rt: Runtime, launch_id: str) -> Path:
    """Under the state dir, which no tool call may reach: the profile holds the app's cookies."""
    return rt.settings.state_dir / "electron" / launch_id


def save(rt: Runtime, launch: AppLaunch, **changes: Any) -> AppLaunch:
    """Journal the record with `changes` applied; returns it."""
    updated = launch.model_copy(update=changes) if changes else launch
    rt.log.record_app(updated)
    return updated


def active(rt: Runtime) -> list[AppLaunch]:
    """Launches of this conversation not yet cleaned (oldest first)."""
    launches = rt.log.state.app_launches.values()
    return sorted((r for r in launches if r.state in ACTIVE), key=lambda r: r.created_at)


def profile_state(path: str) -> ProfileState:
    try:
        os.stat(path)
    except FileNotFoundError:
        return "absent"
    except OSError as exc:
        return "absent" if exc.errno == errno.ENOENT else "unknown"
    return "present"


@dataclass(frozen=True)
class Live:
    """What is true of a launch now."""

    alive: bool
    profile_matches: bool
    advertised_port: int | None
    port_open: bool
    profile: ProfileState
    targets: list[dict[str, str]] | None

    def reusable(self, launch: AppLaunch) -> bool:
        """Endpoint, pid and profile all still match the record."""
        return (
            self.alive
            and self.profile_matches
            and launch.port is not None
            and self.advertised_port == launch.port
            and self.port_open
        )

    def problems(self, launch: AppLaunch) -> list[str]:
        out = []
        if not self.alive:
            out.append(f"the app process (pid {launch.pid}) is no longer running")
        elif not self.profile_matches:
            out.append(f"pid {launch.pid} no longer names the launch's profile")
        if self.profile == "absent":
            out.append("its temporary profile is gone")
        elif launch.port is not None and self.advertised_port != launch.port:
            out.append(f"the profile no longer advertises debug port {launch.port}")
        if launch.port is not None and not self.port_open:
            out.append(f"debug port {launch.port} is closed")
        return out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "processAlive": self.alive,
            "profileMatches": self.profile_matches,
            "portOpen": self.port_open,
            "userDataDirState": self.profile,
        }
        if self.targets is not None:
            out["targets"] = self.targets
        return out


async def inspect(launch: AppLaunch, *, targets: bool = True) -> Live:
    """Read the live evidence of `launch` (process table, profile, one-second CDP probes)."""
    pid = launch.pid
    alive = pid is not None and await asyncio.to_thread(apps.is_alive, pid, launch.pid_start)
    matches = alive and pid is not None and apps.names_profile(pid, launch.profile_dir)
    port = apps.read_port(Path(launch.profile_dir))
    is_open = launch.port is not None and await apps.port_open(launch.port)
    found = None
    if targets and is_open and launch.port is not None:
        found = await apps.cdp_targets(launch.port)
    return Live(alive, matches, port, is_open, profile_state(launch.profile_dir), found)


def matching_targets(
    targets: list[dict[str, str]] | None, target_type: str
) -> list[dict[str, str]]:
    """CDP targets of the wanted type (`any`: pages and webviews)."""
    wanted = ("page", "webview") if target_type == "any" else (target_type,)
    return [t for t in targets or [] if t.get("type") in wanted]


def record_view(launch: AppLaunch) -> dict[str, Any]:
    """The record as the model sees it (no secrets: paths, pid, port, state)."""
    out: dict[str, Any] = {
        "launchId": launch.launch_id,
        "appName": launch.app_name,
        "executablePath": launch.executable,
        "sessionName": launch.session.session,
        "state": launch.state,
        "pid": launch.pid,
        "port": launch.port,
        "userDataDir": launch.profile_dir,
        "targetType": launch.target_type,
        "createdAt": launch.created_at,
    }
    if launch.ended_at is not None:
        out["endedAt"] = launch.ended_at
    if launch.note:
        out["note"] = launch.note
    return out
