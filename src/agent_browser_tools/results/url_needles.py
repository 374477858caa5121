"""Search strings ("needles") derived from a failed request URL, for a workspace literal search.

Source code rarely spells a request URL the way the browser logged it: the origin comes from a
base URL, ids are interpolated, query strings are built at run time. So one URL yields several
needles, most specific first (host+path, path+query, path, the path before an id segment, the
last segments), and the caller searches for all of them. Needles never carry secrets: they are
derived from the redacted URL, sensitive query strings are dropped, and a path stops before a
segment that looks like a token. Pure: no I/O.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from agent_browser_tools.redaction import (
    REDACTED,
    SENSITIVE_QUERY,
    URL_USERINFO_REDACTED,
    looks_token_like,
    redact_url,
)

MAX_NEEDLES_PER_URL = 6
MIN_NEEDLE_CHARS = 5
# Needles so common in any code base that a hit says nothing about this request.
_GENERIC = frozenset({"/api/", "/api", "/v1/", "/v2/", "/index.html", "/graphql", "/rest/"})
_ID_SEGMENT = re.compile(
    r"^(\d+|[0-9a-f]{8,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.I
)
_MARKERS = (REDACTED, URL_USERINFO_REDACTED, "%5BREDACTED%5D")


def _clean_segments(path: str) -> list[str]:
    """Path segments up to (not including) the first one that looks like a secret."""
    kept: list[str] = []
    for segment in path.split("/")[1:]:
        if looks_token_like(segment) or any(m in segment for m in _MARKERS):
            break
        kept.append(segment)
    return kept


def _safe_query(query: str) -> bool:
    """A query string that may appear in a needle: short and without secret-looking keys."""
    if not query or len(query) > 200:
        return False
    keys = [pair.split("=", 1)[0] for pair in query.split("&")]
    return not any(SENSITIVE_QUERY.match(k) for k in keys) and not any(m in query for m in _MARKERS)


def _split(url: str) -> tuple[str, str, str] | None:
    """(host[:port], path, query) of an http(s) or relative URL; None for other schemes."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname or ""
        port = parts.port
    except ValueError:
        return None
    if parts.scheme and parts.scheme.lower() not in ("http", "https"):
        return None
    if port is not None:
        host = f"{host}:{port}"
    return host, parts.path, parts.query


def derive_needles(url: str) -> list[str]:
    """Up to `MAX_NEEDLES_PER_URL` needles for `url`, most specific first (may be empty)."""
    split = _split(redact_url(url))
    if split is None:
        return []
    host, path, query = split
    segments = _clean_segments(path)
    clean_path = "/" + "/".join(segments) if segments else ""
    whole = len(segments) == len(path.split("/")[1:])
    candidates: list[str] = []
    if host and clean_path:
        candidates.append(host + clean_path)
    if whole and clean_path and _safe_query(query):
        candidates.append(f"{clean_path}?{query}")
    candidates.append(clean_path)
    ids = [i for i, s in enumerate(segments) if _ID_SEGMENT.match(s)]
    if ids:
        candidates.append("/" + "/".join(segments[: ids[0]]) + "/")
    named = [s for s in segments if s]
    for count in (3, 2, 1):
        if len(named) > count:
            candidates.append("/" + "/".join(named[-count:]))
    # A bare host is no needle: it matches every file that mentions the site (saved cookies,
    # HARs, configs), not the code that made this request.
    needles: list[str] = []
    for needle in candidates:
        if len(needle) < MIN_NEEDLE_CHARS or needle in _GENERIC or needle in needles:
            continue
        needles.append(needle)
    return needles[:MAX_NEEDLES_PER_URL]


def correlatable(url: str) -> bool:
    """Whether a workspace search has anything specific to look for in `url`."""
    return bool(derive_needles(url))
