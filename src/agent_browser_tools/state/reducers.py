"""Pure reducers: `ConversationState` x journal event -> `ConversationState`.

Rebuilding state is `fold(events)`; the live path applies the same function to each event it
appends, so a restarted process and a running one cannot disagree.

Rules that are easy to get wrong:

- An intent without a completion (the process died mid-call) leaves the session's target
  unknown and its refs invalidated: the command may or may not have run.
- A page change that was not observed never keeps old refs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agent_browser_tools.state import tab_refs
from agent_browser_tools.state.grid_sessions import GridSessionEvent
from agent_browser_tools.state.models import (
    ActivationEvent,
    AppLaunchEvent,
    BrowserClosed,
    CompletionEvent,
    ConfirmationMarked,
    ConversationState,
    DaemonObserved,
    Effect,
    FreshCapture,
    FreshCaptureGranted,
    IntentEvent,
    JournalEvent,
    ManagedSessionSelected,
    NamespaceClosed,
    PageTarget,
    RecordingClosed,
    RecordingOpened,
    RefInfo,
    RefInvalidation,
    RefsInvalidated,
    RefSnapshot,
    RefsRecorded,
    RetiredRef,
    RoutesChanged,
    SessionActivated,
    SessionClosed,
    SessionPageState,
    TabSelected,
    TargetObserved,
    TargetUnknown,
)

INTERRUPTED_SUMMARY = (
    "A browser command was interrupted before its result was recorded; the page target is "
    "unknown until `get url` or a fresh `snapshot -i` observes it."
)


def fold(
    events: Iterable[JournalEvent], state: ConversationState | None = None
) -> ConversationState:
    """Apply `events` in order, then settle intents that never completed."""
    current = state or ConversationState()
    for event in events:
        current = apply_event(current, event)
    return settle_interrupted(current)


def apply_event(state: ConversationState, event: JournalEvent) -> ConversationState:
    """One step of the fold."""
    if isinstance(event, ActivationEvent):
        return state.model_copy(
            update={"activated_tools": event.capabilities, "last_seq": event.seq}
        )
    if isinstance(event, AppLaunchEvent):
        launches = {**state.app_launches, event.launch.launch_id: event.launch}
        return state.model_copy(update={"app_launches": launches, "last_seq": event.seq})
    if isinstance(event, GridSessionEvent):
        grid = {**state.grid_browsers, event.browser.session_id: event.browser}
        return state.model_copy(update={"grid_browsers": grid, "last_seq": event.seq})
    if isinstance(event, IntentEvent):
        pending = dict(state.pending_intents)
        pending[event.call_id] = event
        return state.model_copy(update={"pending_intents": pending, "last_seq": event.seq})
    return _complete(state, event)


def settle_interrupted(state: ConversationState) -> ConversationState:
    """Turn every pending intent into an unknown target (used when loading a journal)."""
    if not state.pending_intents:
        return state
    sessions = dict(state.sessions)
    for intent in state.pending_intents.values():
        label = intent.key.label
        entry = sessions.get(label, SessionPageState())
        sessions[label] = entry.model_copy(
            update={
                "target_unknown": True,
                "ref_snapshot": None,
                "ref_invalidation": RefInvalidation(
                    reason="page-transition", summary=INTERRUPTED_SUMMARY
                ),
            }
        )
    interrupted = tuple(dict.fromkeys(i.key for i in state.pending_intents.values()))
    return state.model_copy(
        update={"sessions": sessions, "pending_intents": {}, "interrupted": interrupted}
    )


def _complete(state: ConversationState, event: CompletionEvent) -> ConversationState:
    pending = {k: v for k, v in state.pending_intents.items() if k != event.call_id}
    sessions = dict(state.sessions)
    managed = state.managed_session
    label = event.key.label
    high = state.ref_high
    if label in sessions and not any(isinstance(e, FreshCaptureGranted) for e in event.effects):
        # A confirmed capture's one use: any completed call on the session spends it.
        sessions[label] = sessions[label].model_copy(update={"fresh_capture": None})
    for effect in event.effects:
        if isinstance(effect, ManagedSessionSelected):
            managed = effect.session
            continue
        if isinstance(effect, RefsRecorded):
            high = max(high, _highest_ref(effect.refs))
        if isinstance(effect, NamespaceClosed):
            sessions = {
                name: entry
                for name, entry in sessions.items()
                if _namespace_of(name) != event.key.namespace
            }
            continue
        sessions[label] = apply_effect(sessions.get(label, SessionPageState()), effect)
    return state.model_copy(
        update={
            "sessions": sessions,
            "managed_session": managed,
            "pending_intents": pending,
            "ref_high": high,
            "last_seq": max(state.last_seq, event.seq),
        }
    )


def _highest_ref(refs: Mapping[str, object]) -> int:
    numbers = [int(ref[1:]) for ref in refs if ref[:1] == "e" and ref[1:].isdigit()]
    return max(numbers, default=0)


RETIRED_LIMIT = 2000
"""Retired refs kept per page (the oldest go first): enough for a long task on one page."""


def retired_refs(
    previous: RefSnapshot | None, refs: Mapping[str, RefInfo]
) -> dict[str, RetiredRef]:
    """Refs the page's earlier snapshots showed that `refs` does not, with what became of
    their element as of this snapshot: the engine keeps a node's id, so an engine id still
    present names the same node, now shown under another ref because it shows something
    else.

    A snapshot after an invalidation (navigation, a new browser) starts a new page: nothing
    is carried over."""
    if previous is None:
        return {}
    by_engine = {info.engine or ref: info for ref, info in refs.items()}
    out: dict[str, RetiredRef] = {}
    for ref, old in previous.retired.items():
        if ref in refs:
            continue  # shown again (its node reads as it did: `refmap.Shown`)
        now = by_engine.get(old.was.engine or ref) if old.now is not None else None
        out[ref] = old if now == old.now else RetiredRef.model_construct(was=old.was, now=now)
    for ref, info in previous.refs.items():
        if ref not in refs:
            out[ref] = RetiredRef(was=info, now=by_engine.get(info.engine or ref))
    if len(out) > RETIRED_LIMIT:
        out = dict(list(out.items())[-RETIRED_LIMIT:])
    return out


def recorded_refs(previous: RefSnapshot | None, effect: RefsRecorded) -> dict[str, RefInfo]:
    """The ref map a `RefsRecorded` leaves: its refs, or, for one journaled as changes, the
    previous map without its dropped refs and with its added and changed ones."""
    if not effect.changed_only:
        return effect.refs
    gone = set(effect.dropped)
    base = previous.refs if previous is not None else {}
    refs = {ref: info for ref, info in base.items() if ref not in gone}
    refs.update(effect.refs)
    return refs


LEFT_DOCUMENTS = 3
"""Documents whose last refs a session keeps after leaving them (`SessionPageState.left`)."""


def left_documents(
    left: Mapping[str, RefSnapshot], dropped: RefSnapshot | None
) -> dict[str, RefSnapshot]:
    """`left` with the refs a page change dropped as their document's latest (refs with no
    change-log position name no document: they are not kept)."""
    if dropped is None or dropped.epoch is None:
        return dict(left)
    token = dropped.epoch.token
    kept = {t: refs for t, refs in left.items() if t != token}
    kept[token] = dropped
    return dict(list(kept.items())[-LEFT_DOCUMENTS:])


def _without(left: Mapping[str, RefSnapshot], token: str | None) -> dict[str, RefSnapshot]:
    """A snapshot of a left document supersedes what was kept of it."""
    return {t: refs for t, refs in left.items() if t != token}


def _namespace_of(label: str) -> str | None:
    return label.split("/", 1)[0] if "/" in label else None


def apply_effect(entry: SessionPageState, effect: Effect) -> SessionPageState:
    """The per-session part of the fold."""
    if isinstance(effect, TargetObserved):
        return _observed(entry, effect)
    if isinstance(effect, TargetUnknown):
        return entry.model_copy(
            update={
                "target_unknown": True,
                "tab": None,  # an unobserved change may have moved to another tab
                "ref_snapshot": None,
                "ref_invalidation": RefInvalidation(
                    reason="page-transition", summary=effect.summary
                ),
            }
        )
    if isinstance(effect, RefsRecorded):
        refs = recorded_refs(entry.ref_snapshot, effect)
        return entry.model_copy(
            update={
                # Built without validation: the effect's refs were validated already and a
                # page can show thousands.
                "ref_snapshot": RefSnapshot.model_construct(
                    refs=refs,
                    target_url=effect.target_url,
                    read_args=effect.read_args,
                    epoch=effect.epoch,
                    retired=retired_refs(entry.ref_snapshot, refs),
                ),
                "ref_invalidation": None,
                "active": True,
                "closed": False,
                "left": _without(entry.left, effect.epoch.token if effect.epoch else None),
            }
        )
    if isinstance(effect, RefsInvalidated):
        return entry.model_copy(
            update={
                "ref_snapshot": None,
                "ref_invalidation": RefInvalidation(reason=effect.reason, summary=effect.summary),
            }
        )
    if isinstance(effect, SessionActivated):
        return entry.model_copy(
            update={
                "active": True,
                "closed": False,
                "ownership": effect.ownership,
                "launch_flags": _merged_flags(entry, effect.launch_flags),
            }
        )
    if isinstance(effect, TabSelected):
        return tab_refs.switched(entry, effect)
    if isinstance(effect, SessionClosed):
        return SessionPageState(ownership=entry.ownership)
    if isinstance(effect, BrowserClosed):
        return _closed_by_wrapper(entry, effect)
    update = _field_update(effect)
    return entry if update is None else entry.model_copy(update=update)


def _field_update(effect: Effect) -> dict[str, Any] | None:
    """Effects that only set their own fields of the session's state."""
    if isinstance(effect, DaemonObserved):
        return {"daemon_pid": effect.pid, "daemon_browser": effect.browser}
    if isinstance(effect, RecordingOpened):
        return {"recording": effect.reservation}
    if isinstance(effect, RecordingClosed):
        return {"recording": None}
    if isinstance(effect, RoutesChanged):
        return {"routes": effect.routes}
    if isinstance(effect, ConfirmationMarked):
        return {"read_confirmation": effect.marker}
    if isinstance(effect, FreshCaptureGranted):
        return {"fresh_capture": FreshCapture(url=effect.url)}
    return None


def _merged_flags(entry: SessionPageState, given: tuple[str, ...]) -> tuple[str, ...]:
    """A running browser keeps every launch flag and daemon setting it started with; a call
    that repeats some of them must not make the others look unset (they would be dropped
    from the next call, and the engine would replace the daemon)."""
    if not entry.active:
        return given or entry.launch_flags
    names = {flag.partition("=")[0] for flag in given}
    kept = tuple(f for f in entry.launch_flags if f.partition("=")[0] not in names)
    return (*kept, *given)


def _observed(entry: SessionPageState, effect: TargetObserved) -> SessionPageState:
    title = effect.title
    if title is None and entry.target is not None and entry.target.url == effect.url:
        # `get url` and snapshots report no title: a title is the last-observed label of
        # that URL, so an untitled observation of the same URL keeps it.
        title = entry.target.title
    update: dict[str, object] = {
        "target": PageTarget(url=effect.url, title=title),
        "target_unknown": False,
        "active": True,
        "closed": False,
    }
    if effect.tab is not None:
        update["tab"] = effect.tab
    if not effect.keep_refs:
        update["ref_snapshot"] = None
        update["left"] = left_documents(entry.left, entry.ref_snapshot)
    return entry.model_copy(update=update)


def _closed_by_wrapper(entry: SessionPageState, effect: BrowserClosed) -> SessionPageState:
    """Nothing of the page survives but its last recorded URL (what the model may reopen)."""
    return SessionPageState(
        ownership=entry.ownership,
        target=entry.target,
        target_unknown=True,
        closed=True,
        ref_invalidation=RefInvalidation(reason=effect.reason, summary=effect.summary),
        recording=entry.recording,
    )
