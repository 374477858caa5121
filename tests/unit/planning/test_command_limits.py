"""Per-command size limits: typed text, stdin and batch rows, refused with the limit named.

Each refusal is an `ArgvRejected` (a `validation-error` for the model) raised before anything
is parsed or spawned, and says how to do the same work within the limit.
"""

from __future__ import annotations

import json

import pytest

from agent_browser_tools.planning.argv_rules import ArgvRejected, check_argv
from agent_browser_tools.size_limits import (
    ARGUMENT_LIMIT_BYTES,
    BATCH_ROWS_LIMIT,
    STDIN_LIMIT_BYTES,
    TYPED_TEXT_LIMIT_BYTES,
)

OVER = "a" * (TYPED_TEXT_LIMIT_BYTES + 1)
AT_LIMIT = "a" * TYPED_TEXT_LIMIT_BYTES
# 3 bytes each in UTF-8: under the limit in characters, over it in bytes.
WIDE = "€" * (TYPED_TEXT_LIMIT_BYTES // 3 + 1)


def _rejected(args: list[str], stdin: str | None = None) -> str:
    with pytest.raises(ArgvRejected) as caught:
        check_argv(args, stdin)
    return str(caught.value)


@pytest.mark.parametrize(
    "args",
    [
        ["fill", "@e1", OVER],
        ["type", "#bio", OVER],
        ["keyboard", "type", OVER],
        ["keyboard", "inserttext", OVER],
        ["find", "label", "Bio", "fill", OVER],
        ["--session", "s1", "fill", "@e1", WIDE],
    ],
    ids=["fill", "type", "keyboard-type", "keyboard-inserttext", "find-fill", "multibyte"],
)
def test_typed_text_over_the_limit_is_refused_naming_it(args: list[str]) -> None:
    message = _rejected(args)
    assert f"the limit is {TYPED_TEXT_LIMIT_BYTES:,} bytes (100 KiB) of typed text" in message
    assert '["keyboard", "inserttext", "<part>"]' in message


@pytest.mark.parametrize(
    "args",
    [
        ["fill", "@e1", AT_LIMIT],
        ["keyboard", "type", AT_LIMIT],
        ["find", "label", "Bio", "click", OVER],  # not typed text: a locator's value
        ["eval", OVER[:1000]],
    ],
)
def test_text_within_the_limit_or_not_typed_is_accepted(args: list[str]) -> None:
    assert check_argv(args, None).match is not None


def test_typed_text_in_a_batch_row_is_refused_with_its_row() -> None:
    rows = [["open", "http://x"], ["fill", "@e1", OVER]]
    message = _rejected(["batch"], json.dumps(rows))
    assert message.startswith("batch row 2: fill text is 102,401 bytes")


def test_a_batch_of_the_limit_passes_and_one_row_more_is_refused() -> None:
    rows = [["get", "title"]] * BATCH_ROWS_LIMIT
    checked = check_argv(["batch"], json.dumps(rows))
    assert checked.batch is not None and len(checked.batch.rows) == BATCH_ROWS_LIMIT
    message = _rejected(["batch"], json.dumps([*rows, ["get", "url"]]))
    assert "batch has 10,001 rows; the limit is 10,000 rows per call" in message
    assert "Split the rows into batches of at most 10,000" in message


def test_stdin_over_the_limit_is_refused_before_it_is_parsed() -> None:
    # Not even valid JSON: the size rule comes first, so the parse never runs on it.
    stdin = "[" * (STDIN_LIMIT_BYTES + 1)
    message = _rejected(["batch"], stdin)
    assert f"stdin is {STDIN_LIMIT_BYTES + 1:,} bytes; the limit is {STDIN_LIMIT_BYTES:,}" in (
        message
    )
    assert "4,096 KiB" in message
    script = "x" * (STDIN_LIMIT_BYTES - 100)
    assert check_argv(["eval", "--stdin"], script).stdin == script


@pytest.mark.parametrize(
    "args",
    [
        ["eval", "x" * (ARGUMENT_LIMIT_BYTES + 1)],
        ["eval", "é" * (ARGUMENT_LIMIT_BYTES // 2 + 1)],  # 2 bytes each: over in bytes
        ["batch", '["get", "url"]', "a" * (ARGUMENT_LIMIT_BYTES + 1)],
    ],
    ids=["eval", "multibyte", "batch-row"],
)
def test_an_argument_too_long_for_a_command_line_is_refused_with_stdin_as_the_way(
    args: list[str],
) -> None:
    """Linux refuses to start a program with one argument of 128 KiB or more; the spawn
    would fail as if the engine were missing."""
    message = _rejected(args)
    assert f"at most {ARGUMENT_LIMIT_BYTES:,} bytes" in message
    assert '["eval", "--stdin"]' in message


def test_a_long_script_fits_through_stdin() -> None:
    script = "1 + " * 100_000 + "1"
    assert check_argv(["eval", "--stdin"], script).stdin == script
    assert check_argv(["eval", "x" * ARGUMENT_LIMIT_BYTES], None).match is not None
