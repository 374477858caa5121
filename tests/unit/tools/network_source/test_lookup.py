"""Failed-request analysis and the `networkSourceLookup` value (pure)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_browser_tools.tools.network_source import analyze, lookup
from agent_browser_tools.tools.network_source.workspace import Match, Needle, SearchOutcome

ORDERS = "http://127.0.0.1:8123/api/v1/orders/missing"


def _row(url: str, ident: str, **fields: Any) -> dict[str, Any]:
    return {"url": url, "requestId": ident, "method": "GET", "resourceType": "Fetch", **fields}


def _steps(*rows: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "command": ["network", "requests", "--filter", "x"],
            "success": True,
            "result": {"requests": list(rows)},
        }
    ]


@pytest.mark.parametrize(
    ("failed", "candidates", "status"),
    [
        (0, 0, "no-failed-requests"),
        (0, 3, "no-failed-requests"),
        (2, 0, "no-candidates"),
        (1, 1, "failed-requests-found"),
    ],
)
def test_the_status_follows_the_evidence(failed: int, candidates: int, status: str) -> None:
    assert lookup.choose_status(failed, candidates) == status


def test_http_errors_failed_flags_and_error_texts_fail_but_pending_rows_do_not() -> None:
    rows = analyze.rows_from_steps(
        _steps(
            _row(ORDERS, "1", status=404),
            _row("http://h.test/api/a", "2", failed=True),
            _row("http://h.test/api/b", "3", errorText="net::ERR_CONNECTION_REFUSED"),
            _row("http://h.test/ok", "4", status=200),
            _row("http://h.test/pending", "5"),
            _row("http://h.test/favicon.ico", "6", status=404, resourceType="Other"),
        )
    )
    failed = analyze.failed_requests(rows.rows)
    assert [f.row["requestId"] for f in failed] == ["1", "2", "3", "6"]  # benign icon last
    assert failed[-1].verdict.verdict == "benign"
    assert analyze.pending_count(rows.rows) == 1


def test_a_failed_native_step_is_a_limitation_and_duplicate_rows_count_once() -> None:
    steps = [
        {"command": ["network", "request", "9"], "success": False, "error": "Request not found"},
        {"command": ["network", "request", "1"], "success": True, "result": _row(ORDERS, "1")},
        *_steps(_row(ORDERS, "1", status=404)),
    ]
    rows = analyze.rows_from_steps(steps)
    assert len(rows.rows) == 1
    assert rows.limitations == ["`network request 9` failed: Request not found"]


def test_needles_are_shared_round_robin_and_capped_at_eight() -> None:
    failed = analyze.failed_requests(
        [_row(f"https://h{i}.example.com/api/v{i}/a/b/c", str(i), status=500) for i in range(4)]
    )
    needles = analyze.needles_for(failed)
    assert len(needles) == analyze.MAX_NEEDLES
    assert [n.request for n in needles[:4]] == [0, 1, 2, 3]  # every URL gets its best needle
    assert all(n.rank == 0 for n in needles[:4])


def test_initiator_metadata_becomes_a_one_based_candidate() -> None:
    stack = {
        "callFrames": [
            {"functionName": "", "url": "", "lineNumber": 0, "columnNumber": 0},
            {"functionName": "load", "url": "http://h.test/app.js?token=SECRETX1", "lineNumber": 9,
             "columnNumber": 4},
        ]
    }  # fmt: skip
    row = _row(ORDERS, "1", status=404, initiator={"type": "script", "stack": stack})
    row["headers"] = {"Referer": "http://h.test/page.html?token=SECRETX1"}
    failed = analyze.failed_requests([row])
    (candidate,) = analyze.initiator_candidates(failed)
    assert candidate["source"] == "initiator" and candidate["confidence"] == "high"
    assert (candidate["line"], candidate["column"], candidate["functionName"]) == (10, 5, "load")
    assert "SECRETX1" not in json.dumps(candidate)
    described = analyze.describe(failed[0])
    assert described["initiator"]["type"] == "script"
    assert described["referer"] == "http://h.test/page.html?token=[REDACTED]"
    assert "SECRETX1" not in json.dumps(described)


def test_a_lookup_with_a_workspace_match_is_found_and_says_what_it_searched() -> None:
    rows = analyze.rows_from_steps(_steps(_row(ORDERS, "31.2", status=404)))
    failed = analyze.failed_requests(rows.rows)
    match = Match("src/api.ts", 8, 33, 'fetch("/api/v1/orders/missing");', Needle(
        "/api/v1/orders/missing", 1, 0))  # fmt: skip
    search = SearchOutcome(matches=[match], files_scanned=3)
    found = lookup.build(rows, failed, search, searched=True)
    assert found["status"] == "failed-requests-found"
    (candidate,) = found["candidates"]
    assert candidate["file"] == "src/api.ts" and candidate["line"] == 8
    assert candidate["confidence"] == "medium" and candidate["requestId"] == "31.2"
    assert found["failedRequests"][0]["status"] == 404
    assert "src/api.ts:8:33" in found["summary"] and "not proof of blame" in found["summary"]
    assert any("read 3 source file(s)" in note for note in found["limitations"])
    assert any("no initiator" in note for note in found["limitations"])
    assert lookup.candidate_lines(found) == [
        '- src/api.ts:8:33 [medium] fetch("/api/v1/orders/missing");'
    ]


def test_a_suffix_match_is_low_confidence() -> None:
    rows = analyze.rows_from_steps(_steps(_row(ORDERS, "1", status=404)))
    failed = analyze.failed_requests(rows.rows)
    match = Match("src/x.ts", 1, 1, "x", Needle("/orders/missing", 4, 0))
    found = lookup.build(rows, failed, SearchOutcome(matches=[match]), searched=True)
    assert found["candidates"][0]["confidence"] == "low"


def test_failures_without_candidates_and_clean_buffers_get_their_own_status() -> None:
    rows = analyze.rows_from_steps(_steps(_row(ORDERS, "1", status=500)))
    failed = analyze.failed_requests(rows.rows)
    found = lookup.build(rows, failed, SearchOutcome(), searched=True)
    assert found["status"] == "no-candidates" and found["candidates"] == []
    clean = analyze.rows_from_steps(_steps(_row(ORDERS, "1", status=200)))
    found = lookup.build(clean, [], SearchOutcome(), searched=False)
    assert found["status"] == "no-failed-requests" and found["failedRequests"] == []
    assert found["summary"] == "No failed requests among the 1 request(s) the lookup read."


def test_request_urls_with_credentials_are_redacted_everywhere() -> None:
    url = "http://alice:hunter2pw@127.0.0.1:8123/api/v1/orders/missing?token=SECRETTOK9&page=2"
    rows = analyze.rows_from_steps(_steps(_row(url, "1", status=404)))
    failed = analyze.failed_requests(rows.rows)
    needles = analyze.needles_for(failed)
    found = lookup.build(rows, failed, SearchOutcome(), searched=bool(needles))
    shown = json.dumps(found) + json.dumps([n.text for n in needles])
    assert "hunter2pw" not in shown and "SECRETTOK9" not in shown
    assert found["failedRequests"][0]["url"].startswith("http://alice:%5BREDACTED%5D@")
