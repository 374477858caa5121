"""How long an HTTP client may take to send a request, and how many sockets it may hold.

Each limit comes from, in order: the `serve` flag, the env var, the `[http]` config key, the
default. Values are checked here, once, before the server binds:

- header timeout: `--header-timeout SECONDS`, `AGENT_BROWSER_TOOLS_HTTP_HEADER_TIMEOUT`,
  `[http] header_timeout`; default 10.
- body timeout: `--body-timeout SECONDS`, `AGENT_BROWSER_TOOLS_HTTP_BODY_TIMEOUT`,
  `[http] body_timeout`; default 30.
- connection cap: `--max-connections N`, `AGENT_BROWSER_TOOLS_HTTP_MAX_CONNECTIONS`,
  `[http] max_connections`; default 128.

The cap must leave room under the process's open-file limit (`ulimit -n`) for everything else
the server opens (engine pipes, the journal, spills), else a full cap could still exhaust it.
"""

from __future__ import annotations

import contextlib
import resource
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from agent_browser_tools.hosts.mcp.options import ServeOptions, ServeRefused
from agent_browser_tools.settings import ENV_PREFIX, Settings

SECTION = "http"
FD_HEADROOM = 64
"""File descriptors kept free beyond the connection cap for the rest of the server."""


@dataclass(frozen=True)
class HttpLimits:
    """Resolved per-connection limits of the HTTP transport."""

    header_timeout_s: float = 10.0
    """From connect (or the end of the previous response) until the request headers are in."""
    body_timeout_s: float = 30.0
    """From the end of the headers until the whole request body is in."""
    max_connections: int = 128
    """Open client sockets at once; see `http_conn.ConnectionGate` for who gets a slot."""


@dataclass(frozen=True)
class _Limit:
    key: str
    flag: str
    low: float
    high: float
    integer: bool = False

    @property
    def env(self) -> str:
        return f"{ENV_PREFIX}HTTP_{self.key.upper()}"


_LIMITS = (
    _Limit("header_timeout", "--header-timeout", 0.5, 600),
    _Limit("body_timeout", "--body-timeout", 0.5, 3600),
    _Limit("max_connections", "--max-connections", 4, 1_000_000, integer=True),
)
_FIELDS = {"header_timeout": "header_timeout_s", "body_timeout": "body_timeout_s"}


def resolve_limits(
    options: ServeOptions, settings: Settings, *, fd_limit: int | None = None
) -> HttpLimits:
    """Flag > env > `[http]` config > default, each checked; raises `ServeRefused`."""
    section = settings.merged_config.get(SECTION, {})
    if not isinstance(section, Mapping):
        raise ServeRefused(f"config [{SECTION}] must be a table; fix or remove it.")
    unknown = sorted(set(section) - {limit.key for limit in _LIMITS})
    if unknown:
        known = ", ".join(limit.key for limit in _LIMITS)
        raise ServeRefused(f"unknown [{SECTION}] keys {', '.join(unknown)}; known: {known}.")
    values: dict[str, Any] = {}
    for limit in _LIMITS:
        flag_value = getattr(options, limit.key)
        if flag_value is not None:
            raw, origin = flag_value, limit.flag
        elif settings.env.get(limit.env):
            raw, origin = settings.env[limit.env], limit.env
        elif limit.key in section:
            raw, origin = section[limit.key], f"[{SECTION}] {limit.key}"
        else:
            continue
        values[_FIELDS.get(limit.key, limit.key)] = _checked(limit, raw, origin)
    limits = HttpLimits(**values)
    _check_fd_room(limits.max_connections, _soft_fd_limit() if fd_limit is None else fd_limit)
    return limits


def _checked(limit: _Limit, raw: Any, origin: str) -> float | int:
    kind = "a whole number" if limit.integer else "a number of seconds"
    value: float | int = float("nan")  # fails every range check
    if isinstance(raw, bool):
        pass
    elif limit.integer:
        if isinstance(raw, int) or (isinstance(raw, str) and raw.strip().isdigit()):
            value = int(raw)
    elif isinstance(raw, (int, float, str)):
        with contextlib.suppress(ValueError):
            value = float(raw)
    if not limit.low <= value <= limit.high:
        raise ServeRefused(
            f"{origin} = {raw!r} must be {kind} from {_num(limit.low)} to {_num(limit.high)}."
        )
    return value


def _num(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


def _soft_fd_limit() -> int:
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return -1 if soft == resource.RLIM_INFINITY else soft


def _check_fd_room(max_connections: int, fd_limit: int) -> None:
    if fd_limit >= 0 and max_connections + FD_HEADROOM > fd_limit:
        raise ServeRefused(
            f"a connection cap (max_connections) of {max_connections} leaves no room under "
            "the open-file limit "
            f"({fd_limit}; the server keeps {FD_HEADROOM} for itself): lower it or raise the "
            "limit (`ulimit -n`)."
        )
