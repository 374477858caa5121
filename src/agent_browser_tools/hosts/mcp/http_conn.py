"""Connection-level limits of the HTTP transport: read deadlines and a connection cap.

Why: uvicorn's h11 protocol waits forever for request headers and for a request body, and
accepts every connection, while the bearer token can only be checked once the headers are in.
A client without the token could so hold any number of sockets open by sending its headers a
byte at a time, until the server runs out of file descriptors.

Design (the smallest that closes this, inside uvicorn's own protocol class):

- `GuardedH11Protocol` is uvicorn's `H11Protocol` with one deadline per connection phase.
  *Waiting*: from connect, or from the end of the previous response, until the next request's
  headers are complete: `header_timeout_s`, a total, so trickling bytes do not extend it.
  *Body*: from the headers until the body is complete: `body_timeout_s`. *Serving*: none (a
  tool call or an SSE stream may take long; the client is authorized by then). A missed
  deadline answers 408 when the client had started a request, and closes the connection.
- Closing while the client may still be sending (a refusal answered before the body was
  read, a 408) is soft: our side is shut at once and its bytes are discarded for up to
  `LINGER_S`, because closing a socket with unread bytes sends a reset that can destroy the
  answer in flight. A lingering connection counts as idle, so it can always be evicted.
- `ConnectionGate` caps the open sockets at `max_connections`. A new connection beyond the
  cap takes the slot of an idle one (no request in progress): first one that never completed
  a request, from the peer address holding the most of those, oldest first; only then an idle
  keep-alive connection of a client that did complete one. With no idle slot left it is
  answered 503 and closed. Evicting rather than refusing is what keeps the server usable under
  attack: sockets that never send a request cannot keep a new client out, and an attacker
  crowding the cap from one address loses its own sockets first, while a client that has sent
  its request is busy and is never evicted.
- Descriptors exceed the cap only by the connections accepted in one event-loop turn, which
  `http.ACCEPT_BATCH` keeps small (16); that also lets a newcomer's request be read before a
  flood accepted right after it could push it out.
- Unauthenticated requests never reach the serving phase: `http_guard.RequestGuard` answers
  them 401 with `Connection: close` without reading the body.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any, ClassVar, Protocol

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle

from agent_browser_tools.hosts.mcp.http_limits import HttpLimits

WAITING, BODY, SERVING = "waiting", "body", "serving"
LINGER_S = 2.0
"""How long a soft close drains the client's bytes before the socket is closed."""


def _plain(status: str, text: str) -> bytes:
    body = text.encode()
    head = (
        f"HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


TIMEOUT_408 = _plain("408 Request Timeout", "Request not received in time")
BUSY_503 = _plain("503 Service Unavailable", "Too many connections")


class GatedConnection(Protocol):
    """What the gate needs to know about a connection."""

    peer: str
    trusted: bool
    """It completed a request and is still open: it passed the guard."""
    idle_since: float
    """When it last started waiting for a request; ordering for eviction."""

    @property
    def idle(self) -> bool: ...

    def evict(self) -> None: ...


class ConnectionGate:
    """The open connections of one server, and who makes room for a new one."""

    def __init__(self, limits: HttpLimits) -> None:
        self.limits = limits
        self._open: dict[GatedConnection, None] = {}  # insertion-ordered set
        self.evicted = 0
        self.refused = 0

    def __len__(self) -> int:
        return len(self._open)

    def admit(self, conn: GatedConnection) -> bool:
        """Register `conn`, evicting one idle connection if the cap is reached.

        False: every slot is busy and `conn` must be closed."""
        if len(self._open) >= self.limits.max_connections:
            victim = self.victim()
            if victim is None:
                self.refused += 1
                return False
            self.release(victim)
            self.evicted += 1
            victim.evict()
        self._open[conn] = None
        return True

    def release(self, conn: GatedConnection) -> None:
        self._open.pop(conn, None)

    def victim(self) -> GatedConnection | None:
        """The idle connection to close for a newcomer; see the module docstring."""
        idle = [conn for conn in self._open if conn.idle]
        if not idle:
            return None
        crowd = Counter(conn.peer for conn in idle if not conn.trusted)
        return min(idle, key=lambda conn: (conn.trusted, -crowd[conn.peer], conn.idle_since))


class _SoftClosing(asyncio.Transport):
    """The transport as a request cycle sees it: `close` is the protocol's soft close."""

    def __init__(self, protocol: GuardedH11Protocol) -> None:
        super().__init__()
        self._protocol = protocol

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._protocol.transport.write(data)

    def is_closing(self) -> bool:
        return self._protocol.transport.is_closing()

    def close(self) -> None:
        self._protocol.close_softly()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with phase deadlines and the gate; bind a gate with `bound`."""

    gate: ClassVar[ConnectionGate]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.peer = ""
        self.trusted = False
        self.idle_since = self.loop.time()
        self._phase: tuple[str, RequestResponseCycle | None] | None = None
        self._deadline: asyncio.TimerHandle | None = None
        self._lingering = False
        self._soft = _SoftClosing(self)

    @classmethod
    def bound(cls, gate: ConnectionGate) -> type[GuardedH11Protocol]:
        """A subclass whose connections share `gate` (uvicorn takes a class, not a factory)."""
        shared = gate

        class Bound(cls):  # type: ignore[valid-type,misc]
            gate = shared

        return Bound

    @property
    def idle(self) -> bool:
        return self._lingering or self._phase is None or self._phase[0] == WAITING

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.peer = self.client[0] if self.client else ""
        if not self.gate.admit(self):
            transport.write(BUSY_503)
            transport.close()
            return
        self._track()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.gate.release(self)
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if not self._lingering:  # a refused request's remaining bytes are dropped
            super().data_received(data)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        if self.cycle is not before and self.cycle is not None:
            self.cycle.transport = self._soft  # its task has not started yet
        self._track()

    def on_response_complete(self) -> None:
        if self._lingering or self.transport.is_closing():
            self.server_state.total_requests += 1
            return
        self.trusted = True  # it passed the guard and keeps its connection
        super().on_response_complete()
        self._track()

    def close_softly(self, answer: bytes = b"") -> None:
        """Close now if the client has sent everything, else shut our side and linger."""
        if self._lingering or self.transport.is_closing():
            return
        if answer:
            self.transport.write(answer)
        sending = self.conn.their_state is h11.SEND_BODY or bool(self.conn.trailing_data[0])
        if not sending or not self.transport.can_write_eof():
            self.transport.close()
            return
        self.transport.write_eof()
        self._lingering = True
        self.flow.resume_reading()  # drain what flow control held back, too
        self._disarm()
        self._deadline = self.loop.call_later(LINGER_S, self.transport.close)

    def evict(self) -> None:
        self._disarm()
        self.transport.close()

    def _track(self) -> None:
        """Arm the deadline of the phase the connection is in, once per phase."""
        if self.transport.is_closing() or self._lingering:
            return
        cycle = self.cycle
        if cycle is None or cycle.response_complete:
            phase = (WAITING, cycle)
        else:
            phase = (BODY if cycle.more_body else SERVING, cycle)
        if self._phase is not None and phase[0] == self._phase[0] and phase[1] is self._phase[1]:
            return
        self._phase = phase
        self._disarm()
        if phase[0] == WAITING:
            self.idle_since = self.loop.time()
            delay = self.gate.limits.header_timeout_s
            self._deadline = self.loop.call_later(delay, self._late, WAITING)
        elif phase[0] == BODY:
            delay = self.gate.limits.body_timeout_s
            self._deadline = self.loop.call_later(delay, self._late, BODY)

    def _late(self, phase: str) -> None:
        """A deadline passed: answer 408 if a request was started, and close."""
        self._deadline = None
        if self.transport.is_closing():
            return
        cycle = self.cycle
        answer = False
        if phase == BODY and cycle is not None:
            answer = not cycle.response_started
            cycle.disconnected = True  # the app's receive() now answers http.disconnect
            cycle.message_event.set()
        elif phase == WAITING:
            answer = bool(self.conn.trailing_data[0])  # part of a request came: say why
        self.close_softly(TIMEOUT_408 if answer else b"")

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None
