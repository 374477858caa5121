"""Which listening ports belong to browsers: read from a planted `/proc` tree."""

from __future__ import annotations

import os
from pathlib import Path

from agent_browser_tools.engine.browser_ports import browser_held, browser_ports, listeners

HEADER = "sl local_address rem_address st tx_queue tr retrnsmt uid timeout inode\n"


def _row(port: int, state: str, inode: int) -> str:
    """One `/proc/net/tcp` line: the fields the reader uses are 1 (local), 3 (state), 9."""
    fields = ["0:", f"0100007F:{port:04X}", "00000000:0000", state, "0:0", "0:0", "0", "0", "0"]
    return " ".join([*fields, str(inode), "1", "0"]) + "\n"


def _process(proc: Path, pid: int, argv0: str, inodes: list[int], flag: str = "--flag") -> None:
    entry = proc / str(pid)
    (entry / "fd").mkdir(parents=True)
    (entry / "cmdline").write_bytes(argv0.encode() + b"\0" + flag.encode() + b"\0")
    for fd, inode in enumerate(inodes):
        os.symlink(f"socket:[{inode}]", entry / "fd" / str(fd))
    os.symlink("/dev/null", entry / "fd" / "99")


def test_ports_of_browsers_and_engine_daemons_only(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    (proc / "net").mkdir(parents=True)
    rows = [
        _row(41683, "0A", 11),
        _row(33261, "0A", 12),
        _row(8000, "0A", 13),
        _row(5000, "01", 14),
        _row(40555, "0A", 15),
    ]
    (proc / "net" / "tcp").write_text(HEADER + "".join(rows))
    (proc / "net" / "tcp6").write_text(HEADER)
    _process(proc, 10, "/usr/lib/chromium/chromium", [11])
    _process(proc, 11, "/venv/bin/agent-browser-linux-x64", [12, 14])
    _process(proc, 12, "/usr/bin/python3", [13])
    # An Electron app under its own name, launched with a debug port (agent_browser_electron).
    _process(proc, 13, "/usr/share/code/code", [15], flag="--remote-debugging-port=0")
    assert browser_ports(proc) == {41683, 33261, 40555}


def test_no_proc_means_no_ports(tmp_path: Path) -> None:
    assert browser_ports(tmp_path / "missing") == frozenset()


def test_this_machine_answers_without_error() -> None:
    assert isinstance(browser_ports(), frozenset)


def test_listeners_mark_browsers_and_leave_other_servers_ordinary(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    (proc / "net").mkdir(parents=True)
    rows = [_row(41683, "0A", 11), _row(3000, "0A", 13), _row(5000, "01", 14)]
    (proc / "net" / "tcp").write_text(HEADER + "".join(rows))
    (proc / "net" / "tcp6").write_text(HEADER + _row(8080, "0A", 16))
    _process(proc, 10, "/usr/lib/chromium/chromium", [11])
    _process(proc, 12, "/usr/bin/python3", [13, 16])
    # A Chromium child rewrites its command line into one string; it is never a holder.
    _process(proc, 14, "/usr/lib/chromium/chromium --type=renderer --lang=en-US", [14])
    now = listeners(proc)
    assert now is not None
    assert now.ports == {41683, 3000, 8080} and now.browsers == {41683}
    assert now.others == {3000, 8080}


def test_without_proc_net_listeners_are_unknown(tmp_path: Path) -> None:
    assert listeners(tmp_path / "missing") is None


def test_asked_ports_are_judged_per_socket_and_a_new_socket_is_looked_at_again(
    tmp_path: Path,
) -> None:
    """`browser_held` remembers each listening socket's holder: once known, the processes
    are not walked again (their planted files are gone here, and the answer stands); a
    browser that later listens on a port an ordinary server held is a new socket, seen."""
    proc = tmp_path / "proc"
    (proc / "net").mkdir(parents=True)
    tcp = proc / "net" / "tcp"
    tcp.write_text(HEADER + _row(41777, "0A", 9_900_011) + _row(3001, "0A", 9_900_013))
    (proc / "net" / "tcp6").write_text(HEADER)
    _process(proc, 10, "/usr/lib/chromium/chromium", [9_900_011])
    _process(proc, 12, "/usr/bin/python3", [9_900_013])
    assert browser_held({41777, 3001, 9999}, proc) == {41777}

    (proc / "10" / "cmdline").unlink()
    (proc / "12" / "cmdline").unlink()
    assert browser_held({41777, 3001}, proc) == {41777}  # from memory: no process was read

    # The dev server on 3001 stopped; a browser now listens there (a new socket).
    tcp.write_text(HEADER + _row(41777, "0A", 9_900_011) + _row(3001, "0A", 9_900_017))
    _process(proc, 20, "/usr/lib/chromium/chromium", [9_900_017])
    assert browser_held({3001}, proc) == {3001}
    assert browser_held(set(), proc) == frozenset()
