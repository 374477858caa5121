"""A ref map read again is journaled as what changed, and the fold rebuilds the whole map.

Why it matters: a page of 1,500 rows has 9,000 refs, and every snapshot journaled them all.
The journal now keeps the changes; these tests hold the live state, the journal and a resume
from its JSON to the same whole map, whatever happens between two snapshots.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from agent_browser_tools.state.journal import ConversationLog, MemoryJournal
from agent_browser_tools.state.models import (
    Anchor,
    CompletionEvent,
    Effect,
    JournalEvent,
    RefInfo,
    RefsInvalidated,
    RefsRecorded,
    SessionKey,
    TargetObserved,
)
from agent_browser_tools.state.reducers import fold

KEY = SessionKey(session="abt-unit")
PAGE = "https://example.test/rows"
ADAPTER: TypeAdapter[JournalEvent] = TypeAdapter(JournalEvent)


def _rows(count: int) -> dict[str, RefInfo]:
    refs = {f"e{i}": RefInfo("checkbox", f"Select item {i}") for i in range(1, count + 1)}
    edit = (Anchor("e1", "checkbox 'Select item 1'"), Anchor("$", "$"))
    refs[f"e{count + 1}"] = RefInfo("button", "Edit", "x | y", None, edit, 0)
    return refs


class Conversation:
    """A live log over a journal, with the call counter the tools keep."""

    def __init__(self) -> None:
        self.journal = MemoryJournal()
        self.log = ConversationLog(self.journal)
        self.calls = 0

    def complete(self, *effects: Effect) -> CompletionEvent:
        self.calls += 1
        call_id = f"c{self.calls}"
        self.log.intent(call_id, "agent_browser", KEY, ("snapshot", "-i"))
        self.log.complete(call_id, KEY, True, effects)
        last = list(self.journal.events())[-1]
        assert isinstance(last, CompletionEvent)
        return last

    def snapshot(self, refs: dict[str, RefInfo]) -> RefsRecorded:
        event = self.complete(TargetObserved(url=PAGE), RefsRecorded(refs=refs, target_url=PAGE))
        recorded = event.effects[-1]
        assert isinstance(recorded, RefsRecorded)
        return recorded

    def refs(self) -> dict[str, RefInfo]:
        snapshot = self.log.state.session(KEY).ref_snapshot
        assert snapshot is not None
        return snapshot.refs

    def resumed(self) -> ConversationLog:
        """A new process: the journal read back from its JSON."""
        restored = MemoryJournal()
        for event in self.journal.events():
            restored.append(ADAPTER.validate_json(ADAPTER.dump_json(event)))
        return ConversationLog(restored)


def test_a_map_read_again_is_journaled_as_its_few_changes() -> None:
    talk = Conversation()
    first = _rows(1000)
    assert not talk.snapshot(first).changed_only  # nothing to compare with: whole

    again = talk.snapshot(dict(first))
    assert again.changed_only and again.refs == {} and again.dropped == ()
    assert talk.refs() == first

    later = dict(first)
    later["e5"] = RefInfo("checkbox", "Select item 5 (done)")
    del later["e7"]
    later["e2000"] = RefInfo("status", "Saved")
    changes = talk.snapshot(later)
    assert changes.changed_only
    assert changes.refs == {"e5": later["e5"], "e2000": later["e2000"]}
    assert changes.dropped == ("e7",)
    assert talk.refs() == later
    assert talk.resumed().state == talk.log.state == fold(talk.journal.events())


def test_a_map_after_a_navigation_in_the_same_call_is_journaled_whole() -> None:
    """The base is the map the session holds when the effect applies: a page change earlier
    in the same call leaves none, so the map goes whole."""
    talk = Conversation()
    talk.snapshot(_rows(300))
    moved = TargetObserved(url="https://example.test/other", keep_refs=False)
    event = talk.complete(moved, RefsRecorded(refs=_rows(300), target_url=PAGE))
    recorded = event.effects[-1]
    assert isinstance(recorded, RefsRecorded) and not recorded.changed_only
    assert talk.refs() == _rows(300)

    talk.complete(RefsInvalidated(reason="page-transition", summary="gone"))
    assert not talk.snapshot(_rows(300)).changed_only


def test_a_map_that_mostly_changed_is_journaled_whole() -> None:
    talk = Conversation()
    talk.snapshot(_rows(100))
    other = {f"e{i}": RefInfo("link", f"Result {i}") for i in range(1, 120)}
    recorded = talk.snapshot(other)
    assert not recorded.changed_only and recorded.refs == other
    assert talk.refs() == other


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=2**32), min_size=1, max_size=8))
def test_any_run_of_snapshots_and_page_changes_folds_to_the_latest_map(seeds: list[int]) -> None:
    """Random edits between snapshots (renames, removals, additions, twins' anchors moving,
    invalidations): after each, live state, journal fold and a resume hold the map just
    recorded."""
    talk = Conversation()
    refs = _rows(200)
    for seed in seeds:
        rng = random.Random(seed)
        refs = dict(refs)
        for _ in range(rng.randrange(0, 12)):
            ref = rng.choice(sorted(refs))
            roll = rng.random()
            if roll < 0.3:
                del refs[ref]
            elif roll < 0.6:
                refs[ref] = refs[ref]._replace(name=f"renamed {rng.randrange(99)}")
            elif roll < 0.8:
                refs[f"e{rng.randrange(201, 400)}"] = RefInfo("button", "Edit")
            else:
                refs[ref] = refs[ref]._replace(anchors=(Anchor("^", "^"), Anchor(ref, "moved")))
        if rng.random() < 0.2:
            talk.complete(RefsInvalidated(reason="page-transition", summary="moved"))
        talk.snapshot(refs)
        assert talk.refs() == refs
    assert talk.resumed().state == talk.log.state == fold(talk.journal.events())
