"""Native `snapshot --delta` answers: which carry a tree, and how partial ones are shown."""

from __future__ import annotations

from typing import Any

from agent_browser_tools.results.snapshot.delta import (
    SHOWN_TREE_LINES,
    native_snapshot,
    render_partial,
    snapshot_payload,
    without_delta_flags,
)

REFS = {"e1": {"role": "button", "name": "Go"}}
FULL: dict[str, Any] = {
    "origin": "http://x/",
    "snapshot": {"kind": "full", "revision": 1, "tree": '- button "Go" [ref=e1]', "refs": REFS},
}
UNCHANGED = {"snapshot": {"kind": "unchanged", "revision": 2, "baseRevision": 1}}
CHANGED = {
    "snapshot": {
        "kind": "delta",
        "revision": 5,
        "baseRevision": 4,
        "changes": [{"op": "add", "ref": "@e24", "node": {"role": "button", "name": "New"}}],
        "treeChange": {"startLine": 23, "deleteCount": 0, "lines": ['- button "New" [ref=e24]']},
    }
}


def test_ordinary_and_native_full_answers_give_the_same_payload() -> None:
    ordinary = {"snapshot": '- button "Go" [ref=e1]', "refs": REFS}
    for data in (ordinary, FULL):
        payload = snapshot_payload(data)
        assert payload is not None
        assert payload.text == '- button "Go" [ref=e1]' and payload.refs == REFS


def test_an_ordinary_tree_without_a_ref_map_reports_none_not_empty() -> None:
    payload = snapshot_payload({"snapshot": "- text"})
    assert payload is not None and payload.refs is None


def test_partial_answers_have_no_payload_but_are_native() -> None:
    for data in (UNCHANGED, CHANGED):
        assert snapshot_payload(data) is None
        native = native_snapshot(data)
        assert native is not None and native.partial
    assert native_snapshot({"snapshot": "- text"}) is None
    assert native_snapshot({"clicked": "@e1"}) is None


def test_unchanged_answer_names_both_revisions() -> None:
    native = native_snapshot(UNCHANGED)
    assert native is not None
    assert render_partial(native) == [
        "Snapshot delta: unchanged (revision 2 against base revision 1)."
    ]


def test_changed_answer_lists_ref_changes_and_the_tree_splice() -> None:
    native = native_snapshot(CHANGED)
    assert native is not None
    lines = render_partial(native)
    assert (
        lines[0] == "Snapshot delta: changed (revision 5 against base revision 4), 1 ref change(s)."
    )
    assert '- add @e24 button "New"' in lines
    assert "Tree change at line 23: 0 line(s) replaced by 1:" in lines
    assert lines[-1] == '- button "New" [ref=e24]'


def test_a_long_tree_splice_is_cut_with_a_pointer_to_details() -> None:
    many = [f'- button "B{i}" [ref=e{i}]' for i in range(SHOWN_TREE_LINES + 5)]
    data = {
        "snapshot": {
            "kind": "delta",
            "revision": 2,
            "baseRevision": 1,
            "changes": [],
            "treeChange": {"startLine": 0, "deleteCount": 0, "lines": many},
        }
    }
    native = native_snapshot(data)
    assert native is not None
    lines = render_partial(native)
    assert many[SHOWN_TREE_LINES - 1] in lines and many[SHOWN_TREE_LINES] not in lines
    assert lines[-1] == "… 5 more lines in details.data.snapshot"


def test_ordinary_read_keeps_scope_flags_and_drops_delta_flags() -> None:
    tokens = ["snapshot", "-i", "--delta", "--full", "-s", "#main"]
    assert without_delta_flags(tokens) == ["snapshot", "-i", "-s", "#main"]


def test_a_full_answer_without_refs_still_shows_its_tree() -> None:
    data = {"snapshot": {"kind": "full", "revision": 1, "tree": "- heading [ref=e1]"}}
    payload = snapshot_payload(data)
    assert payload is not None and payload.text == "- heading [ref=e1]" and payload.refs is None


def test_a_missing_base_revision_is_left_out_not_printed_as_none() -> None:
    native = native_snapshot({"snapshot": {"kind": "unchanged", "revision": 7}})
    assert native is not None
    assert render_partial(native) == ["Snapshot delta: unchanged (revision 7)."]
