"""The generic input limits: what no tool can take, found anywhere in a call, at any depth."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agent_browser_tools.input_limits import (
    MAX_ITEMS,
    MAX_JSON_TEXT_NESTING,
    MAX_NESTING,
    MAX_STRING_CHARS,
    MAX_TOTAL_CHARS,
    JsonTextTooDeep,
    input_problem,
    json_text_too_deep,
    loads_json_text,
    well_formed_data,
    well_formed_text,
)


def _nested(depth: int, leaf: Any = "x") -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    ("params", "where", "limit"),
    [
        ({"args": ["open", "about:blank\x00"]}, "args[1]", "nul-byte"),
        ({"args": ["get", "url"], "stdin": "\x00"}, "stdin", "nul-byte"),
        ({"code": "return '\ud800'"}, "code", "lone-surrogate"),
        ({"args": ["fill", "@e1", "a\udfffb"]}, "args[2]", "lone-surrogate"),
        ({"url": "https://a.test/\udc80"}, "url", "lone-surrogate"),
        ({"bad\x00key": 1}, '"bad\\u0000key" (a key)', "nul-byte"),
        ({"checks": [{"text": "\x00"}]}, "checks[0].text", "nul-byte"),
        ({"args": ["x"] * (MAX_ITEMS + 1)}, "args", "items"),
        ({"args": ["x" * (MAX_STRING_CHARS + 1)]}, "args[0]", "string-size"),
        ({"args": ["x" * (MAX_STRING_CHARS - 1)] * 3}, "input", "total-size"),
        (_nested(MAX_NESTING + 1), "a." * (MAX_NESTING - 1) + "a", "nesting"),
    ],
)
def test_each_limit_names_the_field_and_the_limit(params: Any, where: str, limit: str) -> None:
    problem = input_problem(params)
    assert problem is not None
    assert (problem.where, problem.limit) == (where, limit)
    assert f"`{where}`" in problem.message or where == "input"
    assert problem.details()["limit"] == limit
    # The message itself is safe to write anywhere: no NUL, no lone surrogate.
    json.dumps(problem.message, ensure_ascii=False).encode("utf-8")
    assert "\x00" not in problem.message


def test_messages_name_the_number_and_what_to_do() -> None:
    size = input_problem({"args": ["x" * (MAX_STRING_CHARS + 5)]})
    assert size is not None and f"{MAX_STRING_CHARS:,}" in size.message
    assert "split" in size.message and size.details()["maximum"] == MAX_STRING_CHARS
    nul = input_problem({"stdin": "a\x00"})
    assert nul is not None and "Remove it" in nul.message and "character 1" in nul.message
    lone = input_problem({"stdin": "ab\ud83d"})
    assert lone is not None and "\\ud83d" in lone.message and "well-formed UTF-8" in lone.message


def test_ordinary_inputs_pass() -> None:
    for params in (
        {"args": ["open", "https://example.com/ünïcödé/😀"]},
        {"args": ["batch"], "stdin": json.dumps([["get", "url"]] * 500)},
        {"code": "return 1", "timeoutMs": 5000},
        _nested(MAX_NESTING - 1),
        {"args": ["x" * MAX_STRING_CHARS]},
        {"args": ["x"] * MAX_ITEMS},
        {},
    ):
        assert input_problem(params) is None, params


def test_a_hundred_thousand_levels_are_checked_without_recursion() -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    problem = input_problem({"args": deep})
    assert problem is not None and problem.limit == "nesting"
    assert problem.where.endswith("…")  # a deep path is cut short in the message


def test_the_whole_call_counts_toward_the_total() -> None:
    share = MAX_TOTAL_CHARS // 3 + 1
    assert share < MAX_STRING_CHARS
    problem = input_problem({"args": ["a" * share] * 2, "stdin": "b" * share})
    assert problem is not None and problem.limit == "total-size"


def test_json_text_depth_ignores_brackets_inside_strings() -> None:
    assert not json_text_too_deep('[["a]]]]]]]", "[[[[[["]]', limit=2)
    assert json_text_too_deep('[[["a"]]]', limit=2)
    assert not json_text_too_deep('["\\"]' * 3 + "[[[]]]", limit=3)  # an escaped backslash
    assert not json_text_too_deep(json.dumps([["click", "[" * 500]] * 40))
    deep = "[" * MAX_JSON_TEXT_NESTING + "]" * MAX_JSON_TEXT_NESTING
    assert not json_text_too_deep(deep) and json_text_too_deep(f"[{deep}]")
    assert json_text_too_deep("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize(
    "text",
    [
        '"\\"' * 300_000,  # escaped quotes and no closing quote: no backtracking over them
        '"' * 300_001,
        "[" * 300_000,
        '["' + "\\" * 300_001,
    ],
)
def test_adversarial_json_texts_are_scanned_in_one_pass(text: str) -> None:
    assert json_text_too_deep(text) == text.startswith("[[")


def test_loads_json_text_refuses_deep_json_as_a_value_error() -> None:
    with pytest.raises(JsonTextTooDeep) as caught:
        loads_json_text("[" * 100_000 + "]" * 100_000, "batch stdin")
    assert isinstance(caught.value, ValueError)
    assert caught.value.problem.limit == "json-nesting"
    assert str(caught.value).startswith("batch stdin nests JSON")
    assert loads_json_text('[["get", "url"]]') == [["get", "url"]]
    assert loads_json_text(b'{"a": [1]}') == {"a": [1]}
    with pytest.raises(ValueError):
        loads_json_text("[1,")


def test_well_formed_replaces_only_lone_surrogates() -> None:
    assert well_formed_text("a\ud800b😀") == "a\ufffdb😀"
    clean = {"a": ["b", 1, None], "p": "😀"}
    assert well_formed_data(clean) is clean
    assert well_formed_data({"a": ["x\udc80"], "n": 2}) == {"a": ["x\ufffd"], "n": 2}
    assert well_formed_data({"k\ud800": "v"}) == {"k\ufffd": "v"}
