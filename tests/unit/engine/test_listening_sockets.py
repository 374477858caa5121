"""The listening-socket table over netlink: the same answer as `/proc/net/tcp{,6}`, and no
partial table taken for a whole one."""

from __future__ import annotations

import contextlib
import socket
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_browser_tools.engine import browser_ports
from agent_browser_tools.engine.listening_sockets import (
    NLMSG_DONE,
    NLMSG_ERROR,
    SOCK_DIAG_BY_FAMILY,
    dump_request,
    listening_inodes,
    read_messages,
)

PROC = Path("/proc")


def _text_tables() -> dict[str, int]:
    found: dict[str, int] = {}
    for table in ("tcp", "tcp6"):
        for line in (PROC / "net" / table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":
                found[fields[9]] = int(fields[1].rsplit(":", 1)[1], 16)
    return found


@contextlib.contextmanager
def _servers() -> Iterator[tuple[list[int], int]]:
    """An IPv4 and an IPv6 listener, and a connected (not listening) socket pair."""
    opened: list[socket.socket] = []
    try:
        v4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        opened.append(v4)
        v4.bind(("127.0.0.1", 0))
        v4.listen()
        ports = [v4.getsockname()[1]]
        if socket.has_ipv6:
            with contextlib.suppress(OSError):
                v6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
                opened.append(v6)
                v6.bind(("::1", 0))
                v6.listen()
                ports.append(v6.getsockname()[1])
        client = socket.create_connection(("127.0.0.1", ports[0]))
        opened.append(client)
        accepted, _ = v4.accept()
        opened.append(accepted)
        yield ports, client.getsockname()[1]
    finally:
        for sock in opened:
            sock.close()


def _netlink_or_skip() -> dict[str, int]:
    try:
        return listening_inodes()
    except OSError as error:  # pragma: no cover - a sandbox without sock_diag
        pytest.skip(f"netlink sock_diag refused here: {error}")


def test_netlink_names_the_same_listeners_as_the_text_tables() -> None:
    """Every listener the text tables show before and after the dump is in it, under the same
    inode and port (others on this shared machine may come and go in between)."""
    with _servers() as (ports, _client):
        before = _text_tables()
        asked = _netlink_or_skip()
        after = _text_tables()
    steady = {inode: port for inode, port in before.items() if after.get(inode) == port}
    assert set(ports) <= set(steady.values())
    assert {inode: asked.get(inode) for inode in steady} == steady
    assert set(asked) <= set(before) | set(after)


def test_a_connected_socket_is_not_a_listener() -> None:
    with _servers() as (ports, client):
        asked = _netlink_or_skip()
    assert ports[0] in asked.values()
    assert client not in asked.values()


def _socket_message(port: int, inode: int, sequence: int = 1) -> bytes:
    body = struct.pack("=BBBB", 2, 10, 0, 0) + struct.pack(">H", port) + b"\0" * 62
    body += struct.pack("=I", inode)
    header = struct.pack("=IHHII", 16 + len(body), SOCK_DIAG_BY_FAMILY, 2, sequence, 0)
    return header + body


def _control(kind: int, sequence: int = 1, code: int = 0, flags: int = 0) -> bytes:
    return struct.pack("=IHHIIi", 20, kind, flags, sequence, 0, code)


def test_one_datagram_with_several_sockets_then_done() -> None:
    found: dict[str, int] = {}
    data = _socket_message(8080, 11) + _socket_message(41683, 12)
    assert read_messages(data, 1, found) is False
    assert read_messages(_control(NLMSG_DONE), 1, found) is True
    assert found == {"11": 8080, "12": 41683}


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_control(NLMSG_ERROR), id="kernel error"),
        pytest.param(_control(NLMSG_DONE, code=-16), id="a dump that ended with an error"),
        pytest.param(_control(NLMSG_DONE, flags=0x10), id="an interrupted dump"),
        pytest.param(_control(4), id="an overrun"),
        pytest.param(_socket_message(80, 1, sequence=7), id="another request's answer"),
        pytest.param(_socket_message(80, 1)[:-10], id="message longer than its datagram"),
        pytest.param(b"\x10\0\0", id="truncated header"),
        pytest.param(
            struct.pack("=IHHII", 20, SOCK_DIAG_BY_FAMILY, 0, 1, 0) + b"\0" * 4,
            id="short socket record",
        ),
    ],
)
def test_a_garbled_answer_is_an_error_not_a_smaller_table(data: bytes) -> None:
    with pytest.raises(OSError):
        read_messages(data, 1, {})


def test_the_request_asks_for_listening_tcp_sockets_only() -> None:
    request = dump_request(socket.AF_INET6, 3)
    length, kind, flags, sequence, _ = struct.unpack_from("=IHHII", request)
    family, protocol, _ext, _pad, states = struct.unpack_from("=BBBBI", request, 16)
    assert (length, kind, sequence) == (len(request), SOCK_DIAG_BY_FAMILY, 3)
    assert flags & 0x300 == 0x300
    assert (family, protocol, states) == (socket.AF_INET6, socket.IPPROTO_TCP, 1 << 10)


def test_without_netlink_at_all_the_guard_still_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS and Windows have no `AF_NETLINK`: no crash, the text tables (or nothing)."""
    monkeypatch.delattr(socket, "AF_NETLINK")
    with pytest.raises(OSError):
        listening_inodes()
    with _servers() as (ports, _client):
        now = browser_ports.listeners()
        held = browser_ports.browser_held(ports)
    assert now is not None and set(ports) <= now.ports
    assert held == frozenset()


def test_where_netlink_is_refused_the_text_tables_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refused() -> dict[str, int]:
        raise PermissionError("sock_diag not allowed")

    monkeypatch.setattr(browser_ports, "listening_inodes", refused)
    with _servers() as (ports, _client):
        now = browser_ports.listeners()
    assert now is not None
    assert set(ports) <= now.ports
