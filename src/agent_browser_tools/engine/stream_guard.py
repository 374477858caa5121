"""Keep the engine's stream server off: no listening port of ours that a page can use.

Why: every engine 0.39 daemon starts a WebSocket server on an OS-chosen loopback port (for
live preview and remote input) before anyone asks for it, and it accepts any client whose
`Origin` is a loopback host or `file://`. A page served on `http://127.0.0.1:<any port>/` in
one conversation's browser could scan the loopback ports, find another daemon's stream, read
that browser's tab URLs, titles and screen frames and type into its focused field. No
environment variable turns the server off at start (`AGENT_BROWSER_STREAM_PORT` only picks
the port and falls back to an OS-chosen one), but `stream disable` closes the listener and
every client connected to it.

The rule, applied by `Runtime.spawn` around every engine call on a session:

- before the call, when no daemon runs for the session yet (the call would start one and may
  launch its browser) or the daemon says it streams: `stream disable` first. That command
  starts the daemon without a browser, so the stream is closed before any page exists;
- after the call, when the daemon says it streams (it was replaced during the call, or
  something outside the tools enabled it): `stream disable` at once.

The daemon's `NAME.stream` file (it holds the port) exists exactly while it streams, and its
`NAME.pid` file while it runs: both are read here, nothing is spawned. The model cannot turn
streaming back on (`stream enable` is an operator-only command in the taxonomy).
"""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.engine.daemons import PROC, is_live_daemon, read_daemon_pid, run_dir

STREAM_OFF: tuple[str, ...] = ("stream", "disable")
"""The engine command that closes a daemon's stream server and its clients."""


def stream_file(directory: Path, session: str, namespace: str | None) -> Path:
    """Where a streaming daemon keeps its port (engine 0.39 layout, beside its pid file)."""
    return run_dir(directory, namespace) / f"{session}.stream"


def streaming(directory: Path, session: str, namespace: str | None) -> bool:
    """The session's daemon serves its stream now (its port file exists)."""
    return stream_file(directory, session, namespace).exists()


def off_before_call(
    directory: Path, session: str, namespace: str | None, *, proc: Path = PROC
) -> bool:
    """Run `stream disable` before a call: no live daemon yet (this call starts one), or the
    running one streams."""
    pid = read_daemon_pid(directory, session, namespace)
    if pid is None or not is_live_daemon(pid, proc):
        return True
    return streaming(directory, session, namespace)


def stream_argv(session: str, namespace: str | None) -> list[str]:
    """The `stream disable` argv (after the binary) for one session."""
    scope = ["--namespace", namespace] if namespace is not None else []
    return [*scope, "--session", session, *STREAM_OFF]
