"""Attacks on the edges of `serve --http`, against a real server subprocess.

The attempts and what each must get: a short or mangled token refuses to start on a public
bind; `LOCALHOST`/`LocalHost` are accepted as Host and Origin while look-alike hosts are not;
two `Origin` or `Authorization` headers are refused before anything else happens; a request
without the token is answered 401 and its socket closed without its body being read; a client
that never finishes its headers, or trickles its body, is cut off; and 1,100 slow sockets can
neither exhaust the server's file descriptors nor keep an authorized client out.

Timing bounds are generous (the server's deadlines are 1-2 s, the tests allow 15 s or more);
the flood runs against a server with a long header deadline, so only the cap protects it.
No test here starts a browser: listing tools needs none.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import anyio
import pytest

from tests.e2e import scenarios
from tests.support.mcp_server import SERVE_ARGS, HttpServer, http_client, http_server, serve_env
from tests.support.real_engine import EngineEnv, track_socket_dir

pytestmark = pytest.mark.real_engine

TOKEN = "e2e-token-0123456789abcdef"
HEADER_TIMEOUT_S = 1.0
BODY_TIMEOUT_S = 2.0
MAX_CONNECTIONS = 48
CUT_OFF_WITHIN_S = 15.0
INIT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"probe","version":"0"}}}'
)


@pytest.fixture(scope="module")
def env(engine_env: EngineEnv, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    track_socket_dir(engine_env.socket_dir)
    return serve_env(engine_env, tmp_path_factory.mktemp("http-edges") / "state")


@pytest.fixture(scope="module")
def server(env: dict[str, str]) -> Iterator[HttpServer]:
    limits = ["--header-timeout", str(HEADER_TIMEOUT_S), "--body-timeout", str(BODY_TIMEOUT_S)]
    caps = ["--max-connections", str(MAX_CONNECTIONS), "--token", TOKEN]
    with http_server(env, *limits, *caps) as running:
        yield running
    assert running.proc.returncode == 0, running.log


@pytest.fixture(scope="module")
def capped(env: dict[str, str]) -> Iterator[HttpServer]:
    """Long read deadlines, so only the connection cap stands between a flood and the fds."""
    caps = ["--max-connections", str(MAX_CONNECTIONS), "--token", TOKEN]
    with http_server(env, "--header-timeout", "120", *caps) as running:
        yield running
    assert running.proc.returncode == 0, running.log


@pytest.fixture
def port(server: HttpServer) -> int:
    assert server.url is not None
    port = urlsplit(server.url).port
    assert port is not None
    return port


# --- raw HTTP ---------------------------------------------------------------------------


@dataclass
class Reply:
    """What the server sent back on one socket, and whether it then closed it."""

    data: bytes = b""
    closed: bool = False
    elapsed_s: float = 0.0

    @property
    def status(self) -> int:
        return int(self.data.split(b" ", 2)[1]) if self.data.startswith(b"HTTP/1.1 ") else 0


def request(port: int, *headers: str, body: bytes = INIT, host: str = "") -> bytes:
    """A POST to /mcp with exactly these extra header lines (Host first unless given)."""
    lines = ["POST /mcp HTTP/1.1", *(() if host == "-" else [f"Host: {host or '127.0.0.1'}"])]
    lines += [*headers, "Content-Type: application/json"]
    lines += ["Accept: application/json, text/event-stream", f"Content-Length: {len(body)}"]
    return "\r\n".join(lines).encode() + b"\r\n\r\n" + body


async def exchange(port: int, raw: bytes, *, head_only: bool = False) -> Reply:
    """Send `raw`, then read until the server closes the socket (or, with `head_only`, until
    the response head is in), for at most `CUT_OFF_WITHIN_S`."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    reply = Reply()
    start = time.monotonic()
    writer.write(raw)
    with contextlib.suppress(TimeoutError, ConnectionError):
        async with asyncio.timeout(CUT_OFF_WITHIN_S):
            while chunk := await reader.read(65536):
                reply.data += chunk
                if head_only and b"\r\n\r\n" in reply.data:
                    break
            else:
                reply.closed = True
    reply.elapsed_s = time.monotonic() - start
    writer.close()
    return reply


async def trickle(port: int, head: bytes, drip: bytes, every_s: float = 0.2) -> Reply:
    """Send `head`, then one byte of `drip` every `every_s` until the server closes."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    reply = Reply()
    start = time.monotonic()
    writer.write(head)
    for byte in drip:
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(every_s):
                chunk = await reader.read(65536)
                reply.data += chunk
                if not chunk:
                    reply.closed = True
                    break
        if time.monotonic() - start > CUT_OFF_WITHIN_S:
            break
        with contextlib.suppress(ConnectionError):
            writer.write(bytes([byte]))
    reply.elapsed_s = time.monotonic() - start
    writer.close()
    return reply


AUTH = f"Authorization: Bearer {TOKEN}"


# --- start-up refusals ------------------------------------------------------------------


def _start(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *SERVE_ARGS, "--http", "--port", "0", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_short_token_refuses_to_start_on_a_public_bind(env: dict[str, str]) -> None:
    short = "Sh0rtTokn12345"  # 14 characters
    proc = _start(env, "--host", "0.0.0.0", "--token", short)
    assert proc.returncode == 2
    assert "at least 16" in proc.stderr and "secrets.token_urlsafe(32)" in proc.stderr
    assert short not in proc.stderr  # the refusal never echoes the secret
    from_env = _start({**env, "AGENT_BROWSER_TOOLS_HTTP_TOKEN": "x"}, "--host", "0.0.0.0")
    assert from_env.returncode == 2 and "at least 16" in from_env.stderr


def test_a_token_with_whitespace_refuses_to_start_even_on_loopback(env: dict[str, str]) -> None:
    newline = {**env, "AGENT_BROWSER_TOOLS_HTTP_TOKEN": "a-long-enough-token-from-a-file\n"}
    proc = _start(newline)
    assert proc.returncode == 2 and "whitespace" in proc.stderr
    spaced = _start(env, "--token", "two words but long enough")
    assert spaced.returncode == 2 and "whitespace" in spaced.stderr


def test_a_connection_cap_above_the_fd_limit_refuses_to_start(env: dict[str, str]) -> None:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft > 1_000_000:
        pytest.skip("no open-file limit within the cap's range to exceed")
    proc = _start(env, "--max-connections", str(soft))
    assert proc.returncode == 2 and "ulimit -n" in proc.stderr


# --- headers ----------------------------------------------------------------------------


async def test_host_and_origin_are_case_insensitive_but_still_checked(port: int) -> None:
    ok = await exchange(port, request(port, AUTH, host=f"LOCALHOST:{port}"), head_only=True)
    assert ok.status == 200, ok.data
    mixed = request(port, AUTH, "Origin: HTTP://LocalHost:6274", host=f"LocalHost:{port}")
    assert (await exchange(port, mixed, head_only=True)).status == 200
    for host in ["EVIL.example", f"localhost.evil.example:{port}", f"localhost:{port}@evil"]:
        refused = await exchange(port, request(port, AUTH, host=host))
        assert (refused.status, refused.closed) == (421, True), (host, refused.data)
    for origin in ["http://LOCALHOST.evil.example", "http://localhost:80@evil.example", "null"]:
        refused = await exchange(port, request(port, AUTH, f"Origin: {origin}"))
        assert (refused.status, refused.closed) == (403, True), (origin, refused.data)


async def test_duplicate_origin_or_authorization_is_refused(port: int) -> None:
    origins = request(port, AUTH, "Origin: http://localhost:1", "Origin: http://evil.example")
    reply = await exchange(port, origins)
    assert (reply.status, reply.closed) == (400, True)
    assert reply.data.endswith(b"Duplicate Origin header")
    both_valid = request(port, AUTH, AUTH)
    reply = await exchange(port, both_valid)
    assert (reply.status, reply.closed) == (400, True)
    assert reply.data.endswith(b"Duplicate Authorization header")
    wrong_then_right = request(port, "Authorization: Bearer wrong", AUTH)
    assert (await exchange(port, wrong_then_right)).status == 400
    hosts = request(port, AUTH, "Host: evil.example")  # h11 itself refuses two Host headers
    assert (await exchange(port, hosts)).status == 400


async def test_no_token_gets_401_and_the_socket_closes_without_the_body(port: int) -> None:
    # Announce a large body and never send it: the answer must not wait for it.
    head = request(port, body=b"").replace(b"Content-Length: 0", b"Content-Length: 1000000")
    reply = await exchange(port, head)
    assert (reply.status, reply.closed) == (401, True), reply.data
    assert reply.elapsed_s < CUT_OFF_WITHIN_S
    wrong = await exchange(port, request(port, "Authorization: Bearer " + TOKEN[:-1] + "X"))
    assert (wrong.status, wrong.closed) == (401, True)
    lowercase = await exchange(
        port, request(port, f"authorization: bearer {TOKEN}"), head_only=True
    )
    assert lowercase.status == 200  # the scheme is case-insensitive, the token is not


# --- read deadlines ---------------------------------------------------------------------


async def test_a_client_that_never_finishes_its_headers_is_cut_off(port: int) -> None:
    silent = await exchange(port, b"")
    assert silent.closed and silent.data == b""  # nothing sent: closed without an answer
    head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    slow = await trickle(port, head, b"X-Slow: " + b"a" * 200)  # a byte every 0.2 s
    assert slow.closed and slow.status == 408, slow.data
    assert slow.elapsed_s < CUT_OFF_WITHIN_S  # trickling did not extend the deadline


async def test_a_trickling_body_is_cut_off(port: int) -> None:
    head = request(port, AUTH, body=b"").replace(b"Content-Length: 0", b"Content-Length: 400")
    slow = await trickle(port, head, b"{" + b" " * 399)
    assert slow.closed and slow.status == 408, slow.data
    assert slow.elapsed_s < CUT_OFF_WITHIN_S


# --- many slow sockets ------------------------------------------------------------------


def open_fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@contextlib.contextmanager
def slowloris(port: int, count: int, source: str) -> Iterator[dict[str, int]]:
    """The attacker process (`tests.support.slowloris`) running; its counts at exit."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < count + 100:
        pytest.skip(f"open-file limit {hard} is below what {count} sockets need")
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.slowloris", str(port), str(count), source],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    counts: dict[str, int] = {}
    try:
        assert proc.stdout is not None and proc.stdin is not None
        assert proc.stdout.readline().strip() == "ready"
        yield counts
        proc.stdin.close()
        counts.update(json.loads(proc.stdout.readline()))
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(30)


@pytest.mark.parametrize("source", ["127.0.0.2", "127.0.0.1"], ids=["other-ip", "same-ip"])
async def test_1100_slow_sockets_neither_exhaust_fds_nor_keep_a_client_out(
    capped: HttpServer, source: str
) -> None:
    server = capped
    assert server.url is not None
    port = urlsplit(server.url).port
    assert port is not None
    baseline = open_fds(server.proc.pid)
    peak = 0
    with slowloris(port, 1100, source) as counts:
        async with anyio.create_task_group() as tg:

            async def watch() -> None:
                nonlocal peak
                while True:
                    peak = max(peak, open_fds(server.proc.pid))
                    await anyio.sleep(0.05)

            tg.start_soon(watch)
            await anyio.sleep(2.0)  # the attack churns through the cap meanwhile
            with anyio.fail_after(90):
                async with http_client(server.url, token=TOKEN) as client:
                    listed = {t.name for t in (await client.list_tools()).tools}
            tg.cancel_scope.cancel()
    assert listed >= scenarios.ALWAYS_ON
    assert counts["opened"] > 1100 and counts["closed_by_server"] > 0, counts
    # The cap, plus a burst of evicted sockets not yet reaped: far below 1,100.
    assert peak - baseline <= MAX_CONNECTIONS + 150, (baseline, peak)
    async with http_client(server.url, token=TOKEN) as after:  # still serving afterwards
        assert {t.name for t in (await after.list_tools()).tools} >= scenarios.ALWAYS_ON
