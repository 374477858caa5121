"""Shown refs name one element each for the whole conversation (pure translation rules)."""

from __future__ import annotations

import json

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.state.effects import refs_from_snapshot
from agent_browser_tools.state.models import (
    CompletionEvent,
    ConversationState,
    Effect,
    NamespaceClosed,
    RefInfo,
    RefsRecorded,
    RetiredRef,
    SessionKey,
)
from agent_browser_tools.state.reducers import apply_event
from agent_browser_tools.tools.agent_browser.refs import refmap
from tests.support.plans import plan

KEY = SessionKey(session="s")
A = RefInfo(role="button", name="Details A")
B = RefInfo(role="button", name="Details B")
C = RefInfo(role="button", name="Details C")


def _snapshot(*rows: tuple[str, RefInfo]) -> dict[str, object]:
    tree = "\n".join(f'- {i.role} "{i.name}" [ref={ref}]' for ref, i in rows)
    refs = {ref: {"role": i.role, "name": i.name} for ref, i in rows}
    return {"snapshot": tree, "refs": refs}


def test_a_fresh_conversation_shows_the_engines_own_numbers() -> None:
    shown = refmap.Shown({}, high=0)
    data = refmap.data_to_model(_snapshot(("e36", A), ("e37", C)), shown)
    assert list(data["refs"]) == ["e36", "e37"]
    assert shown.reverse() == {}
    assert refmap.to_engine(plan(["click", "@e36"]), {}) == (
        list(plan(["click", "@e36"]).effective_args),
        None,
    )


def test_the_same_element_keeps_its_id_and_a_changed_one_gets_a_new_id() -> None:
    """A node patched in place (engine e3 now shows C) must not keep A's shown id."""
    table = {"e3": A, "e4": B}
    shown = refmap.Shown(table, high=4)
    data = refmap.data_to_model(_snapshot(("e3", C), ("e4", B)), shown)
    assert list(data["refs"]) == ["e5", "e4"]
    assert "ref=e5" in str(data["snapshot"])
    assert shown.reverse() == {"e5": "e3"}


def test_after_a_browser_launch_every_element_is_new() -> None:
    """The engine counts from e1 again; shown ids continue above everything shown."""
    shown = refmap.Shown({"e3": A}, high=57, restarted=True)
    data = refmap.data_to_model(_snapshot(("e1", A), ("e2", C)), shown)
    assert list(data["refs"]) == ["e58", "e59"]


def test_only_ref_slots_go_out_as_engine_ids() -> None:
    """`fill e105 e105`: the first is the ref, the second is the text to type."""
    table = {"e105": RefInfo(role="textbox", name="Note", engine="e5")}
    args, _ = refmap.to_engine(plan(["fill", "e105", "e105"]), table)
    assert args[-2:] == ["e5", "e105"]
    args, _ = refmap.to_engine(plan(["click", "ref=e105"]), table)
    assert args[-1] == "ref=e5"


def test_batch_rows_go_out_as_engine_ids() -> None:
    table = {"e101": RefInfo(engine="e1"), "e102": RefInfo(engine="e2")}
    rows = [["click", "@e101"], ["fill", "@e102", "e102"]]
    _, stdin = refmap.to_engine(plan(["batch", "--bail"], rows=rows), table)
    assert json.loads(stdin or "") == [["click", "@e1"], ["fill", "@e2", "e102"]]


def test_page_text_is_never_rewritten() -> None:
    shown = refmap.Shown({"e5": RefInfo(engine="e1")}, high=5)
    data = {"snapshot": "- paragraph: see e1 and ref e1", "text": "e1", "clicked": "@e1"}
    out = refmap.data_to_model(data, shown)
    assert out["snapshot"] == "- paragraph: see e1 and ref e1"
    assert out["text"] == "e1"
    assert out["clicked"] == "@e5"


def test_engine_errors_name_the_ref_the_model_sent() -> None:
    shown = refmap.Shown({"e104": RefInfo(engine="e4")}, high=104)
    answer = Envelope(
        mode=OutputMode.JSON,
        success=False,
        rows=(BatchRow(("click", "@e4"), False, None, "Unknown ref: e4"),),
        error="Unknown ref: e4",
    )
    out = refmap.envelope_to_model(answer, shown)
    assert out.error == "Unknown ref: e104"
    assert out.rows is not None and out.rows[0].error == "Unknown ref: e104"
    assert out.rows[0].command == ("click", "@e104")


def test_a_launch_is_read_from_the_engines_lifecycle() -> None:
    launched = Envelope(mode=OutputMode.JSON, success=True, data={"lifecycle": {"launched": True}})
    reused = Envelope(mode=OutputMode.JSON, success=True, data={"lifecycle": {"launched": False}})
    assert refmap.launched(launched) and not refmap.launched(reused)


def _complete(state: ConversationState, *effects: Effect, seq: int = 1) -> ConversationState:
    event = CompletionEvent(seq=seq, call_id=f"c{seq}", key=KEY, success=True, effects=effects)
    return apply_event(state, event)


def test_the_highest_shown_ref_survives_closing_the_session() -> None:
    state = _complete(ConversationState(), RefsRecorded(refs={"e57": RefInfo(), "e3": RefInfo()}))
    assert state.ref_high == 57
    state = _complete(state, NamespaceClosed(), seq=2)
    assert state.ref_high == 57


def test_the_re_read_tells_which_boxes_are_checked() -> None:
    tree = '- checkbox "Pin A" [checked=true, ref=e1]\n- checkbox "Pin B" [checked=false, ref=e2]'
    assert refmap.checked_states({"snapshot": tree}) == {"e1": True, "e2": False}
    assert refmap.checked_states({"snapshot": '- button "x" [ref=e3]'}) == {}


def test_a_check_on_an_unchecked_box_goes_out_as_one_click() -> None:
    """The engine's `check` clicks again when a re-sort relabelled the node: one click only."""
    args, _ = refmap.to_engine(plan(["--session", "s", "check", "@e2"]), {}, {"e2": False})
    assert args[-4:] == ["--session", "s", "click", "@e2"]
    args, _ = refmap.to_engine(plan(["uncheck", "@e1"]), {}, {"e1": True})
    assert args[-2:] == ["click", "@e1"]


def test_a_box_already_in_the_wanted_state_keeps_the_engines_no_op() -> None:
    args, _ = refmap.to_engine(plan(["check", "@e1"]), {}, {"e1": True})
    assert args[-2:] == ["check", "@e1"]
    args, _ = refmap.to_engine(plan(["check", "@e9"]), {}, {"e1": False})
    assert args[-2:] == ["check", "@e9"]  # no state known for it: the engine decides


def test_batch_rows_use_the_same_rule() -> None:
    rows = [["check", "@e2"], ["uncheck", "@e1"], ["click", "@e3"]]
    _, stdin = refmap.to_engine(
        plan(["batch", "--bail"], rows=rows), {}, {"e1": False, "e2": False}
    )
    assert json.loads(stdin or "") == [["click", "@e2"], ["uncheck", "@e1"], ["click", "@e3"]]


def test_a_native_delta_answer_keeps_look_alikes_on_their_ids() -> None:
    """A `--delta` full answer carries its tree in `tree`: anchors still tell twins apart."""
    tree = '- button "Edit" [ref=e1]\n- button "Edit" [ref=e2]'
    refs = {"e1": {"role": "button", "name": "Edit"}, "e2": {"role": "button", "name": "Edit"}}
    table = refs_from_snapshot({"refs": refs}, tree)
    assert table["e1"].anchors is not None
    shown = refmap.Shown(table, high=2)
    out = refmap.data_to_model({"snapshot": {"kind": "full", "tree": tree, "refs": refs}}, shown)
    assert list(out["snapshot"]["refs"]) == ["e1", "e2"]


def test_an_echo_before_a_ref_map_does_not_keep_a_changed_element_on_its_id() -> None:
    """`[click @e3, snapshot -i]`: the row echo comes first; e3 now shows C, so it must still
    get a new id in the snapshot's ref map."""
    shown = refmap.Shown({"e3": A}, high=4)
    assert refmap.text_to_model("@e3", shown) == "@e3"
    data = refmap.data_to_model(_snapshot(("e3", C)), shown)
    assert list(data["refs"]) == ["e5"]


def test_an_unknown_engine_id_never_reuses_a_shown_number() -> None:
    shown = refmap.Shown({"e9": RefInfo(role="button", name="Details C", engine="e3")}, high=9)
    assert refmap.text_to_model("ref=e9", shown) != "ref=e9"
    assert refmap.text_to_model("ref=e12", shown) == "ref=e12"  # above every shown id


def test_a_name_cannot_fake_the_checked_state() -> None:
    tree = '- checkbox "Show checked=true only [ref=e1]" [checked=false, ref=e5]'
    assert refmap.checked_states({"snapshot": tree}) == {"e5": False}


def test_box_states_stop_holding_after_a_step_that_changes_the_page() -> None:
    rows = [["check", "@e2"], ["check", "@e3"]]
    out = refmap.rows_to_engine(rows, {}, {"e2": False, "e3": False})
    assert out == [["click", "@e2"], ["check", "@e3"]]


def test_argv_batches_never_rewrite_check() -> None:
    args, _ = refmap.to_engine(plan(["batch", "check @e2"]), {}, {"e2": False})
    assert args[-1] == "check @e2"


def _built_afresh(data: dict[str, object]) -> dict[str, RefInfo]:
    """The table `refs_from_snapshot` builds for a new ref map object (nothing remembered)."""
    refs = data["refs"]
    assert isinstance(refs, dict)
    return refs_from_snapshot({"refs": dict(refs)}, str(data["snapshot"]))


def test_the_table_built_once_per_answer_is_the_one_a_fresh_build_gives() -> None:
    """One ref build per answer: the shown answer's table (kept from the engine-id build)
    is exactly what building it again from the shown answer gives, twins and anchors too."""
    edit = RefInfo(role="button", name="Edit")
    rows = (("e1", A), ("e2", edit), ("e3", B), ("e4", edit), ("e5", C), ("e6", edit))
    data = refmap.data_to_model(_snapshot(*rows), refmap.Shown({}, high=0))
    kept = refs_from_snapshot(data, data["snapshot"])
    assert kept == _built_afresh(data)
    assert (
        kept["e4"].anchors is not None
        and kept["e4"].context == "button 'Details B' | button 'Details C'"
    )


def test_a_renumbered_answer_builds_its_table_under_the_shown_ids() -> None:
    table = {"e1": A, "e2": B}
    data = refmap.data_to_model(_snapshot(("e1", B), ("e2", A)), refmap.Shown(table, high=2))
    kept = refs_from_snapshot(data, data["snapshot"])
    assert set(kept) == {"e3", "e4"} and kept == _built_afresh(data)


def test_a_dropped_ref_is_a_candidate_only_where_one_element_reads_as_it_on_each_side() -> None:
    """After `back` within one document the engine numbers every element anew: an element
    that reads exactly as a dropped ref did is a candidate for its id (the page must still
    prove it the same node); one that changed, or reads like another, is none."""
    save = RefInfo(role="button", name="Save")
    left = {"e3": A, "e4": B, "e7": save, "e8": save}
    fresh = {"e44": A, "e45": C, "e46": save, "e47": B, "e48": B}
    assert refmap.left_candidates(left, fresh) == {"e44": "e3"}


def test_proven_ids_come_back_unless_still_shown_or_after_a_launch() -> None:
    kept = {"e44": "e3", "e45": "e4"}
    shown = refmap.Shown({"e4": C}, high=20, kept=kept)
    data = refmap.data_to_model(_snapshot(("e44", A), ("e45", B), ("e4", C)), shown)
    assert list(data["refs"]) == ["e3", "e45", "e4"]  # e4 is still shown: e45 keeps its own
    assert shown.reverse() == {"e3": "e44"}
    relaunched = refmap.Shown({}, high=20, restarted=True, kept={"e1": "e3"})
    assert list(refmap.data_to_model(_snapshot(("e1", A)), relaunched)["refs"]) == ["e21"]


def test_a_node_that_reads_as_a_retired_ref_again_gets_that_ref_back() -> None:
    """Engine e3 showed A as e3, then C as e5 (e3 retired); it reads A again: e3 comes back
    (e5 is retired in turn). A node reading as no retired ref of its own gets a new id, and
    after a launch nothing comes back."""
    c_on_e3 = RefInfo(role="button", name="Details C", engine="e3")
    d = RefInfo(role="button", name="Details D")
    retired = {"e3": RetiredRef(was=A, now=c_on_e3)}
    table = {"e5": c_on_e3, "e4": B}
    shown = refmap.Shown(table, high=5, retired=retired)
    data = refmap.data_to_model(_snapshot(("e3", A), ("e4", B)), shown)
    assert list(data["refs"]) == ["e3", "e4"]
    other = refmap.Shown(table, high=5, retired=retired)
    assert list(refmap.data_to_model(_snapshot(("e3", d), ("e4", B)), other)["refs"]) == [
        "e6",
        "e4",
    ]
    gone = {"e3": RetiredRef(was=A, now=None)}  # retired as gone: never given back
    assert list(
        refmap.data_to_model(_snapshot(("e3", A)), refmap.Shown({}, 5, retired=gone))["refs"]
    ) == ["e6"]
    relaunched = refmap.Shown(table, high=5, restarted=True, retired=retired)
    assert list(refmap.data_to_model(_snapshot(("e3", A)), relaunched)["refs"]) == ["e6"]
