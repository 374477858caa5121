"""After a page change within one document: which ref calls get a snapshot first, and what
is refused when that snapshot does not show a ref again (pure)."""

from __future__ import annotations

from agent_browser_tools.state.models import RefInfo, RefInvalidation, RefSnapshot, RetiredRef
from agent_browser_tools.state.models import SessionPageState as Entry
from agent_browser_tools.tools.agent_browser.refs.same_document import left_refs, not_kept, used_ids
from tests.support.plans import FORM, managed, page, plan

LEFT = RefSnapshot(
    refs={"e3": RefInfo(role="button", name="Shuffle"), "e4": RefInfo(role="button", name="Slot")},
    target_url=FORM,
)
BACK = RefInvalidation(reason="page-transition", summary="`back` navigated.")


def _after_back(**update: object) -> Entry:
    fields = {"ref_snapshot": None, "ref_invalidation": BACK, "left": {"t1": LEFT}}
    return page().model_copy(update={**fields, **update})


def test_a_call_whose_refs_were_all_kept_aside_gets_a_snapshot_first() -> None:
    entry = _after_back()
    state = managed(entry)
    assert left_refs(plan(["click", "@e3"], state), entry) == {"e3": 'button "Shuffle"'}
    rows = [["click", "@e3"], ["get", "text", "@e4"], ["click", "@e3"]]
    assert used_ids(plan(["batch"], state, rows=rows)) == ("e3", "e4")
    assert left_refs(plan(["batch"], state, rows=rows), entry) is not None


def test_no_snapshot_first_when_it_could_not_help_or_is_not_needed() -> None:
    """A ref kept aside of no document, no ref at all, a snapshot already there, a browser
    that closed, a page target unknown, and a drop that was no page change."""
    entry = _after_back()
    state = managed(entry)
    assert left_refs(plan(["click", "@e9"], state), entry) is None
    assert left_refs(plan(["click", "@e3"], state), _after_back(left={})) is None
    assert left_refs(plan(["get", "url"], state), entry) is None
    kept = _after_back(ref_snapshot=LEFT)
    closed = _after_back(closed=True)
    lost = _after_back(target_unknown=True)
    other = _after_back(ref_invalidation=RefInvalidation(reason="refs-unread", summary="x"))
    for case in (kept, closed, lost, other):
        assert left_refs(plan(["click", "@e3"], managed(case)), case) is None


def test_refs_the_new_snapshot_does_not_show_again_are_refused_as_changed() -> None:
    named = {"e3": 'button "Shuffle"', "e4": 'button "Slot"'}
    shown = RefSnapshot(refs={"e3": RefInfo(role="button", name="Shuffle")}, target_url=FORM)
    stale = not_kept(named, _after_back(ref_snapshot=shown))
    assert stale is not None and stale.refs == ("e4",) and stale.code == "element-changed"
    assert '@e4 was button "Slot"' in stale.reason
    assert not_kept({"e3": 'button "Shuffle"'}, _after_back(ref_snapshot=shown)) is None
    assert not_kept(named, _after_back()) is None  # the snapshot failed: the guard says why


def test_a_ref_retired_as_changed_gets_a_snapshot_first_one_retired_as_gone_none() -> None:
    """Its node may read as the ref did again (a label that rotated back); a gone node never
    comes back, and a ref still shown needs nothing."""
    hide = RefInfo(role="button", name="Hide", engine="e3")
    retired = {"e3": RetiredRef(was=LEFT.refs["e3"], now=hide), "e4": RetiredRef(was=hide)}
    latest = RefSnapshot(refs={"e9": hide}, target_url=FORM, retired=retired)
    entry = page().model_copy(update={"ref_snapshot": latest})
    state = managed(entry)
    assert left_refs(plan(["click", "@e3"], state), entry) == {"e3": 'button "Shuffle"'}
    assert left_refs(plan(["click", "@e4"], state), entry) is None
    assert left_refs(plan(["click", "@e9"], state), entry) is None
