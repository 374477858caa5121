"""The connection cap and read deadlines: who makes room for a newcomer (pure, with stand-in
connections), then the real protocol in an in-process uvicorn on a trivial app, where idle
sockets must lose their slot to a newcomer, busy ones never, and deadlines end slow clients."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import uvicorn

from agent_browser_tools.hosts.mcp.http_conn import ConnectionGate, GuardedH11Protocol
from agent_browser_tools.hosts.mcp.http_limits import HttpLimits

# --- the gate, pure ---------------------------------------------------------------------


@dataclass(eq=False)
class Conn:
    peer: str
    idle_since: float
    trusted: bool = False
    busy: bool = False
    evicted: bool = False

    @property
    def idle(self) -> bool:
        return not self.busy

    def evict(self) -> None:
        self.evicted = True


def _gate(cap: int, *conns: Conn) -> ConnectionGate:
    gate = ConnectionGate(HttpLimits(max_connections=cap))
    for conn in conns:
        assert gate.admit(conn)
    return gate


def test_below_the_cap_nobody_is_evicted() -> None:
    first, second = Conn("a", 1), Conn("a", 2)
    gate = _gate(3, first, second)
    assert gate.admit(Conn("b", 3)) and len(gate) == 3
    assert not first.evicted and not second.evicted


def test_the_crowded_peer_loses_its_oldest_idle_socket_first() -> None:
    lone = Conn("client", 0)  # the oldest of all, but its peer holds one socket
    crowd = [Conn("attacker", t) for t in (1, 2, 3)]
    gate = _gate(4, lone, *crowd)
    assert gate.admit(Conn("attacker", 4))
    assert crowd[0].evicted and not lone.evicted and len(gate) == 4
    assert gate.evicted == 1


def test_trusted_idle_sockets_go_only_after_every_untrusted_one() -> None:
    keep_alive = Conn("client", 0, trusted=True)
    fresh = Conn("client", 5)
    gate = _gate(2, keep_alive, fresh)
    assert gate.admit(Conn("other", 6))
    assert fresh.evicted and not keep_alive.evicted
    gate.release(fresh)  # its connection_lost
    assert gate.admit(Conn("other", 7))  # now only trusted or newer idle ones remain


def test_busy_sockets_are_never_evicted_and_a_full_house_refuses() -> None:
    busy = [Conn("client", t, busy=True) for t in range(3)]
    gate = _gate(3, *busy)
    assert not gate.admit(Conn("attacker", 9))
    assert gate.refused == 1 and not any(conn.evicted for conn in busy) and len(gate) == 3


def test_release_frees_a_slot() -> None:
    conn = Conn("a", 0, busy=True)
    gate = _gate(1, conn)
    gate.release(conn)
    newcomer = Conn("b", 1, busy=True)
    assert gate.admit(newcomer) and len(gate) == 1


# --- the protocol, in-process -----------------------------------------------------------


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


@dataclass
class Running:
    port: int
    gate: ConnectionGate
    release: asyncio.Event


async def _app(scope: Any, receive: Any, send: Any, release: asyncio.Event) -> None:
    if scope["type"] != "http":
        return
    if scope["path"] == "/refuse":  # like the guard: answer and close, body unread
        await asyncio.sleep(0.3)  # meanwhile the body fills every buffer
        headers = [(b"connection", b"close"), (b"content-length", b"2")]
        await send({"type": "http.response.start", "status": 403, "headers": headers})
        await send({"type": "http.response.body", "body": b"no"})
        return
    while (await receive()).get("more_body"):
        pass
    if scope["path"] == "/slow":
        await release.wait()
    headers = [(b"content-length", b"2")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"ok"})


@contextlib.asynccontextmanager
async def running(limits: HttpLimits) -> AsyncIterator[Running]:
    release = asyncio.Event()
    gate = ConnectionGate(limits)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await _app(scope, receive, send, release)

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(
        app, http=GuardedH11Protocol.bound(gate), lifespan="off", log_level="critical"
    )
    server = _Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield Running(sock.getsockname()[1], gate, release)
    finally:
        release.set()
        server.should_exit = True
        await task


async def _connect(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", port)


async def _closed(reader: asyncio.StreamReader, within: float = 10.0) -> bytes | None:
    """Everything the server sent before closing, or None if it kept the socket open."""
    data = b""
    try:
        async with asyncio.timeout(within):
            while chunk := await reader.read(4096):
                data += chunk
    except TimeoutError:
        return None
    except ConnectionError:
        pass
    return data


async def _settle(gate: ConnectionGate, count: int) -> None:
    async with asyncio.timeout(5):
        while len(gate) != count:
            await asyncio.sleep(0.01)


def _get(path: str) -> bytes:
    return f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()


async def test_an_idle_socket_makes_room_and_a_busy_one_does_not() -> None:
    async with running(HttpLimits(header_timeout_s=30, max_connections=4)) as srv:
        busy = [await _connect(srv.port) for _ in range(2)]
        for _, writer in busy:
            writer.write(_get("/slow"))
        idle = [await _connect(srv.port) for _ in range(2)]
        await _settle(srv.gate, 4)
        reader, writer = await _connect(srv.port)  # a fifth: the oldest idle one goes
        assert await _closed(idle[0][0]) == b""
        writer.write(_get("/"))
        assert (await reader.readuntil(b"ok")).startswith(b"HTTP/1.1 200")
        assert await _closed(idle[1][0], within=0.3) is None
        srv.release.set()
        for busy_reader, _ in busy:
            assert (await busy_reader.readuntil(b"ok")).startswith(b"HTTP/1.1 200")


async def test_when_every_slot_is_busy_a_newcomer_gets_503() -> None:
    async with running(HttpLimits(max_connections=4)) as srv:
        busy = [await _connect(srv.port) for _ in range(4)]
        for _, writer in busy:
            writer.write(_get("/slow"))
        await asyncio.sleep(0.2)  # all four are in their request now
        reader, _ = await _connect(srv.port)
        answer = await _closed(reader)
        assert answer is not None and answer.startswith(b"HTTP/1.1 503")


async def test_a_keep_alive_client_outlives_sockets_that_never_sent_a_request() -> None:
    async with running(HttpLimits(header_timeout_s=30, max_connections=4)) as srv:
        client_reader, client = await _connect(srv.port)
        client.write(_get("/"))
        await client_reader.readuntil(b"ok")  # completed a request: trusted, idle
        silent = [await _connect(srv.port) for _ in range(3)]
        await _settle(srv.gate, 4)
        newcomers = [await _connect(srv.port) for _ in range(3)]  # push out the silent ones
        for reader, _ in silent:
            assert await _closed(reader) == b""
        client.write(_get("/"))  # the keep-alive connection still serves
        assert (await client_reader.readuntil(b"ok")).startswith(b"HTTP/1.1 200")
        assert len(newcomers) == len(srv.gate) - 1


@pytest.mark.parametrize(
    ("head", "drip", "answer"),
    [
        (b"", b"", b""),  # never says anything: closed without an answer
        (b"GET / HTTP/1.1\r\nHost: x\r\n", b"X-Slow: " + b"a" * 100, b"HTTP/1.1 408"),
        (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n", b"a" * 100, b"HTTP/1.1 408"),
    ],
    ids=["silent", "trickled-headers", "trickled-body"],
)
async def test_a_slow_client_is_cut_off_however_it_trickles(
    head: bytes, drip: bytes, answer: bytes
) -> None:
    async with running(HttpLimits(header_timeout_s=0.5, body_timeout_s=0.5)) as srv:
        reader, writer = await _connect(srv.port)
        writer.write(head)
        data = b""
        for byte in drip or b"\0" * 100:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.1):
                    chunk = await reader.read(4096)
                    data += chunk
                    if not chunk:
                        break
            if drip:
                writer.write(bytes([byte]))
        else:
            pytest.fail(f"still open after trickling for 10 s: {data!r}")
        assert data.startswith(answer)
        await _settle(srv.gate, 0)


async def test_after_a_response_the_next_request_has_its_own_header_deadline() -> None:
    async with running(HttpLimits(header_timeout_s=0.5)) as srv:
        reader, writer = await _connect(srv.port)
        for _ in range(3):  # each request quick: the connection stays
            writer.write(_get("/"))
            await reader.readuntil(b"ok")
            await asyncio.sleep(0.3)
        assert await _closed(reader) == b""  # then idle past the deadline: closed


async def test_a_refusal_before_the_body_ends_in_a_clean_close_not_a_reset() -> None:
    """Closing on unread bytes resets the socket, which can destroy the answer in flight:
    here a megabyte of body is still unread when the app refuses the request."""
    async with running(HttpLimits()) as srv:
        reader, writer = await _connect(srv.port)
        size = 1 << 20
        head = f"POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: {size}\r\n\r\n"
        writer.write(head.encode() + b"x" * size)
        answer = b""
        async with asyncio.timeout(10):
            while chunk := await reader.read(4096):  # a reset raises ConnectionResetError
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 403") and answer.endswith(b"no")
        writer.close()
        await _settle(srv.gate, 0)  # the linger ends on our close (or after LINGER_S)
