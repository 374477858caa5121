"""MCP over Streamable HTTP: one conversation (own `BrowserTools`, own browser) per MCP session.

Contract:

- Binds `options.host:options.port` (127.0.0.1:8765 by default; port 0 picks a free one) and
  prints `agent-browser-tools: MCP over HTTP at http://HOST:PORT/mcp` on stderr once listening
  (after a line naming the dir that holds the conversations' workspaces).
- Every request first passes `http_guard.RequestGuard`: a second `Host`, `Origin`,
  `Authorization` or `Mcp-Session-Id` header is refused (400); with a token, a request without
  it is answered 401 before its body is read; Host must name (in any letter case) a loopback
  address, the bind address, this machine, or an `--allow-host` name (else 421), and a browser
  Origin one of those over http/https (else 403). Every refusal closes the connection. The
  SDK's own transport security and bearer middleware then check the same again.
- Then `http_repair.BodyRepair`: a POST body over 64 MiB is answered 413, and one the SDK
  could not parse (a lone surrogate escape, invalid UTF-8, absurd nesting) is repaired so its
  call is answered with a tool result (`wire_repair`).
- With a token (`--token` / `AGENT_BROWSER_TOOLS_HTTP_TOKEN`, mandatory off loopback, at least
  16 characters there) every request needs `Authorization: Bearer TOKEN`, and a session only
  accepts the credential that created it.
- Sockets are bounded by `http_conn`: request headers must arrive within the header timeout
  and a body within the body timeout (else 408 and close), and at most `max_connections` are
  open at once, idle ones making room for new ones (`http_limits` has the knobs).
- Conversations share this server: each `BrowserTools` gets `shared_server=True`, so one
  conversation cannot reach another's browsers (own socket dir each), files (own workspace
  each, under `<execution dir>/agent-browser-workspaces/`, kept after the session ends) or
  the engine's per-user stores.
- Stateful sessions only: the conversation is keyed on the `Mcp-Session-Id`. A session's
  conversation is closed when the client deletes the session (HTTP DELETE), when it has been
  idle as long as the SDK's session idle timeout, and on shutdown (SIGTERM/SIGINT), after the
  SDK has cancelled the calls in flight. Exit code 0 after a signal-initiated shutdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import signal
import socket
import sys
import uuid
from collections.abc import Callable, Iterator

import uvicorn
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.streamable_http_manager import DEFAULT_SESSION_IDLE_TIMEOUT
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.hosts.mcp.conversations import ConversationRegistry
from agent_browser_tools.hosts.mcp.http_conn import ConnectionGate, GuardedH11Protocol
from agent_browser_tools.hosts.mcp.http_guard import RequestGuard
from agent_browser_tools.hosts.mcp.http_limits import resolve_limits
from agent_browser_tools.hosts.mcp.http_repair import BodyRepair
from agent_browser_tools.hosts.mcp.options import (
    MCP_PATH,
    ServeOptions,
    ServeRefused,
    is_loopback,
)
from agent_browser_tools.hosts.mcp.server import Ctx, build_server
from agent_browser_tools.settings import Settings

logger = logging.getLogger(__name__)

SESSION_HEADER = "mcp-session-id"
GRACEFUL_SHUTDOWN_S = 2
ACCEPT_BATCH = 16
"""Connections asyncio accepts per event-loop turn. Each one holds a descriptor until the gate
has admitted or evicted it, so this bounds the overshoot above the connection cap, and it lets
a client's request be read before a flood accepted after it could push it out."""
LISTEN_BACKLOG = 1024
"""Connections the kernel queues for us; they hold no descriptor of ours while queued."""
REAP_INTERVAL_S = 60.0
_WILDCARD = {"0.0.0.0", "::", ""}


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def allowed_host_names(options: ServeOptions) -> list[str]:
    """Names a client may use in Host/Origin for this server."""
    names = {"127.0.0.1", "localhost", "[::1]", *options.allowed_hosts}
    if options.host not in _WILDCARD:
        names.add(_url_host(options.host))
    if not is_loopback(options.host):
        hostname = socket.gethostname()
        names.update({hostname, socket.getfqdn()})
        with contextlib.suppress(OSError):
            for info in socket.getaddrinfo(hostname, None):
                names.add(_url_host(str(info[4][0])))
    return sorted({name.lower() for name in names})  # host names are case-insensitive


def security_settings(options: ServeOptions) -> TransportSecuritySettings:
    """The SDK's DNS-rebinding protection for this bind (Host and Origin allowlists)."""
    names = allowed_host_names(options)
    hosts = [*names, *(f"{name}:*" for name in names)]
    origins = [
        f"{scheme}://{name}{port}"
        for scheme in ("http", "https")
        for name in names
        for port in ("", ":*")
    ]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


class StaticTokenVerifier:
    """Accepts exactly one bearer token (constant-time comparison)."""

    def __init__(self, token: str) -> None:
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token="<redacted>", client_id="agent-browser-tools", scopes=[])
        return None


class SessionEndWatcher:
    """ASGI wrapper: after a successful `DELETE` of an MCP session, report its id."""

    def __init__(self, app: ASGIApp, on_end: Callable[[str], None]) -> None:
        self.app = app
        self.on_end = on_end

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "DELETE":
            await self.app(scope, receive, send)
            return
        header = SESSION_HEADER.encode()
        session = next((v.decode("latin-1") for k, v in scope["headers"] if k == header), None)
        status = 0

        async def watch(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        await self.app(scope, receive, watch)
        if session and 200 <= status < 300:
            self.on_end(session)


class _Server(uvicorn.Server):
    """Uvicorn without its own signal capture, which re-raises the signal after serving and so
    would end the process before the browsers are closed; `serve_http` routes signals to
    `handle_exit` itself.

    asyncio uses one number for the listen backlog and the accept batch (`backlog`, set to
    `ACCEPT_BATCH`); the listen queue is widened again once serving, so a burst of connects
    waits in the kernel instead of being dropped."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        for sock in sockets or ():
            sock.listen(LISTEN_BACKLOG)


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(LISTEN_BACKLOG)
    sock.setblocking(False)
    return sock


def _key_of(ctx: Ctx) -> str | None:
    request = ctx.request
    headers = getattr(request, "headers", None)
    if headers is None:
        return None
    value = headers.get(SESSION_HEADER)
    return str(value) if value else None


def build_app(options: ServeOptions, registry: ConversationRegistry, base_url: str) -> ASGIApp:
    """The ASGI app: the SDK's Streamable HTTP app, plus auth and session-end tracking."""
    server = build_server(registry, _key_of, stateless_era=False)
    auth = verifier = None
    if options.token:
        # Resource-server-only bearer checks: no OAuth routes, no metadata endpoints.
        auth = AuthSettings(issuer_url=AnyHttpUrl(base_url), resource_server_url=None)
        verifier = StaticTokenVerifier(options.token)
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=security_settings(options),
        host=options.host,
        auth=auth,
        token_verifier=verifier,
        session_idle_timeout=DEFAULT_SESSION_IDLE_TIMEOUT,
    )
    watched = SessionEndWatcher(app, registry.close_soon)
    repaired = BodyRepair(watched)
    return RequestGuard(repaired, names=allowed_host_names(options), token=options.token)


def _announce(settings: Settings, base_url: str) -> None:
    """Where the operator finds what conversations saved, then the URL (the last line: tools
    wait for it)."""
    print(
        f"agent-browser-tools: each conversation's files go to its own dir in "
        f"{BrowserTools.workspaces_dir(settings)}\n"
        f"agent-browser-tools: MCP over HTTP at {base_url}{MCP_PATH}",
        file=sys.stderr,
        flush=True,
    )


async def serve_http(options: ServeOptions, settings: Settings) -> int:
    """Serve MCP over Streamable HTTP until SIGTERM/SIGINT; returns the exit code."""

    def factory(key: str) -> BrowserTools:
        tools = BrowserTools(
            conversation_id=uuid.uuid4().hex,
            settings=settings,
            tools=options.tools,
            shared_server=True,
            shared_sessions=options.shared_sessions,
            file_roots=options.file_roots,
            unrestricted_files=options.unrestricted_files,
            persist=not options.ephemeral_state,
        )
        tools.toolkit.enable(options.enable)  # `serve --enable`
        return tools

    try:
        limits = resolve_limits(options, settings)
    except ServeRefused as exc:
        print(f"agent-browser-tools serve: {exc}", file=sys.stderr)
        return 2
    registry = ConversationRegistry(factory, idle_timeout_s=DEFAULT_SESSION_IDLE_TIMEOUT)
    try:
        sock = _bind(options.host, options.port)
    except OSError as exc:
        print(
            f"agent-browser-tools: cannot bind {options.host}:{options.port}: {exc}",
            file=sys.stderr,
        )
        return 2
    port = sock.getsockname()[1]
    base_url = f"http://{_url_host(options.host)}:{port}"
    app = build_app(options, registry, base_url)
    config = uvicorn.Config(
        app,
        http=GuardedH11Protocol.bound(ConnectionGate(limits)),
        ws="none",
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        backlog=ACCEPT_BATCH,
    )
    server = _Server(config)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        # `handle_exit` also ends open SSE streams (sse-starlette hooks it), so uvicorn's
        # graceful shutdown does not wait on every session's standing GET stream.
        loop.add_signal_handler(sig, server.handle_exit, sig, None)
    reaper = loop.create_task(registry.reap_forever(REAP_INTERVAL_S))
    _announce(settings, base_url)
    try:
        await server.serve(sockets=[sock])
    finally:
        reaper.cancel()
        await registry.close_all()
    return 0
