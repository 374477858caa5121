"""Session names that would leave the conversation's socket dir, and whole-dir commands."""

from __future__ import annotations

import re

import pytest

from agent_browser_tools.planning.argv_rules import ArgvRejected
from agent_browser_tools.planning.policy import PolicyBlocked
from agent_browser_tools.planning.session_scope import (
    NAME_LIMIT,
    acts_on_whole_dir,
    check_session_names,
    plain_session_name,
)
from tests.support.plans import plan


@pytest.mark.parametrize(
    "name", ["../work", "/tmp/abt-x/work", "c-0123/abt-1", "..", ".", "a\\b", "x\0y", ""]
)
def test_a_path_as_session_name_is_policy_blocked(name: str) -> None:
    # Engine 0.39.4 joins the name onto its socket dir unchecked: `--session ../work` reached
    # a browser in the parent dir, an absolute path reached any dir.
    assert not plain_session_name(name)
    checked = plan(["--session", name, "get", "url"]).checked
    with pytest.raises(PolicyBlocked) as caught:
        check_session_names(checked)
    assert caught.value.rule == "session-name"
    assert "is a path, not a session name" in str(caught.value)


def test_a_path_in_a_batch_row_is_blocked_too() -> None:
    checked = plan(["batch"], rows=[["get", "url"], ["--session", "../work", "get", "url"]])
    with pytest.raises(PolicyBlocked, match=re.escape("batch row 2: --session '../work'")):
        check_session_names(checked.checked)


@pytest.mark.parametrize(
    "args",
    [
        ["--session", "x" * 5000, "get", "title"],
        ["--namespace", "n" * (NAME_LIMIT + 1), "get", "title"],
        ["batch"],
    ],
    ids=["session", "namespace", "batch-row"],
)
def test_a_name_too_long_for_a_socket_path_is_refused_naming_the_limit(args: list[str]) -> None:
    """It becomes part of a socket path: a 5,000-character name used to reach the engine and
    fail the wrapper's own file checks afterwards (an internal error)."""
    rows = [["get", "url"], ["--session", "y" * (NAME_LIMIT + 1), "get", "url"]]
    with pytest.raises(ArgvRejected) as caught:
        check_session_names(plan(args, rows=rows if args == ["batch"] else None).checked)
    assert f"at most {NAME_LIMIT}" in str(caught.value)
    check_session_names(plan(["--session", "s" * NAME_LIMIT, "get", "url"]).checked)


@pytest.mark.parametrize("name", ["work", "checkout-2", "a.b_c", "abt-0123456789ab"])
def test_plain_names_pass(name: str) -> None:
    assert plain_session_name(name)
    check_session_names(plan(["--session", name, "get", "url"]).checked)


@pytest.mark.parametrize(
    ("args", "whole"),
    [
        (["session", "list"], True),
        (["--session", "work", "session", "list"], True),
        (["close", "--all"], True),
        (["--session", "work", "close", "--all"], True),
        (["--session", "work", "close"], False),
        (["--session", "work", "get", "url"], False),
        (["get", "url"], False),
    ],
)
def test_listing_and_closing_everything_act_on_a_whole_dir(args: list[str], whole: bool) -> None:
    assert acts_on_whole_dir(plan(args)) is whole
