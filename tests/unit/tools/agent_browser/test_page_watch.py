"""Reading the page-side change log's answer (pure): what proves a ref unchanged."""

from __future__ import annotations

import json
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.state.models import PageEpoch, RefInfo
from agent_browser_tools.tools.agent_browser import page_watch as pw

EPOCH = PageEpoch(token="t1", seq=5)
SAVE = pw.Question("e3", RefInfo(role="button", name="Save"))
BOX = {"x": 10, "y": 20, "width": 30, "height": 12}


def _rows(answer: dict[str, Any], box: dict[str, Any] | None = BOX) -> list[BatchRow]:
    got = BatchRow(("get", "box", "@e3"), box is not None, box, None)
    said = BatchRow(("eval", "..."), True, {"result": json.dumps(answer)}, None)
    return [got, said]


def _answer(*rects: list[Any], removed: bool = False, token: str = "t1") -> dict[str, Any]:
    return {"token": token, "seq": 9, "refs": [{"c": list(rects), "rm": removed}]}


def test_one_unchanged_element_at_the_engines_box_proves_the_ref() -> None:
    rows = _rows(_answer([10, 20, 30, 12, 0, True], [10, 60, 30, 12, 1, False]))
    assert pw.proven(EPOCH, [SAVE], rows) == {"e3": True}


def test_anything_short_of_proof_leaves_it_to_the_full_re_read() -> None:
    changed = _rows(_answer([10, 20, 30, 12, 1, False]))
    elsewhere = _rows(_answer([10, 60, 30, 12, 0, False]))
    twice = _rows(_answer([10, 20, 30, 12, 0, False], [10, 20, 30, 12, 0, False]))
    removed = _rows(_answer([10, 20, 30, 12, 0, False], removed=True))
    other_page = _rows(_answer([10, 20, 30, 12, 0, False], token="t2"))
    unresolved = _rows(_answer([10, 20, 30, 12, 0, False]), box=None)
    for rows in (changed, elsewhere, twice, removed, other_page, unresolved):
        assert pw.proven(EPOCH, [SAVE], rows) is None


def test_a_role_the_page_cannot_find_is_not_asked() -> None:
    odd = pw.Question("e4", RefInfo(role="clickable", name="Go"))
    assert pw.check_rows(EPOCH, [odd]) is None
    rows = pw.check_rows(EPOCH, [SAVE])
    assert rows is not None and rows[0] == ["get", "box", "@e3"] and rows[1][0] == "eval"


def test_the_epoch_is_read_from_the_begin_answer() -> None:
    assert pw.epoch_of({"result": json.dumps({"token": "t", "seq": 3})}) == PageEpoch(
        token="t", seq=3
    )
    assert pw.epoch_of({"result": "null"}) is None
    assert pw.epoch_of(None) is None


def test_an_absurdly_nested_answer_proves_nothing_and_raises_nothing() -> None:
    """The page can answer the change log's script with anything: 100,000 nested arrays is
    no epoch and no proof (a `RecursionError` here once stopped the call)."""
    deep = "[" * 100_000 + "]" * 100_000
    assert pw.epoch_of({"result": deep}) is None
    said = BatchRow(("eval", "..."), True, {"result": deep}, None)
    got = BatchRow(("get", "box", "@e3"), True, BOX, None)
    assert pw.proven(EPOCH, [SAVE], [got, said]) is None


def test_each_ref_is_proven_on_its_own_for_ids_kept_across_a_page_change() -> None:
    """`proven_each` (ids kept after `back` within one document): the proven ones pass,
    the changed one alone stays out; another document's answer proves none."""
    note = pw.Question("e4", RefInfo(role="textbox", name="Note"))
    boxes = [
        BatchRow(("get", "box", "@e3"), True, BOX, None),
        BatchRow(("get", "box", "@e4"), True, {"x": 10, "y": 60, "width": 30, "height": 12}, None),
    ]
    refs = [
        {"c": [[10, 20, 30, 12, 0, False]], "rm": False},
        {"c": [[10, 60, 30, 12, 1, False]], "rm": False},  # changed since the epoch
    ]
    for token, expected in (("t1", {"e3"}), ("t2", set())):
        answer = {"token": token, "seq": 9, "refs": refs}
        said = BatchRow(("eval", "..."), True, {"result": json.dumps(answer)}, None)
        assert pw.proven_each(EPOCH, [SAVE, note], [*boxes, said]) == expected
        assert pw.proven(EPOCH, [SAVE, note], [*boxes, said]) is None  # all or nothing
