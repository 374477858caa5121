"""`agent_browser_network_source` input -> one native `batch` of read-only network reads (pure).

A request id reads `network request <id>`; a filter (or a URL, reduced to host+path) reads
`network requests --filter <text>`; an explicit filter wins over the URL. The batch has no
`--bail`, so a stale request id does not hide the filtered rows. Nothing here navigates: the
lookup inspects the buffer of the browser the agent already drove.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from agent_browser_tools.redaction import redact_argv, redact_text, redact_url
from agent_browser_tools.tools.network_source.schema import NetworkSourceInput

BATCH = "batch"
MAX_FILTER_CHARS = 500
MAX_URL_CHARS = 2_000
_REQUEST_ID = re.compile(r"[\w.:-]{1,128}")


class NetworkSourceRejected(ValueError):
    """An input the lookup cannot run; the message names the fix (and never echoes values)."""


@dataclass(frozen=True)
class CompiledLookup:
    prefix: tuple[str, ...]
    steps: tuple[tuple[str, ...], ...]
    query: dict[str, Any]

    @property
    def args(self) -> list[str]:
        return [*self.prefix, BATCH]

    @property
    def stdin(self) -> str:
        return json.dumps([list(step) for step in self.steps])

    def details(self) -> dict[str, Any]:
        """`compiledNetworkSourceLookup`: the generated plan, redacted, and the query."""
        steps = [redact_argv(step) for step in self.steps]
        return {
            "compiledNetworkSourceLookup": {
                "args": redact_argv(self.args),
                "stdin": json.dumps(steps),
                "steps": steps,
                "query": dict(self.query),
            }
        }


def _operand(name: str, value: str | None, limit: int) -> None:
    if value is None:
        return
    if not value.strip():
        raise NetworkSourceRejected(f"{name} must not be empty")
    if value.startswith("-"):
        raise NetworkSourceRejected(f"{name} must not start with '-' (it would read as a flag)")
    if any(ord(ch) < 32 for ch in value):
        raise NetworkSourceRejected(f"{name} must not contain control characters")
    if len(value) > limit:
        raise NetworkSourceRejected(f"{name} is limited to {limit} characters")


def url_filter(url: str) -> str:
    """The `--filter` text for a request URL: host[:port]+path, never userinfo or query.

    The engine filter is a substring match on the logged URL; host+path matches however the
    query was ordered, and keeps credentials in the URL out of the engine's argv.
    """
    text = url.strip()
    try:
        parts = urlsplit(text)
        host = parts.hostname or ""
        port = parts.port
    except ValueError:  # unparsable (a broken IPv6 host): drop query and any userinfo
        return text.split("?", 1)[0].split("#", 1)[0].rsplit("@", 1)[-1]
    if port is not None:
        host = f"{host}:{port}"
    route = parts.path.rstrip("/")
    if host:
        return host + route
    return route


def _prefix(inp: NetworkSourceInput) -> tuple[str, ...]:
    prefix: list[str] = []
    if inp.namespace is not None:
        prefix += ["--namespace", inp.namespace]
    if inp.session is not None:
        prefix += ["--session", inp.session]
    return tuple(prefix)


def _check(inp: NetworkSourceInput) -> None:
    if inp.requestId is None and inp.filter is None and inp.url is None:
        raise NetworkSourceRejected("give at least one of requestId, filter or url")
    if inp.sessionMode == "fresh":
        raise NetworkSourceRejected(
            'sessionMode "fresh" would start a browser with an empty request buffer; reproduce '
            'the failure in the current browser and look it up with sessionMode "auto"'
        )
    _operand("requestId", inp.requestId, 128)
    if inp.requestId is not None and not _REQUEST_ID.fullmatch(inp.requestId):
        raise NetworkSourceRejected(
            "requestId must be an id from `network requests` (letters, digits, '.', ':', '-')"
        )
    _operand("filter", inp.filter, MAX_FILTER_CHARS)
    _operand("url", inp.url, MAX_URL_CHARS)
    _operand("session", inp.session, 200)
    if inp.namespace is not None and inp.namespace.startswith("-"):
        raise NetworkSourceRejected("namespace must not start with '-'")


def compile_lookup(inp: NetworkSourceInput) -> CompiledLookup:
    """The batch plan for a validated input; raises `NetworkSourceRejected`."""
    _check(inp)
    steps: list[tuple[str, ...]] = []
    query: dict[str, Any] = {}
    if inp.requestId is not None:
        steps.append(("network", "request", inp.requestId))
        query["requestId"] = inp.requestId
    text = inp.filter if inp.filter is not None else url_filter(inp.url or "")
    if inp.filter is not None or inp.url is not None:
        if not text.strip() or text.startswith("-"):
            raise NetworkSourceRejected("url has no host or path to filter requests by")
        steps.append(("network", "requests", "--filter", text))
        query["filter"] = redact_text(text)
    if inp.url is not None:
        query["url"] = redact_url(inp.url)
    query["maxWorkspaceFiles"] = inp.maxWorkspaceFiles
    return CompiledLookup(prefix=_prefix(inp), steps=tuple(steps), query=query)
