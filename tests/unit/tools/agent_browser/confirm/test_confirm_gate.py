"""`confirm_gate.env_gated`: the engine config file's verdict follows every edit."""

from __future__ import annotations

import json
from pathlib import Path

from agent_browser_tools.engine.environment import ENGINE_CONFIG_ENV
from agent_browser_tools.tools.agent_browser.confirm.confirm_gate import env_gated


def test_the_config_verdict_follows_each_edit_of_the_file(tmp_path: Path) -> None:
    """The verdict is remembered between the several asks of one call; an edit (new size,
    mtime or inode) is read again, never answered from the remembered one."""
    config = tmp_path / "agent-browser.json"
    env = {ENGINE_CONFIG_ENV: str(config)}
    assert env_gated(env) is False  # no file: no policy
    config.write_text(json.dumps({"headed": False}), encoding="utf-8")
    assert env_gated(env) is False
    config.write_text(json.dumps({"confirmActions": "click"}), encoding="utf-8")
    assert env_gated(env) is True
    assert env_gated(env) is True
    replaced = tmp_path / "next.json"
    replaced.write_text(json.dumps({"confirmActions": ""}), encoding="utf-8")
    replaced.replace(config)
    assert env_gated(env) is False
    config.write_text("{not json", encoding="utf-8")
    assert env_gated(env) is True  # unreadable counts as gated
    config.unlink()
    assert env_gated(env) is False


def test_the_environment_variables_gate_without_a_file() -> None:
    assert env_gated({"AGENT_BROWSER_CONFIRM_ACTIONS": "click"}) is True
    assert env_gated({"AGENT_BROWSER_ACTION_POLICY": " "}) is False
    assert env_gated({}) is False
