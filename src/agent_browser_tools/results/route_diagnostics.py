"""`networkRouteDiagnostics`: requests an active `network route` may be holding or breaking.

Why: a route installed earlier in the session silently changes later traffic. An intercept
without `--abort`/`--body` leaves matching requests pending forever, and a `--body` mock answers
without CORS headers, so a cross-origin `fetch` fails with nothing but "Failed to fetch". The
request row only shows "no status"; without naming the route, an agent debugs the app instead
of its own mock. Pure: rows and the session's tracked routes in, diagnostic rows out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.redaction import redact_url
from agent_browser_tools.state.models import RouteRule

MAX_DIAGNOSTICS = 10
_CORS = re.compile(r"cors|preflight|access-control|cross-origin", re.I)
_ERROR_FIELDS = ("error", "errorText", "failureText")


def pattern_matches(pattern: str, url: str) -> bool:
    """Whether a route pattern covers `url`. Wildcards (`*`, `**`) match any run of
    characters, `?` one character; a pattern without wildcards must equal the URL. Broader
    than the engine's own matching on purpose: a diagnostic may say "may", never miss a hold."""
    parts = []
    for token in re.split(r"(\*+|\?)", pattern):
        if token.startswith("*"):
            parts.append(".*")
        elif token == "?":
            parts.append(".")
        else:
            parts.append(re.escape(token))
    return re.fullmatch("".join(parts), url) is not None


def _error_text(row: Mapping[str, Any]) -> str:
    return " ".join(str(row[k]) for k in _ERROR_FIELDS if isinstance(row.get(k), str))


def _reason(row: Mapping[str, Any]) -> str | None:
    if _CORS.search(_error_text(row)):
        return "cors-likely-routed-request"
    status = row.get("status")
    if status is None or status == "" or status == 0:
        return "pending-routed-request"
    return None


_SUMMARY = {
    "pending-routed-request": "has no response while route {pattern} ({mode}) matches it: the "
    "route may be holding it, or its mocked answer was refused (a cross-origin mock has no "
    "CORS headers)",
    "cors-likely-routed-request": "failed with CORS-looking errors while route {pattern} "
    "({mode}) matches it: a mocked answer carries no CORS headers",
}


def route_diagnostics(
    rows: Sequence[Mapping[str, Any]], routes: Sequence[RouteRule]
) -> list[dict[str, Any]]:
    """One diagnostic per pending or CORS-failing request row an active route matches."""
    found: list[dict[str, Any]] = []
    for row in rows:
        url = str(row.get("url") or "")
        reason = _reason(row)
        route = next((r for r in routes if pattern_matches(r.pattern, url)), None)
        if reason is None or route is None:
            continue
        shown = redact_url(url)
        entry: dict[str, Any] = {
            "reason": reason,
            "routePattern": route.pattern,
            "mode": route.mode,
            "requestUrl": shown,
            "summary": f"{shown} "
            + _SUMMARY[reason].format(pattern=route.pattern, mode=route.mode),
        }
        ident = row.get("requestId")
        if isinstance(ident, str) and re.fullmatch(r"[\w.:-]{1,64}", ident):
            entry["requestId"] = ident
        found.append(entry)
        if len(found) >= MAX_DIAGNOSTICS:
            break
    return found
