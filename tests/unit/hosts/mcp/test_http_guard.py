"""The request guard in front of the MCP SDK: duplicate headers, the bearer pre-check, and
Host/Origin compared case-insensitively but strictly. Each case is an attempt to slip a
request past a check that reads only one spelling or one copy of a header."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import pytest
from mcp.server.transport_security import TransportSecurityMiddleware
from starlette.requests import Request

from agent_browser_tools.hosts.mcp.http import allowed_host_names, security_settings
from agent_browser_tools.hosts.mcp.http_guard import Refusal, RequestGuard
from agent_browser_tools.hosts.mcp.options import ServeOptions

TOKEN = "0123456789abcdef-token"
NAMES = allowed_host_names(ServeOptions(http=True))


def _guard(token: str | None = TOKEN) -> RequestGuard:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("a refused request reached the app")

    return RequestGuard(app, names=NAMES, token=token)


def _headers(*pairs: tuple[str, str], auth: bool = True) -> list[tuple[bytes, bytes]]:
    base = [("host", "127.0.0.1:8765")] if not any(k.lower() == "host" for k, _ in pairs) else []
    extra = [("authorization", f"Bearer {TOKEN}")] if auth else []
    return [(k.lower().encode(), v.encode()) for k, v in [*base, *pairs, *extra]]


def _status(verdict: object) -> int:
    return verdict.status if isinstance(verdict, Refusal) else 200


@pytest.mark.parametrize("name", ["Host", "Origin", "Authorization", "Mcp-Session-Id"])
def test_a_second_copy_of_a_deciding_header_is_refused(name: str) -> None:
    value = {"Host": "localhost:1", "Origin": "http://localhost:1"}.get(name, f"Bearer {TOKEN}")
    doubled = _headers((name, value), (name, value))  # even the same value twice
    verdict = _guard().check(doubled)
    assert isinstance(verdict, Refusal) and verdict.status == 400
    assert verdict.reason == f"Duplicate {name.title()} header"


@pytest.mark.parametrize(
    "value",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        f"Basic {TOKEN}",
        f"Bearer  {TOKEN}",  # an extra space is part of the token
        f"Bearer {TOKEN} ",
        f"Bearer {TOKEN[:-1]}",
        f"Bearer {TOKEN}x",
        f"Bearer {TOKEN.upper()}",
        f"Token {TOKEN}",
    ],
)
def test_anything_but_the_exact_bearer_token_is_401(value: str | None) -> None:
    pairs = [] if value is None else [("Authorization", value)]
    assert _status(_guard().check(_headers(*pairs, auth=False))) == 401


def test_the_bearer_scheme_is_case_insensitive() -> None:
    for scheme in ("bearer", "BEARER", "Bearer"):
        headers = _headers(("Authorization", f"{scheme} {TOKEN}"), auth=False)
        assert _status(_guard().check(headers)) == 200


def test_without_a_token_no_authorization_is_needed() -> None:
    assert _status(_guard(token=None).check(_headers(auth=False))) == 200


@pytest.mark.parametrize(
    ("host", "passed_on"),
    [
        ("LOCALHOST:8765", "localhost:8765"),
        ("LocalHost", "localhost"),
        ("127.0.0.1", "127.0.0.1"),
        ("[::1]:8765", "[::1]:8765"),
    ],
)
def test_host_is_case_insensitive_and_passed_on_lower_cased(host: str, passed_on: str) -> None:
    verdict = _guard().check(_headers(("Host", host)))
    assert not isinstance(verdict, Refusal)
    assert dict(verdict)[b"host"] == passed_on.encode()


@pytest.mark.parametrize(
    "host",
    [
        "",
        "evil.example",
        "EVIL.example:8765",
        "localhost.evil.example",
        "localhost.:8765",
        "localhost:8765@evil.example",
        "evil.example@localhost",
        "localhost:8765/x",
        "localhost:port",
        "localhost:123456",
        "localhost:8765, evil.example",
        " localhost",
        "127.0.0.1.nip.io",
        "[::2]:8765",
    ],
)
def test_a_foreign_or_malformed_host_is_421(host: str) -> None:
    assert _status(_guard().check(_headers(("Host", host)))) == 421


def test_a_missing_host_is_421() -> None:
    headers = [(b"authorization", f"Bearer {TOKEN}".encode())]
    assert _status(_guard().check(headers)) == 421


@pytest.mark.parametrize(
    ("origin", "passed_on"),
    [
        ("HTTP://LocalHost:6274", "http://localhost:6274"),
        ("https://LOCALHOST", "https://localhost"),
        ("http://127.0.0.1:3000", "http://127.0.0.1:3000"),
    ],
)
def test_origin_is_case_insensitive_and_passed_on_lower_cased(origin: str, passed_on: str) -> None:
    verdict = _guard().check(_headers(("Origin", origin)))
    assert not isinstance(verdict, Refusal)
    assert dict(verdict)[b"origin"] == passed_on.encode()


@pytest.mark.parametrize(
    "origin",
    [
        "null",
        "",
        "http://evil.example",
        "http://LOCALHOST.evil.example",
        "http://localhost:80@evil.example",
        "http://localhost/path",
        "http://localhost:1, http://evil.example",
        "ftp://localhost",
        "localhost:8765",
        "http://localhost:x",
    ],
)
def test_a_foreign_or_malformed_origin_is_403(origin: str) -> None:
    assert _status(_guard().check(_headers(("Origin", origin)))) == 403


async def test_the_lower_cased_request_passes_the_sdk_check_too() -> None:
    """The SDK's own DNS-rebinding check stays behind the guard and must agree with it."""
    verdict = _guard().check(
        _headers(("Host", "LOCALHOST:8765"), ("Origin", "HTTP://LocalHost:6274"))
    )
    assert not isinstance(verdict, Refusal)
    sdk = TransportSecurityMiddleware(security_settings(ServeOptions(http=True)))
    request = Request({"type": "http", "method": "GET", "headers": verdict, "path": "/mcp"})
    assert await sdk.validate_request(request) is None


async def test_a_refusal_never_reads_the_body_and_closes_the_connection() -> None:
    sent: list[MutableMapping[str, Any]] = []

    async def receive() -> dict[str, Any]:
        raise AssertionError("the guard read the body of an unauthenticated request")

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": _headers(auth=False)}
    await _guard()(scope, receive, send)
    start, body = sent
    assert start["status"] == 401
    headers = dict(start["headers"])
    assert headers[b"connection"] == b"close"
    assert headers[b"www-authenticate"].startswith(b"Bearer ")
    assert b"invalid_token" in body["body"] and body["more_body"] is False


async def test_an_accepted_request_reaches_the_app_with_the_rewritten_headers() -> None:
    seen: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["headers"])

    guard = RequestGuard(app, names=NAMES, token=None)
    scope = {"type": "http", "headers": _headers(("Host", "LOCALHOST:1"), auth=False)}
    await guard(scope, None, None)  # type: ignore[arg-type]
    assert seen == [[(b"host", b"localhost:1")]]


def test_an_allow_host_given_with_a_port_allows_that_port_only() -> None:
    guard = RequestGuard(_guard().app, names=[*NAMES, "Box.LAN:8443"], token=None)
    assert _status(guard.check(_headers(("Host", "BOX.lan:8443"), auth=False))) == 200
    assert _status(guard.check(_headers(("Host", "box.lan:9999"), auth=False))) == 421
    assert _status(guard.check(_headers(("Host", "box.lan"), auth=False))) == 421


def test_allowed_names_are_lower_case() -> None:
    options = ServeOptions(http=True, host="192.168.1.5", token=TOKEN, allowed_hosts=("Box.LAN",))
    names = allowed_host_names(options)
    assert "box.lan" in names and all(name == name.lower() for name in names)
