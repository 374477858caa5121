"""Stop the browser a dead engine daemon left behind, and remove its temporary profile.

Why: the daemon launches Chromium as its child; when the daemon is killed, Chromium (a browser
process, its zygotes, renderers and helpers) keeps running with its profile dir on disk, and
nothing would ever stop it: the engine's idle timeout lived in the dead daemon.

How they are found, only through what the wrapper owns: the daemon `setsid`s itself, so every
process it started keeps the daemon's pid as its session id even after the daemon is gone
(Linux keeps a session id allocated while any member lives, so it cannot name a stranger's
processes). A group is only touched when one of its members carries the socket dir the
wrapper gave the daemon (`AGENT_BROWSER_SOCKET_DIR`). Profiles removed are the engine's own
temporary ones (`agent-browser-chrome-*`, owned by this user), never an operator profile.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent_browser_tools.engine.daemons import PROC, is_live_daemon, pid_entries, stat_fields

SOCKET_DIR_ENV = b"AGENT_BROWSER_SOCKET_DIR="
PROFILE_FLAG = "--user-data-dir="
TEMP_PROFILE_PREFIX = "agent-browser-chrome-"
TERM_GRACE_S = 3.0
"""How long Chromium gets to exit on SIGTERM before SIGKILL (it usually needs well under 1 s)."""


@dataclass(frozen=True)
class Reaped:
    stopped: tuple[int, ...] = ()
    profiles: tuple[str, ...] = ()
    left: tuple[int, ...] = field(default=())
    """Processes still alive after SIGKILL (should never happen; reported, not hidden)."""


def orphans_of(daemon_pid: int, socket_dir: Path, proc: Path = PROC) -> list[int]:
    """Live processes of the dead daemon's session, if one of them is provably ours (its
    socket dir is `socket_dir` or inside it, as a namespace's is)."""
    members = [
        pid for pid in pid_entries(proc) if pid != daemon_pid and _in_session(proc, pid, daemon_pid)
    ]
    want = socket_dir.resolve()
    if not any(_under(_socket_dir_of(proc, pid), want) for pid in members):
        return []
    return members


def _under(path: Path | None, directory: Path) -> bool:
    return path is not None and path.is_relative_to(directory)


async def reap_orphans(daemon_pid: int, socket_dir: Path, proc: Path = PROC) -> Reaped:
    """SIGTERM the orphans, SIGKILL what outlives the grace, then remove their profiles."""
    members = orphans_of(daemon_pid, socket_dir, proc)
    if not members:
        return Reaped()
    profiles = {p for pid in members for p in _temp_profiles(proc, pid)}
    _signal_all(members, signal.SIGTERM)
    deadline = time.monotonic() + TERM_GRACE_S
    while (alive := [p for p in members if _in_session(proc, p, daemon_pid)]) and (
        time.monotonic() < deadline
    ):
        await asyncio.sleep(0.05)
    _signal_all(alive, signal.SIGKILL)
    await asyncio.sleep(0.05 if alive else 0)
    left = tuple(p for p in alive if _in_session(proc, p, daemon_pid))
    removed = []
    for profile in sorted(profiles):
        shutil.rmtree(profile, ignore_errors=True)
        if not Path(profile).exists():
            removed.append(profile)
    return Reaped(tuple(members), tuple(removed), left)


async def reap_dead(directory: Path, known: Iterable[int] = (), proc: Path = PROC) -> Reaped:
    """Reap the orphans of every dead daemon named by a pid file in `directory` (namespaces
    included) or in `known` (daemons seen earlier whose pid file a new daemon overwrote)."""
    pids = set(known)
    with contextlib.suppress(OSError):
        for path in directory.rglob("*.pid"):
            with contextlib.suppress(OSError, ValueError):
                pids.add(int(path.read_text().strip()))
    stopped: list[int] = []
    profiles: list[str] = []
    left: list[int] = []
    for pid in sorted(pids):
        if is_live_daemon(pid, proc):
            continue
        reaped = await reap_orphans(pid, directory, proc)
        stopped += reaped.stopped
        profiles += reaped.profiles
        left += reaped.left
    return Reaped(tuple(stopped), tuple(profiles), tuple(left))


def _in_session(proc: Path, pid: int, session_id: int) -> bool:
    fields = stat_fields(proc, pid)
    return (
        fields is not None
        and len(fields) > 3
        and fields[0] not in ("Z", "X")
        and fields[3] == str(session_id)
    )


def _socket_dir_of(proc: Path, pid: int) -> Path | None:
    try:
        environ = (proc / str(pid) / "environ").read_bytes()
    except OSError:
        return None
    for item in environ.split(b"\0"):
        if item.startswith(SOCKET_DIR_ENV):
            return Path(os.fsdecode(item[len(SOCKET_DIR_ENV) :])).resolve()
    return None


def _temp_profiles(proc: Path, pid: int) -> list[str]:
    """The engine's temporary profile dirs named on the process's command line."""
    try:
        argv = (proc / str(pid) / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return []
    found = []
    for arg in argv:
        text = arg.decode(errors="replace")
        if not text.startswith(PROFILE_FLAG):
            continue
        path = Path(text[len(PROFILE_FLAG) :])
        if path.name.startswith(TEMP_PROFILE_PREFIX) and _owned_dir(path):
            found.append(str(path))
    return found


def _owned_dir(path: Path) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return path.is_dir() and not path.is_symlink() and info.st_uid == os.getuid()


def _signal_all(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            continue
