"""Engine discovery, the child environment and settings: the rules that run before a spawn."""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import pytest

from agent_browser_tools.engine import discovery
from agent_browser_tools.engine.environment import (
    EMPTY_ENGINE_CONFIG,
    build_child_env,
    clamp_default_timeout,
    socket_dir_for,
)
from agent_browser_tools.engine.target import (
    MIN_ENGINE_VERSION,
    TARGET_ENGINE_VERSION,
    support_note,
    supported,
    surface_of,
)
from agent_browser_tools.settings import Settings, SettingsError

ROOT = Path(__file__).resolve().parents[3]


def _settings(tmp_path: Path, **env: str) -> Settings:
    base = {"HOME": str(tmp_path / "home"), "PATH": os.environ["PATH"]}
    return Settings.load(env={**base, **env}, cwd=tmp_path)


def test_pyproject_pins_the_engine_version_named_in_target() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert f"agent-browser-cli=={TARGET_ENGINE_VERSION}" in project["dependencies"]


def test_explicit_missing_binary_names_path_and_fix(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "agent-browser"
    with pytest.raises(discovery.EngineNotFound) as caught:
        discovery.locate_engine(_settings(tmp_path, AGENT_BROWSER_TOOLS_BIN=str(missing)))
    message = str(caught.value)
    assert str(missing) in message and "does not exist" in message and "pip install" in message


def test_explicit_non_executable_binary_is_reported(tmp_path: Path) -> None:
    binary = tmp_path / "agent-browser"
    binary.write_text("#!/bin/sh\n")
    binary.chmod(0o644)
    with pytest.raises(discovery.EngineNotFound, match="chmod \\+x"):
        discovery.locate_engine(_settings(tmp_path, AGENT_BROWSER_TOOLS_BIN=str(binary)))


def test_wheel_binary_is_preferred_over_path(tmp_path: Path) -> None:
    engine = discovery.locate_engine(_settings(tmp_path))
    assert engine.source == "wheel"
    assert os.access(engine.path, os.X_OK)


def test_too_old_engine_names_path_version_and_fix(tmp_path: Path) -> None:
    old = tmp_path / "agent-browser"
    old.write_text("#!/bin/sh\necho 'agent-browser 0.20.1'\n")
    old.chmod(old.stat().st_mode | stat.S_IXUSR)
    binary = discovery.EngineBinary(path=str(old), source="explicit")
    with pytest.raises(discovery.EngineTooOld) as caught:
        discovery.read_engine_version(binary)
    message = str(caught.value)
    assert str(old) in message and "0.20.1" in message and MIN_ENGINE_VERSION in message


def test_version_is_read_once_per_process(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    fake = tmp_path / "agent-browser"
    script = f"#!/bin/sh\necho x >> {counter}\necho 'agent-browser {TARGET_ENGINE_VERSION}'\n"
    fake.write_text(script)
    fake.chmod(0o755)
    discovery.clear_engine_cache()
    settings = _settings(tmp_path, AGENT_BROWSER_TOOLS_BIN=str(fake))
    try:
        first = discovery.resolve_engine(settings)
        second = discovery.resolve_engine(settings)
    finally:
        discovery.clear_engine_cache()
    assert first.version_label == TARGET_ENGINE_VERSION and second is first
    assert counter.read_text().count("x") == 1


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, "25000"), ("60000", "25000"), ("10000", "10000"), ("junk", "25000"), ("0", "25000")],
)
def test_default_action_timeout_is_clamped_to_25s(raw: str | None, expected: str) -> None:
    assert clamp_default_timeout(raw) == expected


def test_child_env_is_built_explicitly(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path,
        AGENT_BROWSER_DEFAULT_TIMEOUT="90000",
        AGENT_BROWSER_TOOLS_IDLE_TIMEOUT_MS="120000",
        AGENT_BROWSER_TOOLS_BIN="/x/agent-browser",
        EXA_API_KEY="exa-secret",
        AGENT_BROWSER_PROFILE="Work",
    )
    env = build_child_env(settings, Path("/tmp/abt-sock"))
    assert env["AGENT_BROWSER_DEFAULT_TIMEOUT"] == "25000"
    assert env["AGENT_BROWSER_IDLE_TIMEOUT_MS"] == "120000"
    assert env["AGENT_BROWSER_SOCKET_DIR"] == "/tmp/abt-sock"
    assert env["AGENT_BROWSER_PROFILE"] == "Work"
    assert "EXA_API_KEY" not in env
    assert not any(key.startswith("AGENT_BROWSER_TOOLS_") for key in env)


def test_the_engine_never_reads_a_workspace_config(tmp_path: Path) -> None:
    """Without `AGENT_BROWSER_CONFIG` the engine merges `./agent-browser.json` from the
    workspace; the child env always names one file instead."""
    settings = _settings(tmp_path)
    path = Path(build_child_env(settings, None)["AGENT_BROWSER_CONFIG"])
    assert path == settings.state_dir / EMPTY_ENGINE_CONFIG
    assert path.read_text() == "{}\n" and stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text('{"proxy": "http://evil.test"}')  # tampered: rewritten
    assert Path(build_child_env(settings, None)["AGENT_BROWSER_CONFIG"]).read_text() == "{}\n"
    user = tmp_path / "home" / ".agent-browser" / "config.json"
    user.parent.mkdir(parents=True, exist_ok=True)  # the state key lives there already
    user.write_text('{"headed": true}')
    assert build_child_env(settings, None)["AGENT_BROWSER_CONFIG"] == str(user)
    operator = _settings(tmp_path, AGENT_BROWSER_CONFIG="/etc/ab/config.json")
    assert build_child_env(operator, None)["AGENT_BROWSER_CONFIG"] == "/etc/ab/config.json"


def test_a_shared_servers_browsers_save_downloads_in_the_conversations_workspace(
    tmp_path: Path,
) -> None:
    """Without a workspace, a download nobody asked for lands in one folder for every
    conversation (Chromium's ~/Downloads, or the operator's dir); with one, in its own."""
    workspace = tmp_path / "agent-browser-workspaces" / "aaaa"
    plain = _settings(tmp_path)
    assert "AGENT_BROWSER_DOWNLOAD_PATH" not in build_child_env(plain, None)
    env = build_child_env(plain, None, workspace=workspace)
    assert env["AGENT_BROWSER_DOWNLOAD_PATH"] == str(workspace / "downloads")
    assert "AGENT_BROWSER_SCREENSHOT_DIR" not in env  # the engine's own temp dir stays
    operator = _settings(
        tmp_path, AGENT_BROWSER_DOWNLOAD_PATH="/srv/dl", AGENT_BROWSER_SCREENSHOT_DIR="/srv/shots"
    )
    assert build_child_env(operator, None)["AGENT_BROWSER_DOWNLOAD_PATH"] == "/srv/dl"
    mine = build_child_env(operator, None, workspace=workspace)
    assert mine["AGENT_BROWSER_DOWNLOAD_PATH"] == str(workspace / "downloads")
    assert mine["AGENT_BROWSER_SCREENSHOT_DIR"] == str(workspace / "screenshots")


def test_long_native_socket_dir_gets_a_short_private_one(tmp_path: Path) -> None:
    long_home = tmp_path / ("h" * 90)
    settings = Settings.load(env={"HOME": str(long_home), "PATH": "/usr/bin"}, cwd=tmp_path)
    chosen = socket_dir_for(settings)
    assert chosen is not None and len(str(chosen)) < 40
    assert stat.S_IMODE(chosen.stat().st_mode) == 0o700
    short = Settings.load(env={"HOME": "/root", "PATH": "/usr/bin"}, cwd=tmp_path)
    assert socket_dir_for(short) is None
    native = Settings.load(
        env={"HOME": str(long_home), "AGENT_BROWSER_SOCKET_DIR": "/tmp/mine"}, cwd=tmp_path
    )
    assert socket_dir_for(native) is None


def test_bad_knob_and_missing_override_config_explain_the_fix(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="PROCESS_TIMEOUT_MS"):
        _settings(tmp_path, AGENT_BROWSER_TOOLS_PROCESS_TIMEOUT_MS="soon")
    with pytest.raises(SettingsError, match="does not exist"):
        _settings(tmp_path, AGENT_BROWSER_TOOLS_CONFIG=str(tmp_path / "missing.toml"))


def test_config_layers_merge_in_order(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "agent-browser-tools").mkdir(parents=True)
    (home / ".config" / "agent-browser-tools" / "config.toml").write_text(
        '[engine]\nbin = "/global/agent-browser"\n'
    )
    (tmp_path / ".agent-browser-tools.toml").write_text('[engine]\nbin = "/project/ab"\n')
    override = tmp_path / "override.toml"
    override.write_text('[engine]\nsocket_dir = "/tmp/ov"\n')
    settings = _settings(tmp_path, AGENT_BROWSER_TOOLS_CONFIG=str(override))
    assert [layer.scope for layer in settings.layers] == ["global", "project", "override"]
    assert settings.engine_bin == "/project/ab"
    assert settings.socket_dir == Path("/tmp/ov")
    untrusted = Settings.load(env={"HOME": str(home)}, cwd=tmp_path, trust_project=False)
    assert untrusted.engine_bin == "/global/agent-browser"


def test_private_dirs_are_created_0700_at_every_new_level(tmp_path: Path) -> None:
    from agent_browser_tools.private_fs import ensure_private_dir

    leaf = ensure_private_dir(tmp_path / "state" / "spill" / "conv")
    for level in (tmp_path / "state", tmp_path / "state" / "spill", leaf):
        assert stat.S_IMODE(level.stat().st_mode) == 0o700, level


def test_execution_dir_from_env_or_config(tmp_path: Path) -> None:
    assert _settings(tmp_path).execution_dir is None
    assert _settings(tmp_path, AGENT_BROWSER_TOOLS_CWD=str(tmp_path)).execution_dir == tmp_path
    override = tmp_path / "o.toml"
    override.write_text(f'[tools]\ncwd = "{tmp_path / "work"}"\n')
    chosen = _settings(tmp_path, AGENT_BROWSER_TOOLS_CONFIG=str(override)).execution_dir
    assert chosen == tmp_path / "work"


@pytest.mark.parametrize(
    ("version", "surface"),
    [
        ((0, 39, 4), "0.39.4"),
        ((0, 41, 2), "0.41.2"),
        ((0, 40, 0), "0.39.4"),  # between: what it surely has is the older release's
        ((0, 45, 0), "0.41.2"),
        ((0, 39, 1), "0.39.4"),  # older than every supported release: the oldest
        (None, TARGET_ENGINE_VERSION),
    ],
)
def test_an_engine_is_read_with_the_surface_of_a_supported_release(
    version: tuple[int, int, int] | None, surface: str
) -> None:
    assert surface_of(version) == surface


def test_an_unsupported_engine_is_named_with_the_way_to_a_supported_one() -> None:
    assert support_note((0, 41, 2)) == "supported" and supported((0, 39, 4))
    note = support_note((0, 45, 0))
    assert note.startswith("0.45.0 is not a supported engine (supported: 0.39.4, 0.41.2)")
    assert "read as 0.41.2's" in note and "npm install -g agent-browser@0.41.2" in note
