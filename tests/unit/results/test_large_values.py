"""Huge string values go to a file: the head stays with a marker naming it, once per value."""

from __future__ import annotations

from typing import Any

from agent_browser_tools.results.large_values import MAX_DEPTH, LargeValues
from agent_browser_tools.size_limits import LARGE_VALUE_CHARS, LARGE_VALUE_HEAD_CHARS


class Saver:
    def __init__(self, fail: bool = False) -> None:
        self.saved: list[str] = []
        self.fail = fail

    def __call__(self, text: str) -> str:
        if self.fail:
            raise OSError(13, "Permission denied")
        self.saved.append(text)
        return f"/spill/value-{len(self.saved)}.txt"


def test_small_values_are_the_same_objects() -> None:
    data = {"origin": "http://x", "result": "y" * LARGE_VALUE_CHARS, "list": [1, "a"]}
    values = LargeValues(Saver())
    assert values.cut(data, "data") is data and not values.rows


def test_a_huge_value_keeps_its_head_and_names_the_file_holding_all_of_it() -> None:
    huge = "0123456789" * (5 * 1024 * 1024 // 10)
    saver = Saver()
    values = LargeValues(saver)
    data = {"origin": "http://x", "result": huge}
    cut = values.cut(data, "data")
    assert data["result"] is huge  # the input is not changed
    assert cut["origin"] == "http://x"
    shown = cut["result"]
    assert shown.startswith(huge[:LARGE_VALUE_HEAD_CHARS] + "\n[... ")
    assert len(shown) < LARGE_VALUE_HEAD_CHARS + 300
    read = 'read it with agent_browser {"args": ["spill", "value-1.txt"]}'
    assert f"of {len(huge):,} not shown; the whole value is saved as value-1.txt: {read}]" in shown
    assert "/spill/" not in shown, "the model reads by name; the path stays in details"
    assert saver.saved == [huge]
    assert values.rows == [
        {"field": "data.result", "characters": len(huge), "path": "/spill/value-1.txt"}
    ]


def test_the_same_string_in_two_places_is_saved_once() -> None:
    huge = "z" * (LARGE_VALUE_CHARS + 1)
    step = {"result": {"text": huge}}
    saver = Saver()
    values = LargeValues(saver)
    steps = values.cut([step], "batchSteps")
    rollup = values.cut([{"result": step["result"]}], "data")
    assert saver.saved == [huge]
    assert [r["field"] for r in values.rows] == ["batchSteps[0].result.text", "data[0].result.text"]
    assert steps[0]["result"]["text"] == rollup[0]["result"]["text"]


def test_a_plain_text_answer_is_cut_too() -> None:
    values = LargeValues(Saver())
    shown = values.cut("t" * (LARGE_VALUE_CHARS * 2), "data")
    assert isinstance(shown, str) and shown.endswith('{"args": ["spill", "value-1.txt"]}]')


def test_a_failed_save_says_the_rest_is_lost_and_how_to_get_it() -> None:
    values = LargeValues(Saver(fail=True))
    shown: Any = values.cut({"html": "h" * (LARGE_VALUE_CHARS + 5)}, "data")
    assert (
        "could not be saved ([Errno 13] Permission denied); ask for a smaller part"
        in (shown["html"])
    )
    assert values.rows[0]["error"].startswith("not saved:")
    assert "path" not in values.rows[0]


def test_nesting_deeper_than_the_walk_is_left_alone() -> None:
    huge = "q" * (LARGE_VALUE_CHARS + 1)
    deep: Any = huge
    for _ in range(MAX_DEPTH + 5):
        deep = [deep]
    values = LargeValues(Saver())
    assert values.cut(deep, "data") is deep and not values.rows
