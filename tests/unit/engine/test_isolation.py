"""The per-conversation socket dir: where it is, who may own it, and when it goes away."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_browser_tools.engine.environment import SESSION_NAME_BUDGET, UNIX_SOCKET_PATH_LIMIT
from agent_browser_tools.engine.isolation import (
    CONVERSATION_DIR_PREFIX,
    conversation_dir_name,
    holds_browsers,
    namespaces_with_browsers,
    remove_if_idle,
    resolve_scope,
    shared_session_names,
    socket_base,
)
from agent_browser_tools.private_fs import PrivateDirError
from agent_browser_tools.settings import Settings, SettingsError


def _settings(tmp_path: Path, config: str = "", **env: str) -> Settings:
    base = {"HOME": str(tmp_path / "home"), "PATH": os.environ["PATH"]}
    if config:
        path = tmp_path / "override.toml"
        path.write_text(config)
        base["AGENT_BROWSER_TOOLS_CONFIG"] = str(path)
    return Settings.load(env={**base, **env}, cwd=tmp_path, trust_project=False)


def _fits(directory: Path) -> bool:
    return len(str(directory)) + 1 + SESSION_NAME_BUDGET <= UNIX_SOCKET_PATH_LIMIT


@pytest.fixture
def sock() -> Iterator[Path]:
    """A short base dir (tmp_path can be too long for socket paths)."""
    path = Path(tempfile.mkdtemp(prefix="abt-u", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def test_the_dir_name_is_derived_from_the_root_id_alone() -> None:
    first = conversation_dir_name("conv-1")
    assert first == conversation_dir_name("conv-1")  # a resumed conversation finds it again
    assert first != conversation_dir_name("conv-2")
    assert first.startswith(CONVERSATION_DIR_PREFIX) and len(first) == 14
    assert "conv" not in first  # the id itself is not written into the path


def test_each_conversation_gets_a_private_dir_under_the_base(tmp_path: Path, sock: Path) -> None:
    settings = _settings(tmp_path, AGENT_BROWSER_SOCKET_DIR=str(sock))
    one = resolve_scope(settings, "conv-1", frozenset())
    again = resolve_scope(settings, "conv-1", frozenset())
    other = resolve_scope(settings, "conv-2", frozenset())
    assert one.base == sock and one.own.parent == sock
    assert one.own == again.own and one.own != other.own
    info = os.lstat(one.own)
    assert stat.S_ISDIR(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o700
    assert info.st_uid == os.getuid()
    assert _fits(one.own)


def test_a_too_long_base_puts_the_conversation_dir_under_the_short_one(tmp_path: Path) -> None:
    long_dir = tmp_path / ("d" * 60)
    settings = _settings(tmp_path, AGENT_BROWSER_SOCKET_DIR=str(long_dir))
    scope = resolve_scope(settings, "conv-long", frozenset())
    assert scope.base == long_dir  # shared sessions stay where the user put them
    assert _fits(scope.own) and not scope.own.is_relative_to(long_dir)
    assert stat.S_IMODE(scope.own.stat().st_mode) == 0o700
    assert scope.own.name == conversation_dir_name("conv-long")
    scope.own.rmdir()


def test_the_base_is_the_dir_the_engine_would_use(tmp_path: Path, sock: Path) -> None:
    configured = _settings(tmp_path, AGENT_BROWSER_TOOLS_SOCKET_DIR=str(sock / "wrapper"))
    assert socket_base(configured) == sock / "wrapper"
    assert stat.S_IMODE((sock / "wrapper").stat().st_mode) == 0o700
    native = _settings(tmp_path, XDG_RUNTIME_DIR="/run/user/4242")
    assert socket_base(native) == Path("/run/user/4242/agent-browser")
    long_home = _settings(tmp_path, HOME=str(tmp_path / ("h" * 90)))
    short = socket_base(long_home)
    assert _fits(short / conversation_dir_name("x")) and short.is_relative_to("/tmp")


def test_a_planted_symlink_is_refused(tmp_path: Path, sock: Path) -> None:
    settings = _settings(tmp_path, AGENT_BROWSER_SOCKET_DIR=str(sock))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    (sock / conversation_dir_name("victim")).symlink_to(elsewhere)
    with pytest.raises(PrivateDirError, match="symlink"):
        resolve_scope(settings, "victim", frozenset())


@pytest.mark.skipif(os.getuid() != 0, reason="chown to another user needs root")
def test_a_dir_owned_by_someone_else_is_refused(tmp_path: Path, sock: Path) -> None:
    settings = _settings(tmp_path, AGENT_BROWSER_SOCKET_DIR=str(sock))
    planted = sock / conversation_dir_name("victim")
    planted.mkdir(mode=0o777)
    os.chown(planted, 65534, 65534)
    with pytest.raises(PrivateDirError, match="owned by uid 65534"):
        resolve_scope(settings, "victim", frozenset())


def test_an_existing_open_dir_is_tightened(tmp_path: Path, sock: Path) -> None:
    settings = _settings(tmp_path, AGENT_BROWSER_SOCKET_DIR=str(sock))
    existing = sock / conversation_dir_name("loose")
    existing.mkdir()
    existing.chmod(0o755)
    assert resolve_scope(settings, "loose", frozenset()).own == existing
    assert stat.S_IMODE(existing.stat().st_mode) == 0o700


def test_shared_sessions_come_from_config_env_and_flags(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path,
        config='[isolation]\nshared_sessions = ["work"]\n',
        AGENT_BROWSER_TOOLS_SHARED_SESSIONS="qa, demo",
    )
    assert shared_session_names(settings, ["team.1"]) == {"work", "qa", "demo", "team.1"}
    assert shared_session_names(_settings(tmp_path)) == frozenset()


@pytest.mark.parametrize("name", ["../work", "a/b", "..", ".hidden", "abt-0123", "x" * 33, ""])
def test_unshareable_names_are_refused_with_the_rule(tmp_path: Path, name: str) -> None:
    with pytest.raises(SettingsError, match="not a shareable session name"):
        shared_session_names(_settings(tmp_path), [name])


def test_bad_isolation_config_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="list of strings"):
        shared_session_names(_settings(tmp_path, config="[isolation]\nshared_sessions = 3\n"))
    with pytest.raises(SettingsError, match="must be a table"):
        shared_session_names(_settings(tmp_path, config='isolation = "on"\n'))


def test_only_a_shared_name_in_the_base_namespace_uses_the_base(tmp_path: Path, sock: Path) -> None:
    settings = _settings(tmp_path, AGENT_BROWSER_SOCKET_DIR=str(sock))
    scope = resolve_scope(settings, "conv", frozenset({"work"}))
    assert scope.dir_for("work", None) == sock
    assert scope.dir_for("work", "ns") == scope.own
    assert scope.dir_for("mine", None) == scope.own
    assert scope.dir_for(None, None) == scope.own


async def test_an_idle_dir_is_removed_with_the_engine_leftovers(sock: Path) -> None:
    own = sock / "c-idle"
    (own / "namespaces" / "ns" / "run").mkdir(parents=True)
    for name in ("s.config", "s.target", "namespaces/ns/run/t.config"):
        (own / name).write_text("{}")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (own / "gone.pid").write_text(str(dead.pid))  # a daemon that has exited
    assert not holds_browsers(own)
    assert await remove_if_idle(own, wait_s=0)
    assert not own.exists() and sock.exists()


async def test_a_dir_with_a_live_daemon_or_socket_is_kept(sock: Path) -> None:
    own = sock / "c-busy"
    (own / "namespaces" / "ns" / "run").mkdir(parents=True)
    (own / "namespaces" / "ns" / "run" / "s.sock").write_text("")
    assert holds_browsers(own)
    assert not await remove_if_idle(own, wait_s=0.2)
    assert own.is_dir()
    (own / "namespaces" / "ns" / "run" / "s.sock").unlink()
    (own / "alive.pid").write_text(str(os.getpid()))
    assert not await remove_if_idle(own, wait_s=0)
    assert own.is_dir()


def test_namespaces_with_browsers_are_found(sock: Path) -> None:
    own = sock / "c-ns"
    for name in ("busy", "idle", "also"):
        (own / "namespaces" / name / "run").mkdir(parents=True)
    (own / "namespaces" / "busy" / "run" / "s.sock").write_text("")
    (own / "namespaces" / "also" / "run" / "t.sock").write_text("")
    (own / "namespaces" / "idle" / "run" / "s.config").write_text("{}")
    assert namespaces_with_browsers(own) == ["also", "busy"]
    assert namespaces_with_browsers(sock / "missing") == []


async def test_a_symlinked_dir_is_never_removed_through(sock: Path, tmp_path: Path) -> None:
    target = tmp_path / "keep"
    target.mkdir()
    (target / "precious").write_text("x")
    link = sock / "c-link"
    link.symlink_to(target)
    assert not await remove_if_idle(link, wait_s=0)
    assert (target / "precious").exists()


async def test_removal_waits_for_closing_sessions_only(sock: Path) -> None:
    own = sock / "c-wait"
    own.mkdir()
    (own / "mine.sock").write_text("")

    async def daemon_exits() -> None:
        await asyncio.sleep(0.3)
        (own / "mine.sock").unlink()

    exiting = asyncio.create_task(daemon_exits())
    assert await remove_if_idle(own, wait_s=3.0, closing={"mine"})
    await exiting
    assert not own.exists()

    own.mkdir()
    (own / "mine.sock").write_text("")
    (own / "theirs.sock").write_text("")  # an explicit session that stays open
    started = time.monotonic()
    assert not await remove_if_idle(own, wait_s=3.0, closing={"mine"})
    assert time.monotonic() - started < 1.0  # nothing to wait for: the dir stays anyway
    assert own.is_dir()
