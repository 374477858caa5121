"""A JSON batch is cut into one engine call per step, keeping its ref re-reads (pure)."""

from __future__ import annotations

from agent_browser_tools.tools.agent_browser.batches.segments import split
from agent_browser_tools.tools.agent_browser.batches.stepwise import expand
from tests.support.plans import FORM, managed, page, plan

ENTRY = page(FORM, refs_from=FORM)
STATE = managed(ENTRY)


def _expand(args: list[str], rows: list[list[str]] | None = None) -> list[tuple[int, int]] | None:
    built = plan(args, STATE, rows=rows)
    parts = expand(built, split(built, ENTRY))
    return None if parts is None else [(p.start, len(p.rows)) for p in parts]


def test_every_step_of_a_json_batch_is_its_own_call() -> None:
    rows = [["get", "title"], ["eval", "1"], ["click", "#b"]]
    assert _expand(["batch", "--bail"], rows) == [(0, 1), (1, 1), (2, 1)]


def test_a_segment_keeps_its_ref_re_read_on_its_first_step() -> None:
    built = plan(["batch"], STATE, rows=[["click", "@e13"], ["get", "text", "@e3"], ["get", "url"]])
    parts = expand(built, split(built, ENTRY))
    assert parts is not None
    assert [(p.start, p.verify) for p in parts] == [(0, ()), (1, ("e3",)), (2, ())]


def test_an_empty_row_rides_with_the_next_step_or_the_last() -> None:
    """The engine answers nothing for `[]`: alone it would shift every later answer."""
    rows = [["get", "title"], [], ["get", "url"], []]
    assert _expand(["batch"], rows) == [(0, 1), (1, 3)]


def test_argument_rows_are_cut_too_and_one_step_is_one_call() -> None:
    assert _expand(["batch", "get title", "get url"]) == [(0, 1), (1, 1)]
    assert _expand(["batch", "--bail"], [["get", "title"]]) is None


def test_native_text_batches_stay_one_call() -> None:
    """Text answers cannot be read back per call."""
    assert _expand(["batch", "--json", "false"], [["get", "title"], ["get", "url"]]) is None
