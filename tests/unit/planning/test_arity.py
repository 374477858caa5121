"""Operand counts refused before dispatch (`planning.arity`), naming the command's usage."""

from __future__ import annotations

import json

import pytest

from agent_browser_tools.planning.argv_rules import ArgvRejected, check_argv
from agent_browser_tools.planning.arity import check_arity


def _refusal(args: list[str], stdin: str | None = None) -> str:
    with pytest.raises(ArgvRejected) as caught:
        check_arity(check_argv(args, stdin))
    return str(caught.value)


def _passes(args: list[str], stdin: str | None = None) -> None:
    check_arity(check_argv(args, stdin))


def test_fill_without_its_text_names_the_missing_operand_and_the_usage() -> None:
    assert _refusal(["fill", "@e6"]) == (
        "`fill` needs <text>, so nothing ran. Usage: `fill <selector> <text>`."
    )
    assert "`type` needs <selector> and <text>" in _refusal(["type"])


def test_an_extra_operand_is_refused_and_the_value_is_never_quoted() -> None:
    message = _refusal(["fill", "@e1", "hunter2", "secret-rest"])
    assert message.startswith("`fill` takes at most 2 operands but got 3, so nothing ran")
    assert "A text with spaces is one args item." in message
    assert "hunter2" not in message and "secret-rest" not in message
    click = _refusal(["click", "@e1", "now"])
    assert "`click` takes at most 1 operand but got 2" in click
    assert "Usage: `click <selector> [--new-tab] [--human]`." in click
    assert "text with spaces" not in click  # nothing of click's is typed text
    assert "`get title` takes no operands but got 1" in _refusal(["get", "title", "x"])
    assert "`snapshot` takes no operands" in _refusal(["snapshot", "-i", "extra"])


@pytest.mark.parametrize(
    "args",
    [
        ["fill", "@e1", ""],  # clearing a field is an empty text, given
        ["fill", "@e1", "two words"],
        ["select", "@e1", "a", "b", "c"],  # variadic values
        ["upload", "#f", "a.txt", "b.txt"],
        ["scroll"],
        ["screenshot"],
        ["open"],  # url-less open runs as `get url`
        ["tab"],
        ["tab", "t2"],
        ["cookies"],
        ["wait", "--url", "**/done"],  # a flag stands in for the operand
        ["wait", "--load", "networkidle"],
        ["wait", "500"],
        ["cookies", "set", "--curl", "cookies.txt"],
        ["cookies", "set", "name", "value"],
        ["storage", "local"],
        ["storage", "local", "key"],
        ["find", "role", "button", "click", "--name", "Go"],
        ["mouse", "wheel"],  # the engine scrolls 100 px down (tests/real/engine)
        ["fill", "--help"],  # help prints; nothing to count
        ["click", "@e1", "--bogus", "value"],  # the allowlist refuses the flag instead
    ],
)
def test_well_formed_calls_pass(args: list[str]) -> None:
    _passes(args)


def test_stdin_carries_the_script_of_eval_and_the_rows_of_a_batch() -> None:
    _passes(["eval", "--stdin"], "document.title")
    _passes(["eval", "--stdin", "document.title"])  # moved into stdin by the argv rules
    _passes(["batch"], json.dumps([["get", "url"]]))
    assert "`eval` needs <script|--stdin>" in _refusal(["eval"])
    assert "`wait` needs <selector|ms|--url|--load|--fn|--text|--download>" in _refusal(["wait"])
    assert "`cookies set` needs <value|--curl>" in _refusal(["cookies", "set", "name"])


def test_each_batch_row_is_checked_with_its_row_number() -> None:
    rows = [["open", "https://a.test/"], ["fill", "@e2", "Ada"], ["check"]]
    message = _refusal(["batch"], json.dumps(rows))
    assert (
        message
        == "batch row 3: `check` needs <selector>, so nothing ran. Usage: `check <selector>`."
    )
    args_batch = _refusal(["batch", "--bail", "click @e1", "press Enter Tab"])
    assert args_batch.startswith("batch row 2: `press` takes at most 1 operand but got 2")


def test_a_group_fallback_is_named_as_the_engine_spells_it() -> None:
    assert _refusal(["tab", "t2", "t3"]).startswith("`tab` takes at most 1 operand but got 2")
    assert "Usage: `tab <tab>`." in _refusal(["tab", "t2", "t3"])
