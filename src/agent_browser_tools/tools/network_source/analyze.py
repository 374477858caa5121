"""Failed-request analysis for `agent_browser_network_source` (pure).

Input: the executor's (already redacted) batch rows of `network request` / `network requests`.
Output: the failed requests (HTTP >= 400, `failed`, or an error text), the needles to search
the workspace for, initiator candidates when the engine reports initiator metadata, and the
final `networkSourceLookup` value with one of three statuses:

- `no-failed-requests`: nothing matching the lookup failed;
- `failed-requests-found`: failures with at least one candidate;
- `no-candidates`: failures, but neither initiator metadata nor a workspace literal.

Candidates are hints, never blame: a literal can be dead code, an initiator can be a library.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from agent_browser_tools.redaction import redact_text, redact_url
from agent_browser_tools.results.diagnostics import (
    NetworkFailure,
    classify_network_request_failure,
    request_rows,
    safe_request_id,
)
from agent_browser_tools.results.url_needles import derive_needles
from agent_browser_tools.tools.network_source.workspace import Match, Needle

MAX_NEEDLES = 8
MAX_FAILED = 20
NO_INITIATOR = (
    "the engine reported no initiator or stack metadata for these requests (engine 0.39.4 "
    "request rows carry none), so candidates come from workspace URL literals only"
)


@dataclass(frozen=True)
class FailedRequest:
    row: Mapping[str, Any]
    verdict: NetworkFailure

    @property
    def url(self) -> str:
        return redact_url(str(self.row.get("url") or ""))

    @property
    def label(self) -> str:
        return f"{self.row.get('method') or 'GET'} {self.url} ({self.verdict.reason})"


@dataclass
class Rows:
    """The request rows the batch returned, deduplicated, plus what could not be read."""

    rows: list[Mapping[str, Any]]
    limitations: list[str]


def rows_from_steps(steps: Sequence[Any]) -> Rows:
    out = Rows(rows=[], limitations=[])
    seen: set[str] = set()
    for step in steps:
        if not isinstance(step, Mapping):
            continue
        command = [str(t) for t in step.get("command") or []]
        if not step.get("success"):
            error = redact_text(str(step.get("error") or "failed"))
            out.limitations.append(f"`{' '.join(command)}` failed: {error}")
            continue
        result = step.get("result")
        if not isinstance(result, Mapping):
            continue
        found = [result] if command[:2] == ["network", "request"] else request_rows(result)
        for row in found:
            ident = str(row.get("requestId") or id(row))
            if ident not in seen:
                seen.add(ident)
                out.rows.append(row)
    return out


def failed_requests(rows: Sequence[Mapping[str, Any]]) -> list[FailedRequest]:
    """Failed rows, actionable ones first (a missing favicon is listed, but last)."""
    failed = [
        FailedRequest(row, verdict)
        for row in rows
        if (verdict := classify_network_request_failure(row)).verdict in ("actionable", "benign")
    ]
    return sorted(failed, key=lambda f: 0 if f.verdict.verdict == "actionable" else 1)


def pending_count(rows: Sequence[Mapping[str, Any]]) -> int:
    return sum(1 for r in rows if classify_network_request_failure(r).verdict == "pending")


def needles_for(failed: Sequence[FailedRequest]) -> list[Needle]:
    """At most `MAX_NEEDLES`, taken round-robin so each failed URL gets its best needles."""
    per_request = [derive_needles(f.url) for f in failed[:MAX_FAILED]]
    needles: list[Needle] = []
    seen: set[str] = set()
    for rank in range(max((len(n) for n in per_request), default=0)):
        for index, options in enumerate(per_request):
            if rank < len(options) and options[rank] not in seen and len(needles) < MAX_NEEDLES:
                seen.add(options[rank])
                needles.append(Needle(text=options[rank], rank=rank, request=index))
    return needles


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def initiator(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """The engine's initiator metadata (CDP `Network.Initiator` shape), 1-based, redacted."""
    raw = row.get("initiator")
    if isinstance(raw, str) and raw:
        return {"type": raw}
    if not isinstance(raw, Mapping):
        return None
    frame: Mapping[str, Any] = raw
    stack = raw.get("stack")
    frames = stack.get("callFrames") if isinstance(stack, Mapping) else None
    if isinstance(frames, list):
        top = next((f for f in frames if isinstance(f, Mapping) and f.get("url")), None)
        frame = top if top is not None else raw
    out: dict[str, Any] = {"type": str(raw.get("type") or "other")}
    if isinstance(frame.get("url"), str) and frame["url"]:
        out["url"] = redact_url(frame["url"])
    line, column = _int(frame.get("lineNumber")), _int(frame.get("columnNumber"))
    if line is not None:
        out["line"] = line + 1
    if column is not None:
        out["column"] = column + 1
    if isinstance(frame.get("functionName"), str) and frame["functionName"]:
        out["functionName"] = frame["functionName"]
    return out


def describe(failed: FailedRequest) -> dict[str, Any]:
    row = failed.row
    entry: dict[str, Any] = {"url": failed.url, "method": str(row.get("method") or "GET")}
    if (ident := safe_request_id(row)) is not None:
        entry["requestId"] = ident
    if isinstance(status := row.get("status"), int):
        entry["status"] = status
    for key in ("error", "errorText", "failureText"):
        if isinstance(row.get(key), str) and row[key]:
            entry["error"] = redact_text(row[key])
            break
    if isinstance(kind := row.get("resourceType") or row.get("type"), str):
        entry["resourceType"] = kind
    headers = row.get("headers")
    referer = headers.get("Referer") if isinstance(headers, Mapping) else None
    if isinstance(referer, str) and referer:
        entry["referer"] = redact_url(referer)  # the page that issued the request
    entry["classification"] = failed.verdict.verdict
    entry["reason"] = failed.verdict.reason
    if (found := initiator(row)) is not None:
        entry["initiator"] = found
    return entry


def initiator_candidates(failed: Sequence[FailedRequest]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in failed[:MAX_FAILED]:
        found = initiator(item.row)
        if found is None or "url" not in found:
            continue
        candidate = {
            "source": "initiator",
            "confidence": "high" if "line" in found else "medium",
            "evidence": f"engine initiator ({found['type']}) of failed request {item.label}",
            **{k: v for k, v in found.items() if k != "type"},
        }
        if (ident := safe_request_id(item.row)) is not None:
            candidate["requestId"] = ident
        out.append(candidate)
    return out


def workspace_candidates(
    matches: Sequence[Match], failed: Sequence[FailedRequest]
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for match in matches:
        item = failed[match.needle.request]
        path = urlsplit(item.url).path
        full = bool(path) and path.rstrip("/") in match.needle.text
        candidate: dict[str, Any] = {
            "source": "workspace-url-literal",
            "confidence": "medium" if full else "low",
            "evidence": f"line contains {match.needle.text!r} from failed request {item.label}",
            "file": match.file,
            "line": match.line,
            "column": match.column,
            "text": match.text,
            "needle": match.needle.text,
        }
        if (ident := safe_request_id(item.row)) is not None:
            candidate["requestId"] = ident
        out.append(candidate)
    return out
