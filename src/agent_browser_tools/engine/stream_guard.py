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

from collections.abc import Sequence
from pathlib import Path

from agent_browser_tools.engine.daemons import PROC, is_live_daemon, read_daemon_pid, run_dir
from agent_browser_tools.taxonomy import FlagValue, global_flag, split_global_flags

STREAM_OFF: tuple[str, ...] = ("stream", "disable")
"""The engine command that closes a daemon's stream server and its clients."""


def stream_file(directory: Path, session: str, namespace: str | None) -> Path:
    """Where a streaming daemon keeps its port (engine 0.39 layout, beside its pid file)."""
    return run_dir(directory, namespace) / f"{session}.stream"


def streaming(directory: Path, session: str, namespace: str | None) -> bool:
    """The session's daemon serves its stream now (its port file exists; a path the system
    cannot even look up, such as an over-long name, counts as streaming: turn it off)."""
    try:
        return stream_file(directory, session, namespace).exists()
    except OSError:
        return True


def off_before_call(
    directory: Path, session: str, namespace: str | None, *, proc: Path = PROC
) -> bool:
    """Run `stream disable` before a call: no live daemon yet (this call starts one), or the
    running one streams."""
    pid = read_daemon_pid(directory, session, namespace)
    if pid is None or not is_live_daemon(pid, proc):
        return True
    return streaming(directory, session, namespace)


def stream_argv(call_args: Sequence[str], session: str, namespace: str | None) -> list[str]:
    """The `stream disable` argv (after the binary) guarding a call with `call_args`.

    It carries every global flag of that call: the engine treats launch and daemon settings
    (`--confirm-actions`, and `--user-agent` and friends when the environment also sets launch
    options) as part of a daemon's identity, so a guard call without them would start a daemon
    the call then replaces, with its stream on and a pending confirmation lost."""
    found, _rest = split_global_flags(call_args)
    tokens: list[str] = []
    for name, value in found:
        tokens += _flag_tokens(name, value)
    names = {name for name, _value in found}
    if namespace is not None and "--namespace" not in names:
        tokens += ["--namespace", namespace]
    if "--session" not in names:
        tokens += ["--session", session]
    return [*tokens, *STREAM_OFF]


def _flag_tokens(name: str, value: str | None) -> list[str]:
    if value is None:
        return [name]
    flag = global_flag(name)
    if flag is not None and flag.value is FlagValue.OPTIONAL:
        return [f"{name}={value}"]  # `--restore=KEY`: the one spelling the engine reads so
    return [name, value]
