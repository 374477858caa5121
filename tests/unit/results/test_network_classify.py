"""`classify_network_request_failure` / `summarize_network_failures` (pure).

Row shapes follow engine 0.39.4 `network requests` output: `resourceType` is capitalized
(`Document`, `Fetch`, `Other`, `Image`), a favicon miss is `Other` with status 404, and a
request that never got a response has no `status` at all.
"""

from __future__ import annotations

from typing import Any

import pytest

from agent_browser_tools.results.diagnostics import (
    classify_network_request_failure,
    network_lines,
    request_rows,
    select_request_id,
    summarize_network_failures,
)

BASE = "http://127.0.0.1:8000"


def _row(path: str, kind: str, status: int | None = 404, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {"url": BASE + path, "method": "GET", "resourceType": kind, **extra}
    if status is not None:
        row["status"] = status
    return row


def _verdict(row: dict[str, Any]) -> str:
    return classify_network_request_failure(row).verdict


@pytest.mark.parametrize(
    "row",
    [
        _row("/missing.html", "Document", 404),
        _row("/", "Document", 500),
        _row("/app.js", "Script", 404),
        _row("/site.css", "Stylesheet", 404),
        _row("/api/fail", "Fetch", 500),
        _row("/data", "XHR", 403),
        _row("/api/items", "Other", 500),
        _row("/v2/users", "", 404),
        _row("/config.json", "Other", 404),
        _row("/graphql", "Other", 502),
    ],
    ids=lambda r: f"{r['resourceType'] or 'untyped'} {r['url'].removeprefix(BASE)}",
)
def test_documents_scripts_and_apis_are_actionable(row: dict[str, Any]) -> None:
    assert _verdict(row) == "actionable"


def test_reasons_name_the_kind_and_status() -> None:
    assert classify_network_request_failure(_row("/api/fail", "Fetch", 500)).reason == (
        "fetch request failed (HTTP 500)"
    )
    api = classify_network_request_failure(_row("/api/items", "Other", 500))
    assert api.reason == "API request failed (HTTP 500)"


@pytest.mark.parametrize(
    "row",
    [
        _row("/favicon.ico", "Other", 404),
        _row("/favicon.ico", "", 404),
        _row("/static/favicon-32x32.png", "Image", 404),
        _row("/apple-touch-icon-precomposed.png", "Other", 404),
        _row("/img/app-icon-192.png", "Image", 410),
        _row("/icons.svg", "Image", 404),
        _row("/favicon.ico", "Other", None, errorText="net::ERR_ABORTED"),
    ],
    ids=lambda r: r["url"].removeprefix(BASE),
)
def test_icon_misses_are_benign(row: dict[str, Any]) -> None:
    verdict = classify_network_request_failure(row)
    assert verdict.verdict == "benign" and "low impact" in verdict.reason


@pytest.mark.parametrize(
    "row",
    [
        _row("/favicon.ico", "Other", 500),  # the server failed, not a missing file
        _row("/favicon.ico", "Script", 404),  # metadata says it is not an icon
        _row("/api/favicon.png", "Other", 404),  # an API path
        _row("/images/silicon-wafer.png", "Image", 404),  # "icon" only as a substring
        _row("/iconography.png", "Image", 404),
    ],
    ids=lambda r: f"{r['resourceType']} {r['status']} {r['url'].removeprefix(BASE)}",
)
def test_icon_lookalikes_stay_actionable(row: dict[str, Any]) -> None:
    assert _verdict(row) == "actionable"


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("Image", "image failed to load (HTTP 404)"), ("Font", "font failed to load (HTTP 404)")],
)
def test_broken_images_and_fonts_are_actionable(kind: str, expected: str) -> None:
    verdict = classify_network_request_failure(_row("/missing.png", kind, 404))
    assert verdict.verdict == "actionable" and verdict.reason == expected


def test_successful_and_pending_rows_are_not_failures() -> None:
    assert _verdict(_row("/", "Document", 200)) == "ok"
    assert _verdict(_row("/moved", "Document", 302)) == "ok"
    assert _verdict(_row("/nope", "Fetch", None)) == "pending"
    assert _verdict({**_row("/x", "Fetch", None), "status": True}) == "pending"


def test_error_fields_without_a_status_are_failures() -> None:
    for field in ("error", "errorText", "failureText"):
        row = _row("/api/data", "XHR", None, **{field: "net::ERR_CONNECTION_REFUSED"})
        verdict = classify_network_request_failure(row)
        assert verdict.verdict == "actionable"
        assert verdict.reason == "xhr request failed (net::ERR_CONNECTION_REFUSED)"
    assert _verdict(_row("/x.js", "Script", None, failed=True)) == "actionable"


def test_string_statuses_are_read() -> None:
    assert _verdict({**_row("/api/x", "Fetch", None), "status": "503"}) == "actionable"


def test_summary_splits_actionable_and_benign_lines() -> None:
    rows = [
        _row("/", "Document", 200),
        _row("/api/fail", "Fetch", 500),
        _row("/favicon.ico", "Other", 404),
        _row("/pending", "Fetch", None),
    ]
    summary = summarize_network_failures(rows)
    assert summary == {
        "actionable": [f"GET {BASE}/api/fail: fetch request failed (HTTP 500)"],
        "benign": [f"GET {BASE}/favicon.ico: icon request failed (HTTP 404); low impact"],
    }


def test_summary_redacts_secret_query_values() -> None:
    row = _row("/api/x?token=abcdef0123456789", "Fetch", 500)
    line = summarize_network_failures([row])["actionable"][0]
    assert "abcdef0123456789" not in line


def test_request_rows_and_selection_prefer_actionable_failures() -> None:
    data = {
        "requests": [
            {**_row("/favicon.ico", "Other", 404), "requestId": "1.1"},
            {**_row("/api/fail", "Fetch", 500), "requestId": "1.2"},
            "not a row",
        ]
    }
    rows = request_rows(data)
    assert len(rows) == 2
    assert select_request_id(rows) == "1.2"
    assert request_rows({"items": []}) == [] and request_rows({}) == []


def test_network_lines_show_error_text_for_status_less_failures() -> None:
    row = _row("/api/data", "XHR", None, errorText="net::ERR_FAILED", requestId="7")
    lines = network_lines({"requests": [row]})
    assert lines[0] == "1 request(s); 1 failed (1 actionable, 0 benign)"
    assert lines[1].startswith("net::ERR_FAILED GET XHR")


def test_network_lines_label_failed_rows_actionable_or_benign() -> None:
    icon = _row("/favicon.ico", "Other", 404, requestId="1.1")
    api = _row("/api/orders", "Fetch", 500, requestId="1.2")
    ok = _row("/", "Document", 200, requestId="1.3")
    lines = network_lines({"requests": [ok, icon, api]})
    assert lines[0] == "3 request(s); 2 failed (1 actionable, 1 benign)"
    by_id = {line.split("[")[1].split("]")[0]: line for line in lines[1:]}
    assert " benign: icon request failed" in by_id["1.1"]
    assert " actionable: " in by_id["1.2"]
    assert "actionable" not in by_id["1.3"] and "benign" not in by_id["1.3"]
