"""The machine's listening TCP sockets, asked of the kernel over netlink (Linux `sock_diag`).

`/proc/net/tcp` gives the same table as text, but the kernel builds it by walking every
socket of the namespace, and here a read costs about 8 ms even when the table holds ten
lines. The endpoint guard asks on every call that read a loopback page, so that read was a
fifth of a ref click's overhead. A `SOCK_DIAG_BY_FAMILY` dump filtered to the LISTEN state
answers the same question in well under a millisecond. Where netlink is refused (a sandbox
without it), the caller reads the text tables instead.
"""

from __future__ import annotations

import socket
import struct

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 0x1
NLM_F_DUMP = 0x300
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_DUMP_INTR = 0x10
"""The dump was interrupted by a change to the table: what came is not the whole of it."""
TCP_LISTEN = 10
RECEIVE_BUFFER = 1 << 16

_HEADER = struct.Struct("=IHHII")
"""nlmsghdr: length, type, flags, sequence, port id."""
_REQUEST = struct.Struct("=BBBBI48x")
"""inet_diag_req_v2: family, protocol, extensions, pad, state mask, an empty socket id."""
_PORT_AT = 4
"""Offset of the local port (big-endian) in inet_diag_msg: after family, state, timer,
retransmits."""
_INODE_AT = 4 + 48 + 16
"""Offset of the inode in inet_diag_msg: after those four bytes, the 48-byte socket id and
expires, rqueue, wqueue and uid."""
_MESSAGE_SIZE = _INODE_AT + 4


def listening_inodes() -> dict[str, int]:
    """Socket inode -> local port for every listening TCP socket (IPv4 and IPv6).

    Raises OSError when the kernel refuses, cuts short or garbles the dump, and where there
    is no netlink at all (macOS): the caller falls back to `/proc/net/tcp{,6}` or knows
    nothing."""
    family_netlink = getattr(socket, "AF_NETLINK", None)
    if family_netlink is None:
        raise OSError("no netlink on this system")
    found: dict[str, int] = {}
    with socket.socket(family_netlink, socket.SOCK_RAW, NETLINK_SOCK_DIAG) as channel:
        channel.settimeout(2.0)
        for sequence, family in enumerate((socket.AF_INET, socket.AF_INET6), start=1):
            channel.send(dump_request(family, sequence))
            done = False
            while not done:
                data, size = _receive(channel)
                if size > len(data):
                    raise OSError("netlink: a datagram was cut short")
                done = read_messages(data, sequence, found)
    return found


def _receive(channel: socket.socket) -> tuple[bytes, int]:
    """One datagram and its real length (netlink reports it with MSG_TRUNC)."""
    data = bytearray(RECEIVE_BUFFER)
    size = channel.recv_into(data, RECEIVE_BUFFER, socket.MSG_TRUNC)
    return bytes(data[: min(size, RECEIVE_BUFFER)]), size


def dump_request(family: int, sequence: int) -> bytes:
    """One netlink message asking for the LISTEN-state TCP sockets of `family`."""
    body = _REQUEST.pack(family, socket.IPPROTO_TCP, 0, 0, 1 << TCP_LISTEN)
    flags = NLM_F_REQUEST | NLM_F_DUMP
    return _HEADER.pack(_HEADER.size + len(body), SOCK_DIAG_BY_FAMILY, flags, sequence, 0) + body


def read_messages(data: bytes, sequence: int, found: dict[str, int]) -> bool:
    """Add the sockets of one received datagram to `found`; True once the dump is done.

    Raises OSError on a kernel error message, a message of another request, or a message
    that does not fit its datagram (never a partial table taken for a whole one)."""
    offset = 0
    while offset < len(data):
        if len(data) - offset < _HEADER.size:
            raise OSError("netlink: truncated message header")
        length, kind, flags, seq, _port = _HEADER.unpack_from(data, offset)
        if length < _HEADER.size or offset + length > len(data):
            raise OSError("netlink: message length out of bounds")
        if seq != sequence:
            raise OSError(f"netlink: answer to request {seq}, not {sequence}")
        if flags & NLM_F_DUMP_INTR:
            raise OSError("netlink: the dump was interrupted")
        body = offset + _HEADER.size
        if kind == NLMSG_DONE:
            _check_done(data, body, length)
            return True
        if kind != SOCK_DIAG_BY_FAMILY:  # an error, an overrun, anything unexpected
            raise OSError(f"netlink: message type {kind} in a sock_diag dump")
        if length - _HEADER.size < _MESSAGE_SIZE:
            raise OSError("netlink: short inet_diag message")
        (port,) = struct.unpack_from(">H", data, body + _PORT_AT)
        (inode,) = struct.unpack_from("=I", data, body + _INODE_AT)
        found[str(inode)] = port
        offset += (length + 3) & ~3
    return False


def _check_done(data: bytes, body: int, length: int) -> None:
    """The end of a dump carries the dump's own return code: below zero, it stopped early."""
    if length - _HEADER.size >= 4:
        (code,) = struct.unpack_from("=i", data, body)
        if code < 0:
            raise OSError(-code, "netlink: the dump ended with an error")
