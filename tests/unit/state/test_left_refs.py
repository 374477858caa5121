"""A page change keeps the refs it dropped aside, by document (`SessionPageState.left`)."""

from __future__ import annotations

from agent_browser_tools.state.models import (
    PageEpoch,
    RefInfo,
    RefsInvalidated,
    RefsRecorded,
    SessionPageState,
    TargetObserved,
)
from agent_browser_tools.state.reducers import LEFT_DOCUMENTS, apply_effect

PAGE = "https://example.test/walk?view=tasks"
REFS = {"e1": RefInfo("heading", "Walk"), "e2": RefInfo("button", "Shuffle")}


def _snapshot(entry: SessionPageState, token: str, refs: dict[str, RefInfo]) -> SessionPageState:
    epoch = PageEpoch(token=token, seq=4)
    return apply_effect(entry, RefsRecorded(refs=refs, target_url=PAGE, epoch=epoch))


def _leave(entry: SessionPageState) -> SessionPageState:
    entry = apply_effect(entry, TargetObserved(url=PAGE + "&away", keep_refs=False))
    return apply_effect(entry, RefsInvalidated(reason="page-transition", summary="back"))


def test_each_left_document_keeps_its_last_refs_until_it_is_read_again() -> None:
    entry = _leave(_snapshot(SessionPageState(), "doc-1", REFS))
    assert entry.ref_snapshot is None and list(entry.left) == ["doc-1"]
    assert entry.left["doc-1"].refs == REFS

    other = {"e9": RefInfo("link", "Home")}
    entry = _leave(_snapshot(entry, "doc-2", other))  # a snapshot of another document
    assert list(entry.left) == ["doc-1", "doc-2"] and entry.left["doc-2"].refs == other

    entry = _snapshot(entry, "doc-1", {"e30": RefInfo("heading", "Walk")})
    assert list(entry.left) == ["doc-2"]  # doc-1 read again: its own refs are current


def test_only_the_latest_documents_are_kept_and_refs_without_a_document_are_not() -> None:
    entry = SessionPageState()
    for number in range(LEFT_DOCUMENTS + 2):
        entry = _leave(_snapshot(entry, f"doc-{number}", REFS))
    assert list(entry.left) == [f"doc-{n}" for n in range(2, LEFT_DOCUMENTS + 2)]
    unplaced = apply_effect(SessionPageState(), RefsRecorded(refs=REFS, target_url=PAGE))
    assert _leave(unplaced).left == {}
    kept = apply_effect(_snapshot(SessionPageState(), "doc-1", REFS), TargetObserved(url=PAGE))
    assert kept.left == {} and kept.ref_snapshot is not None
