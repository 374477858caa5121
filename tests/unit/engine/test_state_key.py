"""Every engine child gets a state encryption key: the operator's, else the engine's own."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agent_browser_tools.engine.environment import build_child_env
from agent_browser_tools.engine.state_key import ENGINE_KEY_FILE, KEY_ENV, PRIVATE_KEY_FILE
from agent_browser_tools.settings import Settings


def _settings(tmp_path: Path, **env: str) -> Settings:
    base = {"HOME": str(tmp_path / "home"), "PATH": os.environ["PATH"]}
    return Settings.load(env={**base, **env}, cwd=tmp_path)


def test_the_engines_key_file_is_created_once_and_shared(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    key = build_child_env(settings, None)[KEY_ENV]
    path = tmp_path / "home" / ENGINE_KEY_FILE
    assert path.read_text() == key + "\n" and len(key) == 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert build_child_env(_settings(tmp_path), None)[KEY_ENV] == key
    assert list(path.parent.glob(".tmp-*")) == []


def test_an_existing_engine_key_is_used_as_is(tmp_path: Path) -> None:
    path = tmp_path / "home" / ENGINE_KEY_FILE
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text("AB" * 32 + "\n")
    path.chmod(0o600)
    assert build_child_env(_settings(tmp_path), None)[KEY_ENV] == "AB" * 32


def test_the_operators_key_wins_and_no_file_is_made(tmp_path: Path) -> None:
    settings = _settings(tmp_path, AGENT_BROWSER_ENCRYPTION_KEY="cd" * 32)
    assert build_child_env(settings, None)[KEY_ENV] == "cd" * 32
    assert not (tmp_path / "home" / ENGINE_KEY_FILE).exists()


def test_an_unusable_engine_key_file_falls_back_to_a_private_key(tmp_path: Path) -> None:
    path = tmp_path / "home" / ENGINE_KEY_FILE
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text("not a key\n")
    settings = _settings(tmp_path)
    key = build_child_env(settings, None)[KEY_ENV]
    private = settings.state_dir / PRIVATE_KEY_FILE
    assert private.read_text() == key + "\n"
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert path.read_text() == "not a key\n", "the engine's own file is left alone"
    assert build_child_env(_settings(tmp_path), None)[KEY_ENV] == key
