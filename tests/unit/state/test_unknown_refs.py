"""Refs never issued in the conversation (`stale_refs.never_issued`, `issued_high`): above every
id the wrapper has shown, a ref is a wrong argument (`unknown-ref`), not a stale one."""

from __future__ import annotations

from agent_browser_tools.state.models import RefInfo, RefSnapshot, RetiredRef, SessionPageState
from agent_browser_tools.state.stale_refs import (
    guard_batch,
    guard_direct,
    issued_high,
    never_issued,
)
from agent_browser_tools.taxonomy import resolve_command

BUTTON = RefInfo(role="button", name="Go")
ENTRY = SessionPageState(
    ref_snapshot=RefSnapshot(
        refs={"e4": BUTTON, "e7": BUTTON}, retired={"e9": RetiredRef(was=BUTTON)}
    )
)


def test_the_issued_bound_is_the_counter_or_the_sessions_own_ids() -> None:
    assert issued_high(0, SessionPageState()) == 0
    assert issued_high(0, ENTRY) == 9  # a retired id was shown too
    assert issued_high(40, ENTRY) == 40


def test_only_ids_above_the_bound_are_never_issued() -> None:
    assert never_issued(("e9",), 9) is None
    code, reason = never_issued(("e4", "e10", "e11"), 9) or ("", "")
    assert code == "unknown-ref"
    assert reason.startswith("@e10, @e11 was never issued by a snapshot in this conversation")
    assert "the highest ref shown so far is @e9" in reason
    assert "Run `snapshot -i` first" in (never_issued(("e1",), 0) or ("", ""))[1]


def test_a_retired_ref_stays_stale_and_a_higher_one_is_unknown() -> None:
    retired = guard_direct(resolve_command(["click", "@e9"]), ENTRY, ref_high=9)
    assert retired is not None and retired.code == "element-gone"
    unknown = guard_direct(resolve_command(["click", "ref=e10"]), ENTRY, ref_high=9)
    assert unknown is not None and unknown.code == "unknown-ref" and unknown.refs == ("e10",)
    # Without the counter the rule stays out (callers that do not know it).
    stale = guard_direct(resolve_command(["click", "@e10"]), ENTRY)
    assert stale is not None and stale.code == "not-in-latest-snapshot"


def test_a_batch_row_before_any_in_batch_snapshot_is_judged() -> None:
    rows = [("get", "title"), ("fill", "@e12", "x"), ("snapshot",), ("click", "@e99")]
    found = guard_batch(rows, ENTRY, ref_high=9)
    assert found is not None and found.code == "unknown-ref" and found.step == 2
    assert guard_batch([("snapshot",), ("click", "@e99")], ENTRY, ref_high=9) is None
    # Text that looks like a ref is not a ref slot.
    assert guard_batch([("fill", "@e4", "@e99")], ENTRY, ref_high=9) is None
