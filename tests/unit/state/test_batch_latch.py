"""The stale-ref guard's batch latch (`state.stale_refs.guard_batch`) on journaled state: a
step that can swap the page blocks later ref steps until a snapshot step."""

from __future__ import annotations

from agent_browser_tools.state.stale_refs import guard_batch
from tests.unit.state.test_reducers import KEY, PAGE_A, ok, on_form_with_refs


def test_batch_form_fills_then_submit_pass_but_refs_after_a_navigating_click_do_not() -> None:
    entry = on_form_with_refs().state().session(KEY)

    assert guard_batch([("fill", "@e1", "Ada"), ("check", "@e2"), ("click", "@e3")], entry) is None
    assert guard_batch([("click", "@e2"), ("fill", "e1", "x")], entry) is None  # checkbox
    blocked = guard_batch([("click", "@e3"), ("fill", "ref=e1", "x")], entry)
    assert blocked is not None and blocked.step == 2
    assert guard_batch([("click", "@e3"), ("snapshot", "-i"), ("fill", "@e1", "x")], entry) is None


def test_batch_roles_from_the_previous_snapshot_do_not_exempt_rows_after_a_new_snapshot() -> None:
    """After an in-batch snapshot, `e2` may be a different element (ids are recycled)."""
    entry = on_form_with_refs().state().session(KEY)
    rows = [("snapshot", "-i"), ("click", "@e2"), ("fill", "@e1", "x")]

    blocked = guard_batch(rows, entry)

    assert blocked is not None and blocked.step == 3


def test_batch_refs_are_checked_against_state_until_a_snapshot_step() -> None:
    journal = on_form_with_refs()
    journal.call(ok("open", PAGE_A, data={"url": PAGE_A}))
    entry = journal.state().session(KEY)

    blocked = guard_batch([("get", "title"), ("fill", "@e1", "x")], entry)
    assert blocked is not None and blocked.step == 2
    assert guard_batch([("snapshot", "-i"), ("fill", "@e1", "x")], entry) is None
