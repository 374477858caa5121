"""Counting the engine daemons and browsers a piece of code started, and which outlive it.

Fault tests end with "how many processes that this conversation (or server) started are
still alive": that must be 0. A process counts when it is new since a `baseline` and its
engine socket dir is under the dir the test gave that code. Chromium's zygote-forked children
overwrite their environment with the process title, so they count when their parent does.
Crashpad handlers end on their own once their browser is gone, so only daemons and browsers
count as left over.
"""

from __future__ import annotations

import time
from pathlib import Path

from tests.support.real_engine import ProcInfo, scan_browser_processes

EXIT_WAIT_S = 15.0
"""How long daemons and browsers may take to exit after their owner closed them."""

Baseline = set[tuple[int, int]]


def baseline() -> Baseline:
    """The engine/browser processes alive now (pid and start time), to tell new ones apart."""
    return {p.key for p in scan_browser_processes()}


def started_here(before: Baseline, socket_dir: Path) -> list[ProcInfo]:
    """Live engine/browser processes started since `before` whose socket dir is under
    `socket_dir`, with their descendants."""
    root = socket_dir.resolve()
    new = {p.pid: p for p in scan_browser_processes() if p.key not in before and p.state != "Z"}
    ours = {pid for pid in new if _socket_dir_of(pid).is_relative_to(root)}
    while heirs := {pid for pid, p in new.items() if pid not in ours and p.ppid in ours}:
        ours |= heirs
    return [new[pid] for pid in sorted(ours)]


def _socket_dir_of(pid: int) -> Path:
    try:
        raw = (Path("/proc") / str(pid) / "environ").read_bytes()
    except OSError:
        return Path("/nonexistent")
    for item in raw.split(b"\0"):
        key, _, value = item.decode(errors="replace").partition("=")
        if key == "AGENT_BROWSER_SOCKET_DIR" and value:
            return Path(value).resolve()
    return Path("/nonexistent")


def left_after_exit(
    before: Baseline, socket_dir: Path, timeout: float = EXIT_WAIT_S
) -> list[ProcInfo]:
    """Daemons and browsers started since `before` under `socket_dir` that are still alive
    once they had `timeout` seconds to exit (blocking: run it in a thread from async code)."""
    deadline = time.monotonic() + timeout
    while True:
        left = [p for p in started_here(before, socket_dir) if p.kind != "crashpad"]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.25)


def gone(pid: int) -> bool:
    """The process has exited (or is a zombie nobody reaped yet)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return True
    return state in ("Z", "X")


def new_processes_left(before: Baseline, timeout: float = EXIT_WAIT_S) -> list[ProcInfo]:
    """Daemons and browsers started since `before` anywhere on the machine that are still
    alive after `timeout` seconds: for processes the wrapper starts without a socket dir (a
    launched desktop app). Meaningful only under the real-browser lock, where nothing else
    starts browsers."""
    deadline = time.monotonic() + timeout
    while True:
        left = [
            p
            for p in scan_browser_processes()
            if p.key not in before and p.state != "Z" and p.kind != "crashpad"
        ]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.25)
