"""Header rules checked before the MCP SDK (or anything that reads a body) sees a request.

Why this sits in front of the SDK's own checks, which stay in place behind it:

- A request may carry a header twice. The SDK reads the first `Origin`/`Authorization` and
  ignores the rest, while a proxy or browser in front may have meant the last; a request with
  two `Host`, `Origin`, `Authorization` or `Mcp-Session-Id` headers is refused (400), so no two
  readers can disagree about who is calling or from where.
- Host names are case-insensitive (`LOCALHOST:8765` is localhost), but the SDK compares the
  header text exactly. Host and Origin are parsed strictly here (`name[:port]` and
  `http(s)://name[:port]`, nothing else), their name is compared lower-cased with the allowed
  names (else 421 for Host, 403 for Origin, as the SDK answers), and the request goes on with
  the lower-cased values, which the SDK's DNS-rebinding check then accepts as well.
- With a token, a request without `Authorization: Bearer TOKEN` is answered 401 at once,
  without reading its body, and every refusal here closes the connection (`Connection:
  close`), so an unauthenticated client cannot keep a socket by sending requests on it.
"""

from __future__ import annotations

import hmac
import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from starlette.types import ASGIApp, Receive, Scope, Send

Headers = list[tuple[bytes, bytes]]

SINGLE_HEADERS = (b"host", b"origin", b"authorization", b"mcp-session-id")
"""Headers that decide who is calling, from where, on which session: at most one of each."""

_AUTHORITY = r"(?P<name>\[[0-9a-z:.%]+\]|[^\s:/?#@\[\]\\,]+)(?::(?P<port>[0-9]{1,5}))?"
_HOST = re.compile(_AUTHORITY)
_ORIGIN = re.compile(rf"(?P<scheme>https?)://{_AUTHORITY}")
_AUTH_ERROR = {"error": "invalid_token", "error_description": "Authentication required"}


@dataclass(frozen=True)
class Refusal:
    """The answer to a request the guard stops."""

    status: int
    reason: str

    def messages(self) -> tuple[dict[str, object], dict[str, object]]:
        """The ASGI response: always `Connection: close`."""
        headers = [(b"connection", b"close")]
        if self.status == 401:
            body = json.dumps(_AUTH_ERROR).encode()
            headers.append((b"content-type", b"application/json"))
            headers.append(
                (
                    b"www-authenticate",
                    b'Bearer error="invalid_token", error_description="Authentication required"',
                )
            )
        else:
            body = self.reason.encode()
            headers.append((b"content-type", b"text/plain; charset=utf-8"))
        headers.append((b"content-length", str(len(body)).encode()))
        start = {"type": "http.response.start", "status": self.status, "headers": headers}
        return start, {"type": "http.response.body", "body": body, "more_body": False}


def _allowed(match: re.Match[str] | None, names: frozenset[str]) -> str | None:
    """`name[:port]` of a parsed Host/Origin when its name (or, for an `--allow-host` given
    with a port, the whole of it) is allowed, else None."""
    if match is None:
        return None
    authority = match["name"] + (f":{match['port']}" if match["port"] else "")
    return authority if match["name"] in names or authority in names else None


class RequestGuard:
    """ASGI middleware enforcing the rules in the module docstring; see `check`."""

    def __init__(self, app: ASGIApp, *, names: Iterable[str], token: str | None) -> None:
        self.app = app
        self.names = frozenset(name.lower() for name in names)
        self._token = token.encode() if token else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        verdict = self.check(list(scope["headers"]))
        if isinstance(verdict, Refusal):
            for message in verdict.messages():
                await send(message)
            return
        await self.app({**scope, "headers": verdict}, receive, send)

    def check(self, headers: Headers) -> Headers | Refusal:
        """The headers to pass on (Host/Origin lower-cased), or why the request is refused."""
        counts = Counter(name.lower() for name, _ in headers)
        for name in SINGLE_HEADERS:
            if counts[name] > 1:
                return Refusal(400, f"Duplicate {name.decode().title()} header")
        found = {name.lower(): value for name, value in headers if name.lower() in SINGLE_HEADERS}
        if self._token is not None and not self._authorized(found.get(b"authorization")):
            return Refusal(401, "Authentication required")
        host = _allowed(_HOST.fullmatch(_text(found.get(b"host"))), self.names)
        if host is None:
            return Refusal(421, "Invalid Host header")
        rewritten = {b"host": host.encode()}
        if b"origin" in found:
            match = _ORIGIN.fullmatch(_text(found[b"origin"]))
            where = _allowed(match, self.names)
            if match is None or where is None:
                return Refusal(403, "Invalid Origin header")
            rewritten[b"origin"] = f"{match['scheme']}://{where}".encode()
        return [(name, rewritten.get(name.lower(), value)) for name, value in headers]

    def _authorized(self, value: bytes | None) -> bool:
        assert self._token is not None
        if value is None or value[:7].lower() != b"bearer ":
            return False
        return hmac.compare_digest(value[7:], self._token)


def _text(value: bytes | None) -> str:
    return "" if value is None else value.decode("latin-1").lower()
