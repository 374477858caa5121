"""Batches split where a ref follows a page-changing step, and put back together (pure)."""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.state.stale_refs import StaleRef
from agent_browser_tools.tools.agent_browser.batches import batch_progress
from agent_browser_tools.tools.agent_browser.batches.segments import (
    Segment,
    merge,
    split,
)
from tests.support.plans import FORM, managed, page, plan

ENTRY = page(FORM, refs_from=FORM)
STATE = managed(ENTRY)


def _split(rows: list[list[str]]) -> list[tuple[int, tuple[str, ...]]] | None:
    parts = split(plan(["batch", "--bail"], STATE, rows=rows), ENTRY)
    return None if parts is None else [(p.start, p.verify) for p in parts]


def test_a_batch_without_a_ref_after_a_change_runs_as_one_call() -> None:
    assert _split([["get", "text", "@e3"], ["get", "value", "@e3"], ["click", "@e13"]]) is None


def test_a_ref_after_a_checkbox_or_a_fill_starts_a_verified_segment() -> None:
    """A checkbox can re-sort its list and typing into a filter re-renders it: the next ref
    is re-read before it runs."""
    rows = [["check", "@e9"], ["fill", "@e3", "x"], ["click", "@e13"]]
    assert _split(rows) == [(0, ()), (1, ("e3",)), (2, ("e13",))]


def test_reads_after_a_change_share_one_re_read() -> None:
    rows = [["click", "@e13"], ["get", "text", "@e3"], ["get", "value", "@e9"]]
    assert _split(rows) == [(0, ()), (1, ("e3", "e9"))]


def test_every_change_followed_by_a_ref_opens_a_new_segment() -> None:
    rows = [["click", "@e13"], ["click", "@e9"], ["get", "title"], ["fill", "@e3", "x"]]
    assert _split(rows) == [(0, ()), (1, ("e9",)), (3, ("e3",))]


def test_an_in_batch_snapshot_does_not_switch_verification_off() -> None:
    """A snapshot step changes nothing: refs the model's snapshot named are still checked."""
    assert _split([["snapshot", "-i"], ["click", "@e13"], ["click", "@e9"]]) == [
        (0, ()),
        (2, ("e9",)),
    ]


def test_an_args_batch_is_never_split() -> None:
    parts = split(plan(["batch", "click @e13", "click @e9"], STATE), ENTRY)
    assert parts is None


def _row(command: tuple[str, ...], ok: bool = True) -> BatchRow:
    return BatchRow(command, ok, {"done": True} if ok else None, None if ok else "failed")


def test_a_refused_segment_reports_what_ran_and_the_refused_step() -> None:
    ran = Envelope(mode=OutputMode.JSON, success=True, rows=(_row(("click", "@e13")),))
    stale = StaleRef(refs=("e5",), reason="@e5 was x; it is now y.", code="element-changed")
    rows = (("click", "@e13"), ("click", "@e5"), ("get", "title"))
    merged = merge([ran], (1, stale), rows)
    assert not merged.success
    assert [r.success for r in merged.rows or ()] == [True, False]
    assert (merged.rows or ())[1].command == ("click", "@e5")
    assert merged.extra["staleRef"] == {"refs": ["@e5"], "step": 2, "reason": "element-changed"}


def test_segments_that_all_ran_read_as_one_batch() -> None:
    one = Envelope(mode=OutputMode.JSON, success=True, rows=(_row(("click", "@e13")),))
    two = Envelope(mode=OutputMode.JSON, success=False, rows=(_row(("click", "@e5"), False),))
    merged = merge([one, two], None, ())
    assert not merged.success
    assert [r.command for r in merged.rows or ()] == [("click", "@e13"), ("click", "@e5")]


def test_a_segment_is_a_plain_value() -> None:
    assert Segment(0, ()) == Segment(0, (), ())


def test_a_refusal_in_a_later_segment_names_the_step_that_uses_the_ref() -> None:
    from agent_browser_tools.tools.agent_browser.batches.segments import _named_step

    segment = Segment(1, (("get", "text", "@e5"), ("click", "@e7")), ("e5", "e7"))
    stale = StaleRef(refs=("e7",), reason="@e7 was x; it is now y.", code="element-changed")
    named = _named_step(segment, stale)
    assert named.step == 3
    assert named.reason.startswith("step 3: @e7")


def test_a_slow_step_runs_alone_and_a_ref_after_it_is_still_re_read() -> None:
    """A watchdog stop inside a slow step must leave the earlier steps known done."""
    rows = [["get", "title"], ["wait", "2000"], ["click", "@e13"], ["get", "url"]]
    assert _split(rows) == [(0, ()), (1, ()), (2, ())]
    changed = [["click", "@e9"], ["wait", "2000"], ["fill", "@e3", "x"]]
    assert _split(changed) == [(0, ()), (1, ()), (2, ("e3",))]


def test_partial_progress_names_done_stopped_and_unrun_steps() -> None:
    rows = (("open", "https://a.test/"), ("get", "title"), ("wait", "2000"), ("get", "url"))
    answered = (
        BatchRow(rows[0], True, {"url": "https://a.test/"}, None),
        BatchRow(rows[1], True, {"title": "A"}, None),
    )
    batch = plan(["batch"], STATE, rows=rows)
    progress = batch_progress.build(batch, rows, answered, (2, 1), Path("/nonexistent"))
    assert [s["status"] for s in progress["steps"]] == ["done", "done", "timed-out", "not-run"]
    assert progress["pageReached"] == "https://a.test/" and progress["timedOutStep"] == 3
    assert progress["remainingRows"] == [["wait", "2000"], ["get", "url"]]
    longer = batch_progress.build(batch, rows, answered[:1], (1, 2), Path("/nonexistent"))
    assert [s["status"] for s in longer["steps"]] == ["done", "unknown", "unknown", "not-run"]


def test_a_native_text_batch_is_never_split() -> None:
    rows = [["get", "title"], ["wait", "2000"], ["get", "url"]]
    parts = split(plan(["batch", "--json", "false"], STATE, rows=rows), ENTRY)
    assert parts is None, "text output cannot be read back per segment"
