"""Provider request building, response normalizing, de-duplication and presentation (pure)."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import pytest

from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.tools.web_search.providers import (
    BRAVE_TIMEOUT_S,
    EXA_SYSTEM_PROMPT,
    SEARCH_TIMEOUTS_S,
    ResponseShapeError,
    build_brave_request,
    build_exa_request,
    exa_published_window,
    normalize_brave,
    normalize_exa,
    normalize_url,
    select_window,
)
from agent_browser_tools.tools.web_search.render import (
    SearchOutcome,
    failure_result,
    result_details,
    success_result,
)
from agent_browser_tools.tools.web_search.schema import WebSearchInput

KEY = "sk-exa-7f3Q9xK2mP8vL4nR6tY1wZ5"
NOW = datetime(2026, 6, 2, 12, 0, 0, 250_000, tzinfo=UTC)


def inp(**fields: Any) -> WebSearchInput:
    return WebSearchInput.model_validate({"query": "search text", **fields})


def exa(search_type: str = "auto", **fields: Any) -> Any:
    return build_exa_request(inp(**fields), search_type, key=KEY, base_url="https://e", now=NOW)


def test_exa_minimal_request() -> None:
    request = exa()
    assert (request.method, request.url, request.timeout_s) == ("POST", "https://e/search", 15.0)
    assert request.json == {
        "query": "search text",
        "type": "auto",
        "numResults": 5,
        "contents": {"highlights": True},
        "systemPrompt": EXA_SYSTEM_PROMPT,
    }
    assert dict(request.headers) == {
        "x-api-key": KEY,
        "content-type": "application/json",
        "accept": "application/json",
    }
    assert request.params is None
    assert KEY not in repr(request)


def test_exa_request_with_every_option() -> None:
    request = exa(
        "deep-lite",
        includeDomains=["docs.exa.ai"],
        excludeDomains=["archive.example"],
        category="publication",
        additionalQueries=["Exa search API defaults"],
        highlightsDynamic=True,
        count=4,
        offset=3,
        country="us",
        searchLang="en",
        safesearch="strict",
        freshness="pw",
    )
    assert request.json == {
        "query": "search text",
        "type": "deep-lite",
        "numResults": 7,
        "contents": {"highlights": {"dynamic": True}},
        "systemPrompt": EXA_SYSTEM_PROMPT,
        "includeDomains": ["docs.exa.ai"],
        "excludeDomains": ["archive.example"],
        "category": "publication",
        "additionalQueries": ["Exa search API defaults"],
        "userLocation": "US",
        "moderation": True,
        "startPublishedDate": "2026-05-26T12:00:00.250Z",
    }
    assert request.headers["Exa-Beta"] == "dynamic-highlights-2026-08-28"
    assert request.timeout_s == 45.0


@pytest.mark.parametrize(("safesearch", "moderation"), [("off", None), ("moderate", True)])
def test_exa_moderation_mapping(safesearch: str, moderation: bool | None) -> None:
    assert exa(safesearch=safesearch).json.get("moderation") is moderation


@pytest.mark.parametrize(
    ("freshness", "expected"),
    [
        ("pd", {"startPublishedDate": "2026-06-01T12:00:00.250Z"}),
        ("pm", {"startPublishedDate": "2026-05-02T12:00:00.250Z"}),
        ("py", {"startPublishedDate": "2025-06-02T12:00:00.250Z"}),
        (
            "2026-01-01to2026-03-31",
            {
                "startPublishedDate": "2026-01-01T00:00:00.000Z",
                "endPublishedDate": "2026-03-31T23:59:59.999Z",
            },
        ),
    ],
)
def test_exa_freshness_mapping(freshness: str, expected: dict[str, str]) -> None:
    assert exa_published_window(freshness, NOW) == expected


@pytest.mark.parametrize(
    ("search_type", "seconds"),
    [
        ("auto", 15),
        ("fast", 15),
        ("instant", 15),
        ("deep-lite", 45),
        ("deep", 60),
        ("deep-reasoning", 90),
    ],
)
def test_timeout_per_search_type(search_type: str, seconds: float) -> None:
    assert SEARCH_TIMEOUTS_S[search_type] == seconds
    assert exa(search_type).timeout_s == seconds


def test_brave_request_with_every_option() -> None:
    request = build_brave_request(
        inp(count=10, offset=9, country="gb", searchLang="en-gb", safesearch="off", freshness="pm"),
        key=KEY,
        base_url="https://b/res/v1",
    )
    assert (request.method, request.url) == ("GET", "https://b/res/v1/web/search")
    assert request.timeout_s == BRAVE_TIMEOUT_S == 15.0
    assert dict(request.params or {}) == {
        "q": "search text",
        "count": "19",
        "offset": "0",
        "country": "GB",
        "search_lang": "en-gb",
        "safesearch": "off",
        "freshness": "pm",
    }
    assert dict(request.headers) == {"X-Subscription-Token": KEY, "accept": "application/json"}
    assert request.json is None
    assert KEY not in repr(request)


def test_brave_minimal_request() -> None:
    request = build_brave_request(inp(), key=KEY, base_url="https://b")
    assert dict(request.params or {}) == {"q": "search text", "count": "5", "offset": "0"}


EXA_BODY = {
    "requestId": "b5947044c4b78efa9552a7c89b306d95",
    "resolvedSearchType": "neural",
    "results": [
        {
            "id": "https://docs.example.com/a",
            "title": "Doc &amp; <b>guide</b>",
            "url": "https://docs.example.com/a",
            "publishedDate": "2026-06-02T00:00:00.000Z",
            "author": "Someone",
            "highlights": ["First   excerpt\n here", "Second"],
            "highlightScores": [0.9, 0.4],
        },
        {"title": "No highlights", "url": "https://www.example.org/b", "summary": "Sum"},
        {"title": "no url"},
        "garbage",
    ],
}

BRAVE_BODY = {
    "type": "search",
    "query": {"original": "search text", "more_results_available": True},
    "web": {
        "type": "search",
        "results": [
            {
                "title": "Brave &quot;result&quot;",
                "url": "https://example.com/",
                "description": "Compact <strong>summary</strong>",
                "page_age": "2026-06-02T08:00:00",
                "age": "June 2, 2026",
                "language": "en",
                "profile": {"name": "Example", "url": "https://example.com/"},
                "meta_url": {"hostname": "example.com"},
            },
            {"title": "Bare", "url": "https://bare.example/x", "meta_url": {"hostname": "bare"}},
        ],
    },
}


def test_normalize_exa() -> None:
    normalized = normalize_exa(EXA_BODY)
    assert normalized.request_id == "b5947044c4b78efa9552a7c89b306d95"
    assert normalized.returned_query is None
    assert normalized.rows == [
        {
            "title": "Doc & guide",
            "url": "https://docs.example.com/a",
            "description": "First excerpt here",
            "highlights": ["First excerpt here", "Second"],
            "source": "docs.example.com",
            "pageDate": "2026-06-02T00:00:00.000Z",
        },
        {
            "title": "No highlights",
            "url": "https://www.example.org/b",
            "description": "Sum",
            "source": "example.org",
        },
    ]


def test_normalize_brave() -> None:
    normalized = normalize_brave(BRAVE_BODY)
    assert normalized.returned_query == "search text"
    assert normalized.request_id is None
    assert normalized.rows == [
        {
            "title": 'Brave "result"',
            "url": "https://example.com/",
            "description": "Compact summary",
            "source": "Example",
            "pageDate": "2026-06-02T08:00:00",
            "age": "June 2, 2026",
            "language": "en",
        },
        {"title": "Bare", "url": "https://bare.example/x", "source": "bare"},
    ]


def test_brave_altered_query_and_missing_web_section() -> None:
    body = {"query": {"original": "serch", "altered": "search"}}
    normalized = normalize_brave(body)
    assert (normalized.rows, normalized.returned_query) == ([], "search")


@pytest.mark.parametrize("body", [[], {"results": None}, "text"])
def test_exa_shape_errors(body: Any) -> None:
    with pytest.raises(ResponseShapeError):
        normalize_exa(body)


def test_brave_shape_errors() -> None:
    with pytest.raises(ResponseShapeError):
        normalize_brave([])
    with pytest.raises(ResponseShapeError):
        normalize_brave({"web": {"results": "x"}})


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ("https://Example.COM/a", "https://example.com/a", True),
        ("HTTPS://example.com/a#frag", "https://example.com/a", True),
        ("https://example.com:443/a", "https://example.com/a", True),
        ("http://example.com:80", "http://example.com/", True),
        ("https://example.com/a", "https://example.com/a/", False),
        ("https://example.com/a?x=1", "https://example.com/a?x=2", False),
        ("https://example.com/A", "https://example.com/a", False),
        ("http://example.com/a", "https://example.com/a", False),
        ("https://example.com:8443/a", "https://example.com/a", False),
    ],
)
def test_url_normalization_is_exact(a: str, b: str, equal: bool) -> None:
    assert (normalize_url(a) == normalize_url(b)) is equal


def _rows(*urls: str) -> list[dict[str, Any]]:
    return [{"title": f"t{i}", "url": url} for i, url in enumerate(urls)]


def test_window_dedupes_in_order_without_replacement() -> None:
    rows = _rows("https://a/", "https://A/#x", "https://b/", "https://a/?q", "https://c/")
    kept, removed = select_window(rows, count=4, offset=0)
    assert [row["url"] for row in kept] == ["https://a/", "https://b/", "https://a/?q"]
    assert removed == 1


def test_window_skips_results_not_pages_and_drops_urls_seen_before() -> None:
    rows = _rows("https://a/", "https://b/", "https://c/", "https://a/", "https://d/")
    kept, removed = select_window(rows, count=3, offset=2)
    assert [row["url"] for row in kept] == ["https://c/", "https://d/"]
    assert removed == 1


def test_window_with_fewer_rows_than_asked() -> None:
    assert select_window(_rows("https://a/"), count=5, offset=2) == ([], 0)


def _outcome(provider: str, removed: int = 0, **fields: Any) -> SearchOutcome:
    rows = normalize_exa(EXA_BODY).rows if provider == "exa" else normalize_brave(BRAVE_BODY).rows
    return SearchOutcome(
        provider=provider,
        inp=inp(**fields),
        search_type="deep-lite" if provider == "exa" else None,
        rows=rows,
        duplicates_removed=removed,
        returned_query="search text" if provider == "brave" else None,
        request_id="req-1" if provider == "exa" else None,
        fetched_at=NOW,
    )


def test_exa_details_follow_the_contract() -> None:
    details = result_details(_outcome("exa", removed=1))
    assert list(details) == [
        "success",
        "resultCategory",
        "successCategory",
        "provider",
        "query",
        "returnedQuery",
        "count",
        "offset",
        "searchType",
        "requestId",
        "duplicatesRemoved",
        "fetchedAt",
        "results",
    ]
    assert details["resultCategory"] == "success" and details["successCategory"] == "completed"
    assert details["returnedQuery"] == "search text"
    assert details["fetchedAt"] == "2026-06-02T12:00:00.250Z"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", details["fetchedAt"])


def test_brave_details_omit_search_type_request_id_and_zero_duplicates() -> None:
    details = result_details(_outcome("brave"))
    for absent in ("searchType", "requestId", "duplicatesRemoved"):
        assert absent not in details
    assert details["provider"] == "brave"


def test_text_is_compact_numbered_prose() -> None:
    result = success_result(_outcome("brave", removed=2, offset=3), [KEY])
    assert not result.is_error
    assert result.text.splitlines() == [
        'Brave search for "search text": 2 results, skipping 3.',
        '4. Brave "result"',
        "   https://example.com/",
        "   2026-06-02 · Example",
        "   Compact summary",
        "5. Bare",
        "   https://bare.example/x",
        "   bare",
        "2 duplicate URLs removed (not replaced).",
    ]


def test_empty_results_text() -> None:
    outcome = _outcome("exa")
    empty = SearchOutcome(**{**outcome.__dict__, "rows": []})
    assert success_result(empty, []).text == 'Exa search (deep-lite) for "search text": no results.'


def test_secrets_are_scrubbed_everywhere() -> None:
    outcome = _outcome("exa")
    leaked = SearchOutcome(
        **{**outcome.__dict__, "rows": [{"title": f"t {KEY}", "url": f"https://x/?k={KEY}"}]}
    )
    result = success_result(leaked, [KEY])
    assert KEY not in result.text and KEY not in json.dumps(result.details)
    failed = failure_result(FailureCategory.UPSTREAM_ERROR, f"bad {KEY}", [KEY], query=KEY)
    assert failed.is_error
    assert KEY not in failed.text and KEY not in json.dumps(failed.details)
    assert "failureCategory: upstream-error" in failed.text
