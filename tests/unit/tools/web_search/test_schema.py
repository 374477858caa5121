"""Web-search input model and the pre-request rules (provider choice, cross-field checks)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from agent_browser_tools.results.validation import explain_validation_error, field_list
from agent_browser_tools.tools.web_search.config import WebSearchConfig
from agent_browser_tools.tools.web_search.rules import (
    InputRejected,
    SearchPlan,
    choose_provider,
    plan_search,
)
from agent_browser_tools.tools.web_search.schema import WebSearchInput

BOTH = ["exa", "brave"]


def inp(**fields: Any) -> WebSearchInput:
    return WebSearchInput.model_validate({"query": "search text", **fields})


def plan(
    available: list[str] | None = None, config: WebSearchConfig | None = None, **fields: Any
) -> SearchPlan:
    return plan_search(inp(**fields), config or WebSearchConfig(), available or BOTH)


def test_defaults() -> None:
    value = inp()
    assert (value.provider, value.count, value.offset, value.highlightsDynamic) == (
        "auto",
        5,
        0,
        False,
    )
    assert value.searchType is None and value.exa_only_fields == []


def test_contract_example_validates() -> None:
    example = {
        "query": "search text",
        "provider": "auto",
        "searchType": "deep-lite",
        "includeDomains": ["docs.exa.ai"],
        "excludeDomains": ["archive.example"],
        "category": "publication",
        "additionalQueries": ["Exa search API defaults"],
        "highlightsDynamic": False,
        "count": 5,
        "offset": 0,
        "country": "US",
        "searchLang": "en-US",
        "safesearch": "moderate",
        "freshness": "pw",
    }
    assert WebSearchInput.model_validate(example).model_dump() == example


@pytest.mark.parametrize(
    "fields",
    [
        {"count": 0},
        {"count": 11},
        {"offset": -1},
        {"offset": 10},
        {"count": "5"},
        {"query": "   "},
        {"includeDomains": []},
        {"includeDomains": [f"d{i}.example" for i in range(21)]},
        {"excludeDomains": [""]},
        {"additionalQueries": []},
        {"additionalQueries": [f"q{i}" for i in range(11)]},
        {"searchType": "neural"},
        {"provider": "google"},
        {"category": "github"},
        {"safesearch": "on"},
        {"country": "USA"},
        {"searchLang": "english language"},
        {"freshness": "pd2"},
        {"freshness": "2026-02-30to2026-03-01"},
        {"freshness": "2026-03-02to2026-03-01"},
        {"num_results": 5},
    ],
)
def test_invalid_inputs_are_rejected(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        inp(**fields)


def test_limits_are_inclusive() -> None:
    inp(count=10, offset=9, includeDomains=[f"d{i}.example" for i in range(20)])
    inp(additionalQueries=[f"q{i}" for i in range(10)], freshness="2026-01-01to2026-01-01")


def test_query_missing_and_unknown_field_message() -> None:
    with pytest.raises(ValidationError) as info:
        WebSearchInput.model_validate({"q": "x"})
    allowed = field_list(WebSearchInput)
    message = explain_validation_error(info.value, "agent_browser_web_search", allowed)
    assert "missing required field `query`" in message
    assert "unknown field `q`" in message
    assert "accepts only query, provider" in message


def test_country_is_upper_cased() -> None:
    assert inp(country="de").country == "DE"


def test_exa_only_fields_lists_explicit_requests_only() -> None:
    value = inp(
        includeDomains=["a.example"],
        excludeDomains=["b.example"],
        category="news",
        additionalQueries=["x"],
        highlightsDynamic=True,
        searchType="deep",
    )
    assert value.exa_only_fields == [
        "includeDomains",
        "excludeDomains",
        "category",
        "additionalQueries",
        "highlightsDynamic",
    ]
    assert inp(highlightsDynamic=False).exa_only_fields == []


@pytest.mark.parametrize(
    ("requested", "available", "preferred", "chosen"),
    [
        ("auto", ["exa", "brave"], None, "exa"),
        ("auto", ["brave"], None, "brave"),
        ("auto", ["exa"], None, "exa"),
        ("auto", ["exa", "brave"], "brave", "brave"),
        ("auto", ["exa"], "brave", "exa"),
        ("exa", ["exa", "brave"], "brave", "exa"),
        ("brave", ["exa", "brave"], None, "brave"),
    ],
)
def test_provider_choice(
    requested: str, available: list[str], preferred: str | None, chosen: str
) -> None:
    assert choose_provider(requested, available, preferred) == chosen


def test_explicit_provider_without_a_key_is_rejected() -> None:
    with pytest.raises(InputRejected, match=r'no Brave credential.*use provider "exa"'):
        choose_provider("brave", ["exa"], None)


def test_search_type_precedence() -> None:
    deep_default = WebSearchConfig(default_search_type="deep-lite")
    assert plan().search_type == "auto"
    assert plan(config=deep_default).search_type == "deep-lite"
    assert plan(config=deep_default, searchType="fast").search_type == "fast"


@pytest.mark.parametrize("search_type", ["deep-lite", "deep", "deep-reasoning"])
def test_additional_queries_with_deep_types(search_type: str) -> None:
    assert plan(searchType=search_type, additionalQueries=["x"]).search_type == search_type


@pytest.mark.parametrize("search_type", ["auto", "fast", "instant"])
def test_additional_queries_rejected_for_non_deep_types(search_type: str) -> None:
    with pytest.raises(InputRejected, match="additionalQueries needs searchType deep"):
        plan(searchType=search_type, additionalQueries=["x"])


def test_additional_queries_use_the_effective_type_from_config() -> None:
    config = WebSearchConfig(default_search_type="deep")
    assert plan(config=config, additionalQueries=["x"]).search_type == "deep"
    with pytest.raises(InputRejected, match='effective type is "auto"'):
        plan(additionalQueries=["x"])


@pytest.mark.parametrize("category", ["company", "people"])
@pytest.mark.parametrize(
    "extra", [{"freshness": "pw"}, {"excludeDomains": ["x.example"]}], ids=["fresh", "exclude"]
)
def test_company_and_people_restrictions(category: str, extra: dict[str, Any]) -> None:
    with pytest.raises(InputRejected, match=f'category "{category}" does not support'):
        plan(category=category, **extra)


def test_other_categories_accept_freshness_and_exclusions() -> None:
    assert plan(category="news", freshness="pd", excludeDomains=["x.example"]).provider == "exa"
    assert plan(category="company", includeDomains=["x.example"]).provider == "exa"


@pytest.mark.parametrize(
    "fields",
    [
        {"includeDomains": ["a.example"]},
        {"excludeDomains": ["a.example"]},
        {"category": "news"},
        {"additionalQueries": ["x"], "searchType": "deep"},
        {"highlightsDynamic": True},
    ],
)
def test_brave_refuses_exa_only_filters(fields: dict[str, Any]) -> None:
    with pytest.raises(InputRejected, match=f"{next(iter(fields))}.*not sent to Brave") as info:
        plan(available=["brave"], **fields)
    assert "site:" in str(info.value)
    with pytest.raises(InputRejected, match='pass provider "exa"'):
        plan(provider="brave", **fields)


def test_brave_ignores_search_type_and_exa_ignores_search_lang() -> None:
    assert plan(available=["brave"], searchType="deep-reasoning") == SearchPlan("brave", None)
    assert plan(available=["exa"], searchLang="en").provider == "exa"
