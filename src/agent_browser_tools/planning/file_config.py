"""The operator's file settings, and the file roots of one conversation.

Roots: the execution dir, the MCP client's roots (`file://` root URIs, per conversation) and
the configured roots (`[files] roots`, `AGENT_BROWSER_TOOLS_FILE_ROOTS` separated by
`os.pathsep`, `serve --file-root DIR`). `--allow-unrestricted-file-access` (`[files]
allow_unrestricted = true`, `AGENT_BROWSER_TOOLS_ALLOW_UNRESTRICTED_FILE_ACCESS=1`) widens
them to the whole filesystem. The places no call may reach are listed here, from the same
settings the engine and the state store use, so a moved state or socket dir stays protected.

On a server several conversations share (`serve --http`), each conversation's execution dir
is its own workspace (`workspaces`); the server's execution dir stays a root, but the folder
holding the workspaces is closed to all but each one's own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_browser_tools.credentials.operator import secrets_files
from agent_browser_tools.engine.environment import native_socket_dir, short_private_socket_dir
from agent_browser_tools.planning.file_access import FileRoots
from agent_browser_tools.settings import ENV_PREFIX, Settings, SettingsError, config_paths
from agent_browser_tools.workspaces import workspaces_dir

FILE_ROOTS_ENV = ENV_PREFIX + "FILE_ROOTS"
UNRESTRICTED_ENV = ENV_PREFIX + "ALLOW_UNRESTRICTED_FILE_ACCESS"
FILE_ROOT_OPTION = "--file-root"
UNRESTRICTED_OPTION = "--allow-unrestricted-file-access"
ROOTS_KEY = "[files] roots"
UNRESTRICTED_KEY = "[files] allow_unrestricted"
FILE_PAGES_ENV = ENV_PREFIX + "ALLOW_FILE_PAGES"
FILE_PAGES_OPTION = "--allow-file-pages"
FILE_PAGES_KEY = "[files] allow_file_pages"
ENGINE_USER_DIR = ".agent-browser"
"""The engine's per-user dir under HOME: sessions, auth vault, saved states, its config."""

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


@dataclass(frozen=True)
class FileAccess:
    """What the operator configured: extra roots, and whether the filesystem is open."""

    roots: tuple[Path, ...] = ()
    unrestricted: bool = False
    file_pages: bool = False

    @classmethod
    def from_settings(cls, settings: Settings) -> FileAccess:
        """Read `[files]` from the config layers and the `AGENT_BROWSER_TOOLS_*` env."""
        section = settings.merged_config.get("files", {})
        if not isinstance(section, Mapping):
            raise SettingsError("config [files] must be a table; fix or remove it.")
        raw = [*_string_list(section.get("roots", ()))]
        raw += [part for part in settings.env.get(FILE_ROOTS_ENV, "").split(os.pathsep) if part]
        base = settings.execution_dir or Path.cwd()
        roots = tuple(_absolute(part, base) for part in raw)
        return cls(
            roots=roots,
            unrestricted=_switch(settings, section, UNRESTRICTED_ENV, "allow_unrestricted"),
            file_pages=_switch(settings, section, FILE_PAGES_ENV, "allow_file_pages"),
        )


def _string_list(value: Any) -> Sequence[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence) and all(isinstance(item, str) for item in value):
        return list(value)
    raise SettingsError(f"config {ROOTS_KEY} must be a list of directories; fix or remove it.")


def _absolute(raw: str, base: Path) -> Path:
    path = Path(os.path.expanduser(raw))
    return path if path.is_absolute() else base / path


def _switch(settings: Settings, section: Mapping[str, Any], env_name: str, key: str) -> bool:
    """An operator on/off setting: the env variable wins over the `[files]` key."""
    raw = settings.env.get(env_name)
    if raw is not None:
        if raw.strip().lower() in _TRUE:
            return True
        if raw.strip().lower() in _FALSE:
            return False
        raise SettingsError(f"{env_name}={raw!r} must be 1 or 0; fix or unset it.")
    value = section.get(key, False)
    if not isinstance(value, bool):
        raise SettingsError(f"config [files] {key} must be true or false; fix it.")
    return value


def forbidden_places(settings: Settings, cwd: Path, socket_dir: Path | None) -> tuple[Path, ...]:
    """The server's state dir, the engine's socket dirs and per-user dir, the config files of
    both and the operator's secrets files: never reachable from a tool call."""
    env = settings.env
    home = Path(env.get("HOME", "~")).expanduser()
    places: list[Path] = [settings.state_dir, home / ENGINE_USER_DIR]
    places += [native_socket_dir(env), short_private_socket_dir(env)]
    if socket_dir is not None:
        places.append(socket_dir)
    if settings.socket_dir is not None:
        places.append(settings.socket_dir)
    for name in ("AGENT_BROWSER_SOCKET_DIR", "AGENT_BROWSER_CONFIG"):
        if env.get(name):
            places.append(Path(env[name]).expanduser())
    places += [path for _scope, path in config_paths(env, cwd)]
    places += [layer.path for layer in settings.layers]
    places += secrets_files(settings)
    return tuple(_absolute(str(place), cwd) for place in places)


def file_roots(
    settings: Settings,
    access: FileAccess,
    *,
    cwd: Path,
    client_roots: Iterable[Path] = (),
    socket_dir: Path | None = None,
    server_dir: Path | None = None,
) -> FileRoots:
    """The roots of one conversation: execution dir, client roots, configured roots.

    `server_dir`: on a shared server, the server's execution dir, whose workspaces folder
    holds `cwd` (this conversation's workspace); it stays a root, the other workspaces do not.
    """
    shared = () if server_dir is None else (server_dir,)
    return FileRoots(
        cwd=cwd,
        roots=(*shared, *client_roots, *access.roots),
        forbidden=forbidden_places(settings, server_dir or cwd, socket_dir),
        unrestricted=access.unrestricted,
        file_pages=access.file_pages,
        workspaces=None if server_dir is None else workspaces_dir(server_dir),
    )


def describe_access(settings: Settings, cwd: Path) -> str:
    """One line for `doctor`: the roots (or unrestricted) and what stays unreachable."""
    access = FileAccess.from_settings(settings)
    roots = file_roots(settings, access, cwd=cwd)
    never = f"never the state dir {settings.state_dir} or the engine's own dirs"
    if access.file_pages:
        never += f"; file:// pages that can show other files allowed ({FILE_PAGES_OPTION})"
    shared = (
        f"; over --http each conversation works in its own workspace under "
        f"{workspaces_dir(cwd)} and never reaches another's"
    )
    if roots.unrestricted:
        return f"unrestricted: the whole filesystem ({UNRESTRICTED_OPTION}); {never}{shared}"
    return f"roots {roots.describe()} plus the MCP client's roots; {never}{shared}"
