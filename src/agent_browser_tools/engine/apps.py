"""Desktop app processes the wrapper launches (`agent_browser_electron`), and nothing else.

Why a second spawner beside `runner`: `run_engine` runs one engine command to completion
under a watchdog and kills its whole process group when it ends, which is exactly wrong for
an app that must keep running across calls until its cleanup. This module is the only other
place that starts a process, and it starts only what the electron tool decided to launch
(an executable that passed the Electron evidence check): argv as a list, never a shell, in
a new session (so the app's whole tree shares one session id the wrapper can name later),
stdin closed, stdout/stderr into private files whose tails explain a failed start.

Ownership is proven, never assumed: a pid is the app's only while its start time (`/proc`
ticks) is the one recorded at launch (and, for reuse after a restart, its command line names
the launch's private profile). Stopping the app signals exactly the processes of the session
it was started in and their descendants (Linux `/proc`; elsewhere only the recorded pid).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_browser_tools.engine.daemons import PROC, pid_entries, stat_fields

PORT_FILE = "DevToolsActivePort"
"""Chromium (and Electron) write the chosen debug port here, in the user-data dir, when
started with `--remote-debugging-port=0`."""
TAIL_BYTES = 4096
TERM_GRACE_S = 3.0
CDP_PROBE_S = 1.0
TARGETS_LIMIT_BYTES = 1024 * 1024
"""Local CDP HTTP probes (target list) get one second each (contract)."""


@dataclass(frozen=True)
class Started:
    pid: int
    start: int | None
    """`/proc` start ticks of the pid (None where there is no `/proc`)."""


async def start_app(
    argv: Sequence[str], *, env: dict[str, str], cwd: Path, log_dir: Path
) -> Started:
    """Start the app detached (new session); raises OSError when it cannot be executed."""
    out = open(log_dir / "stdout.log", "wb")  # noqa: SIM115 - handed to the child
    err = open(log_dir / "stderr.log", "wb")  # noqa: SIM115
    try:
        proc = await asyncio.create_subprocess_exec(
            *argv,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=env,
            cwd=cwd,
            start_new_session=True,
        )
    finally:
        out.close()
        err.close()
    # The child is reaped by asyncio's child watcher; only its pid matters from here on.
    return Started(pid=proc.pid, start=start_ticks(proc.pid))


def output_tails(log_dir: Path) -> dict[str, str]:
    """The last `TAIL_BYTES` of the app's stdout and stderr (raw: callers redact)."""
    tails = {}
    for name in ("stdout", "stderr"):
        try:
            with open(log_dir / f"{name}.log", "rb") as handle:
                handle.seek(0, os.SEEK_END)
                handle.seek(max(0, handle.tell() - TAIL_BYTES))
                tails[name] = handle.read().decode("utf-8", errors="replace")
        except OSError:
            tails[name] = ""
    return tails


def start_ticks(pid: int, proc: Path = PROC) -> int | None:
    fields = stat_fields(proc, pid)
    if fields is None or len(fields) < 20:
        return None
    with contextlib.suppress(ValueError):
        return int(fields[19])
    return None


def _cmdline(pid: int, proc: Path = PROC) -> list[str]:
    try:
        raw = (proc / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def is_alive(pid: int, start: int | None, proc: Path = PROC) -> bool:
    """The launched process still runs (same pid *and* start time; zombies do not count)."""
    fields = stat_fields(proc, pid)
    if fields is None:
        return _signal_alive(pid) if not proc.exists() else False
    if fields[0] in ("Z", "X"):
        return False
    return start is None or start_ticks(pid, proc) == start


def _signal_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def names_profile(pid: int, profile: str, proc: Path = PROC) -> bool:
    """Its command line carries `--user-data-dir=<profile>` (the launch's own profile)."""
    return f"--user-data-dir={profile}" in _cmdline(pid, proc)


def app_tree(pid: int, start: int | None, proc: Path = PROC) -> list[int]:
    """The launched app's live processes: the members of the session it created (sid = the
    launch pid) and their descendants.

    Linux keeps a session id allocated while any member lives, so once the launch pid is gone
    its number cannot name someone else's session; a live pid with another start time means
    the number was freed and reused, so nothing of the app is left."""
    fields = stat_fields(proc, pid)
    if fields is None and not proc.exists():
        return [pid] if _signal_alive(pid) else []
    if fields is not None and start is not None and start_ticks(pid, proc) != start:
        return []
    table: dict[int, tuple[int, int]] = {}
    for entry in pid_entries(proc):
        row = stat_fields(proc, entry)
        if row is None or len(row) < 6 or row[0] in ("Z", "X"):
            continue
        with contextlib.suppress(ValueError):
            table[entry] = (int(row[1]), int(row[3]))  # ppid, sid
    ours = {p for p, (_ppid, sid) in table.items() if sid == pid}
    while heirs := {p for p, (ppid, _sid) in table.items() if p not in ours and ppid in ours}:
        ours |= heirs
    return sorted(ours)


async def stop_tree(
    pid: int,
    start: int | None,
    term_wait_s: float = TERM_GRACE_S,
    kill_wait_s: float = TERM_GRACE_S,
) -> list[int]:
    """SIGTERM the app's tree and wait up to `term_wait_s` for it to exit, then SIGKILL what
    remains; returns what is still alive afterwards (empty on success)."""
    for sig, wait_s in ((signal.SIGTERM, term_wait_s), (signal.SIGKILL, kill_wait_s)):
        tree = await asyncio.to_thread(app_tree, pid, start)
        if not tree:
            return []
        for member in tree:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(member, sig)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if not await asyncio.to_thread(app_tree, pid, start):
                return []
            await asyncio.sleep(0.1)
    return await asyncio.to_thread(app_tree, pid, start)


async def stop_pid(
    pid: int, still_same: Callable[[int], bool], grace_s: float = TERM_GRACE_S
) -> bool:
    """SIGTERM one process, SIGKILL it after `grace_s`; True once it is gone. `still_same`
    re-checks its identity before each signal (a pid can be reused)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not still_same(pid):
            return True
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline:
            if not still_same(pid):
                return True
            await asyncio.sleep(0.1)
    return not still_same(pid)


def read_port(profile: Path) -> int | None:
    """The debug port the app wrote into its profile, if it did."""
    try:
        first = (profile / PORT_FILE).read_text(encoding="utf-8").splitlines()[0]
        port = int(first.strip())
    except (OSError, IndexError, ValueError):
        return None
    return port if 0 < port < 65536 else None


async def port_open(port: int, timeout_s: float = CDP_PROBE_S) -> bool:
    """Something accepts TCP connections on 127.0.0.1:`port`."""
    try:
        _reader, writer = await asyncio.wait_for(
            asyncio.open_connection("127.0.0.1", port), timeout_s
        )
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


async def cdp_targets(port: int, timeout_s: float = CDP_PROBE_S) -> list[dict[str, str]] | None:
    """`GET /json/list` on the app's debug port: its targets (type, title, url, id), or None
    when the endpoint does not answer within `timeout_s`."""
    try:
        return await asyncio.wait_for(_read_targets(port), timeout_s)
    except (OSError, TimeoutError, ValueError, EOFError, asyncio.LimitOverrunError):
        return None


async def _read_targets(port: int) -> list[dict[str, str]]:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        # Chromium's DevTools HTTP server answers HTTP/1.1 only (1.0 gets an empty reply).
        request = f"GET /json/list HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        writer.write(request.encode("ascii"))
        await writer.drain()
        head = await reader.readuntil(b"\r\n\r\n")
        length = _content_length(head)
        body = (
            await reader.readexactly(length)
            if length is not None
            else await reader.read(TARGETS_LIMIT_BYTES)
        )
    finally:
        writer.close()
    data = json.loads(body.decode("utf-8", errors="replace"))
    if not isinstance(data, list):
        raise ValueError("not a target list")
    keys = ("id", "type", "title", "url")
    return [{k: str(item.get(k, "")) for k in keys} for item in data if isinstance(item, dict)]


def _content_length(head: bytes) -> int | None:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            with contextlib.suppress(ValueError):
                length = int(value.strip())
                if 0 <= length <= TARGETS_LIMIT_BYTES:
                    return length
            raise ValueError("bad Content-Length")
    return None
