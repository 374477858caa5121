"""The operator's file settings: configured roots, the unrestricted switch, and the places a
conversation's roots never include."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_browser_tools.planning.file_access import PathRefused, judge_path
from agent_browser_tools.planning.file_config import (
    FileAccess,
    describe_access,
    file_roots,
    forbidden_places,
)
from agent_browser_tools.settings import Settings, SettingsError
from agent_browser_tools.taxonomy import PathUse


def _settings(tmp_path: Path, config: str = "", **env: str) -> Settings:
    if config:
        path = tmp_path / "override.toml"
        path.write_text(config)
        env["AGENT_BROWSER_TOOLS_CONFIG"] = str(path)
    base = {"HOME": str(tmp_path / "home"), "AGENT_BROWSER_TOOLS_CWD": str(tmp_path)}
    return Settings.load(env={**base, **env}, cwd=tmp_path)


def test_roots_come_from_config_and_env(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path,
        '[files]\nroots = ["/data/shared", "rel"]\n',
        AGENT_BROWSER_TOOLS_FILE_ROOTS=os.pathsep.join(["/srv/a", "", "/srv/b"]),
    )
    access = FileAccess.from_settings(settings)
    assert access.roots == (
        Path("/data/shared"),
        tmp_path / "rel",
        Path("/srv/a"),
        Path("/srv/b"),
    )
    assert access.unrestricted is False


@pytest.mark.parametrize(
    ("config", "env_value", "expected"),
    [
        ("[files]\nallow_unrestricted = true\n", None, True),
        ("[files]\nallow_unrestricted = true\n", "0", False),
        ("", "1", True),
        ("", "yes", True),
        ("", None, False),
    ],
)
def test_the_unrestricted_switch(
    tmp_path: Path, config: str, env_value: str | None, expected: bool
) -> None:
    env = (
        {}
        if env_value is None
        else {"AGENT_BROWSER_TOOLS_ALLOW_UNRESTRICTED_FILE_ACCESS": env_value}
    )
    assert FileAccess.from_settings(_settings(tmp_path, config, **env)).unrestricted is expected


@pytest.mark.parametrize(
    ("config", "env"),
    [
        ("[files]\nroots = 3\n", {}),
        ("[files]\nallow_unrestricted = 'yes'\n", {}),
        ("files = 1\n", {}),
        ("", {"AGENT_BROWSER_TOOLS_ALLOW_UNRESTRICTED_FILE_ACCESS": "maybe"}),
    ],
)
def test_bad_settings_say_how_to_fix_them(tmp_path: Path, config: str, env: dict[str, str]) -> None:
    with pytest.raises(SettingsError, match="fix"):
        FileAccess.from_settings(_settings(tmp_path, config, **env))


def test_the_servers_and_engines_own_places_are_forbidden(tmp_path: Path) -> None:
    settings = _settings(
        tmp_path,
        AGENT_BROWSER_TOOLS_STATE_DIR=str(tmp_path / "state"),
        AGENT_BROWSER_SOCKET_DIR=str(tmp_path / "sock"),
        AGENT_BROWSER_CONFIG=str(tmp_path / "engine.json"),
        XDG_RUNTIME_DIR=str(tmp_path / "run"),
    )
    places = forbidden_places(settings, tmp_path, tmp_path / "conv-sock")
    for expected in (
        tmp_path / "state",
        tmp_path / "home" / ".agent-browser",
        tmp_path / "run" / "agent-browser",
        tmp_path / "sock",
        tmp_path / "conv-sock",
        tmp_path / "engine.json",
        tmp_path / "home" / ".config" / "agent-browser-tools" / "config.toml",
        tmp_path / ".agent-browser-tools.toml",
    ):
        assert expected in places, expected


def test_unrestricted_roots_still_refuse_the_engines_vault(tmp_path: Path) -> None:
    settings = _settings(tmp_path, AGENT_BROWSER_TOOLS_ALLOW_UNRESTRICTED_FILE_ACCESS="1")
    roots = file_roots(settings, FileAccess.from_settings(settings), cwd=tmp_path)
    vault = tmp_path / "home" / ".agent-browser" / "auth" / "site.json"
    with pytest.raises(PathRefused, match="forbidden"):
        judge_path(str(vault), PathUse.READ_FILE, roots)
    assert judge_path("/etc/hostname", PathUse.READ_FILE, roots) == Path("/etc/hostname")


def test_client_roots_join_the_conversations_roots(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    client = tmp_path / "client-project"
    roots = file_roots(
        settings, FileAccess.from_settings(settings), cwd=tmp_path / "ws", client_roots=[client]
    )
    assert roots.all_roots == (tmp_path / "ws", client)
    assert judge_path(str(client / "a.png"), PathUse.WRITE_FILE, roots) == client / "a.png"


def test_doctor_line(tmp_path: Path) -> None:
    roots_line = describe_access(_settings(tmp_path, '[files]\nroots = ["/srv"]\n'), tmp_path)
    assert roots_line.startswith(f"roots {tmp_path}, /srv plus the MCP client's roots")
    open_line = describe_access(
        _settings(tmp_path, AGENT_BROWSER_TOOLS_ALLOW_UNRESTRICTED_FILE_ACCESS="1"), tmp_path
    )
    assert open_line.startswith("unrestricted: the whole filesystem")
    assert "never the state dir" in open_line
    shared = f"over --http each conversation works in its own workspace under {tmp_path}"
    assert shared in roots_line and shared in open_line


def test_a_shared_servers_conversation_works_in_its_workspace(tmp_path: Path) -> None:
    """The server's dir stays a root, the client's and operator's roots join, and the folder
    of workspaces is closed but for the conversation's own, even unrestricted."""
    settings = _settings(tmp_path, '[files]\nroots = ["/srv"]\nallow_unrestricted = true\n')
    spaces = tmp_path / "agent-browser-workspaces"
    own, client = spaces / "aaaa", tmp_path / "client"
    roots = file_roots(
        settings,
        FileAccess.from_settings(settings),
        cwd=own,
        client_roots=[client],
        server_dir=tmp_path,
    )
    assert roots.cwd == own and roots.all_roots == (own, tmp_path, client, Path("/srv"))
    assert roots.workspaces == spaces and spaces in roots.walk_excluded
    assert judge_path("a.png", PathUse.WRITE_FILE, roots) == own / "a.png"
    with pytest.raises(PathRefused, match="other-workspace"):
        judge_path(str(spaces / "bbbb" / "a.png"), PathUse.READ_FILE, roots)
    alone = file_roots(settings, FileAccess.from_settings(settings), cwd=tmp_path)
    assert alone.workspaces is None and alone.walk_excluded == alone.forbidden
