"""Provider requests and responses (pure: no I/O, no clock; `now` is passed in).

Exa: `POST {base}/search`, key in `x-api-key`, JSON body (`query`, `type`, `numResults`,
`contents.highlights`, `systemPrompt`, optional filters). Brave: `GET {base}/web/search`, key in
`X-Subscription-Token`, query params (`q`, `count`, `offset`, `country`, `search_lang`,
`safesearch`, `freshness`). Both fetch the first `count + offset` results in one request and the
wrapper slices locally, because Brave's own `offset` counts pages, not results.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from agent_browser_tools.tools.web_search.schema import (
    RELATIVE_FRESHNESS,
    WebSearchInput,
    freshness_range,
)

SEARCH_TIMEOUTS_S: dict[str, float] = {
    "auto": 15.0,
    "fast": 15.0,
    "instant": 15.0,
    "deep-lite": 45.0,
    "deep": 60.0,
    "deep-reasoning": 90.0,
}
"""HTTP timeout per Exa search type: deep types research before answering."""

BRAVE_TIMEOUT_S = 15.0
EXA_BETA_HEADER = "Exa-Beta"
EXA_DYNAMIC_HIGHLIGHTS_FLAG = "dynamic-highlights-2026-08-28"
EXA_SYSTEM_PROMPT = (
    "Prefer primary, official sources (vendor documentation, specifications, release notes, "
    "original announcements) over aggregators. Match any version, release or date named in the "
    "query. Return distinct results rather than mirrors or near-copies of one page."
)
FRESHNESS_DAYS = {"pd": 1, "pw": 7, "pm": 31, "py": 365}
"""Brave's documented spans for its relative freshness codes, reused for Exa's start date."""

DESCRIPTION_LIMIT = 300
_TAG = re.compile(r"<[^>]+>")
_SPACE = re.compile(r"\s+")
_DEFAULT_PORTS = {"http": 80, "https": 443}


class ResponseShapeError(ValueError):
    """The provider answered 2xx with something other than its documented JSON shape."""


@dataclass(frozen=True)
class ProviderRequest:
    """One HTTP request, ready to send. The key lives only in `headers`/`secret` (no repr)."""

    provider: str
    method: str
    url: str
    timeout_s: float
    headers: Mapping[str, str] = field(repr=False)
    secret: str = field(repr=False)
    params: Mapping[str, str] | None = None
    json: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ProviderResults:
    """A provider response reduced to normalized rows plus the echoed metadata."""

    rows: list[dict[str, Any]]
    returned_query: str | None = None
    request_id: str | None = None


def iso_ms(moment: datetime) -> str:
    """ISO-8601 UTC with milliseconds and `Z`, the form Exa's date filters document."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def exa_published_window(freshness: str, now: datetime) -> dict[str, str]:
    """Exa's published-date filter for a Brave-style freshness value."""
    if freshness in RELATIVE_FRESHNESS:
        return {"startPublishedDate": iso_ms(now - timedelta(days=FRESHNESS_DAYS[freshness]))}
    span = freshness_range(freshness)
    if span is None:
        raise ValueError(f"unsupported freshness {freshness!r}")
    start = datetime.combine(span[0], time.min, tzinfo=UTC)
    end = datetime.combine(span[1], time.max, tzinfo=UTC)
    return {"startPublishedDate": iso_ms(start), "endPublishedDate": iso_ms(end)}


def build_exa_request(
    inp: WebSearchInput, search_type: str, *, key: str, base_url: str, now: datetime
) -> ProviderRequest:
    """`POST /search`; `searchLang` is Brave-only and deliberately not sent."""
    highlights: bool | dict[str, bool] = {"dynamic": True} if inp.highlightsDynamic else True
    body: dict[str, Any] = {
        "query": inp.query,
        "type": search_type,
        "numResults": inp.count + inp.offset,
        "contents": {"highlights": highlights},
        "systemPrompt": EXA_SYSTEM_PROMPT,
    }
    optional = {
        "includeDomains": inp.includeDomains,
        "excludeDomains": inp.excludeDomains,
        "category": inp.category,
        "additionalQueries": inp.additionalQueries,
        "userLocation": inp.country,
    }
    body.update({name: value for name, value in optional.items() if value is not None})
    if inp.safesearch in ("moderate", "strict"):
        body["moderation"] = True
    if inp.freshness is not None:
        body.update(exa_published_window(inp.freshness, now))
    headers = {"x-api-key": key, "content-type": "application/json", "accept": "application/json"}
    if inp.highlightsDynamic:
        headers[EXA_BETA_HEADER] = EXA_DYNAMIC_HIGHLIGHTS_FLAG
    return ProviderRequest(
        provider="exa",
        method="POST",
        url=f"{base_url}/search",
        timeout_s=SEARCH_TIMEOUTS_S[search_type],
        headers=headers,
        secret=key,
        json=body,
    )


def build_brave_request(inp: WebSearchInput, *, key: str, base_url: str) -> ProviderRequest:
    """`GET /web/search` for the first `count + offset` results (first page, offset 0)."""
    params = {"q": inp.query, "count": str(inp.count + inp.offset), "offset": "0"}
    optional = {
        "country": inp.country,
        "search_lang": inp.searchLang,
        "safesearch": inp.safesearch,
        "freshness": inp.freshness,
    }
    params.update({name: value for name, value in optional.items() if value is not None})
    return ProviderRequest(
        provider="brave",
        method="GET",
        url=f"{base_url}/web/search",
        timeout_s=BRAVE_TIMEOUT_S,
        headers={"X-Subscription-Token": key, "accept": "application/json"},
        secret=key,
        params=params,
    )


def clean_text(value: Any) -> str:
    """Provider text as one plain line: tags stripped, entities decoded, spaces collapsed."""
    if not isinstance(value, str):
        return ""
    return _SPACE.sub(" ", html.unescape(_TAG.sub("", value))).strip()


def hostname(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").removeprefix("www.")
    except ValueError:
        return ""


def _text_field(item: Mapping[str, Any], name: str) -> str | None:
    value = item.get(name)
    return value.strip() if isinstance(value, str) and value.strip() else None


def _compact(row: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in row.items() if value not in (None, "", [])}


def normalize_exa(body: Any) -> ProviderResults:
    """Exa `{requestId, results: [{title, url, publishedDate, highlights, ...}]}`."""
    if not isinstance(body, Mapping) or not isinstance(body.get("results"), list):
        raise ResponseShapeError("Exa answered without a `results` list.")
    rows = []
    for item in body["results"]:
        url = _text_field(item, "url") if isinstance(item, Mapping) else None
        if url is None:
            continue
        raw = item.get("highlights")
        highlights = [clean_text(h) for h in raw if clean_text(h)] if isinstance(raw, list) else []
        description = highlights[0] if highlights else clean_text(item.get("summary"))
        row = {
            "title": clean_text(item.get("title")) or url,
            "url": url,
            "description": description[:DESCRIPTION_LIMIT],
            "highlights": highlights,
            "source": hostname(url),
            "pageDate": _text_field(item, "publishedDate"),
        }
        rows.append(_compact(row))
    request_id = body.get("requestId")
    return ProviderResults(rows, request_id=request_id if isinstance(request_id, str) else None)


def normalize_brave(body: Any) -> ProviderResults:
    """Brave `{query: {original}, web: {results: [{title, url, description, ...}]}}`."""
    if not isinstance(body, Mapping):
        raise ResponseShapeError("Brave answered with something other than a JSON object.")
    web = body.get("web")
    items = web.get("results") if isinstance(web, Mapping) else []
    if not isinstance(items, list):
        raise ResponseShapeError("Brave answered with a non-list `web.results`.")
    rows = [_brave_row(item) for item in items if isinstance(item, Mapping)]
    query = body.get("query")
    returned = None
    if isinstance(query, Mapping):
        returned = _text_field(query, "altered") or _text_field(query, "original")
    return ProviderResults([row for row in rows if row.get("url")], returned_query=returned)


def _brave_row(item: Mapping[str, Any]) -> dict[str, Any]:
    url = _text_field(item, "url") or ""
    profile = item.get("profile")
    meta = item.get("meta_url")
    source = clean_text(profile.get("name")) if isinstance(profile, Mapping) else ""
    if not source and isinstance(meta, Mapping):
        source = clean_text(meta.get("hostname"))
    row = {
        "title": clean_text(item.get("title")) or url,
        "url": url,
        "description": clean_text(item.get("description"))[:DESCRIPTION_LIMIT],
        "source": source or hostname(url),
        "pageDate": _text_field(item, "page_age"),
        "age": _text_field(item, "age"),
        "language": _text_field(item, "language"),
    }
    return _compact(row)


def normalize_url(url: str) -> str:
    """Exact-equality key: scheme/host case, default port and fragment only; paths and
    queries are kept as they are, because collapsing them would be guesswork."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return url.strip()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    netloc = host if port is None or _DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    if parts.username is not None:
        netloc = parts.netloc.rsplit("@", 1)[0] + "@" + netloc
    return urlunsplit((scheme, netloc, parts.path or "/", parts.query, ""))


def select_window(
    rows: Sequence[dict[str, Any]], count: int, offset: int
) -> tuple[list[dict[str, Any]], int]:
    """Skip `offset` rows, keep up to `count`, drop rows whose URL appeared earlier.

    Earlier means anywhere before in provider order, including the skipped rows, so paging
    with `offset` never repeats a URL the previous page already showed. Removed rows are not
    replaced (no overfetch); the second value is how many were removed.
    """
    seen: set[str] = set()
    kept: list[dict[str, Any]] = []
    removed = 0
    for index, row in enumerate(rows[: offset + count]):
        key = normalize_url(str(row["url"]))
        duplicate = key in seen
        seen.add(key)
        if index < offset:
            continue
        if duplicate:
            removed += 1
        else:
            kept.append(row)
    return kept, removed
