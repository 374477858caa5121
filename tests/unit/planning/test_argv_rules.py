"""Pre-spawn input and argv rules of the direct tool (pure: nothing here spawns anything).

Covers strict input (unknown/former fields, missing or empty `args`), the binary name, shell
operators, global `--flag=value` tokens, bare `--no-sandbox`, `--session-mode` in args, stdin
ownership, `eval --stdin <script>` normalization, URL-less `open`, and batch row validation.
Each rejection must name the fix, because the agent only sees the message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agent_browser_tools.planning.argv_rules import ArgvRejected, CheckedArgv, check_argv
from agent_browser_tools.planning.inputs import (
    AgentBrowserInput,
    explain_validation_error,
    parse_input,
)
from agent_browser_tools.planning.plan import ExecutionPlan, build_plan
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.models import ConversationState

ALLOWED = "args, stdin, outputPath, timeoutMs and sessionMode"
SETTINGS = Settings(env={}, state_dir=Path("/nonexistent-state"))


def _input_error(params: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        parse_input(params)
    return explain_validation_error(caught.value, "agent_browser", ALLOWED)


def _rejected(args: list[str], stdin: str | None = None) -> str:
    with pytest.raises(ArgvRejected) as caught:
        check_argv(args, stdin)
    return str(caught.value)


def _plan(args: list[str], stdin: str | None = None) -> ExecutionPlan:
    inp = AgentBrowserInput(args=args, stdin=stdin)
    return build_plan(inp, ConversationState(), SETTINGS, root_id="root", native_default=None)


def _command_part(plan: ExecutionPlan) -> list[str]:
    """Effective argv without the wrapper's `--json --session <name>` prefix."""
    effective = list(plan.effective_args)
    assert effective[:2] == ["--json", "--session"], effective
    return effective[3:]


# --- strict input ----------------------------------------------------------------------------


def test_minimal_input_gets_documented_defaults() -> None:
    inp = parse_input({"args": ["open", "https://example.com"]})
    assert inp.args == ["open", "https://example.com"]
    assert inp.stdin is None and inp.outputPath is None and inp.timeoutMs is None
    assert inp.sessionMode == "auto"


@pytest.mark.parametrize(
    ("field", "hint"),
    [
        ("script", "agent_browser_code"),
        ("job", '["batch", "--bail"]'),
        ("semanticAction", "agent_browser_action"),
        ("qa", "agent_browser_qa"),
        ("electron", "agent_browser_electron"),
        ("sourceLookup", "agent_browser_source"),
        ("networkSourceLookup", "agent_browser_network_source"),
    ],
)
def test_former_fields_are_rejected_with_their_replacement(field: str, hint: str) -> None:
    message = _input_error({"args": ["get", "url"], field: "x"})
    assert f"unknown field `{field}`" in message
    assert hint in message
    assert ALLOWED in message


def test_a_former_field_alone_is_rejected_for_both_reasons() -> None:
    message = _input_error({"script": "document.title"})
    assert "unknown field `script`" in message and "agent_browser_code" in message
    assert "missing required field `args`" in message


def test_unknown_field_without_history_is_still_rejected() -> None:
    message = _input_error({"args": ["get", "url"], "sesionMode": "fresh"})
    assert "unknown field `sesionMode`" in message
    assert ALLOWED in message


def test_missing_args_names_the_shape() -> None:
    message = _input_error({"stdin": "x"})
    assert "missing required field `args`" in message
    assert '{"args": ["snapshot", "-i"]}' in message


@pytest.mark.parametrize("args", [[], "open https://example.com", None])
def test_empty_or_non_list_args_names_the_shape(args: Any) -> None:
    message = _input_error({"args": args})
    assert "`args`" in message
    assert '{"args": ["snapshot", "-i"]}' in message


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"args": ["get", "url"], "timeoutMs": 0}, "timeoutMs"),
        ({"args": ["get", "url"], "timeoutMs": -5}, "timeoutMs"),
        ({"args": ["get", "url"], "timeoutMs": "5000"}, "timeoutMs"),
        ({"args": ["get", "url"], "timeoutMs": True}, "timeoutMs"),
        ({"args": ["get", "url"], "sessionMode": "new"}, "sessionMode"),
        ({"args": ["get", 1]}, "args.1"),
        ({"args": ["eval", "--stdin"], "stdin": 42}, "stdin"),
    ],
)
def test_wrongly_typed_fields_are_rejected(params: dict[str, Any], field: str) -> None:
    assert f"`{field}`" in _input_error(params)


@pytest.mark.parametrize("args", [[""], ["   "], ["", ""]])
def test_blank_args_are_rejected(args: list[str]) -> None:
    assert '["snapshot", "-i"]' in _rejected(args)


# --- binary name and shell operators --------------------------------------------------------


@pytest.mark.parametrize("binary", ["agent-browser", "/usr/local/bin/agent-browser"])
def test_binary_name_is_rejected_with_the_args_to_send(binary: str) -> None:
    message = _rejected([binary, "open", "https://example.com"])
    assert "binary name" in message
    assert '["open", "https://example.com"]' in message


@pytest.mark.parametrize("operator", ["&&", "||", "|", ";", ">", ">>", "<", "2>&1", "&"])
def test_shell_operators_are_rejected_with_the_batch_alternative(operator: str) -> None:
    message = _rejected(["open", "https://example.com", operator, "snapshot", "-i"])
    assert "shell operators" in message and repr(operator) in message
    assert '["batch", "--bail"]' in message


def test_operator_characters_inside_a_token_are_literal_text() -> None:
    checked = check_argv(["fill", "#q", "a && b | c > d"], None)
    assert checked.command_tokens == ("fill", "#q", "a && b | c > d")


# --- global --flag=value ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "split"),
    [
        (["--session=a", "open", "https://x.test"], ["--session", "a"]),
        (["open", "https://x.test", "--session=a"], ["--session", "a"]),
        (["--profile=Default", "open", "https://x.test"], ["--profile", "Default"]),
        (["get", "url", "--json=true"], ["--json", "true"]),
        (["--headed=true", "open", "https://x.test"], ["--headed", "true"]),
        (["--args=--no-sandbox", "open", "https://x.test"], ["--args", "--no-sandbox"]),
    ],
)
def test_global_equals_form_is_rejected_with_the_split_form(
    args: list[str], split: list[str]
) -> None:
    message = _rejected(args)
    assert json.dumps(split) in message
    assert "separate args" in message


def test_restore_equals_is_the_top_level_exception() -> None:
    checked = check_argv(["--restore=work", "open", "https://x.test"], None)
    assert ("--restore", "work") in checked.globals_
    assert checked.command_tokens == ("open", "https://x.test")


def test_local_flag_equals_is_left_to_the_engine() -> None:
    """Only global flags are the wrapper's business; local ones reach upstream unchanged."""
    checked = check_argv(["snapshot", "--selector=#main"], None)
    assert checked.command_tokens == ("snapshot", "--selector=#main")


# --- bare --no-sandbox ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--no-sandbox"],
        ["--no-sandbox", "open", "https://x.test"],
        ["open", "--no-sandbox", "https://x.test"],
        ["open", "https://x.test", "--no-sandbox"],
        ["goto", "https://x.test", "--no-sandbox"],
        ["navigate", "--no-sandbox", "https://x.test"],
        ["--headed", "open", "https://x.test", "--no-sandbox"],
    ],
)
def test_bare_no_sandbox_gets_launch_arg_guidance(args: list[str]) -> None:
    message = _rejected(args)
    assert "Chromium launch argument" in message
    assert "serve --browser-arg" in message and "Leave it out" in message


def test_no_sandbox_through_args_is_accepted() -> None:
    checked = check_argv(["--args", "--no-sandbox", "open", "https://x.test"], None)
    assert ("--args", "--no-sandbox") in checked.globals_
    assert checked.command_tokens == ("open", "https://x.test")


@pytest.mark.parametrize(
    "args",
    [["fill", "#flags", "--no-sandbox"], ["type", "#flags", "--no-sandbox"]],
)
def test_no_sandbox_as_literal_text_of_other_commands_passes(args: list[str]) -> None:
    assert check_argv(args, None).command_tokens == tuple(args)


# --- --session-mode in args -------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["--session-mode", "fresh", "open", "https://x.test"],
        ["open", "https://x.test", "--session-mode=fresh"],
    ],
)
def test_session_mode_in_args_points_at_the_field(args: list[str]) -> None:
    message = _rejected(args)
    assert "sessionMode" in message and '"fresh"' in message


# --- stdin ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["eval", "--stdin"], "document.title"),
        (["batch"], '[["get", "url"]]'),
        (["batch", "--bail"], '[["get", "url"]]'),
        (["auth", "save", "site", "--password-stdin"], "hunter2"),
        (["--session", "s", "eval", "--stdin"], "1 + 1"),
    ],
)
def test_stdin_is_accepted_where_the_engine_reads_it(args: list[str], stdin: str) -> None:
    assert check_argv(args, stdin).stdin == stdin


@pytest.mark.parametrize(
    "args",
    [
        ["click", "#go"],
        ["snapshot", "-i"],
        ["open", "https://x.test"],
        ["eval", "document.title"],
        ["auth", "save", "site", "--username", "u"],
        ["get", "url"],
    ],
)
def test_stdin_is_rejected_for_other_commands(args: list[str]) -> None:
    message = _rejected(args, "something")
    assert "stdin is only accepted for `eval --stdin`, `batch` and `auth save" in message
    assert "remove the stdin field" in message


def test_eval_stdin_without_a_script_is_rejected() -> None:
    assert '"stdin": "document.title"' in _rejected(["eval", "--stdin"])
    assert '"stdin": "document.title"' in _rejected(["eval", "--stdin"], "   ")


def test_password_stdin_without_stdin_is_rejected() -> None:
    message = _rejected(["auth", "save", "site", "--password-stdin"])
    assert "password in the stdin field" in message


def test_help_takes_no_stdin() -> None:
    assert "remove the stdin field" in _rejected(["--help"], "x")


@pytest.mark.parametrize(
    "args", [["click", "#go"], ["open", "https://x.test"], ["get", "url"], ["--help"]]
)
def test_empty_stdin_counts_as_absent_where_nothing_reads_it(args: list[str]) -> None:
    """Strict function calling makes `stdin` required; models then send `""` for it."""
    assert check_argv(args, "").stdin is None


def test_empty_stdin_beside_an_eval_script_in_args_counts_as_absent() -> None:
    checked = check_argv(["eval", "--stdin", "document.title"], "")
    assert checked.stdin == "document.title"
    assert checked.normalized_from == "eval-stdin-tokens"


def test_empty_stdin_where_the_engine_reads_it_is_kept_as_sent() -> None:
    """`""` is a real (empty) script, batch or password there: refused or passed, not dropped."""
    assert '"stdin": "document.title"' in _rejected(["eval", "--stdin"], "")
    assert "JSON array of argv rows in stdin" in _rejected(["batch"], "")
    assert check_argv(["auth", "save", "site", "--password-stdin"], "").stdin == ""


# --- eval --stdin <script> normalization ------------------------------------------------------


def test_eval_stdin_trailing_tokens_move_to_stdin() -> None:
    checked = check_argv(["eval", "--stdin", "document.title"], None)
    assert checked.stdin == "document.title"
    assert checked.command_tokens == ("eval", "--stdin")
    assert checked.normalized_from == "eval-stdin-tokens"
    assert checked.match is not None and checked.match.path == ("eval",)


def test_eval_stdin_several_trailing_tokens_are_joined_with_spaces() -> None:
    plan = _plan(["eval", "--stdin", "1", "+", "2"])
    assert plan.stdin == "1 + 2"
    assert _command_part(plan) == ["eval", "--stdin"]
    assert plan.args == ("eval", "--stdin", "1", "+", "2")


def test_eval_stdin_normalization_keeps_caller_globals() -> None:
    plan = _plan(["--json", "false", "eval", "--stdin", "document.title"])
    assert plan.stdin == "document.title"
    assert plan.effective_args[-4:] == ("--json", "false", "eval", "--stdin")


def test_eval_stdin_script_in_both_places_is_rejected() -> None:
    message = _rejected(["eval", "--stdin", "document.title"], "document.title")
    assert "only in stdin" in message


# --- URL-less open ----------------------------------------------------------------------------


def test_url_less_open_runs_as_get_url() -> None:
    checked = check_argv(["open"], None)
    assert checked.command_tokens == ("get", "url")
    assert checked.normalized_from == "url-less-open"
    assert checked.match is not None and checked.match.path == ("get", "url")


def test_url_less_open_keeps_globals_and_the_request() -> None:
    plan = _plan(["--headed", "open"])
    assert _command_part(plan) == ["--headed", "get", "url"]
    assert plan.args == ("--headed", "open")
    assert plan.path == ("get", "url")


@pytest.mark.parametrize(
    "args",
    [["open", "https://x.test"], ["goto"], ["navigate"], ["open", "--help"]],
)
def test_open_with_a_url_goto_navigate_and_help_keep_their_meaning(args: list[str]) -> None:
    checked = check_argv(args, None)
    assert checked.normalized_from is None
    assert checked.command_tokens == tuple(args)


# --- batch rows -------------------------------------------------------------------------------


def _batch(stdin: str, *flags: str) -> CheckedArgv:
    return check_argv(["batch", *flags], stdin)


def test_empty_rows_pass_through_and_stdin_is_unchanged() -> None:
    stdin = '[[], ["get", "url"], []]'
    checked = _batch(stdin, "--bail")
    assert checked.batch is not None
    assert checked.batch.rows == ((), ("get", "url"), ())
    plan = _plan(["batch", "--bail"], stdin)
    assert plan.stdin == stdin  # byte-identical: nothing was rewritten


@pytest.mark.parametrize("stdin", ['[[""]]', '[["get", "url"], ["", "x"]]'])
def test_row_with_an_empty_command_fails(stdin: str) -> None:
    assert "empty command" in _rejected(["batch"], stdin)


def test_nested_batch_is_rejected() -> None:
    message = _rejected(["batch"], '[["get", "url"], ["batch", "--bail"]]')
    assert "batch row 2" in message and "nested batches" in message


@pytest.mark.parametrize(
    "row",
    [
        ["--session=a", "get", "url"],
        ["open", "https://x.test", "--profile=Default"],
        ["--restore=work", "open", "https://x.test"],
    ],
)
def test_row_local_equals_forms_are_rejected(row: list[str]) -> None:
    message = _rejected(["batch", "--bail"], json.dumps([["get", "url"], row]))
    assert "batch row 2" in message
    assert "before `batch`" in message


@pytest.mark.parametrize(
    "row",
    [["--args", "--no-sandbox", "open", "https://x.test"], ["open", "https://x", "--args", "x"]],
)
def test_args_flag_inside_a_row_is_rejected(row: list[str]) -> None:
    message = _rejected(["batch"], json.dumps([row]))
    assert "--args only works on the outer call before `batch`" in message


def test_bare_no_sandbox_inside_a_row_is_rejected() -> None:
    message = _rejected(["batch"], json.dumps([["open", "https://x.test", "--no-sandbox"]]))
    assert "Chromium launch argument" in message


@pytest.mark.parametrize(
    ("row", "operator"), [(["get", "url", "&&", "snapshot"], "&&"), (["agent-browser"], None)]
)
def test_rows_follow_the_top_level_token_rules(row: list[str], operator: str | None) -> None:
    message = _rejected(["batch"], json.dumps([row]))
    assert (repr(operator) in message) if operator else ("binary name" in message)


def test_session_mode_inside_a_row_is_rejected() -> None:
    message = _rejected(["batch"], json.dumps([["--session-mode", "fresh", "get", "url"]]))
    assert "sessionMode" in message


def test_url_less_open_row_runs_as_get_url_and_stdin_is_reserialized() -> None:
    stdin = json.dumps([["open"], ["--headed", "open"], ["open", "https://x.test"], []])
    plan = _plan(["batch", "--bail"], stdin)
    assert json.loads(plan.stdin or "") == [
        ["get", "url"],
        ["--headed", "get", "url"],
        ["open", "https://x.test"],
        [],
    ]
    assert _command_part(plan) == ["batch", "--bail"]
    assert plan.row_matches is not None
    assert [m.path if m else None for m in plan.row_matches] == [
        ("get", "url"),
        ("get", "url"),
        ("open",),
        None,
    ]


def test_args_rows_win_over_stdin_and_unchanged_rows_keep_their_quoting() -> None:
    ignored = '[["click", "#never"]]'
    args = ["batch", "--bail", 'fill #q "hello world"', "open", "get title"]
    plan = _plan(args, ignored)
    assert plan.checked.batch is not None and plan.checked.batch.source == "args"
    assert plan.checked.batch.rows == (
        ("fill", "#q", "hello world"),
        ("get", "url"),
        ("get", "title"),
    )
    assert _command_part(plan) == [
        "batch",
        "--bail",
        'fill #q "hello world"',
        "get url",
        "get title",
    ]
    assert plan.stdin == ignored  # ignored by upstream, so passed on unchanged


def test_args_rows_without_rewrites_are_sent_verbatim() -> None:
    args = ["batch", "--bail", "fill #q 'two words'", "get title"]
    assert _command_part(_plan(args)) == args


@pytest.mark.parametrize(
    ("stdin", "fix"),
    [
        (None, "JSON array of argv rows in stdin"),
        ("  ", "JSON array of argv rows in stdin"),
        ("open https://x.test", "not valid JSON"),
        ('{"steps": []}', "JSON array of arrays of strings"),
        ('[["get", 1]]', "JSON array of arrays of strings"),
        ('["get url"]', "JSON array of arrays of strings"),
        ("[" * 100_000 + "]" * 100_000, "more than 64 levels deep"),
        ("[" * 100_000, "more than 64 levels deep"),
        ("[" * 65 + "]" * 65, "JSON array of arrays of strings (two levels)"),
        ('[["get", "url\\u0000"]]', "`batch stdin[0][1]` contains a NUL byte"),
        ('[["get"], ["fill", "@e1", "\\ud800"]]', "`batch stdin[1][2]` contains a lone UTF-16"),
    ],
)
def test_malformed_batch_stdin_names_the_shape(stdin: str | None, fix: str) -> None:
    assert fix in _rejected(["batch", "--bail"], stdin)


# --- only global flags ------------------------------------------------------------------------


def test_only_global_flags_is_rejected_with_a_command_example() -> None:
    message = _rejected(["--headed"])
    assert '["--headed", "open", "https://example.com"]' in message
