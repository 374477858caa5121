"""The allowlist: what the engine's taxonomy does not know is refused before the engine runs,
and what a release added is read as that release reads it."""

from __future__ import annotations

import json

import pytest

from agent_browser_tools.planning.argv_rules import ArgvRejected, CheckedArgv, check_argv
from agent_browser_tools.planning.known_surface import check_known
from agent_browser_tools.taxonomy import ModelAccess, all_commands, split_global_flags, surface


def _checked(args: list[str], stdin: str | None = None) -> CheckedArgv:
    return check_argv(args, stdin)


def _refusal(args: list[str], stdin: str | None = None) -> str:
    with pytest.raises(ArgvRejected) as caught:
        check_known(_checked(args, stdin))
    return str(caught.value)


@pytest.mark.parametrize("version", ["0.39.4", "0.41.2"])
def test_an_invented_flag_or_command_is_refused_naming_the_engine(version: str) -> None:
    with surface(version):
        message = _refusal(["--frobnicate", "get", "url"])
        assert message.startswith(f"--frobnicate is not a global flag in agent-browser {version}")
        assert 'Check the spelling with ["--help"]' in message
        local = _refusal(["get", "url", "--frobnicate"])
        assert "is not a flag of `get url`" in local and '["get", "url", "--help"]' in local
        assert "`frobnicate` is not a command" in _refusal(["frobnicate"])
        assert "Did you mean `snapshot`, `screenshot`?" in _refusal(["snapshoot", "-i"])
        assert 'It is `get title`: send ["get", "title"].' in _refusal(["title"])


def test_a_batch_row_is_held_to_the_same_list() -> None:
    rows = [["open", "https://a.test/"], ["click", "@e1", "--frob"]]
    message = _refusal(["batch"], json.dumps(rows))
    assert message.startswith("batch row 2: --frob is not a flag of `click`")


def test_known_calls_and_help_pass() -> None:
    for args in (["get", "url"], ["snapshot", "-i"], ["--help"], ["click", "--help"]):
        check_known(_checked(args))


def test_a_flag_of_a_newer_release_is_unknown_to_the_older_ones() -> None:
    with surface("0.39.4"):
        assert "--cdp-headers is not a global flag in agent-browser 0.39.4" in _refusal(
            ["--cdp-headers", "{}", "get", "url"]
        )
    with surface("0.41.2"):
        check_known(_checked(["--cdp-headers", "{}", "get", "url"]))  # known: policy decides


def test_wait_state_is_the_commands_own_option_from_0_41_only() -> None:
    args = ["wait", "#go", "--state", "visible"]
    with surface("0.39.4"):  # the engine loads a state file named `visible`
        assert split_global_flags(args) == ([("--state", "visible")], ["wait", "#go"])
    with surface("0.41.2"):
        assert split_global_flags(args) == ([], args)
        before_command = ["--state", "auth.json", "wait", "#go"]
        assert split_global_flags(before_command)[0] == [("--state", "auth.json")]
        check_known(_checked(args))


def test_the_refusal_never_quotes_a_flags_value() -> None:
    message = _refusal(["get", "url", "--token=s3cret-value"])
    assert message.startswith("--token is not a flag of `get url`")
    assert "s3cret" not in message


def test_the_command_list_it_names_is_the_resource_the_server_serves() -> None:
    from agent_browser_tools.hosts.mcp.convert import COMMANDS_URI
    from agent_browser_tools.planning.known_surface import COMMAND_LIST

    assert COMMAND_LIST == COMMANDS_URI


def test_an_unknown_command_always_names_the_nearest_commands_and_the_list() -> None:
    message = _refusal(["frobnicate"])
    assert message.startswith("`frobnicate` is not a command in agent-browser ")
    nearest = message.partition("Nearest commands: ")[2].partition(".")[0].split(", ")
    assert len(nearest) == 3 and all(n.startswith("`") for n in nearest), message
    assert message.endswith(
        'Every command: ["--help"], or the agent-browser-tools://commands resource.'
    )


def test_a_group_without_a_known_subcommand_lists_its_subcommands() -> None:
    bare = _refusal(["get"])
    assert bare.startswith("`get` needs a subcommand in agent-browser ")
    assert "`get text`" in bare and "`get title`" in bare and '["get", "--help"]' in bare
    typo = _refusal(["get", "titel"])
    assert "`get titel` is not a command" in typo and "Did you mean `get title`?" in typo
    assert "agent-browser-tools://commands" in typo
    nested = _refusal(["network", "har"])
    assert "`network har start`, `network har stop`" in nested


def test_before_the_engine_is_known_no_single_release_is_named() -> None:
    with pytest.raises(ArgvRejected) as caught:
        check_known(_checked(["frobnicate"]), local_flags=False, every_release=True)
    assert "not a command in any supported agent-browser release (0.39.4, 0.41.2)" in str(
        caught.value
    )


def _suggested(message: str) -> list[str]:
    """The command words a refusal suggests (`Nearest commands:`/`Did you mean`/`Its
    subcommands:` lists), without the backticks."""
    for lead in ("Nearest commands: ", "Did you mean ", "Its subcommands: "):
        if lead in message:
            listed = message.partition(lead)[2].partition(". ")[0].partition("? ")[0]
            return [part.strip("`?.") for part in listed.split("(")[0].split(", ") if part]
    return []


@pytest.mark.parametrize(
    "word", ["frobnicate", "xyzzy", "qqq", "navigate2", "zzzzzzzzzzzz", "a", "browser_click"]
)
def test_the_nearest_commands_are_ones_the_model_may_run(word: str) -> None:
    """With no close spelling the refusal still names three commands, and never one only the
    operator may run (`profiles`, `install`): the model's next call would be refused again."""
    operator_only = {
        " ".join(spec.path)
        for spec in all_commands()
        if spec.access is ModelAccess.OPERATOR and not spec.synthetic
    }
    model_words = {spec.path[0] for spec in all_commands() if spec.access is ModelAccess.MODEL}
    message = _refusal([word])
    named = _suggested(message)
    assert named, message
    for name in named:
        assert name not in operator_only, message
        assert name.split()[0] in model_words or "Did you mean" in message, message
    assert "`profiles`" not in _refusal(["frobnicate"])


def test_a_groups_list_leaves_out_its_operator_only_subcommands_unless_typed() -> None:
    assert "`get cdp-url`" not in _refusal(["get"])
    typed = _refusal(["get", "cdp-urll"])
    assert "Did you mean `get cdp-url`?" in typed  # a spelling fix, not a suggestion
    # A group of operator-only commands only: listed all the same, so the list is not empty.
    assert "`dashboard start`, `dashboard stop`" in _refusal(["dashboard", "x"])


@pytest.mark.parametrize(
    ("word", "meant"),
    [
        ("navigat", "open"),  # `navigate` is an alias of `open`
        ("browser_navigate", "open"),
        ("goto_url", "open"),
        ("press_key", "press"),
        ("select_option", "select"),
        ("take_screenshot", "screenshot"),
        ("browser_snapshot", "snapshot"),
    ],
)
def test_a_misspelt_alias_or_a_prefixed_name_points_at_the_command(word: str, meant: str) -> None:
    """Names a model brings from other browser tools land on this engine's command."""
    message = _refusal([word])
    assert f"Did you mean `{meant}`" in message, message
