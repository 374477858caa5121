"""The session route tracker: which `network route` patterns are active, for diagnostics.

Why tracked: the engine does not list active routes, and a route set several calls ago is what
makes a later request hang or fail CORS. Each successful `network route` / `unroute` (direct
or a batch row) becomes a `RoutesChanged` effect, so the journal keeps the list across resume
and close/loss clears it with the rest of the session's page state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import (
    REDACTED,
    URL_USERINFO_REDACTED,
    redact_text,
    redact_url,
)
from agent_browser_tools.results import diagnostics
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.route_diagnostics import route_diagnostics
from agent_browser_tools.state.models import Effect, RouteMode, RouteRule, RoutesChanged
from agent_browser_tools.taxonomy import CommandMatch, Diagnostic

MAX_UNROUTE_ACTIONS = 3


def _reached(plan: ExecutionPlan, obs: Observation) -> list[CommandMatch]:
    """The commands of this call that succeeded, in order."""
    if not plan.is_batch:
        return [plan.match] if obs.success and plan.match is not None else []
    steps = obs.extra.get("batchSteps", [])
    rows = plan.row_matches or ()
    return [m for m, s in zip(rows, steps, strict=False) if m is not None and s.get("success")]


def scrub_pattern(pattern: str) -> str:
    """A route pattern as it may be kept and shown: a key in its query or a token in it is
    masked like any URL, so the journal and the diagnostics never hold it (matching is done
    against request URLs that are masked the same way)."""
    return redact_text(redact_url(pattern))


def _applied(routes: tuple[RouteRule, ...], match: CommandMatch) -> tuple[RouteRule, ...]:
    kind = match.spec.diagnostic
    if kind is Diagnostic.ROUTE_ADD and match.operands:
        pattern = scrub_pattern(match.operands[0])
        mode: RouteMode = "intercept"
        if match.has_flag("--abort"):
            mode = "abort"
        elif match.flag_value("--body") is not None:
            mode = "mock-body"
        kept = tuple(r for r in routes if r.pattern != pattern)
        return (*kept, RouteRule(pattern=pattern, mode=mode))
    if kind is Diagnostic.ROUTE_REMOVE:
        if not match.operands:
            return ()
        return tuple(r for r in routes if r.pattern != scrub_pattern(match.operands[0]))
    return routes


def route_effects(
    plan: ExecutionPlan, obs: Observation, routes: tuple[RouteRule, ...]
) -> list[Effect]:
    """`RoutesChanged` when this call's successful commands changed the active routes."""
    updated = routes
    for match in _reached(plan, obs):
        updated = _applied(updated, match)
    return [RoutesChanged(routes=updated)] if updated != routes else []


def diagnose(
    plan: ExecutionPlan, obs: Observation, routes: Sequence[RouteRule], prefix: Sequence[str]
) -> None:
    """`networkRouteDiagnostics`, its visible line and route-mock follow-ups (first) for a
    successful `network requests` while routes are active."""
    listed = plan.match is not None and plan.match.spec.diagnostic is Diagnostic.REQUEST_LIST
    if plan.is_batch or not listed or not obs.success or not routes:
        return
    data = obs.data
    rows = diagnostics.request_rows(data) if isinstance(data, Mapping) else []
    found = route_diagnostics(rows, routes)
    if not found:
        return
    obs.extra["networkRouteDiagnostics"] = found
    obs.warnings.insert(
        0, "Network route diagnostics: " + "; ".join(d["summary"] for d in found[:3])
    )
    obs.next_actions[:0] = _actions(found, prefix)


def _actions(found: list[dict[str, Any]], prefix: Sequence[str]) -> list[na.NextAction]:
    actions: list[na.NextAction] = []
    ident = next((d["requestId"] for d in found if "requestId" in d), None)
    if ident is not None:
        actions.append(
            na.NextAction(
                id="inspect-routed-request",
                reason="Show the routed request's headers and timing.",
                params={"args": [*prefix, "network", "request", ident]},
            )
        )
    patterns = list(dict.fromkeys(d["routePattern"] for d in found))[:MAX_UNROUTE_ACTIONS]
    for index, pattern in enumerate(patterns, start=1):
        masked = REDACTED in pattern or URL_USERINFO_REDACTED in pattern
        actions.append(
            na.NextAction(
                id="remove-network-route" if index == 1 else f"remove-network-route-{index}",
                reason=f"Remove route {pattern} so matching requests reach the network again; "
                "mock a same-origin URL instead if a cross-origin fetch needs it."
                + (
                    " Its pattern holds a secret that is not repeated: this removes every route."
                    if masked
                    else ""
                ),
                safety="Changes what the page receives; reload or repeat the action after.",
                params={"args": [*prefix, "network", "unroute", *([] if masked else [pattern])]},
            )
        )
        if masked:
            break
    actions.append(
        na.NextAction(
            id="start-network-har-capture-for-route",
            reason="Record a HAR of the next attempt to see what the route answered.",
            safety="Stop it with `network har stop <path>` and verify the artifact.",
            params={"args": [*prefix, "network", "har", "start"]},
        )
    )
    return actions
