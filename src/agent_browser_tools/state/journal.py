"""The conversation journal: intent before each dispatch, completion after.

`Journal` is the interface the tools use; `MemoryJournal` keeps events in memory (enough for
one process). A persistent journal only has to implement `append` and `events`: state is
always the fold of what was appended, so resuming is `fold(journal.events())`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from agent_browser_tools import taxonomy
from agent_browser_tools.last_made import LastMade
from agent_browser_tools.redaction import REDACTED, redact_text, redact_url
from agent_browser_tools.redaction_scan import all_plain
from agent_browser_tools.state.grid_sessions import GridBrowser, GridSessionEvent
from agent_browser_tools.state.models import (
    ActivationEvent,
    Anchor,
    AppLaunch,
    AppLaunchEvent,
    CompletionEvent,
    ConversationState,
    Effect,
    FreshCaptureGranted,
    IntentEvent,
    JournalEvent,
    RefInfo,
    RefsRecorded,
    RoutesChanged,
    SessionActivated,
    SessionKey,
    TabSelected,
    TargetObserved,
)
from agent_browser_tools.state.reducers import apply_event, fold


class Journal(Protocol):
    def append(self, event: JournalEvent) -> None: ...

    def events(self) -> Iterable[JournalEvent]: ...


class MemoryJournal:
    """An in-process journal."""

    def __init__(self) -> None:
        self._events: list[JournalEvent] = []

    def append(self, event: JournalEvent) -> None:
        self._events.append(event)

    def events(self) -> Iterable[JournalEvent]:
        return tuple(self._events)


class ConversationLog:
    """The live state of one conversation, kept equal to the fold of its journal."""

    def __init__(self, journal: Journal | None = None) -> None:
        self.journal: Journal = journal or MemoryJournal()
        self.state: ConversationState = fold(self.journal.events())
        self._seq = self.state.last_seq

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def intent(self, call_id: str, tool: str, key: SessionKey, args: tuple[str, ...]) -> None:
        """Record that a dispatch is about to happen (args must already be redacted)."""
        event = IntentEvent(seq=self._next_seq(), call_id=call_id, tool=tool, key=key, args=args)
        self.journal.append(event)
        self.state = apply_event(self.state, event)

    def record_activation(self, capabilities: tuple[str, ...]) -> None:
        """Journal the advanced tools enabled in this conversation (they survive a restart)."""
        event = ActivationEvent(seq=self._next_seq(), capabilities=capabilities)
        self.journal.append(event)
        self.state = apply_event(self.state, event)

    def record_app(self, launch: AppLaunch) -> None:
        """Journal a desktop app launch record as it is now (it survives a restart)."""
        event = AppLaunchEvent(seq=self._next_seq(), launch=launch)
        self.journal.append(event)
        self.state = apply_event(self.state, event)

    def record_grid_browser(self, browser: GridBrowser) -> None:
        """Journal a grid session as it is now (it survives a restart)."""
        event = GridSessionEvent(seq=self._next_seq(), browser=browser)
        self.journal.append(event)
        self.state = apply_event(self.state, event)

    def complete(
        self, call_id: str, key: SessionKey, success: bool, effects: Iterable[Effect]
    ) -> None:
        """Record what the dispatch did; the reducers apply its effects."""
        event = CompletionEvent(
            seq=self._next_seq(),
            call_id=call_id,
            key=key,
            success=success,
            effects=tuple(scrub_effect(effect) for effect in effects),
        )
        event = recorded_changes(self.state, event)
        self.journal.append(event)
        self.state = apply_event(self.state, event)


CHANGES_WORTH_IT = 0.5
"""A ref map is journaled as changes when they are under this share of the map."""


def recorded_changes(state: ConversationState, event: CompletionEvent) -> CompletionEvent:
    """`event` with each recorded ref map as what changed since the map its session holds
    when that effect applies (the reducers rebuild the same map from it, live and on resume).

    Why: a page of 1,500 rows has 9,000 refs; journaling them whole on every snapshot cost
    20 ms of encoding for a map that, read again after a click, differs in a few refs."""
    effects = list(event.effects)
    patched = False
    for index, effect in enumerate(effects):
        if not isinstance(effect, RefsRecorded) or effect.changed_only:
            continue
        before = apply_event(state, event.model_copy(update={"effects": tuple(effects[:index])}))
        entry = before.sessions.get(event.key.label)
        base = entry.ref_snapshot.refs if entry and entry.ref_snapshot else None
        if not base:
            continue
        refs = effect.refs
        changed = {ref: info for ref, info in refs.items() if base.get(ref) != info}
        dropped = tuple(ref for ref in base if ref not in refs)
        if len(changed) + len(dropped) < len(refs) * CHANGES_WORTH_IT:
            update = {"refs": changed, "dropped": dropped, "changed_only": True}
            effects[index] = effect.model_copy(update=update)
            patched = True
    if not patched:
        return event
    return event.model_copy(update={"effects": tuple(effects)})


def _scrub_anchors(anchors: tuple[Anchor, Anchor] | None) -> tuple[Anchor, Anchor] | None:
    if anchors is None or all(redact_text(a.text) == a.text for a in anchors):
        return anchors
    before, after = (a._replace(text=redact_text(a.text)) for a in anchors)
    return before, after


def _scrub_ref(info: RefInfo) -> RefInfo:
    """One recorded ref with its texts redacted (an empty name is stored as none); the same
    object when nothing changes (a page can have thousands)."""
    name = redact_text(info.name) if info.name else None
    context = redact_text(info.context) if info.context else None
    anchors = _scrub_anchors(info.anchors)
    if (name, context) == (info.name, info.context) and anchors is info.anchors:
        return info
    return info._replace(name=name, context=context, anchors=anchors)


_CLEAN: LastMade[dict[str, RefInfo]] = LastMade()
"""The last ref map found clean (held, so its identity stays its own): an answer's effects
are scrubbed when read back and again when journaled."""


def _scrubbed_refs(refs: dict[str, RefInfo]) -> dict[str, RefInfo]:
    """`_scrub_ref` for each ref, or, when one scan over every name, context and anchor text
    finds nothing for a rule (a page's refs, nearly always), only empty names made none;
    the same map when nothing changes."""
    if _CLEAN.get((refs,)) is refs:
        return refs
    out = _scrub_all(refs)
    return _CLEAN.put((out,), out)


def _scrub_all(refs: dict[str, RefInfo]) -> dict[str, RefInfo]:
    infos = refs.values()
    texts = [info.name for info in infos if info.name]
    texts += [info.context for info in infos if info.context]
    texts += [anchor.text for info in infos if info.anchors for anchor in info.anchors]
    empty = any(info.name == "" for info in infos)
    if not all_plain(texts):
        return {ref: _scrub_ref(info) for ref, info in refs.items()}
    if not empty:
        return refs
    return {
        ref: info._replace(name=None) if info.name == "" else info for ref, info in refs.items()
    }


def scrub_effect(effect: Effect) -> Effect:
    """Redact URLs, titles and ref names before they are journaled (and folded into state).

    Page URLs can carry credentials or API keys in userinfo and query strings; the journal must
    never hold them. Live and restored state see the same scrubbed values, so they agree.
    """
    if isinstance(effect, TargetObserved):
        title = redact_text(effect.title) if effect.title else effect.title
        return effect.model_copy(update={"url": redact_url(effect.url), "title": title})
    if isinstance(effect, RefsRecorded):
        refs = _scrubbed_refs(effect.refs)
        url = redact_url(effect.target_url) if effect.target_url else None
        if refs is effect.refs and url == effect.target_url:
            return effect
        return effect.model_copy(update={"refs": refs, "target_url": url})
    if isinstance(effect, RoutesChanged):
        routes = tuple(
            r.model_copy(update={"pattern": redact_text(redact_url(r.pattern))})
            for r in effect.routes
        )
        return effect.model_copy(update={"routes": routes})
    if isinstance(effect, TabSelected) and effect.url:
        return effect.model_copy(update={"url": redact_url(effect.url)})
    if isinstance(effect, FreshCaptureGranted):
        return effect.model_copy(update={"url": redact_url(effect.url)})
    if isinstance(effect, SessionActivated) and effect.launch_flags:
        return effect.model_copy(update={"launch_flags": _scrub_flags(effect.launch_flags)})
    return effect


def _scrub_flags(flags: tuple[str, ...]) -> tuple[str, ...]:
    """Sensitive launch values (`--cdp` URLs with tokens, `--proxy` credentials, `--headers`)
    are not journaled; such flags are then never repeated on follow-up calls."""
    out = []
    for flag in flags:
        name, sep, value = flag.partition("=")
        spec = taxonomy.global_flag(name)
        if sep and spec is not None and spec.sensitive:
            out.append(f"{name}={REDACTED}")
        else:
            out.append(f"{name}{sep}{redact_text(value)}" if sep else flag)
    return tuple(out)
