"""Managed-session lifecycle: fresh rotation outcomes and shutdown cleanup.

A fresh launch replaces the conversation's managed browser only when it succeeds; the browser
it replaced is closed (it is ours). A failed fresh launch is closed best-effort and
`managedSessionOutcome` says whether the previous managed session was preserved or the attempt
was abandoned. Shutdown closes only managed browsers this process owns, never caller-owned or
attached ones, within the cleanup budget; a conversation of a shared server also closes what
remains in its own socket dir (`close_own_dir`). Every close performed here is journaled
(`BrowserClosed`), so a resumed conversation knows the browser, its page and its refs are gone.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Literal

from agent_browser_tools.engine.envelope import Envelope
from agent_browser_tools.engine.orphans import reap_dead
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.state.models import (
    BrowserClosed,
    Effect,
    ManagedSessionSelected,
    SessionKey,
)
from agent_browser_tools.tools.agent_browser.browser.cleanup_expiry import (
    CloseResult,
    close_within_budget,
    report_expired,
)
from agent_browser_tools.tools.agent_browser.helpers import session_args


async def close_session(rt: Runtime, key: SessionKey, timeout_ms: int | None = None) -> bool:
    """`close` one session; True when the engine confirmed it."""
    from agent_browser_tools.engine.envelope import OutputMode, parse_outcome

    args = [*session_args(key), "close"]
    budget = timeout_ms or rt.settings.session_close_timeout_ms
    raw = await rt.spawn(args, timeout_ms=budget, session=key)
    return parse_outcome(raw, OutputMode.JSON).success


async def settle_fresh(
    rt: Runtime, plan: ExecutionPlan, obs: Observation, effects: list[Effect]
) -> None:
    """Record the outcome of a `sessionMode: "fresh"` launch."""
    if not plan.session.fresh or plan.session.key is None:
        return
    key = plan.session.key
    previous = plan.session.fresh_from
    outcome: dict[str, Any] = {"session": key.session, "previousSession": previous}
    if obs.success:
        outcome["outcome"] = "replaced" if previous else "created"
        if not any(isinstance(e, ManagedSessionSelected) for e in effects):
            effects.append(ManagedSessionSelected(session=key.session))
        if previous is not None:
            old = SessionKey(session=previous, namespace=key.namespace)
            with contextlib.suppress(Exception):
                outcome["previousClosed"] = await close_session(rt, old)
            rt.owned_sessions.discard(old)
            journal_closed(rt, [old], REPLACED_SUMMARY)
    else:
        outcome["outcome"] = "preserved" if previous else "abandoned"
        with contextlib.suppress(Exception):
            if await close_session(rt, key):
                rt.owned_sessions.discard(key)
        line = (
            f"Managed session outcome: the fresh launch failed; previous managed session "
            f"{previous!r} is still current."
            if previous
            else "Managed session outcome: the fresh launch failed and no managed session existed; "
            "the attempt was abandoned."
        )
        obs.warnings.append(line)
    obs.extra["managedSessionOutcome"] = outcome


ENDED_SUMMARY = (
    "the browser of this session was closed when the conversation's previous run ended; "
    "its page and refs are gone."
)
REPLACED_SUMMARY = "this browser was closed when a fresh managed session replaced it."


def journal_closed(
    rt: Runtime,
    keys: list[SessionKey],
    summary: str,
    reason: Literal["browser-closed", "browser-lost"] = "browser-closed",
) -> None:
    """Record that these browsers are closed (each keeps its last recorded URL)."""
    for key in keys:
        effect = BrowserClosed(summary=summary, reason=reason)
        rt.log.complete(rt.next_call_id(), key, True, (effect,))


async def reap_orphaned_browsers(rt: Runtime) -> None:
    """Stop browsers whose daemon died in the conversation's own dir: `close` cannot reach
    them (it would start a new daemon) and nothing else ever would."""
    known = [e.daemon_pid for e in rt.log.state.sessions.values() if e.daemon_pid is not None]
    await reap_dead(rt.sockets.own, known)


async def close_owned(rt: Runtime) -> dict[str, bool]:
    """Close every managed browser this runtime launched (or may have launched: ownership
    starts at the spawn), bounded by the cleanup budget, and journal the closes.

    `close` on a session whose browser never started is harmless: the engine answers and its
    daemon exits. A close that expires or breaks stays owned and unjournaled
    (`cleanup_expiry`).
    """
    owned = sorted(rt.owned_sessions, key=lambda k: k.label)
    if not owned:
        return {}
    # Orphans are reaped alongside the closes: a client may give the server only a moment.
    _, *results = await asyncio.gather(
        reap_orphaned_browsers(rt),
        *(close_within_budget(rt, key) for key in owned),
        return_exceptions=True,
    )
    ended = []
    for key, result in zip(owned, results, strict=True):
        if isinstance(result, CloseResult) and not result.expired:
            ended.append(key)
            rt.owned_sessions.discard(key)
        elif isinstance(result, CloseResult):
            report_expired(result)
    journal_closed(rt, ended, ENDED_SUMMARY)
    return {
        key.label: isinstance(result, CloseResult) and result.confirmed
        for key, result in zip(owned, results, strict=True)
    }


async def close_own_dir(rt: Runtime) -> bool:
    """`close --all` in the conversation's own socket dir and in each namespace in it.

    For a conversation on a shared server that ends: its dir is private to it and it is never
    resumed, so whatever still runs there (explicit sessions included) could only idle until
    the engine's timeout. True when every close was confirmed.
    """
    from agent_browser_tools.engine.envelope import OutputMode, parse_outcome

    if not rt.has_browsers():
        return True
    await reap_orphaned_browsers(rt)
    budget = rt.settings.session_close_timeout_ms
    scopes = [[], *(["--namespace", ns] for ns in rt.namespaces_in_use())]
    raws = await asyncio.gather(
        *(
            rt.spawn(["--json", *scope, "close", "--all"], timeout_ms=budget, whole_dir=True)
            for scope in scopes
        )
    )
    journal_closed(rt, _own_dir_sessions(rt), ENDED_SUMMARY)
    return all(parse_outcome(raw, OutputMode.JSON).success for raw in raws)


def _own_dir_sessions(rt: Runtime) -> list[SessionKey]:
    """Sessions of the journal that live in the conversation's own dir and were not closed."""
    keys = []
    for label, entry in rt.log.state.sessions.items():
        namespace, _, session = label.rpartition("/")
        key = SessionKey(session=session, namespace=namespace or None)
        if not entry.closed and not rt.sockets.is_shared(key.session, key.namespace):
            keys.append(key)
    return keys


HEADED_HANDOFF = (
    "A headed browser window was launched for session {session}. If you can see it, complete "
    'the login there, then continue with sessionMode: "auto"; this result cannot prove the '
    "window is visible on your desktop."
)


ATTACHING_FLAGS = frozenset({"--cdp", "--auto-connect", "--provider", "-p"})
"""Launch flags that attach to a browser the wrapper did not start: never a headed handoff."""


def headed_handoff(plan: ExecutionPlan, obs: Observation, envelope: Envelope) -> None:
    """`browserWindow` after a managed headed launch (a single command or a batch) that the
    engine says really launched: the user may finish a login in that window."""
    key = plan.session.key
    if not obs.success or key is None or plan.session.ownership != "managed":
        return
    names = {flag.split("=", 1)[0] for flag in plan.session.launch_flags}
    if "--headed" not in names or names & ATTACHING_FLAGS:
        return
    if any(flag.split("=", 1)[1:] == ["false"] for flag in plan.session.launch_flags):
        return
    outcome = obs.extra.get("managedSessionOutcome", {}).get("outcome", "created")
    results = [envelope.data, *(row.result for row in envelope.rows or ())]
    if not any(_launched(data) for data in results) or outcome not in ("created", "replaced"):
        return
    obs.extra["browserWindow"] = {
        "mode": "headed",
        "ownership": "wrapper-managed",
        "sessionName": key.session,
        "visibility": "unverified",
    }
    obs.warnings.append(HEADED_HANDOFF.format(session=key.session))


def _launched(data: Any) -> bool:
    life = data.get("lifecycle") if isinstance(data, dict) else None
    if not isinstance(life, dict):
        return False
    effective = life.get("effectiveLaunch")
    browser = isinstance(effective, dict) and effective.get("browserLaunched") is True
    return life.get("launched") is True or browser
