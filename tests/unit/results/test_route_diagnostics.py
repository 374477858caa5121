"""`networkRouteDiagnostics` rules: which request rows an active route may hold or break."""

from __future__ import annotations

from agent_browser_tools.results.route_diagnostics import pattern_matches, route_diagnostics
from agent_browser_tools.state.models import RouteRule

API = "http://localhost:8123/api/ok"
MOCK = RouteRule(pattern="**/api/*", mode="mock-body")


def test_route_patterns_match_like_the_engine_or_broader() -> None:
    assert pattern_matches("**/api/*", API)
    assert pattern_matches("*api*", API)
    assert pattern_matches(API, API)
    assert not pattern_matches("**/img/*", API)
    assert not pattern_matches("http://localhost:8123/api", API)  # no wildcard: whole URL


def test_a_pending_matched_row_is_a_pending_routed_request() -> None:
    (found,) = route_diagnostics([{"url": API, "requestId": "9.1", "method": "GET"}], [MOCK])
    assert found["reason"] == "pending-routed-request"
    assert found["routePattern"] == "**/api/*" and found["mode"] == "mock-body"
    assert found["requestId"] == "9.1" and found["requestUrl"] == API
    assert "**/api/*" in found["summary"]


def test_cors_looking_errors_are_named_as_such() -> None:
    row = {"url": API, "status": 0, "errorText": "net::ERR_FAILED (CORS preflight)"}
    (found,) = route_diagnostics([row], [MOCK])
    assert found["reason"] == "cors-likely-routed-request"


def test_answered_or_unmatched_rows_and_no_routes_give_nothing() -> None:
    assert route_diagnostics([{"url": API, "status": 200}], [MOCK]) == []
    assert route_diagnostics([{"url": "http://x.test/page"}], [MOCK]) == []
    assert route_diagnostics([{"url": API}], []) == []


def test_an_unsafe_request_id_is_not_echoed() -> None:
    (found,) = route_diagnostics([{"url": API, "requestId": "1; rm -rf"}], [MOCK])
    assert "requestId" not in found
