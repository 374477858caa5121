"""The Selenium Grid harness itself (tests/support/selenium_grid.py), on a real grid (real).

Why: the grid-mode tests and benchmark trust it to give a grid that only 127.0.0.1 can reach,
sessions whose CDP URL stays on 127.0.0.1, a slot count that /status tells truly, and a
`stop()` after which nothing it started is alive; and the suite's leak guard must still see
a grid's Chromium that outlives it (a crashed server leaves chromedriver and Chromium behind).
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import struct
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.support import selenium_grid
from tests.support.leftovers import gone
from tests.support.real_engine import RUN_MARKER_ENV, _run_processes, scan_browser_processes
from tests.support.selenium_grid import Grid, GridError, GridSession, module_grid, start_grid

pytestmark = pytest.mark.real_engine

grid = module_grid(max_sessions=2)

_LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp*


def _address(hex_addr: str) -> str:
    """An address from /proc/net/tcp or tcp6 (v4-mapped v6 addresses as plain IPv4)."""
    raw = bytes.fromhex(hex_addr)
    # The kernel prints each 32-bit word in host byte order.
    host = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    if len(host) == 16 and host[:12] == b"\0" * 10 + b"\xff\xff":
        host = host[12:]
    family = socket.AF_INET if len(host) == 4 else socket.AF_INET6
    return socket.inet_ntop(family, host)


def _listening() -> Iterator[tuple[str, int, str]]:
    """(address, port, socket inode) of every listening TCP socket on the machine."""
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == _LISTEN:
                addr, port = fields[1].split(":")
                yield _address(addr), int(port, 16), fields[9]


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        links = [os.readlink(fd_dir / fd) for fd in os.listdir(fd_dir)]
    except OSError:
        return set()  # exited meanwhile
    for link in links:
        if link.startswith("socket:["):
            inodes.add(link[len("socket:[") : -1])
    return inodes


def _cdp_call(cdp_url: str, method: str) -> dict[str, object]:
    """One CDP command over the session's WebSocket (a bare RFC 6455 client: no dependency)."""
    url = urlsplit(cdp_url)
    assert url.hostname and url.port
    with socket.create_connection((url.hostname, url.port), timeout=30) as conn:
        key = base64.b64encode(os.urandom(16)).decode()
        conn.sendall(
            f"GET {url.path} HTTP/1.1\r\nHost: {url.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        reader = conn.makefile("rb")
        status = reader.readline()
        assert b" 101 " in status, status
        while reader.readline() not in (b"\r\n", b""):
            pass
        payload = json.dumps({"id": 1, "method": method}).encode()
        mask = os.urandom(4)
        assert len(payload) < 126
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        conn.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)
        first, size = reader.read(2)
        size &= 0x7F
        if size == 126:
            (size,) = struct.unpack(">H", reader.read(2))
        elif size == 127:
            (size,) = struct.unpack(">Q", reader.read(8))
        assert first & 0x0F == 0x1, first  # one text frame
        reply: dict[str, object] = json.loads(reader.read(size))
        return reply


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return "gone"


def test_the_grid_listens_on_127_0_0_1_only(grid: Grid) -> None:
    port = urlsplit(grid.url).port
    assert urlsplit(grid.url).hostname == "127.0.0.1"
    assert {addr for addr, p, _ in _listening() if p == port} == {"127.0.0.1"}
    assert all(node["uri"] == grid.url for node in grid.status()["nodes"])


def test_nothing_the_grid_started_listens_beyond_loopback(grid: Grid) -> None:
    session = grid.new_session()
    try:
        inodes = set().union(*map(_socket_inodes, grid.processes()))
        theirs = {(addr, port) for addr, port, inode in _listening() if inode in inodes}
        # The server, chromedriver (v4 and v6) and Chromium's DevTools port at least.
        assert len(theirs) >= 3, theirs
        assert {addr for addr, _ in theirs} <= {"127.0.0.1", "::1"}, theirs
    finally:
        grid.delete_session(session.id)


def test_a_session_is_reached_over_cdp_on_127_0_0_1(grid: Grid) -> None:
    session = grid.new_session()
    try:
        cdp = urlsplit(session.cdp_url)
        assert (cdp.scheme, cdp.hostname, cdp.port) == ("ws", "127.0.0.1", urlsplit(grid.url).port)
        assert cdp.path == f"/session/{session.id}/se/cdp"
        reply = _cdp_call(session.cdp_url, "Browser.getVersion")
        assert "Chrome" in str(reply["result"]), reply
    finally:
        grid.delete_session(session.id)


def test_status_tells_who_holds_a_slot_and_a_deleted_session_frees_it(grid: Grid) -> None:
    assert (grid.free_slots(), grid.sessions()) == (2, [])
    session = grid.new_session({"abt:owner": "conversation-1"})
    try:
        held = grid.sessions()
        assert [s["id"] for s in held] == [session.id]
        assert held[0]["capabilities"]["abt:owner"] == "conversation-1"
        assert grid.free_slots() == 1
    finally:
        grid.delete_session(session.id)
    assert (grid.free_slots(), grid.sessions()) == (2, [])


def test_a_full_grid_refuses_a_session_once_the_request_timeout_passed() -> None:
    with start_grid(1, session_request_timeout_s=1) as own:
        held = own.new_session({"abt:owner": "first"})
        with pytest.raises(GridError) as refused:
            own.new_session({"abt:owner": "second"})
        assert (refused.value.status, refused.value.error) == (500, "session not created")
        assert "timed out" in str(refused.value)
        assert [s["id"] for s in own.sessions()] == [held.id]
        assert own.free_slots() == 0


def _alive_pids(session: GridSession, own: Grid) -> dict[str, int]:
    driver = next(p.ppid for p in scan_browser_processes() if p.pid == session.browser_pid)
    return {"server": own.pid, "chromedriver": driver, "chromium": session.browser_pid}


def test_stop_leaves_no_process_behind_and_the_leak_guard_sees_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The guard's run marker alone, not CI's "every new browser is ours", must find them.
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("ABT_LEAK_GUARD", raising=False)
    run_id = os.environ[RUN_MARKER_ENV]
    before = {p.key for p in scan_browser_processes()}
    own = start_grid(1)
    try:
        session = own.new_session()
        pids = _alive_pids(session, own)
        assert session.browser_pid in {p.pid for p in _run_processes(run_id, before)}
    finally:
        own.stop()
    assert {name: _state(pid) for name, pid in pids.items() if not gone(pid)} == {}
    assert own.processes() == []
    assert _run_processes(run_id, before) == []
    assert not own.home.exists()


def test_the_leak_guard_catches_the_browsers_of_a_crashed_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("ABT_LEAK_GUARD", raising=False)
    run_id = os.environ[RUN_MARKER_ENV]
    before = {p.key for p in scan_browser_processes()}
    own = start_grid(1)
    try:
        session = own.new_session()
        pids = _alive_pids(session, own)
        os.kill(own.pid, signal.SIGKILL)  # the server alone: its children live on
        own.process.wait(timeout=30)
        assert not gone(pids["chromedriver"])
        leaked = {p.pid for p in _run_processes(run_id, before)}
        assert session.browser_pid in leaked
    finally:
        own.stop()  # and stop() still ends what the dead server started
    assert [pid for pid in pids.values() if not gone(pid)] == []
    assert _run_processes(run_id, before) == []


def test_a_port_taken_after_it_was_picked_is_traded_for_another(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The server does not exit when it cannot bind (it logs and lives on), and a listener
    # that never answers holds the port: the harness must notice both and pick again.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        picks = iter([taken.getsockname()[1]])
        pick_free = selenium_grid._free_port
        monkeypatch.setattr(selenium_grid, "_free_port", lambda: next(picks, None) or pick_free())
        with start_grid(1) as own:
            assert urlsplit(own.url).port != taken.getsockname()[1]
            assert own.free_slots() == 1


@pytest.mark.parametrize("ci", ["", "true"])
def test_a_missing_install_skips_locally_and_fails_in_ci(
    monkeypatch: pytest.MonkeyPatch, ci: str
) -> None:
    monkeypatch.setattr(selenium_grid, "JAR", selenium_grid.REPO / "no" / "such.jar")
    monkeypatch.setenv("CI", ci)
    outcome = pytest.fail.Exception if ci else pytest.skip.Exception
    with pytest.raises(outcome, match=r"run `bash scripts/selenium_grid\.sh install`"):
        start_grid(1)
