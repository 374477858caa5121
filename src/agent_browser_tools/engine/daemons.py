"""Is a session's engine daemon, and the browser it launched, still running?

Why ask: when a daemon is gone (killed, crashed, idle timeout) the engine's next command
starts a new one with a blank browser, and a daemon whose Chromium died relaunches a blank
one; either way the command then runs on `about:blank` and answers success. Asking first lets
the wrapper say the page was lost instead of reporting a lie.

What is read: the daemon's pid file in the socket dir (`NAME.pid`, or
`namespaces/NS/run/NAME.pid`), compared with the pid the wrapper saw there after its last call
(journaled, so a resumed conversation checks too), then `/proc` for whether that pid is still
an engine daemon (a dead daemon can linger as a zombie, and its pid can be reused) and whether
it still has a live child (its browser). Without `/proc` (macOS) only the pid is checked and a
browser crash is left to the lifecycle evidence of the next answer. A session whose daemon
the wrapper never saw (an engine without pid files) is not checked.
"""

from __future__ import annotations

import os
from enum import StrEnum
from pathlib import Path

PROC = Path("/proc")
DAEMON_MARKER = "agent-browser"
"""A fragment of the engine daemon's executable name (`agent-browser-linux-x64`, ...)."""


class Health(StrEnum):
    RUNNING = "running"
    NO_DAEMON = "no-daemon"
    """No pid file: the daemon exited (idle timeout, a close from outside) or was cleaned up."""
    REPLACED = "daemon-replaced"
    """Another daemon runs the session now: the engine replaced it, with a new browser."""
    DAEMON_DIED = "daemon-died"
    """The daemon is not running (killed or crashed); its browser may be orphaned."""
    BROWSER_DIED = "browser-died"
    """The daemon runs but has no live child: its browser crashed or was killed."""


def run_dir(directory: Path, namespace: str | None) -> Path:
    """Where the engine keeps a session's run files (pid, socket, stream port): engine 0.39
    layout, `DIR/` or `DIR/namespaces/NS/run/`."""
    if namespace is None:
        return directory
    return directory / "namespaces" / namespace / "run"


def pid_file(directory: Path, session: str, namespace: str | None) -> Path:
    """Where the engine keeps the daemon pid of a session."""
    return run_dir(directory, namespace) / f"{session}.pid"


def read_daemon_pid(directory: Path, session: str, namespace: str | None) -> int | None:
    """The pid the session's pid file names, or None (no file, unreadable)."""
    try:
        return int(pid_file(directory, session, namespace).read_text().strip())
    except (OSError, ValueError):
        return None


def check_daemon(
    directory: Path,
    session: str,
    namespace: str | None,
    expected: int,
    *,
    had_browser: bool,
    proc: Path = PROC,
) -> Health:
    """The health of the daemon `expected` (the pid last seen for this session).
    `had_browser`: it had a live child then; a daemon attached to a browser it did not launch
    (CDP, a provider, an engine config the wrapper cannot see) never has one to miss."""
    current = read_daemon_pid(directory, session, namespace)
    if current is None:
        return Health.NO_DAEMON
    if current != expected:
        return Health.REPLACED
    if not is_live_daemon(expected, proc):
        return Health.DAEMON_DIED
    if had_browser and proc.is_dir() and not live_children(proc, expected):
        return Health.BROWSER_DIED
    return Health.RUNNING


def has_browser_child(pid: int, proc: Path = PROC) -> bool:
    """Whether the daemon has a live child (its browser) now; False without `/proc`."""
    return proc.is_dir() and bool(live_children(proc, pid))


def is_live_daemon(pid: int, proc: Path = PROC) -> bool:
    """Whether `pid` is a running engine daemon (not a zombie, not a reused pid)."""
    if not proc.is_dir():
        return _signalable(pid)
    fields = stat_fields(proc, pid)
    if fields is None or fields[0] in ("Z", "X"):
        return False
    try:
        argv0 = (proc / str(pid) / "cmdline").read_bytes().split(b"\0", 1)[0]
    except OSError:
        return False
    return DAEMON_MARKER in os.path.basename(argv0.decode(errors="replace"))


def _signalable(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def stat_fields(proc: Path, pid: int) -> list[str] | None:
    """`/proc/PID/stat` after the command name: [state, ppid, pgrp, session, ...]."""
    try:
        raw = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    return raw.rpartition(")")[2].split()


def live_children(proc: Path, pid: int) -> list[int]:
    """Children of `pid` that are not zombies.

    `task/TID/children` lists the children each thread forked; the daemon is multi-threaded,
    so every thread's list is read (falling back to a `/proc` scan where the file is absent).
    """
    children: list[int] = []
    try:
        tasks = list((proc / str(pid) / "task").iterdir())
        for task in tasks:
            children += [int(c) for c in (task / "children").read_text().split()]
    except (OSError, ValueError):
        children = [
            entry
            for entry in pid_entries(proc)
            if (fields := stat_fields(proc, entry)) is not None
            and len(fields) > 1
            and fields[1] == str(pid)
        ]
    return [c for c in children if _alive(proc, c)]


def _alive(proc: Path, pid: int) -> bool:
    fields = stat_fields(proc, pid)
    return fields is not None and fields[0] not in ("Z", "X")


def pid_entries(proc: Path) -> list[int]:
    """Every process id in `/proc` (empty without it)."""
    try:
        return [int(e.name) for e in proc.iterdir() if e.name.isdigit()]
    except OSError:
        return []
