"""`agent_browser_web_search` end to end against a loopback stand-in for Exa and Brave.

The server answers in each provider's documented response shape and records every request,
so the tests assert the exact wire shape (method, path, headers, JSON body or query params),
the per-type timeouts, 429 handling, serialization and de-duplication, and that a planted
key reaches the provider header but nothing the tool returns or logs.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import shlex
import sys
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.tools import web_search
from agent_browser_tools.tools.web_search import providers
from tests.support.search_providers import (
    BRAVE_KEY,
    EXA_KEY,
    FakeProviders,
    Recorded,
    Reply,
    _urls,
    assert_no_key,
    brave_body,
    exa_body,
    make_runtime,
    search,
)


@pytest.fixture
def fake() -> Iterator[FakeProviders]:
    server = FakeProviders()
    server.thread.start()
    yield server
    server.server.shutdown()
    server.server.server_close()


# --- request shapes -------------------------------------------------------------------------


async def test_exa_request_shape_with_every_option(tmp_path: Path, fake: FakeProviders) -> None:
    rt = make_runtime(tmp_path, fake)
    result = await search(
        rt,
        provider="exa",
        searchType="deep",
        includeDomains=["docs.exa.ai", "*.example.com"],
        excludeDomains=["archive.example"],
        category="publication",
        additionalQueries=["Exa search API defaults"],
        highlightsDynamic=True,
        count=3,
        offset=2,
        country="US",
        searchLang="en",
        safesearch="moderate",
        freshness="pw",
    )
    assert not result.is_error, result.text
    [sent] = fake.requests
    assert (sent.method, sent.path) == ("POST", "/exa/search")
    assert sent.headers["x-api-key"] == EXA_KEY
    assert sent.headers["content-type"] == "application/json"
    assert sent.headers["exa-beta"] == "dynamic-highlights-2026-08-28"
    start = datetime.fromisoformat(sent.body.pop("startPublishedDate"))
    assert abs(start - (datetime.now(UTC) - timedelta(days=7))) < timedelta(minutes=5)
    assert sent.body == {
        "query": "search text",
        "type": "deep",
        "numResults": 5,
        "contents": {"highlights": {"dynamic": True}},
        "systemPrompt": providers.EXA_SYSTEM_PROMPT,
        "includeDomains": ["docs.exa.ai", "*.example.com"],
        "excludeDomains": ["archive.example"],
        "category": "publication",
        "additionalQueries": ["Exa search API defaults"],
        "userLocation": "US",
        "moderation": True,
    }
    assert "x-subscription-token" not in sent.headers


async def test_exa_defaults_and_result_details(tmp_path: Path, fake: FakeProviders) -> None:
    rt = make_runtime(tmp_path, fake, brave=None)
    result = await search(rt)
    [sent] = fake.requests
    assert "exa-beta" not in sent.headers
    assert sent.body == {
        "query": "search text",
        "type": "auto",
        "numResults": 5,
        "contents": {"highlights": True},
        "systemPrompt": providers.EXA_SYSTEM_PROMPT,
    }
    details = result.details
    assert details["provider"] == "exa" and details["searchType"] == "auto"
    assert details["requestId"] == "req-exa-1"
    assert details["returnedQuery"] == "search text"
    assert (details["count"], details["offset"]) == (5, 0)
    assert "duplicatesRemoved" not in details
    assert details["results"][0] == {
        "title": "Exa title 1",
        "url": "https://site1.example/page",
        "description": "Highlight 1",
        "highlights": ["Highlight 1"],
        "source": "site1.example",
        "pageDate": "2026-06-02T00:00:00.000Z",
    }
    assert result.text.splitlines()[:5] == [
        'Exa search (auto) for "search text": 5 results.',
        "1. Exa title 1",
        "   https://site1.example/page",
        "   2026-06-02 · site1.example",
        "   Highlight 1",
    ]


async def test_config_default_search_type_applies(tmp_path: Path, fake: FakeProviders) -> None:
    extra = 'default_search_type = "deep-lite"\n'
    rt = make_runtime(tmp_path, fake, extra_toml=extra)
    result = await search(rt, additionalQueries=["variation"])
    assert not result.is_error, result.text
    assert fake.requests[0].body["type"] == "deep-lite"
    assert fake.requests[0].body["additionalQueries"] == ["variation"]
    assert result.details["searchType"] == "deep-lite"


async def test_brave_request_shape_with_every_option(tmp_path: Path, fake: FakeProviders) -> None:
    rt = make_runtime(tmp_path, fake)
    result = await search(
        rt,
        provider="brave",
        searchType="deep-reasoning",
        count=10,
        offset=9,
        country="de",
        searchLang="de",
        safesearch="strict",
        freshness="2026-01-01to2026-02-01",
    )
    assert not result.is_error, result.text
    [sent] = fake.requests
    assert (sent.method, sent.path, sent.body) == ("GET", "/brave/res/v1/web/search", None)
    assert sent.headers["x-subscription-token"] == BRAVE_KEY
    assert sent.headers["accept"] == "application/json"
    assert "x-api-key" not in sent.headers
    assert sent.query == {
        "q": "search text",
        "count": "19",
        "offset": "0",
        "country": "DE",
        "search_lang": "de",
        "safesearch": "strict",
        "freshness": "2026-01-01to2026-02-01",
    }


async def test_brave_result_details(tmp_path: Path, fake: FakeProviders) -> None:
    fake.brave = lambda r: Reply(body=brave_body(_urls(2), query="search text (echo)"))
    rt = make_runtime(tmp_path, fake, exa=None)
    result = await search(rt, searchType="deep")
    details = result.details
    assert details["provider"] == "brave"
    assert "searchType" not in details and "requestId" not in details
    assert details["returnedQuery"] == "search text (echo)"
    assert details["results"][0] == {
        "title": "Brave title 1",
        "url": "https://site1.example/page",
        "description": "Description 1",
        "source": "Site 1",
        "pageDate": "2026-06-01T10:00:00",
        "age": "1 day ago",
        "language": "en",
    }
    assert result.text.startswith('Brave search for "search text": 2 results.\n1. Brave title 1')


async def test_auto_prefers_exa_unless_configured(tmp_path: Path, fake: FakeProviders) -> None:
    await search(make_runtime(tmp_path, fake))
    await search(make_runtime(tmp_path, fake, extra_toml='preferred_provider = "brave"\n'))
    assert [r.path for r in fake.requests] == ["/exa/search", "/brave/res/v1/web/search"]


# --- offset, count and de-duplication -------------------------------------------------------


@pytest.mark.parametrize("provider", ["exa", "brave"])
async def test_offset_skips_results_fetched_in_one_request(
    tmp_path: Path, fake: FakeProviders, provider: str
) -> None:
    rt = make_runtime(tmp_path, fake)
    result = await search(rt, provider=provider, count=3, offset=2)
    [sent] = fake.requests
    asked = sent.body["numResults"] if provider == "exa" else int(sent.query["count"])
    assert asked == 5
    urls = [row["url"] for row in result.details["results"]]
    assert urls == _urls(5)[2:]
    assert "\n3. " in result.text and "\n5. " in result.text and "\n1. " not in result.text


@pytest.mark.parametrize("provider", ["exa", "brave"])
async def test_exact_normalized_url_duplicates_are_removed(
    tmp_path: Path, fake: FakeProviders, provider: str
) -> None:
    urls = [
        "https://a.example/doc",
        "HTTPS://A.example:443/doc#section",
        "https://a.example/doc?v=2",
        "https://a.example/doc/",
        "https://b.example/",
    ]
    fake.exa = lambda r: Reply(body=exa_body(urls))
    fake.brave = lambda r: Reply(body=brave_body(urls))
    result = await search(make_runtime(tmp_path, fake), provider=provider)
    kept = [row["url"] for row in result.details["results"]]
    assert kept == [urls[0], urls[2], urls[3], urls[4]]
    assert result.details["duplicatesRemoved"] == 1
    assert len(fake.requests) == 1  # no overfetch for a replacement
    assert "1 duplicate URL removed" in result.text


# --- failures -------------------------------------------------------------------------------


@pytest.mark.parametrize("provider", ["exa", "brave"])
async def test_429_stops_with_plan_or_limit_advice(
    tmp_path: Path, fake: FakeProviders, provider: str
) -> None:
    limited = Reply(status=429, body={"error": "rate limited"}, headers={"retry-after": "30"})
    fake.exa = fake.brave = lambda r: limited
    result = await search(make_runtime(tmp_path, fake), provider=provider)
    assert result.is_error
    assert result.details["resultCategory"] == "failure"
    assert result.details["failureCategory"] == "upstream-error"
    assert result.details["httpStatus"] == 429
    assert "HTTP 429" in result.text and "Retry-After: 30" in result.text
    assert "plan or rate limit needs time or a change" in result.text
    assert len(fake.requests) == 1  # never retried


async def test_http_errors_carry_the_provider_message(tmp_path: Path, fake: FakeProviders) -> None:
    fake.exa = lambda r: Reply(status=400, body={"requestId": "x", "error": "Bad type", "tag": "T"})
    fake.brave = lambda r: Reply(
        status=422, body={"type": "ErrorResponse", "error": {"code": "V", "detail": "Bad lang"}}
    )
    rt = make_runtime(tmp_path, fake)
    exa_result = await search(rt, provider="exa")
    brave_result = await search(rt, provider="brave")
    assert "Exa returned HTTP 400: Bad type" in exa_result.text
    assert "Brave returned HTTP 422: Bad lang" in brave_result.text
    for result in (exa_result, brave_result):
        assert result.details["failureCategory"] == "upstream-error"


async def test_non_json_and_wrong_shape_are_upstream_errors(
    tmp_path: Path, fake: FakeProviders
) -> None:
    fake.exa = lambda r: Reply(raw=b"<html>gateway</html>")
    fake.brave = lambda r: Reply(body={"web": {"results": "nope"}})
    rt = make_runtime(tmp_path, fake)
    for provider in ("exa", "brave"):
        result = await search(rt, provider=provider)
        assert result.details["failureCategory"] == "upstream-error", result.text


async def test_unreachable_provider(tmp_path: Path, fake: FakeProviders) -> None:
    rt = make_runtime(tmp_path, fake)
    fake.server.shutdown()
    fake.server.server_close()
    result = await search(rt)
    assert result.details["failureCategory"] == "upstream-error"
    assert "could not reach Exa" in result.text


async def test_per_type_timeouts_are_applied(
    tmp_path: Path, fake: FakeProviders, monkeypatch: pytest.MonkeyPatch
) -> None:
    scaled = {name: seconds / 100 for name, seconds in providers.SEARCH_TIMEOUTS_S.items()}
    monkeypatch.setattr(providers, "SEARCH_TIMEOUTS_S", scaled)  # 0.15 / 0.45 / 0.6 / 0.9 s
    fake.exa = lambda r: Reply(body=exa_body(_urls(1)), delay_s=0.3)
    rt = make_runtime(tmp_path, fake)
    fast = await search(rt, searchType="fast")
    assert fast.details["failureCategory"] == "timeout"
    assert "0.15 s timeout" in fast.text
    for search_type in ("deep-lite", "deep", "deep-reasoning"):
        result = await search(rt, searchType=search_type)
        assert not result.is_error, (search_type, result.text)
    fake.exa = lambda r: Reply(body=exa_body(_urls(1)), delay_s=0.75)
    assert (await search(rt, searchType="deep")).details["failureCategory"] == "timeout"
    assert not (await search(rt, searchType="deep-reasoning")).is_error


async def test_brave_timeout(
    tmp_path: Path, fake: FakeProviders, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(providers, "BRAVE_TIMEOUT_S", 0.15)
    fake.brave = lambda r: Reply(body=brave_body(_urls(1)), delay_s=0.4)
    result = await search(make_runtime(tmp_path, fake, exa=None), searchType="deep-reasoning")
    assert result.details["failureCategory"] == "timeout"


async def test_requests_are_serialized(tmp_path: Path, fake: FakeProviders) -> None:
    fake.exa = lambda r: Reply(body=exa_body(_urls(1)), delay_s=0.15)
    fake.brave = lambda r: Reply(body=brave_body(_urls(1)), delay_s=0.15)
    rt = make_runtime(tmp_path, fake)
    results = await asyncio.gather(
        search(rt), search(rt, provider="brave"), search(rt, query="other")
    )
    assert not any(result.is_error for result in results)
    spans = sorted((r.started, r.ended) for r in fake.requests)
    assert len(spans) == 3
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end


# --- pre-request refusals -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "category"),
    [
        ({"category": "company", "freshness": "pd"}, "validation-error"),
        ({"category": "people", "excludeDomains": ["x.example"]}, "validation-error"),
        ({"additionalQueries": ["x"], "searchType": "fast"}, "validation-error"),
        ({"provider": "brave", "includeDomains": ["x.example"]}, "validation-error"),
        ({"provider": "brave", "highlightsDynamic": True}, "validation-error"),
        ({"count": 11}, "validation-error"),
        ({"unknown": 1}, "validation-error"),
    ],
)
async def test_invalid_input_sends_nothing(
    tmp_path: Path, fake: FakeProviders, params: dict[str, Any], category: str
) -> None:
    result = await search(make_runtime(tmp_path, fake), **params)
    assert result.is_error and result.details["failureCategory"] == category
    assert fake.requests == []


async def test_disabled_config_blocks_at_run_time(tmp_path: Path, fake: FakeProviders) -> None:
    rt = make_runtime(tmp_path, fake, extra_toml="enabled = false\n")
    assert not web_search.web_search_available(rt.settings)
    result = await search(rt)
    assert result.details["failureCategory"] == "policy-blocked"
    assert "global config" in result.text
    assert fake.requests == []


async def test_no_credential_at_run_time(tmp_path: Path, fake: FakeProviders) -> None:
    rt = make_runtime(tmp_path, fake, exa=None, brave=None)
    assert not web_search.web_search_available(rt.settings)
    result = await search(rt)
    assert result.details["failureCategory"] == "validation-error"
    assert fake.requests == []


# --- credential sources ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "env", "sent"),
    [
        ("$MY_EXA", {"MY_EXA": EXA_KEY}, EXA_KEY),
        ("${MY_EXA}", {"MY_EXA": EXA_KEY}, EXA_KEY),
        ("\\$literal-key", {}, "$literal-key"),
        ("$$literal-key", {}, "$literal-key"),
        ("${UNSET_VAR}", {"EXA_API_KEY": "from-fallback"}, "from-fallback"),
    ],
)
async def test_credential_sources_reach_the_header(
    tmp_path: Path, fake: FakeProviders, source: str, env: dict[str, str], sent: str
) -> None:
    rt = make_runtime(tmp_path, fake, exa=source, brave=None, env=env)
    result = await search(rt)
    assert not result.is_error, result.text
    assert fake.requests[0].headers["x-api-key"] == sent


async def test_command_source_runs_only_when_the_tool_runs(
    tmp_path: Path, fake: FakeProviders
) -> None:
    marker = tmp_path / "command-ran"
    code = f"open({str(marker)!r}, 'a').write('ran\\n'); print({BRAVE_KEY!r})"
    command = "!" + shlex.join([sys.executable, "-c", code])
    rt = make_runtime(tmp_path, fake, exa=None, brave=command)
    assert web_search.web_search_available(rt.settings)
    assert web_search.describe_sources(rt.settings)["providers"]["brave"].startswith("command")
    assert not marker.exists()
    result = await search(rt)
    assert not result.is_error, result.text
    assert marker.read_text() == "ran\n"
    assert fake.requests[0].headers["x-subscription-token"] == BRAVE_KEY


async def test_failing_command_is_reported_without_sending(
    tmp_path: Path, fake: FakeProviders
) -> None:
    code = f"print({EXA_KEY!r}); raise SystemExit(2)"
    rt = make_runtime(
        tmp_path, fake, exa="!" + shlex.join([sys.executable, "-c", code]), brave=None
    )
    result = await search(rt)
    assert result.details["failureCategory"] == "validation-error"
    assert "exited with status 2" in result.text
    assert_no_key(result, EXA_KEY)
    assert fake.requests == []


# --- the key never leaks --------------------------------------------------------------------


def _echo_key_everywhere(record: Recorded) -> Reply:
    key = record.headers.get("x-api-key") or record.headers.get("x-subscription-token") or ""
    if "brave" in record.path:
        body = brave_body([f"https://leak.example/?k={key}"], query=f"search {key}")
        body["web"]["results"][0]["description"] = f"your key is {key}"
        return Reply(body=body)
    body = exa_body([f"https://leak.example/?k={key}"], request_id=key)
    body["results"][0]["title"] = f"title {key}"
    body["results"][0]["highlights"] = [f"highlight {key}"]
    return Reply(body=body)


def _error_echoing_key(status: int) -> Callable[[Recorded], Reply]:
    def reply(record: Recorded) -> Reply:
        key = record.headers.get("x-api-key") or record.headers.get("x-subscription-token")
        return Reply(status=status, body={"error": f"invalid key {key}"}, headers={"x-k": "v"})

    return reply


async def test_planted_key_never_appears_in_results_errors_or_logs(
    tmp_path: Path,
    fake: FakeProviders,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)
    rt = make_runtime(tmp_path, fake)
    results: list[ToolResult] = []
    for provider in ("exa", "brave"):
        fake.exa = fake.brave = _echo_key_everywhere
        results.append(await search(rt, provider=provider))
        for status in (401, 429, 500):
            fake.exa = fake.brave = _error_echoing_key(status)
            results.append(await search(rt, provider=provider))
    monkeypatch.setattr(
        providers, "SEARCH_TIMEOUTS_S", dict.fromkeys(providers.SEARCH_TIMEOUTS_S, 0.1)
    )
    fake.exa = lambda r: Reply(body=exa_body(_urls(1)), delay_s=0.3)
    results.append(await search(rt, provider="exa"))
    assert [r.is_error for r in results] == [False, True, True, True] * 2 + [True]
    assert {r.headers.get("x-api-key") for r in fake.requests} >= {EXA_KEY}
    assert {r.headers.get("x-subscription-token") for r in fake.requests} >= {BRAVE_KEY}
    assert "[REDACTED]" in results[0].text and "[REDACTED]" in results[1].text
    for result in results:
        assert_no_key(result, EXA_KEY, BRAVE_KEY)
    assert caplog.records, "expected the search to log something"
    assert EXA_KEY not in caplog.text and BRAVE_KEY not in caplog.text
    for record in caplog.records:
        assert EXA_KEY not in record.getMessage() and BRAVE_KEY not in record.getMessage()
