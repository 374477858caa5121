"""Stop doctor's smoke-test engine daemon when `close` could not.

Why: when the browser never launched, the engine's `close` tries to launch it again, fails,
and leaves the session's daemon running until its idle timeout; a failed doctor must leave
nothing running. Only a process that is this engine binary, named in the smoke session's own
pid file, is signalled, and only that session's files are removed, once its daemon is gone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

EXIT_WAIT_S = 2.0


def _engine_pid(pid_file: Path, engine_path: str) -> int | None:
    """The pid in `pid_file` when it is a live process running `engine_path`."""
    try:
        pid = int(pid_file.read_text().strip())
        exe = os.readlink(f"/proc/{pid}/exe")
    except (OSError, ValueError):
        return None
    return pid if os.path.realpath(engine_path) == exe.removesuffix(" (deleted)") else None


def _exited(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except OSError:
            return True
        time.sleep(0.05)
    return False


def stop_session_daemon(directory: Path, session: str, engine_path: str) -> bool:
    """Make sure `session`'s daemon (pid file in socket dir `directory`) is gone; True when
    one had to be signalled."""
    pid = _engine_pid(directory / f"{session}.pid", engine_path)
    signalled = False
    if pid is not None and not _exited(pid, EXIT_WAIT_S):
        signalled = True
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
            if _exited(pid, EXIT_WAIT_S):
                break
    if pid is None or _exited(pid, 0.1):
        # The daemon is gone: its socket, pid and config files for this session are litter.
        for leftover in directory.glob(f"{session}.*"):
            with contextlib.suppress(OSError):
                leftover.unlink()
    return signalled
