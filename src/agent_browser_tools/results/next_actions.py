"""Exact follow-up actions: executable payloads instead of prose advice.

Each builder returns a `NextAction` whose `params` can be sent to the named tool unchanged.
Browser actions keep the caller's explicit session/namespace (an implicit managed session is
re-selected automatically, so it is not repeated).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_browser_tools.state.models import SessionKey

TOOL = "agent_browser"


@dataclass(frozen=True)
class NextAction:
    id: str
    reason: str
    params: dict[str, Any]
    safety: str | None = None
    tool: str = TOOL
    extra: dict[str, Any] = field(default_factory=dict)
    artifact_path: str | None = None
    """The contract's `artifactPath` form: a file to use or check, not a call to make (then
    `params` is empty and omitted)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.tool, "id": self.id, "reason": self.reason}
        if self.safety:
            out["safety"] = self.safety
        if self.artifact_path is not None:
            out["artifactPath"] = self.artifact_path
        if self.params or self.artifact_path is None:
            out["params"] = self.params
        out.update(self.extra)
        return out


def session_prefix(key: SessionKey | None, explicit: bool) -> list[str]:
    """Argv prefix that re-targets the same session; empty for the implicit managed one."""
    if key is None or not explicit:
        return []
    prefix = ["--namespace", key.namespace] if key.namespace is not None else []
    return [*prefix, "--session", key.session]


def refresh_interactive_refs(prefix: Sequence[str]) -> NextAction:
    return NextAction(
        id="refresh-interactive-refs",
        reason="Get current interactive refs before retrying the element action.",
        safety="Prefer a current @ref or a stable find locator; do not retry stale refs blindly.",
        params={"args": [*prefix, "snapshot", "-i"]},
    )


def verify_page_target(prefix: Sequence[str], action_id: str) -> NextAction:
    """`get url` then `snapshot -i` in one fail-fast batch: executable under the target guard."""
    return NextAction(
        id=action_id,
        reason=(
            "The page target is unknown; confirm the live URL before reading or acting on the "
            "page, then take fresh refs."
        ),
        safety="Do not repeat a timed-out or interrupted action until the page is confirmed.",
        params={
            "args": [*prefix, "batch", "--bail"],
            "stdin": json.dumps([["get", "url"], ["snapshot", "-i"]]),
        },
    )


def reopen_recorded_url(prefix: Sequence[str], url: str) -> NextAction:
    """After the session's browser was closed or lost: open its last recorded page again."""
    return NextAction(
        id="reopen-recorded-url",
        reason="Reopen the page this session was on before its browser was closed or lost; "
        "then take fresh refs.",
        params={"args": [*prefix, "open", url]},
    )


def check_page_after_failed_navigation(prefix: Sequence[str]) -> NextAction:
    """A navigation the engine or the network refused: where is the session now?"""
    return NextAction(
        id="check-page-after-failed-navigation",
        reason="The navigation did not complete; see which page the session is on before "
        "retrying (check the URL, that its server is up, and that allowed domains include it).",
        params={"args": [*prefix, "get", "url"]},
    )


def inspect_after_mutation(prefix: Sequence[str]) -> NextAction:
    return NextAction(
        id="inspect-after-mutation",
        reason=(
            "Refresh interactive refs after a browser mutation, navigation, scroll, or rerender."
        ),
        safety="Do not reuse prior @refs until a fresh snapshot confirms they still exist.",
        params={"args": [*prefix, "snapshot", "-i"], "sessionMode": "auto"},
    )


def tab_gone_actions(prefix: Sequence[str]) -> list[NextAction]:
    return [
        NextAction(
            id="list-tabs-after-tab-gone",
            reason="The pinned tab is gone; list the remaining tabs instead of assuming one.",
            params={"args": [*prefix, "tab", "list"]},
        ),
        NextAction(
            id="open-new-tab-after-tab-gone",
            reason="Open a new tab for this session when none of the listed tabs is yours.",
            safety="Do not act on another session's tab.",
            params={"args": [*prefix, "tab", "new"]},
        ),
    ]


def retry_with_longer_timeout(
    args: Sequence[str], stdin: str | None, timeout_ms: int
) -> NextAction:
    params: dict[str, Any] = {"args": list(args), "timeoutMs": timeout_ms}
    if stdin is not None:
        params["stdin"] = stdin
    return NextAction(
        id="retry-with-longer-timeout",
        reason="The command hit the wrapper watchdog; a read-only retry may need more time.",
        safety="Only retry read-only commands blindly; verify the page before repeating actions.",
        params=params,
    )


def getter_action(action_id: str, args: Sequence[str]) -> NextAction:
    return NextAction(
        id=action_id,
        reason="Page getters are subcommands of `get`.",
        params={"args": list(args)},
    )


def network_request_actions(prefix: Sequence[str], request_id: str | None) -> list[NextAction]:
    """Bounded follow-ups for `network requests`: one request's detail, a clean repro, HAR."""
    actions: list[NextAction] = []
    if request_id is not None:
        actions.append(
            NextAction(
                id="inspect-network-request",
                reason="Show the full headers, body and timing of the selected request.",
                params={"args": [*prefix, "network", "request", request_id]},
            )
        )
    actions.append(
        NextAction(
            id="clear-network-requests-before-repro",
            reason="Clear the request buffer so the next reproduction shows only new requests.",
            params={"args": [*prefix, "network", "requests", "--clear"]},
        )
    )
    actions.append(
        NextAction(
            id="start-network-har-capture",
            reason="Record a HAR of the next steps for full request/response evidence.",
            safety="Stop it with `network har stop <path>` and verify the artifact.",
            params={"args": [*prefix, "network", "har", "start"]},
        )
    )
    return actions


NETWORK_SOURCE_TOOL = "agent_browser_network_source"


def network_source_actions(
    key: SessionKey | None, explicit: bool, request_id: str, *, enabled: bool
) -> list[NextAction]:
    """A failed request's source lookup, with flat params (the selected id, plus the explicit
    session/namespace); preceded by the `enable` call when the tool is not active yet."""
    params: dict[str, Any] = {"requestId": request_id}
    if key is not None and explicit:
        if key.namespace is not None:
            params["namespace"] = key.namespace
        params["session"] = key.session
    actions: list[NextAction] = []
    if not enabled:
        actions.append(
            NextAction(
                id="enable-network-source",
                tool="agent_browser_tools",
                reason=f"{NETWORK_SOURCE_TOOL} is inactive; enable its `network` capability "
                "before the lookup below.",
                params={"enable": ["network"]},
            )
        )
    actions.append(
        NextAction(
            id="find-failed-request-source",
            tool=NETWORK_SOURCE_TOOL,
            reason="Correlate the failed request with initiator metadata and URL literals in "
            "the workspace (candidates, not blame).",
            params=params,
        )
    )
    return actions


def dialog_timeout_actions(prefix: Sequence[str]) -> list[NextAction]:
    """After a dialog-like command timed out: inspect, dismiss, or recover in a new browser."""
    return [
        NextAction(
            id="inspect-dialog-after-timeout",
            reason="A JavaScript dialog may be blocking the page; see whether one is open.",
            params={"args": [*prefix, "dialog", "status"]},
        ),
        NextAction(
            id="dismiss-dialog-after-timeout",
            reason="Dismiss the open dialog so page commands can run again.",
            safety="Dismissing cancels a confirm/prompt; accept instead only if the task says so.",
            params={"args": [*prefix, "dialog", "dismiss"]},
        ),
        NextAction(
            id="recover-fresh-session-after-dialog-timeout",
            reason="If the page stays blocked, continue in a fresh managed browser.",
            safety="Page state (forms, history) of the blocked browser is not carried over.",
            params={"args": ["get", "url"], "sessionMode": "fresh"},
        ),
    ]


def inspect_overlay_state(prefix: Sequence[str]) -> NextAction:
    return NextAction(
        id="inspect-overlay-state",
        reason="Something covers the target; take a full snapshot (it shows dialog containers "
        "that snapshot -i omits) and look at the blocker before dismissing it or retrying.",
        safety="Do not blindly repeat the blocked click.",
        params={"args": [*prefix, "snapshot"]},
    )
