"""Stop the browser a dead engine daemon left behind, and remove its temporary profile.

Why: the daemon launches Chromium as its child; when the daemon is killed, Chromium (a browser
process, its zygotes, renderers and helpers) keeps running with its profile dir on disk, and
nothing would ever stop it: the engine's idle timeout lived in the dead daemon.

How they are found, only through what the wrapper owns: the daemon `setsid`s itself, so every
process it started keeps the daemon's pid as its session id after the daemon is gone, and
Linux does not hand that pid to a new process while the session has members. Still, nothing
is touched unless the daemon's pid is free (or a zombie) and the process carries the socket
dir the wrapper gave the daemon (`AGENT_BROWSER_SOCKET_DIR`, exactly the conversation's dir or
one of its namespaces) or descends from one that does; this process and its own session are
never candidates. Profiles removed are the engine's own temporary ones
(`agent-browser-chrome-*`, owned by this user), never an operator profile.
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
    """Live processes the dead daemon `daemon_pid` left behind under `socket_dir`.

    Only when that pid is gone (or a zombie): a live process holding it means the pid was
    free when it started, so no process of the old daemon can remain. A member counts when
    it carries the daemon's socket dir itself (`socket_dir`, or a namespace dir under it),
    or descends from one that does (Chromium's zygote children replace their environment
    with their title); never this process or its own session."""
    if _holds_pid(proc, daemon_pid):
        return []
    mine = {os.getpid(), os.getsid(0), os.getpgid(0)}
    members = {
        pid: fields[1]
        for pid in pid_entries(proc)
        if pid not in mine
        and (fields := stat_fields(proc, pid)) is not None
        and len(fields) > 3
        and fields[0] not in ("Z", "X")
        and fields[3] == str(daemon_pid)
    }
    want = socket_dir.resolve()
    ours = {pid for pid in members if _carries(_socket_dir_of(proc, pid), want)}
    while heirs := {p for p, parent in members.items() if p not in ours and int(parent) in ours}:
        ours |= heirs
    return sorted(ours)


def _holds_pid(proc: Path, pid: int) -> bool:
    """A live (non-zombie) process has this pid."""
    fields = stat_fields(proc, pid)
    return fields is not None and fields[0] not in ("Z", "X")


def _carries(path: Path | None, directory: Path) -> bool:
    """The socket dir a process was given is the conversation's dir or one of its
    namespaces' dirs (never merely some dir below a shared base)."""
    if path is None:
        return False
    return path == directory or path.is_relative_to(directory / "namespaces")


async def reap_orphans(daemon_pid: int, socket_dir: Path, proc: Path = PROC) -> Reaped:
    """SIGTERM the orphans, SIGKILL what outlives the grace, then remove their profiles.

    The `/proc` scan and the profile removal run in a thread: a Chromium profile can take
    a while to delete and an HTTP server's other conversations must not wait for it."""
    members = await asyncio.to_thread(orphans_of, daemon_pid, socket_dir, proc)
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
    removed = await asyncio.to_thread(_remove_profiles, profiles)
    return Reaped(tuple(members), tuple(removed), left)


def _remove_profiles(profiles: set[str]) -> list[str]:
    removed = []
    for profile in sorted(profiles):
        shutil.rmtree(profile, ignore_errors=True)
        if not Path(profile).exists():
            removed.append(profile)
    return removed


async def reap_dead(directory: Path, known: Iterable[int] = (), proc: Path = PROC) -> Reaped:
    """Reap the orphans of every dead daemon named by a pid file in `directory` (namespaces
    included) or in `known` (daemons seen earlier whose pid file a new daemon overwrote)."""
    pids = set(known)
    with contextlib.suppress(OSError):
        for path in directory.rglob("*.pid"):
            with contextlib.suppress(OSError, ValueError):
                pids.add(int(path.read_text().strip()))
    dead = [pid for pid in sorted(pids) if not is_live_daemon(pid, proc)]
    found = await asyncio.gather(*(reap_orphans(pid, directory, proc) for pid in dead))
    return Reaped(
        tuple(p for r in found for p in r.stopped),
        tuple(p for r in found for p in r.profiles),
        tuple(p for r in found for p in r.left),
    )


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
