"""The operator's `[browser]` launch settings become engine variables on every spawn."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.engine.environment import build_child_env
from agent_browser_tools.launch_options import LAUNCH_OPTIONS, REMOTE_KEYS, operator_launch_env
from agent_browser_tools.settings import Settings, SettingsError


def _settings(tmp_path: Path, config: str, **env: str) -> Settings:
    path = tmp_path / "config.toml"
    path.write_text(config)
    base = {"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_CONFIG": str(path), **env}
    return Settings.load(env=base, cwd=tmp_path)


def test_every_option_maps_to_its_engine_variable(tmp_path: Path) -> None:
    config = """
[browser]
headed = true
executable_path = "/opt/chrome"
profile = "Work"
user_agent = "OpBot/1"
proxy = "http://proxy:8080"
proxy_bypass = "localhost"
allowed_domains = ["a.test", "b.test"]
ignore_https_errors = true
init_script = ["one.js", "two.js"]
browser_arg = ["--lang=fr"]
extension = "ext"
viewport = "900x700"
"""
    env = operator_launch_env(_settings(tmp_path, config))
    assert env == {
        "AGENT_BROWSER_HEADED": "true",
        "AGENT_BROWSER_EXECUTABLE_PATH": "/opt/chrome",
        "AGENT_BROWSER_PROFILE": "Work",
        "AGENT_BROWSER_USER_AGENT": "OpBot/1",
        "AGENT_BROWSER_PROXY": "http://proxy:8080",
        "AGENT_BROWSER_PROXY_BYPASS": "localhost",
        "AGENT_BROWSER_ALLOWED_DOMAINS": "a.test,b.test",
        "AGENT_BROWSER_IGNORE_HTTPS_ERRORS": "true",
        "AGENT_BROWSER_INIT_SCRIPTS": "one.js,two.js",
        "AGENT_BROWSER_ARGS": "--lang=fr\n--window-size=900,700",
        "AGENT_BROWSER_EXTENSIONS": "ext",
    }
    # The remote ones (cdp_url, provider) exclude local launch settings: see test_remote_*.
    local = {option.env for option in LAUNCH_OPTIONS if option.key not in REMOTE_KEYS}
    assert local <= set(env)


def test_child_env_carries_them_and_isolation_drops_saved_state(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path,
        '[browser]\nisolated = true\nuser_agent = "OpBot/1"\n',
        AGENT_BROWSER_PROFILE="Default",
        AGENT_BROWSER_STATE="auth.json",
    )
    env = build_child_env(settings, None)
    assert env["AGENT_BROWSER_USER_AGENT"] == "OpBot/1"
    assert "AGENT_BROWSER_PROFILE" not in env and "AGENT_BROWSER_STATE" not in env


def test_false_and_empty_values_set_nothing(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "[browser]\nheaded = false\nallowed_domains = []\n")
    assert operator_launch_env(settings) == {}


@pytest.mark.parametrize(
    ("config", "needle"),
    [
        ('[browser]\nheaded = "yes"\n', "true or false"),
        ('[browser]\nviewport = "big"\n', "1280x720"),
        ("[browser]\nexecutable_path = 3\n", "non-empty string"),
        ('[browser]\nisolated = true\nprofile = "Work"\n', "exclude each other"),
        ("[browser]\nheadless = true\n", "unknown key(s) headless"),
        ("browser = 1\n", "must be a table"),
    ],
)
def test_bad_values_name_the_key_and_the_fix(tmp_path: Path, config: str, needle: str) -> None:
    with pytest.raises(SettingsError) as caught:
        operator_launch_env(_settings(tmp_path, config))
    assert needle in str(caught.value)
