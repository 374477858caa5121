"""`WrapperGrant`: the one operator-only argv a wrapper-built call may run (pure)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_browser_tools.planning.argv_rules import check_argv
from agent_browser_tools.planning.policy import (
    ModelPolicy,
    PolicyBlocked,
    WrapperGrant,
    check_model_policy,
)
from agent_browser_tools.settings import Settings, SettingsError

GRANT = WrapperGrant("connect", ("40123",))


def test_connect_stays_operator_only_without_the_exact_grant() -> None:
    for args, grant in [
        (["--session", "el-1", "connect", "40123"], None),
        (["--session", "el-1", "connect", "9222"], GRANT),  # another port
        (["--session", "el-1", "connect", "http://127.0.0.1:40123"], GRANT),
    ]:
        with pytest.raises(PolicyBlocked) as caught:
            check_model_policy(check_argv(args, None), ModelPolicy(), grant)
        assert caught.value.rule == "operator-command"


def test_the_grant_lets_exactly_its_argv_through_and_never_a_batch_row() -> None:
    check_model_policy(
        check_argv(["--session", "el-1", "connect", "40123"], None), ModelPolicy(), GRANT
    )
    rows = json.dumps([["connect", "40123"]])
    with pytest.raises(PolicyBlocked):
        check_model_policy(check_argv(["batch", "--bail"], rows), ModelPolicy(), GRANT)
    with pytest.raises(PolicyBlocked):  # the grant never covers an operator-only flag
        check_model_policy(
            check_argv(["--cdp", "40123", "connect", "40123"], None), ModelPolicy(), GRANT
        )


def test_allow_electron_is_off_by_default_and_read_from_env_or_config(tmp_path: Path) -> None:
    assert ModelPolicy.from_settings(Settings.load(env={}, cwd=tmp_path)).allow_electron is False
    on = Settings.load(env={"AGENT_BROWSER_TOOLS_ALLOW_ELECTRON": "1"}, cwd=tmp_path)
    assert ModelPolicy.from_settings(on).allow_electron is True
    config = tmp_path / "c.toml"
    config.write_text("[policy]\nallow_electron = true\n")
    by_file = Settings.load(env={"AGENT_BROWSER_TOOLS_CONFIG": str(config)}, cwd=tmp_path)
    assert ModelPolicy.from_settings(by_file).allow_electron is True
    with pytest.raises(SettingsError):
        bad = Settings.load(env={"AGENT_BROWSER_TOOLS_ALLOW_ELECTRON": "maybe"}, cwd=tmp_path)
        ModelPolicy.from_settings(bad)
