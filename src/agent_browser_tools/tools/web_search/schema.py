"""`agent_browser_web_search` input: one strict pydantic model, validated once at the boundary.

Unknown fields are rejected rather than ignored, because a silently dropped filter produces
results that look right but answer a different question. Cross-field rules that depend on the
chosen provider or on config (deep-only `additionalQueries`, Exa-only filters on Brave, company
and people restrictions) live in `rules.py`, where the provider and effective type are known.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from agent_browser_tools.tools.web_search.names import NAME as NAME
from agent_browser_tools.tools.web_search.names import SEARCH_TYPES as SEARCH_TYPES

SearchType = Literal["auto", "fast", "instant", "deep-lite", "deep", "deep-reasoning"]
ProviderChoice = Literal["auto", "exa", "brave"]
Category = Literal["company", "people", "publication", "news", "personal site", "financial report"]
SafeSearch = Literal["off", "moderate", "strict"]

DEEP_TYPES = frozenset({"deep-lite", "deep", "deep-reasoning"})
RELATIVE_FRESHNESS = frozenset({"pd", "pw", "pm", "py"})
_RANGE = re.compile(r"^(\d{4}-\d{2}-\d{2})to(\d{4}-\d{2}-\d{2})$")
_COUNTRY = re.compile(r"^[A-Za-z]{2}$")
_LANG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z]{2,4})?$")

NonBlank = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
DomainList = Annotated[list[NonBlank], Field(min_length=1, max_length=20)]


def freshness_range(value: str) -> tuple[date, date] | None:
    """The (start, end) dates of a `YYYY-MM-DDtoYYYY-MM-DD` freshness value, else None."""
    match = _RANGE.match(value)
    if match is None:
        return None
    return date.fromisoformat(match.group(1)), date.fromisoformat(match.group(2))


class WebSearchInput(BaseModel):
    """One search: a focused query plus optional provider-specific narrowing."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    query: NonBlank = Field(description="Search text: one focused question or topic.")
    provider: ProviderChoice = Field(
        default="auto", description='"auto" picks from configured keys (Exa first).'
    )
    searchType: SearchType | None = Field(
        default=None,
        description="Exa only. deep-lite for implementation research, deep for hard "
        "multi-source work, deep-reasoning only for exhaustive work.",
    )
    includeDomains: DomainList | None = Field(
        default=None, description="Exa only: hostnames, path prefixes or *.wildcards."
    )
    excludeDomains: DomainList | None = Field(default=None, description="Exa only.")
    category: Category | None = Field(default=None, description="Exa only.")
    additionalQueries: Annotated[list[NonBlank], Field(min_length=1, max_length=10)] | None = Field(
        default=None, description="Exa deep types only: extra query variations."
    )
    highlightsDynamic: bool = Field(
        default=False, description="Exa only: dynamic highlight budget (beta)."
    )
    count: int = Field(default=5, ge=1, le=10, description="Results to return.")
    offset: int = Field(default=0, ge=0, le=9, description="Results (not pages) to skip.")
    country: str | None = Field(default=None, description="Two-letter country code, e.g. US.")
    searchLang: str | None = Field(default=None, description="Brave only, e.g. en.")
    safesearch: SafeSearch | None = Field(default=None)
    freshness: str | None = Field(
        default=None, description="pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD."
    )

    @field_validator("country")
    @classmethod
    def _country(cls, value: str | None) -> str | None:
        if value is not None and not _COUNTRY.match(value):
            raise ValueError("must be a two-letter country code such as US")
        return value.upper() if value is not None else None

    @field_validator("searchLang")
    @classmethod
    def _lang(cls, value: str | None) -> str | None:
        if value is not None and not _LANG.match(value):
            raise ValueError("must be a language code such as en or en-gb")
        return value

    @field_validator("freshness")
    @classmethod
    def _freshness(cls, value: str | None) -> str | None:
        if value is None or value in RELATIVE_FRESHNESS:
            return value
        try:
            span = freshness_range(value)
        except ValueError:
            span = None
        if span is None or span[0] > span[1]:
            raise ValueError("must be pd, pw, pm, py or an ordered YYYY-MM-DDtoYYYY-MM-DD range")
        return value

    @property
    def exa_only_fields(self) -> list[str]:
        """Explicitly requested Exa-only filters; Brave must refuse these before any request."""
        requested = {
            "includeDomains": self.includeDomains is not None,
            "excludeDomains": self.excludeDomains is not None,
            "category": self.category is not None,
            "additionalQueries": self.additionalQueries is not None,
            "highlightsDynamic": self.highlightsDynamic,
        }
        return [name for name, present in requested.items() if present]
