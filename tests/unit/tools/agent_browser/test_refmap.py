"""Shown refs never repeat in a conversation, even when the engine restarts its counter."""

from __future__ import annotations

import json

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.state.models import (
    CompletionEvent,
    ConversationState,
    Effect,
    NamespaceClosed,
    RefBaseSet,
    RefInfo,
    RefsRecorded,
    SessionKey,
)
from agent_browser_tools.state.reducers import apply_event
from agent_browser_tools.tools.agent_browser import refmap
from tests.support.plans import plan

KEY = SessionKey(session="s")


def test_nothing_changes_before_the_first_restart() -> None:
    call = plan(["fill", "@e5", "e5"])
    assert refmap.to_engine(call, 0) == (list(call.effective_args), call.stdin)
    data = {"refs": {"e5": {}}, "snapshot": '- button "x" [ref=e5]'}
    assert refmap.data_to_model(data, 0) is data


def test_only_ref_slots_go_out_as_engine_ids() -> None:
    """`fill e105 e105`: the first is the ref, the second is the text to type."""
    args, _ = refmap.to_engine(plan(["fill", "e105", "e105"]), 100)
    assert args[-2:] == ["e5", "e105"]
    args, _ = refmap.to_engine(plan(["click", "@e107"]), 100)
    assert args[-1] == "@e7"


def test_a_ref_from_before_the_restart_names_no_engine_element() -> None:
    args, _ = refmap.to_engine(plan(["click", "@e3"]), 100)
    assert args[-1] == "@e0"


def test_batch_rows_go_out_as_engine_ids() -> None:
    rows = [["click", "@e101"], ["fill", "ref=e102", "e102"]]
    _, stdin = refmap.to_engine(plan(["batch", "--bail"], rows=rows), 100)
    assert json.loads(stdin or "") == [["click", "@e1"], ["fill", "ref=e2", "e102"]]


def test_answers_show_refs_above_the_base_and_leave_page_text_alone() -> None:
    data = {
        "refs": {"e1": {"role": "button", "name": "e1"}},
        "snapshot": '- button "e1" [ref=e1]\n- paragraph: see e1 and ref=e9',
        "clicked": "@e1",
    }
    shown = refmap.data_to_model(data, 100)
    assert list(shown["refs"]) == ["e101"]
    assert shown["refs"]["e101"]["name"] == "e1"
    assert shown["snapshot"] == '- button "e1" [ref=e101]\n- paragraph: see e1 and ref=e109'
    assert shown["clicked"] == "@e101"


def test_engine_errors_name_the_ref_the_model_sent() -> None:
    answer = Envelope(
        mode=OutputMode.JSON,
        success=False,
        rows=(BatchRow(("click", "@e4"), False, None, "Unknown ref: e4"),),
        error="Unknown ref: e4",
    )
    shown = refmap.envelope_to_model(answer, 100)
    assert shown.error == "Unknown ref: e104"
    assert shown.rows is not None and shown.rows[0].error == "Unknown ref: e104"
    assert shown.rows[0].command == ("click", "@e104")


def test_a_launch_moves_the_base_above_every_shown_ref() -> None:
    life = {"lifecycle": {"launched": True, "reused": False}}
    launched = Envelope(mode=OutputMode.JSON, success=True, data=life)
    reused = Envelope(mode=OutputMode.JSON, success=True, data={"lifecycle": {"launched": False}})
    assert refmap.base_after(launched, 0, 57) == 57
    assert refmap.base_after(reused, 0, 57) == 0
    assert refmap.base_after(launched, 80, 57) == 80


def _complete(state: ConversationState, *effects: Effect, seq: int = 1) -> ConversationState:
    event = CompletionEvent(seq=seq, call_id=f"c{seq}", key=KEY, success=True, effects=effects)
    return apply_event(state, event)


def test_the_base_and_the_highest_ref_survive_closing_the_session() -> None:
    state = _complete(ConversationState(), RefsRecorded(refs={"e57": RefInfo(), "e3": RefInfo()}))
    assert state.ref_high == 57
    state = _complete(state, NamespaceClosed(), seq=2)
    state = _complete(state, RefBaseSet(base=57), seq=3)
    assert state.ref_bases == {"s": 57}
    assert state.ref_high == 57
