"""Which executable doctor says the engine will launch, and which setting chose it."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from agent_browser_tools.hosts.cli.browser_choice import (
    CONFIG_KEY,
    ChosenBrowser,
    chosen_browser,
    executable_problem,
    fix_for,
)

ENV_KEY = "AGENT_BROWSER_EXECUTABLE_PATH"


def test_an_inherited_variable_is_named_as_the_variable() -> None:
    chosen = chosen_browser({ENV_KEY: "/nonexistent"}, {})
    assert chosen == ChosenBrowser("/nonexistent", ENV_KEY)


def test_the_operators_browser_section_is_named_as_the_config_key() -> None:
    """`[browser] executable_path` reaches the engine as the same variable: name the key."""
    chosen = chosen_browser({ENV_KEY: "/opt/chrome"}, {ENV_KEY: "/opt/chrome"})
    assert chosen == ChosenBrowser("/opt/chrome", CONFIG_KEY)


def test_the_engine_config_files_executable_path_is_named_with_its_file(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"executablePath": "/opt/other"}), encoding="utf-8")
    chosen = chosen_browser({"AGENT_BROWSER_CONFIG": str(config)}, {})
    assert chosen is not None and chosen.path == "/opt/other"
    assert str(config) in chosen.setting and "executablePath" in chosen.setting


def test_the_variable_wins_over_the_engine_config(tmp_path: Path) -> None:
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"executablePath": "/opt/other"}), encoding="utf-8")
    env = {"AGENT_BROWSER_CONFIG": str(config), ENV_KEY: "/opt/env"}
    assert chosen_browser(env, {}) == ChosenBrowser("/opt/env", ENV_KEY)


def test_nothing_chosen_or_an_unreadable_config_leaves_the_engines_choice(
    tmp_path: Path,
) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert chosen_browser({}, {}) is None
    assert chosen_browser({"AGENT_BROWSER_CONFIG": str(broken)}, {}) is None
    assert chosen_browser({"AGENT_BROWSER_CONFIG": str(tmp_path / "gone.json")}, {}) is None


def test_executable_problems_are_named(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.write_text("#!/bin/sh\n", encoding="utf-8")
    runnable = tmp_path / "runnable"
    runnable.write_text("#!/bin/sh\n", encoding="utf-8")
    runnable.chmod(runnable.stat().st_mode | stat.S_IXUSR)
    env = {"PATH": str(tmp_path)}
    assert executable_problem("/nonexistent", env) == "no such file"
    assert executable_problem(str(tmp_path), env) == "not a file"
    assert executable_problem(str(plain), env) == "not executable"
    assert executable_problem(str(runnable), env) is None
    assert executable_problem("runnable", env) is None
    assert executable_problem("no-such-browser", env) == "not found on PATH"


def test_the_fix_names_the_setting() -> None:
    assert fix_for(ChosenBrowser("/x", CONFIG_KEY)).startswith(f"point {CONFIG_KEY} at")
