"""`serve` options and the rules that decide whether the server may start at all.

The HTTP transport binds 127.0.0.1 by default. A bearer token (`--token` or
`AGENT_BROWSER_TOOLS_HTTP_TOKEN`) is REQUIRED when it binds anything that is not a loopback
address; without one the server refuses to start. A token given on loopback is enforced too.

Token rules, because a guessable or mangled token is no protection: off loopback it must be at
least 16 characters (anyone who can reach the port may try tokens); everywhere it must be
printable ASCII without spaces, since a header value cannot carry anything else unchanged (a
token with a trailing newline from a file would never match, or match what the operator did not
mean). An explicitly empty `--token ""` is refused instead of silently meaning "no token".
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_browser_tools.hosts.mcp.tool_names import (
    UnknownNames,
    check_enable,
    check_known,
    parse_names,
    tool_names,
)

TOKEN_ENV = "AGENT_BROWSER_TOOLS_HTTP_TOKEN"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
MCP_PATH = "/mcp"
MIN_PUBLIC_TOKEN_CHARS = 16
MAKE_TOKEN = 'python -c "import secrets; print(secrets.token_urlsafe(32))"'
_HOW = f"Make a strong token with: {MAKE_TOKEN}"


class ServeRefused(ValueError):
    """The options are unsafe or inconsistent; the message says how to fix them."""


@dataclass(frozen=True)
class ServeOptions:
    """What `agent-browser-tools serve` was asked to do."""

    http: bool = False
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    token: str | None = None
    tools: frozenset[str] | None = None
    enable: tuple[str, ...] = ()
    """`--enable a,b`: capabilities every conversation starts with (checked names)."""
    conversation: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    operator: Mapping[str, Any] = field(default_factory=dict)
    """The operator's launch and policy flags as a config layer (`operator_flags`)."""
    shared_sessions: tuple[str, ...] = ()
    """`--shared-session NAME`: browsers every conversation may use (checked by the tools)."""
    header_timeout: float | None = None
    """`--header-timeout`; None: env, config or default (see `http_limits`)."""
    body_timeout: float | None = None
    max_connections: int | None = None
    file_roots: tuple[Path, ...] = ()
    """Operator file roots besides the execution dir and the configured ones."""
    unrestricted_files: bool = False
    """`--allow-unrestricted-file-access`: the whole filesystem (never the server's state)."""
    ephemeral_state: bool = False
    """`--ephemeral-state` (or env/config, see `state.writable`): conversations in memory."""


def is_loopback(host: str) -> bool:
    """True for `localhost` and loopback IP literals (127.0.0.0/8, ::1)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_tool_list(raw: str | None) -> frozenset[str] | None:
    """`a,b,c` -> {"a", "b", "c"}; None/empty means no allowlist."""
    if raw is None:
        return None
    names = frozenset(name.strip() for name in raw.split(",") if name.strip())
    return names or None


def resolve_options(
    *,
    http: bool,
    host: str | None,
    port: int | None,
    token: str | None,
    tools: str | None,
    conversation: str | None,
    allowed_hosts: tuple[str, ...] = (),
    shared_sessions: tuple[str, ...] = (),
    header_timeout: float | None = None,
    body_timeout: float | None = None,
    max_connections: int | None = None,
    file_roots: tuple[str, ...] = (),
    unrestricted_files: bool = False,
    env: Mapping[str, str],
    operator: Mapping[str, Any] | None = None,
    enable: str | None = None,
) -> ServeOptions:
    """Validate the flags (and the token env) into `ServeOptions`, or raise `ServeRefused`."""
    limits = (header_timeout, body_timeout, max_connections)
    if not http and (host, port, token, *limits) != (None,) * 6:
        raise ServeRefused(
            "--host, --port, --token, --header-timeout, --body-timeout and --max-connections "
            "only apply with --http."
        )
    if http and conversation is not None:
        raise ServeRefused(
            "--conversation only applies to stdio; over HTTP every MCP session is its own "
            "conversation."
        )
    bind = host or DEFAULT_HOST
    secret = _secret(token, http=http, bind=bind, env=env)
    if port is not None and not 0 <= port <= 65535:
        raise ServeRefused(f"--port must be between 0 and 65535, not {port}.")
    allowlist, enabled = _tool_choice(tools, enable)
    return ServeOptions(
        file_roots=tuple(_file_root(raw) for raw in file_roots),
        unrestricted_files=unrestricted_files,
        http=http,
        host=bind,
        port=DEFAULT_PORT if port is None else port,
        token=secret,
        tools=allowlist,
        enable=enabled,
        conversation=conversation,
        allowed_hosts=allowed_hosts,
        operator=dict(operator or {}),
        shared_sessions=shared_sessions,
        header_timeout=header_timeout,
        body_timeout=body_timeout,
        max_connections=max_connections,
    )


def _secret(token: str | None, *, http: bool, bind: str, env: Mapping[str, str]) -> str | None:
    """The bearer token in effect (`--token`, else the env over HTTP), checked."""
    secret = token or (env.get(TOKEN_ENV) if http else None) or None
    if token == "":
        raise ServeRefused(f"--token is empty; pass a token or leave --token out. {_HOW}")
    if http and not is_loopback(bind) and not secret:
        raise ServeRefused(
            f"refusing to serve on non-loopback address {bind!r} without a bearer token: pass "
            f"--token TOKEN or set {TOKEN_ENV} (clients then send 'Authorization: Bearer TOKEN')."
            f" {_HOW}"
        )
    if secret is not None:
        check_token(secret, bind)
    return secret


def _tool_choice(
    tools: str | None, enable: str | None
) -> tuple[frozenset[str] | None, tuple[str, ...]]:
    """The `--tools` allowlist and the `--enable` capabilities, every name checked."""
    try:
        check_known("--tools", parse_names(tools), tool_names())
        allowlist = parse_tool_list(tools)
        enabled = parse_names(enable)
        check_enable(enabled, allowlist)
    except UnknownNames as exc:
        raise ServeRefused(str(exc)) from None
    return allowlist, enabled


def check_token(token: str, bind: str) -> None:
    """Refuse a token that is unusable in a header, or too short for a non-loopback bind.

    The message never repeats the token: it may be echoed into logs."""
    if any(not 0x21 <= ord(char) <= 0x7E for char in token):
        raise ServeRefused(
            "the bearer token contains whitespace, control or non-ASCII characters, which an "
            "Authorization header cannot carry unchanged (a trailing newline from a file is "
            f"the usual cause); use printable ASCII only. {_HOW}"
        )
    if not is_loopback(bind) and len(token) < MIN_PUBLIC_TOKEN_CHARS:
        raise ServeRefused(
            f"the bearer token is {len(token)} characters; a non-loopback bind ({bind!r}) needs "
            f"at least {MIN_PUBLIC_TOKEN_CHARS}, because anyone who reaches the port can guess. "
            f"{_HOW}"
        )


def _file_root(raw: str) -> Path:
    """`--file-root DIR` as an absolute path; it must name an existing directory."""
    path = Path(os.path.abspath(os.path.expanduser(raw)))
    if not path.is_dir():
        raise ServeRefused(
            f"--file-root {raw}: {path} is not a directory; create it or fix the path."
        )
    return path
