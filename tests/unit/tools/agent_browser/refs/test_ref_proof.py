"""The ref proof's pure parts: which refs are re-read, and what counts as changed."""

from __future__ import annotations

import json
from typing import Any

from agent_browser_tools.state.effects import refs_from_snapshot, snapshot_read_args
from agent_browser_tools.state.models import RefInfo, RefSnapshot, SessionPageState
from agent_browser_tools.tools.agent_browser.refs.ref_proof import (
    check,
    current_refs,
    refs_to_verify,
)
from tests.support.plans import FORM, managed, page, plan

TREE = (
    '- button "Details" [ref=e3]\n- checkbox "Pin A" [ref=e4]\n'
    '- button "Details" [ref=e5]\n- checkbox "Pin B" [ref=e6]\n- button "Save" [ref=e7]'
)
REFS: dict[str, Any] = {
    "e3": {"role": "button", "name": "Details"},
    "e4": {"role": "checkbox", "name": "Pin A"},
    "e5": {"role": "button", "name": "Details"},
    "e6": {"role": "checkbox", "name": "Pin B"},
    "e7": {"role": "button", "name": "Save"},
}


def _data(tree: str = TREE, refs: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"snapshot": tree, "refs": REFS if refs is None else refs, "origin": FORM}


def _entry() -> SessionPageState:
    recorded = refs_from_snapshot(_data(), TREE)
    return page().model_copy(update={"ref_snapshot": RefSnapshot(refs=recorded, target_url=FORM)})


def test_only_duplicate_names_get_their_neighbours() -> None:
    refs = refs_from_snapshot(_data(), TREE)
    assert refs["e7"].context is None
    assert refs["e3"].context == "^ | checkbox 'Pin A'"
    assert refs["e5"].context == "checkbox 'Pin A' | checkbox 'Pin B'"


def test_the_read_args_keep_scope_and_drop_delta_flags() -> None:
    assert snapshot_read_args(["snapshot", "-i", "-s", "#main", "--delta"]) == (
        "snapshot",
        "-i",
        "-s",
        "#main",
    )


def test_a_direct_call_verifies_its_known_refs_and_a_refless_call_none() -> None:
    entry = _entry()
    state = managed(entry)
    assert refs_to_verify(plan(["click", "@e7"], state), entry) == ("e7",)
    assert refs_to_verify(plan(["get", "text", "e5"], state), entry) == ("e5",)
    assert refs_to_verify(plan(["click", "#save"], state), entry) == ()
    assert refs_to_verify(plan(["get", "url"], state), entry) == ()


def test_a_batch_verifies_every_known_ref_even_after_an_in_batch_snapshot() -> None:
    entry = _entry()
    state = managed(entry)
    rows = [["fill", "@e3", "x"], ["click", "@e7"], ["click", "@e5"]]
    assert refs_to_verify(plan(["batch"], state, rows=rows), entry) == ("e3", "e7", "e5")
    after_snapshot = [["fill", "@e3", "x"], ["snapshot", "-i"], ["click", "@e5"]]
    assert refs_to_verify(plan(["batch"], state, rows=after_snapshot), entry) == ("e3", "e5")


def test_an_unchanged_page_passes() -> None:
    assert check(("e3", "e7"), _entry().ref_snapshot.refs, _data()) is None  # type: ignore[union-attr]


def test_a_node_showing_another_name_is_changed() -> None:
    refs = {**REFS, "e7": {"role": "button", "name": "Delete"}}
    tree = TREE.replace('"Save"', '"Delete"')
    stale = check(("e7",), _entry().ref_snapshot.refs, _data(tree, refs))  # type: ignore[union-attr]
    assert stale is not None and stale.code == "element-changed"
    assert stale.reason == '@e7 was button "Save"; it is now button "Delete".'


def test_a_twin_whose_neighbours_swapped_is_changed() -> None:
    """Same node, same name, but now in row B: the row the model meant is elsewhere."""
    tree = (
        '- button "Details" [ref=e3]\n- checkbox "Pin B" [ref=e4]\n'
        '- button "Details" [ref=e5]\n- checkbox "Pin A" [ref=e6]\n- button "Save" [ref=e7]'
    )
    refs = {**REFS, "e4": REFS["e6"], "e6": REFS["e4"]}
    stale = check(("e5",), _entry().ref_snapshot.refs, _data(tree, refs))  # type: ignore[union-attr]
    assert stale is not None and stale.code == "element-changed"
    assert "not in the same place" in stale.reason


def test_a_ref_missing_from_the_re_read_is_gone() -> None:
    refs = {k: v for k, v in REFS.items() if k != "e7"}
    stale = check(("e7",), _entry().ref_snapshot.refs, _data(refs=refs))  # type: ignore[union-attr]
    assert stale is not None and stale.code == "element-gone"


def test_a_failed_re_read_refuses_rather_than_guessing() -> None:
    stale = check(("e7",), _entry().ref_snapshot.refs, None)  # type: ignore[union-attr]
    assert stale is not None and stale.code == "identity-unverified"


def test_a_control_value_change_is_not_an_identity_change() -> None:
    """Typing into a textbox changes its value, not its role or accessible name."""
    tree = '- textbox "Email" [ref=e2]: ada@example.test'
    refs = {"e2": {"role": "textbox", "name": "Email"}}
    recorded = {"e2": RefInfo(role="textbox", name="Email")}
    assert check(("e2",), recorded, _data(tree, refs)) is None


def test_re_read_names_are_scrubbed_like_recorded_ones() -> None:
    """A secret-looking name is stored redacted; the re-read must compare redacted too."""
    secret = "sk-live-" + "9" * 24
    refs = {"e7": {"role": "button", "name": f"Copy {secret}"}}
    fresh = current_refs(_data('- button "x" [ref=e7]', refs))
    assert fresh is not None and secret not in json.dumps(fresh["e7"]._asdict())


def test_shown_refs_are_checked_under_their_engine_ids() -> None:
    """The re-read speaks engine ids: shown e8 is engine e3."""
    recorded = {"e8": RefInfo(role="button", name="Save", engine="e3")}
    same = {"refs": {"e3": {"role": "button", "name": "Save"}}, "snapshot": ""}
    moved = {"refs": {"e8": {"role": "button", "name": "Save"}}, "snapshot": ""}
    assert check(("e8",), recorded, same) is None
    stale = check(("e8",), recorded, moved)
    assert stale is not None and stale.code == "element-gone"


def test_a_unique_element_that_gained_a_twin_is_changed() -> None:
    """Unique at snapshot time, a look-alike now: its name no longer says which row it is."""
    recorded = {"e3": RefInfo(role="button", name="Remove")}
    tree = '- button "Remove" [ref=e3]\n- button "Remove" [ref=e9]'
    refs = {"e3": {"role": "button", "name": "Remove"}, "e9": {"role": "button", "name": "Remove"}}
    stale = check(("e3",), recorded, {"snapshot": tree, "refs": refs})
    assert stale is not None and stale.code == "element-changed"
