"""The `networkSourceLookup` value and its one-line summary (pure).

`{status, failedRequests, candidates, limitations, summary}`; the status is chosen from the
evidence only (`choose_status`), so "no candidates" never turns a successful read into a
failure and never claims the request did not fail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from agent_browser_tools.tools.network_source.analyze import (
    MAX_FAILED,
    NO_INITIATOR,
    FailedRequest,
    Rows,
    describe,
    initiator_candidates,
    pending_count,
    workspace_candidates,
)
from agent_browser_tools.tools.network_source.workspace import MAX_MATCHES, SearchOutcome

Status = Literal["failed-requests-found", "no-failed-requests", "no-candidates"]
MAX_CANDIDATES = MAX_MATCHES + MAX_FAILED
SHOWN_CANDIDATES = 5
DISCLAIMER = "Candidates are hints from metadata and URL literals, not proof of blame."


def choose_status(failed: int, candidates: int) -> Status:
    if failed == 0:
        return "no-failed-requests"
    return "failed-requests-found" if candidates else "no-candidates"


def _where(candidate: Mapping[str, Any]) -> str:
    place = candidate.get("file") or candidate.get("url") or "?"
    for key in ("line", "column"):
        if key in candidate:
            place = f"{place}:{candidate[key]}"
    return str(place)


def summarize(
    status: Status,
    failed: Sequence[FailedRequest],
    candidates: Sequence[Mapping[str, Any]],
    read: int,
) -> str:
    if status == "no-failed-requests":
        return f"No failed requests among the {read} request(s) the lookup read."
    first = failed[0].label
    more = f" (+{len(failed) - 1} more)" if len(failed) > 1 else ""
    if status == "no-candidates":
        return (
            f"{len(failed)} failed request(s): {first}{more}; no initiator metadata or "
            "workspace URL literal points at its source."
        )
    shown = ", ".join(_where(c) for c in candidates[:SHOWN_CANDIDATES])
    extra = len(candidates) - SHOWN_CANDIDATES
    shown += f" (+{extra} more)" if extra > 0 else ""
    return (
        f"{len(failed)} failed request(s): {first}{more}; {len(candidates)} source "
        f"candidate(s): {shown}. {DISCLAIMER}"
    )


def build(
    rows: Rows,
    failed: Sequence[FailedRequest],
    search: SearchOutcome,
    *,
    searched: bool,
) -> dict[str, Any]:
    """The lookup for the analysed rows and the workspace search outcome."""
    candidates = initiator_candidates(failed) + workspace_candidates(search.matches, failed)
    candidates = candidates[:MAX_CANDIDATES]
    limitations = list(rows.limitations)
    if failed and not any("initiator" in describe(f) for f in failed):
        limitations.append(NO_INITIATOR)
    if len(failed) > MAX_FAILED:
        limitations.append(f"{len(failed)} failed requests; the first {MAX_FAILED} are listed")
    pending = pending_count(rows.rows)
    if pending:
        limitations.append(
            f"{pending} request(s) have no response status: still pending, or failed without "
            "a response (the engine records no failure reason for those), so they are not "
            "counted as failed"
        )
    if failed and searched:
        limitations.append(
            f"workspace URL-literal search read {search.files_scanned} source file(s) under the "
            "execution directory (dependency, build and hidden directories skipped)"
        )
    elif failed:
        limitations.append("no URL needle could be derived, so the workspace was not searched")
    limitations += search.limitations
    status = choose_status(len(failed), len(candidates))
    return {
        "status": status,
        "failedRequests": [describe(f) for f in failed[:MAX_FAILED]],
        "candidates": candidates,
        "limitations": limitations,
        "summary": summarize(status, failed, candidates, len(rows.rows)),
    }


def candidate_lines(lookup: Mapping[str, Any]) -> list[str]:
    """Visible lines for the candidates (the summary names only their places)."""
    lines: list[str] = []
    for candidate in lookup.get("candidates") or []:
        text = candidate.get("text") or candidate.get("functionName") or ""
        lines.append(f"- {_where(candidate)} [{candidate['confidence']}] {text}".rstrip())
    return lines
