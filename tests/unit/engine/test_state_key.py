"""Every engine child gets a state encryption key: the operator's, else the engine's own; on
a shared server, each conversation's own."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agent_browser_tools.engine.environment import build_child_env
from agent_browser_tools.engine.state_key import (
    BASE_KEY_FILE,
    ENGINE_KEY_FILE,
    KEY_ENV,
    PRIVATE_KEY_FILE,
    SHARED_SESSIONS_SCOPE,
    conversation_scope,
)
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


# -- a server several conversations share -----------------------------------------------


def _scoped(settings: Settings, root_id: str) -> str:
    return build_child_env(settings, None, key_scope=conversation_scope(root_id))[KEY_ENV]


def test_each_conversation_of_a_shared_server_gets_its_own_stable_key(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    alice, bob = _scoped(settings, "conv-alice"), _scoped(settings, "conv-bob")
    assert alice != bob and all(len(key) == 64 and int(key, 16) >= 0 for key in (alice, bob))
    assert _scoped(_settings(tmp_path), "conv-alice") == alice, "a resumed conversation"
    shared = build_child_env(settings, None, key_scope=SHARED_SESSIONS_SCOPE)[KEY_ENV]
    assert shared not in (alice, bob)
    assert _scoped(_settings(tmp_path / "other"), "conv-alice") != alice, "another server"
    base = settings.state_dir / BASE_KEY_FILE
    assert stat.S_IMODE(base.stat().st_mode) == 0o600 and len(base.read_bytes()) == 32
    assert base.read_bytes().hex() not in (alice, bob)


def test_a_shared_server_never_uses_or_creates_the_users_keys(tmp_path: Path) -> None:
    """Neither the operator's key (every conversation would share it) nor the home file (the
    user's vault key: one the model's conversations must not hold)."""
    settings = _settings(tmp_path, AGENT_BROWSER_ENCRYPTION_KEY="cd" * 32)
    assert _scoped(settings, "conv-alice") != "cd" * 32
    assert _scoped(_settings(tmp_path), "conv-alice") == _scoped(settings, "conv-alice")
    assert not (tmp_path / "home" / ENGINE_KEY_FILE).parent.exists()
    assert not (settings.state_dir / PRIVATE_KEY_FILE).exists()


def test_a_damaged_base_key_is_refused_not_used(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    settings.state_dir.mkdir(mode=0o700, parents=True)
    (settings.state_dir / BASE_KEY_FILE).write_bytes(b"short")
    with pytest.raises(OSError, match="damaged"):
        _scoped(settings, "conv-alice")


def test_a_symlink_in_place_of_our_key_files_is_not_followed(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    settings.state_dir.mkdir(mode=0o700, parents=True)
    planted = tmp_path / "planted"
    planted.write_bytes(b"k" * 32)
    (settings.state_dir / BASE_KEY_FILE).symlink_to(planted)
    with pytest.raises(OSError):
        _scoped(settings, "conv-alice")


def test_the_users_key_file_may_be_a_symlink(tmp_path: Path) -> None:
    """The user's own file (a dotfiles link) is theirs to place; it is read through."""
    kept = tmp_path / "dotfiles-key"
    kept.write_text("EF" * 32 + "\n")
    path = tmp_path / "home" / ENGINE_KEY_FILE
    path.parent.mkdir(parents=True, mode=0o700)
    path.symlink_to(kept)
    assert build_child_env(_settings(tmp_path), None)[KEY_ENV] == "EF" * 32
