"""Wrapper-side `network requests --current-page | --current-origin | --current-url`.

The engine's request buffer spans every page the session visited; these flags (stripped before
spawn) keep only rows for the page the agent is looking at. The live page URL is read with one
`get url` call, never assumed from memory, because the page may have moved.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import redact_url
from agent_browser_tools.results.diagnostics import request_rows, select_request_id
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.stale_refs import normalize_url
from agent_browser_tools.taxonomy import split_global_flags
from agent_browser_tools.tools.agent_browser.helpers import current_page_url
from agent_browser_tools.tools.agent_browser.hooks import PostHook

MODES = {"--current-page": "origin", "--current-origin": "origin", "--current-url": "url"}


@dataclass(frozen=True)
class NetworkFilter:
    flag: str
    mode: str  # "origin" | "url"


def split_network_flags(args: Sequence[str]) -> tuple[list[str], NetworkFilter | None]:
    """Strip the wrapper flags from a `network requests` call; other commands pass through."""
    tokens = list(args)
    # Global flags may take values (`--session NAME`): read the command after them.
    words = [t for t in split_global_flags(tokens)[1] if not t.startswith("-")]
    if words[:2] != ["network", "requests"]:
        return tokens, None
    found = [t for t in tokens if t in MODES]
    if not found:
        return tokens, None
    clean = [t for t in tokens if t not in MODES]
    return clean, NetworkFilter(flag=found[-1], mode=MODES[found[-1]])


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _keep(row_url: str, current: str, mode: str) -> bool:
    if mode == "url":
        return normalize_url(row_url) == normalize_url(current)
    return _origin(row_url) == _origin(current)


def make_post(flt: NetworkFilter, clean_args: Sequence[str]) -> PostHook:
    """A post hook that filters the visible rows and records `networkRequestsPageFilter`."""

    async def post(rt: Runtime, plan: ExecutionPlan, obs: Observation) -> None:
        if not obs.success or not isinstance(obs.data, Mapping):
            return
        current = await current_page_url(rt, plan)
        rows = request_rows(obs.data)
        info: dict[str, Any] = {
            "cleanArgs": list(clean_args),
            "mode": flt.flag.removeprefix("--"),
            "totalRows": len(rows),
        }
        if current is None:
            info.update(currentUrl=None, matchedRows=len(rows))
            obs.warnings.append(
                f"{flt.flag}: the current page URL could not be read; showing all requests."
            )
        else:
            kept = [r for r in rows if _keep(str(r.get("url", "")), current, flt.mode)]
            data = dict(obs.data)
            for key in ("requests", "items", "entries"):
                if isinstance(data.get(key), list):
                    data[key] = kept
            obs.data = data
            info.update(currentUrl=redact_url(current), matchedRows=len(kept))
            _retarget_inspection(obs, kept)
        obs.extra["networkRequestsPageFilter"] = info

    return post


def _retarget_inspection(obs: Observation, kept: Sequence[Mapping[str, Any]]) -> None:
    """Point `inspect-network-request` at a row that is still shown (or drop it), and drop a
    source lookup of a hidden row.

    Why: the action was chosen from the unfiltered buffer; offering a request the filter just
    hid would send the agent to another page's traffic.
    """
    actions = obs.next_actions
    shown = {r.get("requestId") for r in kept}
    lookup = next((a for a in actions if a.id == "find-failed-request-source"), None)
    if lookup is not None and lookup.params.get("requestId") not in shown:
        # The source lookup names a row the filter hid: drop it with its enable step.
        drop = {"find-failed-request-source", "enable-network-source"}
        actions[:] = [a for a in actions if a.id not in drop]
    at = next((i for i, a in enumerate(actions) if a.id == "inspect-network-request"), None)
    if at is None:
        return
    chosen = select_request_id(kept)
    if chosen is None:
        del actions[at]
        return
    args = list(actions[at].params["args"])
    args[-1] = chosen
    actions[at] = replace(actions[at], params={**actions[at].params, "args": args})
