"""Network, console and page-error results: compact lines and failure classification (pure).

`classify_network_request_failure` separates actionable failures (documents, scripts, APIs)
from benign low-impact misses (favicons and similar icons), so QA verdicts and follow-ups do
not treat a missing favicon like a broken API.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from agent_browser_tools.redaction import redact_url

MAX_ROWS = 40
# Icon file names: `favicon*`, `apple-touch-icon*`, or `icon`/`icons` as a whole name token
# (`app-icon-192.png`, `icons.svg`), never a substring such as `silicon.png`.
_ICON_NAME = re.compile(
    r"^(favicon|apple-touch-icon|mstile)([-_.@][^/]*)?\.(ico|png|svg|gif|jpe?g|webp)$"
    r"|^([^/]*[-_.@])?icons?([-_.@][^/]*)?\.(ico|png|svg|gif|jpe?g|webp)$",
    re.I,
)
_ICON_KINDS = frozenset({"", "image", "other", "icon", "favicon"})
_ACTIONABLE_KINDS = frozenset(
    {"document", "script", "stylesheet", "xhr", "fetch", "websocket", "eventsource"}
)
_API_HINT = re.compile(r"(^|/)(api|graphql|rpc|v\d+)(/|$)|\.json$", re.I)
_ERROR_FIELDS = ("error", "errorText", "failureText")

Verdict = Literal["ok", "pending", "actionable", "benign"]


@dataclass(frozen=True)
class NetworkFailure:
    verdict: Verdict
    reason: str


def _status(row: Mapping[str, Any]) -> int | None:
    status = row.get("status")
    if isinstance(status, bool):
        return None
    if isinstance(status, int):
        return status
    if isinstance(status, str) and status.isdigit():
        return int(status)
    return None


def _error_text(row: Mapping[str, Any]) -> str | None:
    for name in _ERROR_FIELDS:
        value = row.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def _failed(row: Mapping[str, Any]) -> bool:
    status = _status(row)
    failed = row.get("failed") is True or _error_text(row) is not None
    return (status is not None and status >= 400) or failed


def _kind(row: Mapping[str, Any]) -> str:
    return str(row.get("resourceType") or row.get("type") or "").lower()


def classify_network_request_failure(row: Mapping[str, Any]) -> NetworkFailure:
    """Decide whether one request row is fine, pending, an actionable failure or benign.

    Benign means a low-impact icon miss: the file name is an icon's (`favicon.ico`,
    `apple-touch-icon.png`, `app-icon-192.png`), the resource type is image/other/unknown, and
    the server did not answer 5xx. Documents, scripts, styles, XHR/fetch and API paths are
    always actionable, whatever their file name.
    """
    status = _status(row)
    if not _failed(row):
        if status is None:
            return NetworkFailure("pending", "no response status recorded")
        return NetworkFailure("ok", f"HTTP {status}")
    path = urlsplit(str(row.get("url") or "")).path
    name = path.rsplit("/", 1)[-1]
    kind = _kind(row)
    what = f"HTTP {status}" if status is not None else (_error_text(row) or "failed")
    if kind in _ACTIONABLE_KINDS:
        return NetworkFailure("actionable", f"{kind} request failed ({what})")
    if _API_HINT.search(path):
        return NetworkFailure("actionable", f"API request failed ({what})")
    server_error = status is not None and status >= 500
    if _ICON_NAME.match(name) and kind in _ICON_KINDS and not server_error:
        return NetworkFailure("benign", f"icon request failed ({what}); low impact")
    if kind in ("image", "media", "font"):
        return NetworkFailure("actionable", f"{kind} failed to load ({what})")
    return NetworkFailure("actionable", f"request failed ({what})")


def summarize_network_failures(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Actionable and benign failure lines, for QA verdicts and presentation."""
    actionable: list[str] = []
    benign: list[str] = []
    for row in rows:
        verdict = classify_network_request_failure(row)
        line = f"{row.get('method', 'GET')} {redact_url(str(row.get('url', '')))}: {verdict.reason}"
        if verdict.verdict == "actionable":
            actionable.append(line)
        elif verdict.verdict == "benign":
            benign.append(line)
    return {"actionable": actionable, "benign": benign}


def request_rows(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    for key in ("requests", "items", "entries"):
        rows = data.get(key)
        if isinstance(rows, list):
            return [r for r in rows if isinstance(r, Mapping)]
    return []


def network_lines(data: Mapping[str, Any]) -> list[str]:
    """Failed rows first, each labelled actionable or benign (so a favicon miss does not read
    like a broken API), then the rest; headers and bodies stay in details."""
    rows = request_rows(data)
    ranked = sorted(rows, key=lambda r: 0 if _failed(r) else 1)
    verdicts = [classify_network_request_failure(r).verdict for r in rows]
    failed = sum(1 for r in rows if _failed(r))
    lines = [
        f"{len(rows)} request(s); {failed} failed ({verdicts.count('actionable')} actionable, "
        f"{verdicts.count('benign')} benign)"
    ]
    for row in ranked[:MAX_ROWS]:
        status = _status(row)
        shown = status if status is not None else (_error_text(row) or "pending")
        kind = row.get("resourceType") or row.get("type") or "?"
        url = redact_url(str(row.get("url", "")))
        verdict = classify_network_request_failure(row)
        label = f" {verdict.verdict}: {verdict.reason}" if _failed(row) else ""
        lines.append(
            f"{shown} {row.get('method', 'GET')} {kind} {url} [{row.get('requestId', '')}]{label}"
        )
    if len(rows) > MAX_ROWS:
        lines.append(f"... {len(rows) - MAX_ROWS} more in details.data")
    return lines


def safe_request_id(row: Mapping[str, Any]) -> str | None:
    """The row's request id when it is safe to echo into an exact follow-up argv."""
    ident = row.get("requestId")
    ok = isinstance(ident, str) and re.fullmatch(r"[\w.:-]{1,64}", ident or "")
    return ident if ok and isinstance(ident, str) else None


def select_request_id(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """One safe request id to inspect: actionable failures, then API rows, then benign, then
    the first row with an id."""
    safe = safe_request_id
    verdicts = [(classify_network_request_failure(r).verdict, r) for r in rows]
    api = [r for v, r in verdicts if _API_HINT.search(urlsplit(str(r.get("url", ""))).path)]
    for group in (
        [r for v, r in verdicts if v == "actionable"],
        api,
        [r for v, r in verdicts if v == "benign"],
        list(rows),
    ):
        for row in group:
            ident = safe(row)
            if ident:
                return ident
    return None


def console_lines(data: Mapping[str, Any]) -> list[str]:
    messages = data.get("messages")
    if not isinstance(messages, list):
        return []
    lines = [f"{len(messages)} console message(s)"]
    for message in messages[-MAX_ROWS:]:
        if isinstance(message, Mapping):
            lines.append(f"[{message.get('type', 'log')}] {message.get('text', '')}")
    return lines


def error_lines(data: Mapping[str, Any]) -> list[str]:
    errors = data.get("errors")
    if not isinstance(errors, list):
        return []
    lines = [f"{len(errors)} page error(s)"]
    for error in errors[-MAX_ROWS:]:
        if isinstance(error, Mapping):
            first = str(error.get("text", "")).split("\n", 1)[0]
            where = f" (line {error['line']})" if error.get("line") is not None else ""
            lines.append(f"- {first}{where}")
    return lines
