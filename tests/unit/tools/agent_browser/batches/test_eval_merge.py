"""The wrapper's page scripts sent as one `eval` answer one row each, with each part's own
outcome and the fail-fast stop where the engine would have stopped."""

from __future__ import annotations

import json
from typing import Any

from agent_browser_tools.engine.envelope import BatchRow
from agent_browser_tools.tools.agent_browser.batches import eval_merge

ROWS = [["get", "box", "@e1"], ["eval", "(1)"], ["eval", "(2)"], ["get", "url"], ["eval", "3"]]


def _answer(parts: list[dict[str, Any]]) -> BatchRow:
    result = {"origin": "http://a.test/", "result": json.dumps(parts)}
    return BatchRow(("eval", "merged"), True, result, None)


def _ok(command: str, result: Any) -> BatchRow:
    return BatchRow((command,), True, result, None)


def test_consecutive_scripts_go_as_one_and_lone_rows_as_they_are() -> None:
    sent, groups = eval_merge.merge(ROWS, bail=False)
    assert [row[0] for row in sent] == ["get", "eval", "get", "eval"]
    assert sent[1][1].count("() => (") == 2 and sent[3] == ["eval", "3"]
    assert groups == [(0, 1), (1, 3), (3, 4), (4, 5)]


def test_each_part_answers_its_own_row_with_the_merged_rows_other_fields() -> None:
    _sent, groups = eval_merge.merge(ROWS, bail=False)
    answered = [
        _ok("get", {"x": 1}),
        _answer([{"v": 1}, {"e": "boom"}]),
        _ok("get", {"url": "u"}),
        _ok("eval", {"result": 3}),
    ]
    rows = eval_merge.expand(ROWS, groups, answered, bail=False)
    assert [r.command for r in rows[1:3]] == [tuple(r) for r in ROWS[1:3]]
    assert rows[1].result == {"origin": "http://a.test/", "result": 1}
    assert not rows[2].success and rows[2].error == "boom"
    assert rows[3].result == {"url": "u"} and rows[4].result == {"result": 3}


def test_a_failed_part_stops_a_fail_fast_batch_there() -> None:
    sent, groups = eval_merge.merge(ROWS, bail=True)
    assert "if (true) break" in sent[1][1]
    answered = [_ok("get", {}), _answer([{"e": "gone"}]), _ok("get", {"url": "u"})]
    rows = eval_merge.expand(ROWS, groups, answered, bail=True)
    assert [r.success for r in rows] == [True, False]


def test_a_merged_row_that_failed_or_answered_nonsense_fails_every_part() -> None:
    _sent, groups = eval_merge.merge(ROWS[1:3], bail=False)
    failed = BatchRow(("eval", "merged"), False, None, "Execution context was destroyed")
    rows = eval_merge.expand(ROWS[1:3], groups, [failed], bail=False)
    assert [r.error for r in rows] == ["Execution context was destroyed"] * 2
    garbled = BatchRow(("eval", "merged"), True, {"result": 7}, None)
    rows = eval_merge.expand(ROWS[1:3], groups, [garbled], bail=False)
    assert not any(r.success for r in rows) and len(rows) == 2


def test_rows_the_engine_never_answered_are_left_out() -> None:
    _sent, groups = eval_merge.merge(ROWS, bail=True)
    rows = eval_merge.expand(ROWS, groups, [_ok("get", {})], bail=True)
    assert len(rows) == 1


def test_an_absurdly_nested_merged_answer_fails_each_part_readably() -> None:
    _sent, groups = eval_merge.merge(ROWS, bail=False)
    deep = "[" * 100_000 + "]" * 100_000
    answered = [_ok("get", {"x": 1}), BatchRow(("eval", "m"), True, {"result": deep}, None)]
    rows = eval_merge.expand(ROWS[:3], groups[:2], answered, bail=False)
    assert [row.success for row in rows] == [True, False, False]
    assert all("nothing readable" in str(row.error) for row in rows[1:])


def test_a_short_merged_answer_fails_the_missing_parts_and_shifts_no_row() -> None:
    """A page that forges a shorter list (one part for two scripts) fails the part it left
    out; the rows after the merged one keep their own answers."""
    _sent, groups = eval_merge.merge(ROWS, bail=False)
    answered = [
        _ok("get", {"x": 1}),
        _answer([{"v": "one"}]),
        _ok("get", {"url": "http://a.test/"}),
        _answer([{"v": 3}]),
    ]
    rows = eval_merge.expand(ROWS, groups, answered, bail=False)
    assert [row.success for row in rows] == [True, True, False, True, True]
    assert "no part" in str(rows[2].error)
    assert rows[3].result == {"url": "http://a.test/"}


def test_a_lone_surrogate_the_page_handed_over_becomes_a_replacement_character() -> None:
    """`document.title = "odd\\ud800"`: the merged answer carries the lone surrogate as a JSON
    escape; the row holds U+FFFD there (the journal and MCP messages cannot carry one), a
    well-formed pair stays as it is."""
    _sent, groups = eval_merge.merge(ROWS, bail=False)
    odd = '[{"v": "odd\\ud800 \\ud83d\\ude00"}, {"v": {"k\\udc00": ["\\udfff"]}}]'
    merged = BatchRow(("eval", "merged"), True, {"result": odd}, None)
    answered = [_ok("get", {}), merged, _ok("get", {"url": "u"}), _ok("eval", {"result": 3})]
    rows = eval_merge.expand(ROWS, groups, answered, bail=False)
    assert rows[1].result["result"] == "odd\ufffd \U0001f600"
    assert rows[2].result["result"] == {"k\ufffd": ["\ufffd"]}
    json.dumps(rows[1].result, ensure_ascii=False).encode("utf-8")  # no lone surrogate left
