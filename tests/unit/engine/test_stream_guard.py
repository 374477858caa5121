"""When the tools run `stream disable` around an engine call (`engine.stream_guard`).

The engine's files are laid out as engine 0.39 does (`NAME.pid`, `NAME.stream`, namespaced
under `namespaces/NS/run/`); the daemon's liveness is read from a stand-in `/proc`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.engine.stream_guard import (
    off_before_call,
    stream_argv,
    stream_file,
    streaming,
)

DAEMON_PID = 4242


def _proc(tmp_path: Path, *, state: str = "S", exe: str = "agent-browser-linux-x64") -> Path:
    proc = tmp_path / "proc"
    entry = proc / str(DAEMON_PID)
    entry.mkdir(parents=True)
    (entry / "stat").write_text(f"{DAEMON_PID} (daemon) {state} 1 1 1 0 -1\n")
    (entry / "cmdline").write_bytes(f"/opt/{exe}\0".encode())
    return proc


def _run_files(directory: Path, namespace: str | None, *, pid: bool, stream: bool) -> None:
    where = directory if namespace is None else directory / "namespaces" / namespace / "run"
    where.mkdir(parents=True, exist_ok=True)
    if pid:
        (where / "s1.pid").write_text(f"{DAEMON_PID}\n")
    if stream:
        (where / "s1.stream").write_text("40000\n")


@pytest.mark.parametrize("namespace", [None, "team"])
def test_a_call_that_starts_the_daemon_turns_the_stream_off_first(
    tmp_path: Path, namespace: str | None
) -> None:
    proc = _proc(tmp_path)
    sockets = tmp_path / "sockets"
    assert off_before_call(sockets, "s1", namespace, proc=proc)  # nothing runs yet


@pytest.mark.parametrize("namespace", [None, "team"])
def test_a_live_quiet_daemon_costs_nothing_and_a_streaming_one_is_turned_off(
    tmp_path: Path, namespace: str | None
) -> None:
    proc = _proc(tmp_path)
    sockets = tmp_path / "sockets"
    _run_files(sockets, namespace, pid=True, stream=False)
    assert not off_before_call(sockets, "s1", namespace, proc=proc)
    assert not streaming(sockets, "s1", namespace)
    _run_files(sockets, namespace, pid=True, stream=True)
    assert off_before_call(sockets, "s1", namespace, proc=proc)
    assert streaming(sockets, "s1", namespace)
    assert stream_file(sockets, "s1", namespace).read_text() == "40000\n"


@pytest.mark.parametrize(
    ("state", "exe"), [("Z", "agent-browser-linux-x64"), ("S", "python3")], ids=["zombie", "reused"]
)
def test_a_dead_or_reused_daemon_pid_counts_as_no_daemon(
    tmp_path: Path, state: str, exe: str
) -> None:
    """A pid file left behind by a daemon that died (or whose pid went to another program):
    the next call starts a new daemon, so its stream is turned off first."""
    proc = _proc(tmp_path, state=state, exe=exe)
    sockets = tmp_path / "sockets"
    _run_files(sockets, None, pid=True, stream=False)
    assert off_before_call(sockets, "s1", None, proc=proc)


def test_the_disable_argv_carries_the_global_flags_of_the_call_it_guards() -> None:
    """Launch and daemon settings are part of a daemon's identity: a guard call without them
    would start a daemon the call itself then replaces."""
    assert stream_argv(["open", "x"], "s1", None) == ["--session", "s1", "stream", "disable"]
    assert stream_argv(["get", "url"], "s1", "team") == [
        *("--namespace", "team", "--session", "s1"),
        *("stream", "disable"),
    ]
    call = ["--json", "--confirm-actions", "a11y,navigate", "--session", "s1", "a11y", "u"]
    assert stream_argv(call, "s1", None) == [
        *("--json", "--confirm-actions", "a11y,navigate", "--session", "s1"),
        *("stream", "disable"),
    ]
    batch = ["--headed", "--restore=k", "--namespace", "team", "--session", "s1", "batch"]
    assert stream_argv(batch, "s1", "team") == [
        *("--headed", "--restore=k", "--namespace", "team", "--session", "s1"),
        *("stream", "disable"),
    ]
