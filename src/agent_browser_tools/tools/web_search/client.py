"""HTTP calls to the providers (httpx), serialized, with errors that never carry the key.

Searches are serialized through one lock per event loop: provider plans meter requests per
key, and parallel searches from one agent burn quota without improving answers (the contract
asks for one focused query at a time). Every message built here is scrubbed of the request's
key before it is raised or logged, even though providers are not expected to echo it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import weakref
from typing import Any

import httpx

from agent_browser_tools.tools.web_search.config import PROVIDER_NAMES
from agent_browser_tools.tools.web_search.providers import ProviderRequest
from agent_browser_tools.tools.web_search.scrubbing import scrub

log = logging.getLogger(__name__)

REDACTED = "[REDACTED]"
ERROR_TEXT_LIMIT = 300
RATE_LIMIT_ADVICE = (
    "Stop searching: the provider plan or rate limit needs time or a change (upgrade the plan "
    "or wait) before another search; do not retry in a loop."
)

_LOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)


class SearchFailed(Exception):
    """The provider could not be asked or did not answer usefully; `kind` picks the category."""

    def __init__(self, message: str, *, kind: str, status: int | None = None) -> None:
        super().__init__(message)
        self.kind = kind  # "timeout" | "rate-limited" | "http" | "transport" | "shape"
        self.status = status


def search_lock() -> asyncio.Lock:
    """The lock that serializes searches on the running event loop."""
    loop = asyncio.get_running_loop()
    lock = _LOCKS.get(loop)
    if lock is None:
        lock = _LOCKS[loop] = asyncio.Lock()
    return lock


async def send(
    request: ProviderRequest, *, transport: httpx.AsyncBaseTransport | None = None
) -> Any:
    """Send one request under the search lock and return the decoded JSON body."""
    name = PROVIDER_NAMES[request.provider]
    async with search_lock():
        log.debug(
            "web search request to %s (%s, timeout %gs)", name, request.method, request.timeout_s
        )
        response = await _exchange(request, name, transport)
    if response.status_code == 429:
        raise _failed(request, _rate_limit_message(name, response), "rate-limited", 429)
    if response.status_code >= 400:
        raise _failed(request, _http_message(name, response), "http", response.status_code)
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise _failed(
            request, f"{name} answered HTTP {response.status_code} with a non-JSON body.", "shape"
        ) from None


async def _exchange(
    request: ProviderRequest, name: str, transport: httpx.AsyncBaseTransport | None
) -> httpx.Response:
    timeout = httpx.Timeout(request.timeout_s)
    try:
        async with httpx.AsyncClient(
            timeout=timeout, transport=transport, follow_redirects=False
        ) as client:
            return await client.request(
                request.method,
                request.url,
                headers=dict(request.headers),
                params=dict(request.params) if request.params is not None else None,
                json=dict(request.json) if request.json is not None else None,
            )
    except httpx.TimeoutException:
        message = (
            f"{name} did not answer within the {request.timeout_s:g} s timeout for this search "
            "type; narrow the query or use a faster searchType."
        )
        raise _failed(request, message, "timeout") from None
    except httpx.HTTPError as exc:
        message = f"could not reach {name} ({type(exc).__name__}: {exc})."
        raise _failed(request, message, "transport") from None


def _failed(
    request: ProviderRequest, message: str, kind: str, status: int | None = None
) -> SearchFailed:
    clean = scrub(message, request.secret)
    log.warning("web search failed: %s", clean)
    return SearchFailed(clean, kind=kind, status=status)


def _rate_limit_message(name: str, response: httpx.Response) -> str:
    retry = response.headers.get("retry-after")
    wait = f" (Retry-After: {retry[:40]})" if retry else ""
    return f"{name} returned HTTP 429 Too Many Requests{wait}. {RATE_LIMIT_ADVICE}"


def _http_message(name: str, response: httpx.Response) -> str:
    detail = _provider_error_text(response)
    hint = ""
    if response.status_code in (401, 403):
        hint = " Check the configured API key for this provider."
    suffix = f": {detail}" if detail else ""
    return f"{name} returned HTTP {response.status_code}{suffix}.{hint}"


def _provider_error_text(response: httpx.Response) -> str:
    """The provider's own error text: Exa `{error}`, Brave `{error: {detail}}`, else raw."""
    try:
        body = response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return " ".join(response.text.split())[:ERROR_TEXT_LIMIT]
    error = body.get("error") if isinstance(body, dict) else None
    if isinstance(error, dict):
        error = error.get("detail") or error.get("message") or error.get("code")
    if error is None and isinstance(body, dict):
        error = body.get("message")
    return " ".join(str(error).split())[:ERROR_TEXT_LIMIT] if error else ""
