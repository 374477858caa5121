"""Needles derived from failed request URLs: specific first, bounded, never a secret."""

from __future__ import annotations

import pytest

from agent_browser_tools.results.url_needles import (
    MAX_NEEDLES_PER_URL,
    correlatable,
    derive_needles,
)


def test_an_absolute_url_gives_host_path_then_path_then_its_last_segments() -> None:
    needles = derive_needles("https://api.example.com/api/v1/orders/missing")
    assert needles == [
        "api.example.com/api/v1/orders/missing",
        "/api/v1/orders/missing",
        "/v1/orders/missing",
        "/orders/missing",
        "/missing",
    ]


def test_a_relative_url_and_a_harmless_query_give_path_and_path_with_query() -> None:
    needles = derive_needles("/api/v1/orders/missing?page=2")
    assert needles[:2] == ["/api/v1/orders/missing?page=2", "/api/v1/orders/missing"]


def test_the_port_is_part_of_the_host_needle() -> None:
    assert derive_needles("http://127.0.0.1:8123/api/x/y")[0] == "127.0.0.1:8123/api/x/y"


@pytest.mark.parametrize(
    "url",
    [
        "https://user:hunter2pass@api.example.com/api/v1/orders?token=SECRETVALUE123&page=2",
        "https://api.example.com/api/v1/orders?access_token=SECRETVALUE123",
        "https://api.example.com/api/v1/orders?api_key=SECRETVALUE123",
    ],
)
def test_credentials_never_reach_a_needle(url: str) -> None:
    needles = derive_needles(url)
    assert needles, url
    joined = " ".join(needles)
    for secret in ("hunter2pass", "SECRETVALUE123", "REDACTED", "user:", "?"):
        assert secret not in joined, (secret, needles)
    assert "/api/v1/orders" in needles


def test_a_token_like_path_segment_ends_the_path() -> None:
    url = "https://h.example.com/reset/aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI/confirm"
    needles = derive_needles(url)
    assert all("aB3dE5" not in n for n in needles), needles
    assert needles == ["h.example.com/reset", "/reset"]


def test_a_bare_host_is_never_a_needle() -> None:
    """It would match saved cookies and HARs of the site, not the code that made the call."""
    assert "github.com" not in derive_needles("https://github.com/x")


def test_an_id_segment_adds_the_path_before_it() -> None:
    needles = derive_needles("/api/orders/123456/items")
    assert "/api/orders/" in needles


def test_needles_are_bounded_and_unique() -> None:
    needles = derive_needles("https://a.example.com/one/two/three/four/five/six/seven?x=1")
    assert len(needles) <= MAX_NEEDLES_PER_URL
    assert len(set(needles)) == len(needles)


@pytest.mark.parametrize(
    "url", ["data:text/plain,hello", "blob:https://a.example/123", "", "/", "/api", "chrome://x"]
)
def test_urls_without_anything_specific_give_no_needle(url: str) -> None:
    assert derive_needles(url) == []
    assert not correlatable(url)
