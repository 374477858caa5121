"""The operator's policy over model-supplied argv (pure: nothing here spawns anything).

The cases are generated from the taxonomy's `ModelAccess` column, so a flag or command marked
operator-only is tried in every position the model could hide it: the call's own globals, a
batch row from stdin JSON and a batch row written as an args string.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_browser_tools import taxonomy
from agent_browser_tools.planning.argv_rules import check_argv
from agent_browser_tools.planning.policy import (
    DEFAULT_MAX_TIMEOUT_MS,
    ModelPolicy,
    PolicyBlocked,
    canonical_flag,
    check_model_policy,
    check_timeout,
)
from agent_browser_tools.settings import Settings, SettingsError
from agent_browser_tools.taxonomy import FlagValue, ModelAccess

OPERATOR_FLAGS = sorted(
    f.name for f in taxonomy.all_global_flags() if f.access is ModelAccess.OPERATOR
)
OPERATOR_COMMANDS = sorted(
    c.name for c in taxonomy.all_commands() if c.access is ModelAccess.OPERATOR
)
SHARED_COMMANDS = sorted(
    c.name for c in taxonomy.all_commands() if c.access is ModelAccess.SHARED_STORE
)
DEFAULT = ModelPolicy()


def _flag_tokens(name: str) -> list[str]:
    flag = taxonomy.global_flag(name)
    assert flag is not None
    if flag.value is FlagValue.REQUIRED:
        return [name, "x"]
    return [name]


def _blocked(args: list[str], stdin: str | None = None, policy: ModelPolicy = DEFAULT) -> str:
    with pytest.raises(PolicyBlocked) as caught:
        check_model_policy(check_argv(args, stdin), policy)
    return caught.value.rule


def test_the_launch_defining_flags_are_operator_only() -> None:
    """The issue's list: a regression that re-opens one of these must fail here."""
    expected = {
        "--executable-path", "--args", "--extension", "--profile", "--cdp", "--auto-connect",
        "--provider", "--proxy", "--allow-file-access", "--config", "--ca-cert",
    }  # fmt: skip
    assert expected <= set(OPERATOR_FLAGS)
    model = {"--headed", "--user-agent", "--device", "--color-scheme", "--headers", "--session"}
    assert not model & set(OPERATOR_FLAGS)


@pytest.mark.parametrize("name", OPERATOR_FLAGS)
def test_operator_flag_is_refused_directly(name: str) -> None:
    assert _blocked([*_flag_tokens(name), "open", "https://a.test/"]) == "operator-flag"


@pytest.mark.parametrize("name", [name for name in OPERATOR_FLAGS if name != "--args"])
def test_operator_flag_is_refused_in_a_stdin_batch_row(name: str) -> None:
    """(`--args` in a row is already a validation error: it belongs on the outer call.)"""
    rows = [["get", "url"], [*_flag_tokens(name), "open", "https://a.test/"]]
    assert _blocked(["batch"], json.dumps(rows)) == "operator-flag"


def test_operator_flag_is_refused_in_an_args_batch_row() -> None:
    """The engine ignores a flag inside a row string; refusing it anyway costs nothing."""
    assert _blocked(["batch", "get url", "open x --executable-path /bin/sh"]) == "operator-flag"


def test_an_allowed_flag_passes_and_others_stay_refused() -> None:
    policy = ModelPolicy(allowed_flags=frozenset({"--args"}))
    check_model_policy(check_argv(["--args", "--no-sandbox", "open", "x"], None), policy)
    assert _blocked(["--executable-path", "/bin/sh", "open", "x"], policy=policy)


def test_the_message_names_the_flag_and_the_setting_that_allows_it() -> None:
    with pytest.raises(PolicyBlocked) as caught:
        check_model_policy(check_argv(["--args", "--renderer-cmd-prefix=x", "open"], None), DEFAULT)
    message = str(caught.value)
    assert "--args" in message and "--allow-model-flag=--args" in message
    assert caught.value.as_details() == {
        "rule": "operator-flag",
        "subject": "--args",
        "allowWith": "--allow-model-flag=--args",
    }


def test_short_spelling_is_the_same_flag() -> None:
    assert _blocked(["-p", "browserbase", "open", "x"]) == "operator-flag"


@pytest.mark.parametrize("name", OPERATOR_COMMANDS)
def test_operator_command_is_refused(name: str) -> None:
    command = taxonomy.command(tuple(name.split()))
    assert command is not None
    operands = ["x"] * command.min_operands
    assert _blocked([*name.split(), *operands]) == "operator-command"
    rows = [["get", "title"], [*name.split(), *operands]]
    assert _blocked(["batch"], json.dumps(rows)) == "operator-command"


@pytest.mark.parametrize("name", SHARED_COMMANDS)
def test_shared_store_is_refused_only_between_isolated_conversations(name: str) -> None:
    command = taxonomy.command(tuple(name.split()))
    assert command is not None
    args = [*name.split(), *(["x"] * command.min_operands)]
    check_model_policy(check_argv(args, None), DEFAULT)
    isolated = ModelPolicy(isolated_conversations=True)
    assert _blocked(args, policy=isolated) == "shared-store"


def test_ordinary_calls_pass() -> None:
    for args in (["open", "https://a.test/"], ["--headed", "open", "x"], ["snapshot", "-i"]):
        check_model_policy(check_argv(args, None), DEFAULT)


def test_timeout_cap() -> None:
    check_timeout(None, DEFAULT)
    check_timeout(DEFAULT_MAX_TIMEOUT_MS, DEFAULT)
    with pytest.raises(PolicyBlocked) as caught:
        check_timeout(DEFAULT_MAX_TIMEOUT_MS + 1, DEFAULT)
    assert caught.value.rule == "timeout-cap" and str(DEFAULT_MAX_TIMEOUT_MS) in str(caught.value)


def _settings(env: dict[str, str], config: str = "", tmp: Path | None = None) -> Settings:
    if config and tmp is not None:
        path = tmp / "c.toml"
        path.write_text(config)
        env = {**env, "AGENT_BROWSER_TOOLS_CONFIG": str(path)}
    return Settings.load(env={"HOME": "/nonexistent", **env}, cwd=Path("/nonexistent"))


def test_policy_reads_env_and_config(tmp_path: Path) -> None:
    settings = _settings(
        {"AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS": "cdp, --args"},
        '[policy]\nallow_model_flags = ["-p"]\nmax_timeout_ms = 5000\n',
        tmp_path,
    )
    policy = ModelPolicy.from_settings(settings, isolated_conversations=True)
    assert policy.allowed_flags == {"--cdp", "--args", "--provider"}
    assert policy.max_timeout_ms == 5000 and policy.isolated_conversations


@pytest.mark.parametrize(
    ("env", "config", "needle"),
    [
        ({"AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS": "--no-such-flag"}, "", "--no-such-flag"),
        ({"AGENT_BROWSER_TOOLS_MAX_TIMEOUT_MS": "soon"}, "", "soon"),
        ({}, "[policy]\nmax_timeout_ms = -1\n", "-1"),
        ({}, "[policy]\nallow_model_flags = 3\n", "list of strings"),
        ({}, "policy = 1\n", "[policy] must be a table"),
    ],
)
def test_bad_policy_settings_name_the_fix(
    tmp_path: Path, env: dict[str, str], config: str, needle: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        ModelPolicy.from_settings(_settings(env, config, tmp_path))
    assert needle in str(caught.value)


def test_canonical_flag() -> None:
    assert canonical_flag("executable-path") == "--executable-path"
    with pytest.raises(SettingsError):
        canonical_flag("--nope")
