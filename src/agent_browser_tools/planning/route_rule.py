"""Which fulfilled routes could serve a page on a browser's own endpoint (pure).

Why: `network route <pattern> --body HTML` makes the browser take the body as the answer from
whatever URL matched, with that URL's origin. A page that then navigates to
`http://127.0.0.1:<a browser's DevTools port>/x` runs the body's script on the DevTools origin,
which Chromium lets open a DevTools WebSocket: every browser on the machine is then the
page's. So a body route must either leave documents out (`--resource-type fetch,xhr`), or have
a pattern that can only match one origin that is not such an endpoint.

How engine 0.39.4 matches (measured): a route applies to a request the browser paused (any
route's pattern, or an operator's domain filter, can pause every request) when its own matcher
agrees: a pattern without `*` matches any URL that *contains* it; one with `*` must start with
the text before its first `*` (`?` is literal there). So only a pattern with a `*`, not first,
whose text before it spells `http(s)://host[:port]` and then `/`, `?` or `#`, names one origin.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from agent_browser_tools.planning.local_origins import DEFAULT_PORTS, is_local_host
from agent_browser_tools.taxonomy import Fulfilment, resolve_command

SAFE_TYPES = frozenset(
    {
        "fetch",
        "xhr",
        "script",
        "stylesheet",
        "image",
        "media",
        "font",
        "texttrack",
        "eventsource",
        "websocket",
        "manifest",
        "ping",
        "cspviolationreport",
        "preflight",
        "fedcm",
    }
)
"""CDP resource types whose answer never becomes a document of its own (a script or style
runs or applies in the page that loaded it, with that page's origin)."""
FIX = (
    "Limit it to API answers with --resource-type fetch,xhr, or give a pattern that starts with "
    "the scheme and a host outside this machine followed by `/`, such as "
    "https://example.com/api/*."
)


def route_problem(command: Sequence[str], ordinary: frozenset[int] | None) -> str | None:
    """Why this command's fulfilled route could serve a page on a browser's own endpoint, or
    None. `ordinary` are the ports other servers (not browsers) listen on now; a route for a
    local host may name one of them (a dev server). None: they cannot be known here."""
    match = resolve_command(command) if command else None
    fulfils = match.spec.fulfils if match is not None else None
    if match is None or fulfils is None:
        return None
    rest = list(command[len(match.tokens) :])
    if not _serves_body(rest, fulfils) or _documents_left_out(rest, fulfils):
        return None
    pattern = rest[0] if rest else ""
    if _one_ordinary_origin(pattern, ordinary):
        return None
    return (
        f"{' '.join(match.spec.path)} {pattern!r} with {fulfils.body_flag} would answer page "
        "loads too, and a page answered that way for a browser's own DevTools endpoint on this "
        f"machine could drive every browser over CDP. {FIX}"
    )


def route_origin(command: Sequence[str]) -> str | None:
    """The one origin (`scheme://authority/`) a route that serves documents with a body names,
    or None (no such route, or a pattern that is not one origin: `route_problem` judges it)."""
    match = resolve_command(command) if command else None
    fulfils = match.spec.fulfils if match is not None else None
    if match is None or fulfils is None:
        return None
    rest = list(command[len(match.tokens) :])
    if not _serves_body(rest, fulfils) or _documents_left_out(rest, fulfils) or not rest:
        return None
    pattern = rest[0]
    if "*" not in pattern or pattern.startswith("*"):
        return None
    prefix = pattern[: pattern.index("*")]
    scheme, sep, after = prefix.partition("://")
    ends = [after.index(c) for c in "/?#" if c in after]
    if not sep or not ends:
        return None
    return f"{scheme}://{after[: min(ends)]}/"


def route_pattern(command: Sequence[str]) -> str:
    """The URL pattern of a route command: the first word after the command, as the engine
    reads it (even when it looks like a flag)."""
    match = resolve_command(command) if command else None
    rest = command[len(match.tokens) :] if match is not None else ()
    return rest[0] if rest else ""


def _serves_body(rest: list[str], fulfils: Fulfilment) -> bool:
    if fulfils.abort_flag in rest:
        return False  # the engine aborts first
    at = rest.index(fulfils.body_flag) if fulfils.body_flag in rest else None
    return at is not None and at + 1 < len(rest)


def _documents_left_out(rest: list[str], fulfils: Fulfilment) -> bool:
    at = next((i for i, word in enumerate(rest) if word in fulfils.types_flags), None)
    if at is None or at + 1 >= len(rest):
        return False
    types = [part.strip().lower() for part in rest[at + 1].split(",") if part.strip()]
    return bool(types) and set(types) <= SAFE_TYPES


def _one_ordinary_origin(pattern: str, ordinary: frozenset[int] | None) -> bool:
    """The pattern matches URLs of one origin only, and it is not on this machine (or on a
    port an ordinary server holds)."""
    if "*" not in pattern or pattern.startswith("*"):
        return False
    prefix = pattern[: pattern.index("*")]
    scheme, sep, rest = prefix.partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return False
    ends = [rest.index(c) for c in "/?#" if c in rest]
    if not ends:
        return False
    authority = rest[: min(ends)]
    if not authority or "\\" in authority:
        return False
    try:
        parts = urlsplit(f"{scheme.lower()}://{authority}/")
        host, port = parts.hostname or "", parts.port
    except ValueError:
        return False
    if not host:
        return False
    if not is_local_host(host):
        return True
    port = DEFAULT_PORTS[scheme.lower()] if port is None else port
    return ordinary is not None and port in ordinary
