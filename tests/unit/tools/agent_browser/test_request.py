"""`request`: input validation, wrapper-flag stripping, `--json` detection and lock scope."""

from __future__ import annotations

from typing import Any

import pytest

from agent_browser_tools.planning.inputs import AgentBrowserInput
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.results.response import caller_wants_json
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.tools.agent_browser.call import Refused
from agent_browser_tools.tools.agent_browser.hooks import Hooks
from agent_browser_tools.tools.agent_browser.request import _closes_namespace, validate
from tests.support.plans import plan

ALLOWED = "agent_browser accepts only args, stdin, outputPath, timeoutMs and sessionMode."


def _refusal(params: dict[str, Any]) -> str:
    with pytest.raises(Refused) as caught:
        validate(params, Hooks())
    return str(caught.value)


# --- validation -----------------------------------------------------------------------------


def test_a_former_field_is_refused_with_the_tool_that_replaced_it() -> None:
    """Agents trained on the old schema send `script`; the refusal must name the new route."""
    message = _refusal({"args": ["get", "url"], "script": "document.title"})
    assert message.startswith("agent_browser input rejected: unknown field `script` (")
    assert "agent_browser_code" in message
    assert message.endswith(ALLOWED)


def test_an_unknown_field_without_history_is_named_without_a_hint() -> None:
    message = _refusal({"args": ["get", "url"], "frob": 1})
    assert message == f"agent_browser input rejected: unknown field `frob`. {ALLOWED}"


def test_missing_args_shows_what_a_valid_call_looks_like() -> None:
    message = _refusal({})
    assert "missing required field `args`" in message
    assert '{"args": ["snapshot", "-i"]}' in message


def test_misused_snapshot_wrapper_flag_is_refused_before_planning() -> None:
    """`--search` works on the interactive ref map; without `-i` the fix is spelled out."""
    message = _refusal({"args": ["snapshot", "--search", "Submit"]})
    assert "add -i" in message and "snapshot -i --search <text>" in message


# --- wrapper flags --------------------------------------------------------------------------


def test_a_plain_call_passes_through_with_the_callers_hooks() -> None:
    hooks = Hooks(tool="agent_browser_action", details={"origin": "action"})
    params = {"args": ["get", "url"]}
    request = validate(params, hooks)
    assert request.inp.args == ["get", "url"]
    assert request.hooks is hooks
    assert request.params is params
    assert request.wants_json is False


def test_snapshot_wrapper_flags_are_stripped_and_the_request_kept_in_details() -> None:
    """The engine must not see `--search`; `details.args` still shows what the caller asked."""
    hooks = Hooks(tool="agent_browser_action", details={"origin": "action"})
    request = validate({"args": ["snapshot", "-i", "--search", "Submit"]}, hooks)
    assert request.inp.args == ["snapshot", "-i"]
    assert request.hooks.snapshot is not None and request.hooks.snapshot.search == "Submit"
    assert request.hooks.details == {
        "origin": "action",
        "args": ["snapshot", "-i", "--search", "Submit"],
    }
    assert request.hooks.tool == "agent_browser_action"


def test_details_args_are_the_redacted_request() -> None:
    """A secret in the caller's argv must not reach details through the echo."""
    args = ["snapshot", "-i", "--diff", "--headers", '{"Authorization": "Bearer abcdef123456"}']
    request = validate({"args": args}, Hooks())
    assert request.inp.args == ["snapshot", "-i", "--headers", args[-1]]
    assert request.hooks.details["args"] == [
        "snapshot",
        "-i",
        "--diff",
        "--headers",
        "[REDACTED]",
    ]


def test_an_already_validated_input_gets_the_same_stripping() -> None:
    request = validate(AgentBrowserInput(args=["--json", "snapshot", "-i", "--diff"]), Hooks())
    assert request.inp.args == ["--json", "snapshot", "-i"]
    assert request.hooks.snapshot is not None and request.hooks.snapshot.diff is True
    assert request.hooks.details["args"] == ["--json", "snapshot", "-i", "--diff"]
    assert request.wants_json is True


def test_network_page_filter_is_stripped_and_becomes_a_post_hook() -> None:
    request = validate({"args": ["network", "requests", "--current-origin"]}, Hooks())
    assert request.inp.args == ["network", "requests"]
    assert request.hooks.post is not None
    assert request.hooks.details["args"] == ["network", "requests", "--current-origin"]


def test_a_callers_own_post_hook_is_not_replaced_by_the_network_filter() -> None:
    async def own(rt: Runtime, plan: ExecutionPlan, obs: Observation) -> None:
        return None

    request = validate({"args": ["network", "requests", "--current-url"]}, Hooks(post=own))
    assert request.inp.args == ["network", "requests"]
    assert request.hooks.post is own


@pytest.mark.parametrize(
    ("args", "engine_args"),
    [
        (
            ["--session", "mine", "snapshot", "-i", "--search", "Submit"],
            ["--session", "mine", "snapshot", "-i"],
        ),
        (
            ["--session", "mine", "network", "requests", "--current-url"],
            ["--session", "mine", "network", "requests"],
        ),
    ],
)
def test_wrapper_flags_are_stripped_after_a_valued_global_flag(
    args: list[str], engine_args: list[str]
) -> None:
    """An explicit session (a global flag with a value) must not hide the wrapper flags."""
    assert validate({"args": args}, Hooks()).inp.args == engine_args


# --- --json detection -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "wanted"),
    [
        (["get", "url"], False),
        (["--json", "get", "url"], True),
        (["--json", "true", "get", "url"], True),
        (["--json", "false", "get", "url"], False),
        (["get", "url", "--json", "false"], False),
        (["--json", "true", "--json", "false", "get", "url"], False),
        (["--json", "false", "--json", "get", "url"], True),
    ],
)
def test_caller_wants_json_follows_the_last_json_flag(args: list[str], wanted: bool) -> None:
    """The refusal of a bad call is rendered as JSON only when the caller asked for JSON."""
    assert caller_wants_json({"args": args}) is wanted
    assert validate({"args": args}, Hooks()).wants_json is wanted


@pytest.mark.parametrize("params", [{}, {"args": "--json"}, {"args": None}])
def test_caller_wants_json_is_false_for_malformed_args(params: dict[str, Any]) -> None:
    """It runs on raw params that failed validation, so it must not trust their shape."""
    assert caller_wants_json(params) is False


# --- lock scope -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "rows", "whole"),
    [
        (["close", "--all"], None, True),
        (["close"], None, False),
        (["get", "url"], None, False),
        (["batch"], [["get", "url"], ["close", "--all"]], True),
        (["batch"], [["get", "url"], ["close"]], False),
    ],
)
def test_only_close_all_waits_for_the_whole_namespace(
    args: list[str], rows: list[list[str]] | None, whole: bool
) -> None:
    """`close --all` ends every session of the namespace, so it takes the namespace lock."""
    assert _closes_namespace(plan(args, rows=rows)) is whole
