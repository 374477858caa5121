"""`[browser] grid_url` and friends: the operator's grid, checked before any browser starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.engine.environment import build_child_env
from agent_browser_tools.grid_settings import GRID_URL_ENV, grid_config
from agent_browser_tools.launch_options import NO_LOCAL_BROWSER, operator_launch_env
from agent_browser_tools.settings import Settings, SettingsError
from agent_browser_tools.settings_check import check_settings


def _settings(tmp_path: Path, config: str, **env: str) -> Settings:
    path = tmp_path / "config.toml"
    path.write_text(config)
    base = {"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_CONFIG": str(path), **env}
    return Settings.load(env=base, cwd=tmp_path)


GRID = """
[browser]
grid_url = "https://user:s3cret@grid.example:4444/wd/hub/"
grid_wait_s = 5
[browser.grid_capabilities]
browserName = "chrome"
[browser.grid_capabilities."goog:chromeOptions"]
args = ["--headless=new"]
"""


def test_the_grid_setting_is_read_with_its_capabilities_and_wait(tmp_path: Path) -> None:
    config = grid_config(_settings(tmp_path, GRID))
    assert config is not None
    assert config.url == "https://user:s3cret@grid.example:4444/wd/hub"
    assert config.capabilities["goog:chromeOptions"] == {"args": ["--headless=new"]}
    assert config.capabilities["pageLoadStrategy"] == "none"
    assert config.wait_s == 5.0
    assert "s3cret" not in config.shown and "REDACTED" in config.shown
    assert config.secrets == ["s3cret"]


def test_no_grid_means_local_browsers(tmp_path: Path) -> None:
    assert grid_config(_settings(tmp_path, "")) is None


def test_the_environment_variable_names_the_grid(tmp_path: Path) -> None:
    settings = _settings(tmp_path, "", **{GRID_URL_ENV: "http://127.0.0.1:4444"})
    config = grid_config(settings)
    assert config is not None and config.url == "http://127.0.0.1:4444"


@pytest.mark.parametrize(
    ("config", "says"),
    [
        ('[browser]\ngrid_url = "ws://grid:4444"', "http or https URL"),
        ('[browser]\ngrid_url = "grid:4444"', "http or https URL"),
        ('[browser]\ngrid_url = "http://grid:99999"', "not a valid URL"),
        ('[browser]\ngrid_url = "http://grid:4444/?token=abc"', "query or fragment"),
        ("[browser]\ngrid_url = 4444", "http or https URL"),
        ('[browser]\ngrid_url = "http://g:1"\ncdp_url = "9222"', "exclude each other"),
        ('[browser]\ngrid_url = "http://g:1"\nprofile = "Work"', "exclude each other"),
        ('[browser]\ngrid_url = "http://g:1"\nisolated = true', "exclude each other"),
        ('[browser]\ngrid_url = "http://g:1"\ngrid_wait_s = 0', "between 0 and 600"),
        ('[browser]\ngrid_url = "http://g:1"\ngrid_wait_s = "30"', "number of seconds"),
        ('[browser]\ngrid_url = "http://g:1"\ngrid_capabilities = "chrome"', "table of W3C"),
        (
            '[browser]\ngrid_url = "http://g:1"\n[browser.grid_capabilities]\n"abt:owner" = "x"',
            "abt:*",
        ),
        ("[browser]\ngrid_wait_s = 5", "only apply with [browser] grid_url"),
    ],
)
def test_a_bad_grid_setting_is_refused_with_the_fix(tmp_path: Path, config: str, says: str) -> None:
    with pytest.raises(SettingsError, match=None) as caught:
        check_settings(_settings(tmp_path, config))
    assert says in str(caught.value)
    assert "abc" not in str(caught.value)


def test_shared_sessions_and_a_grid_exclude_each_other(tmp_path: Path) -> None:
    settings = _settings(tmp_path, '[browser]\ngrid_url = "http://g:1"')
    with pytest.raises(SettingsError, match="shared sessions"):
        check_settings(settings, shared_sessions=["team"])


def test_grid_mode_never_launches_a_local_browser(tmp_path: Path) -> None:
    """Every spawn's environment makes a local launch fail, and an inherited endpoint or
    profile of the server's environment is dropped (grid browsers are fresh)."""
    settings = _settings(
        tmp_path,
        '[browser]\ngrid_url = "http://127.0.0.1:4444"',
        AGENT_BROWSER_CDP="9222",
        AGENT_BROWSER_PROFILE="Work",
    )
    assert operator_launch_env(settings) == {"AGENT_BROWSER_EXECUTABLE_PATH": NO_LOCAL_BROWSER}
    env = build_child_env(settings, tmp_path / "sock")
    assert env["AGENT_BROWSER_EXECUTABLE_PATH"] == NO_LOCAL_BROWSER
    assert "AGENT_BROWSER_CDP" not in env and "AGENT_BROWSER_PROFILE" not in env


def test_the_share_of_one_conversation_is_the_operators(tmp_path: Path) -> None:
    base = '[browser]\ngrid_url = "http://g:1"\n'
    default = grid_config(_settings(tmp_path, base))
    assert default is not None and default.max_per_conversation == 4
    capped = grid_config(_settings(tmp_path, base + "grid_max_per_conversation = 1"))
    assert capped is not None and capped.max_per_conversation == 1
    for bad in ("0", "2.5", "true", '"4"'):
        with pytest.raises(SettingsError, match="grid_max_per_conversation"):
            grid_config(_settings(tmp_path, base + f"grid_max_per_conversation = {bad}"))
