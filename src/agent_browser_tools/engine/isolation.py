"""Conversation isolation at the engine: a private socket dir for every conversation.

The engine finds a browser by its session name inside `AGENT_BROWSER_SOCKET_DIR`
(`NAME.sock/.pid/...`), and `session list` / `close --all` work on that whole dir. With one dir
for everyone, any conversation that learned (or guessed) another's session name could read its
page, cookies and storage, click in it, or close it. So every conversation gets its own dir:

- `base/c-<hash of the root id>`, mode 0700, owned by us (symlinks and foreign owners are
  refused by `private_fs`). It is derived from the root conversation id alone, so a resumed
  conversation (CLI `call --conversation X`, `BrowserTools(conversation_id=X)`, a journal
  resume) and its sub-agents (`AGENT_BROWSER_TOOLS_ROOT`) find their own browsers again.
- This holds for every host, not only for a multi-conversation HTTP server: two stdio
  servers, two API conversations or two CLI conversations of one user should not see or close
  each other's browsers either, and explicit `--session`, `session list` and `close --all`
  then mean "of this conversation" everywhere. The model never chooses the dir: it is set in
  the child environment, and the engine keeps `--namespace` inside it.
- `base` is the dir the engine would use anyway (the wrapper's configured socket dir, the
  user's `AGENT_BROWSER_SOCKET_DIR`, the engine's native default, or the short private dir when
  that is too long for socket paths), so tools that watch `base` still see every browser.
- Sessions the operator shares by name (`[isolation] shared_sessions`, env
  `AGENT_BROWSER_TOOLS_SHARED_SESSIONS`, `serve --shared-session NAME`) live in `base` itself,
  where every conversation (and the user's own `agent-browser --session NAME`) reaches them.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import shutil
import time
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_browser_tools.engine.environment import (
    SESSION_NAME_BUDGET,
    UNIX_SOCKET_PATH_LIMIT,
    native_socket_dir,
    short_private_socket_dir,
)
from agent_browser_tools.private_fs import ensure_private_dir
from agent_browser_tools.settings import ENV_PREFIX, Settings, SettingsError

SHARED_SESSIONS_ENV = ENV_PREFIX + "SHARED_SESSIONS"
SHARED_SESSIONS_KEY = "[isolation] shared_sessions"
SHARED_SESSION_OPTION = "--shared-session"
CONVERSATION_DIR_PREFIX = "c-"
CONVERSATION_DIGEST_LEN = 12
"""48 bits of the root id's hash: collisions between one user's conversations are negligible."""

_SESSION_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
_RESERVED_PREFIX = "abt-"
"""Managed session names; sharing one would hand a conversation's own browser to the others."""

DAEMON_EXIT_WAIT_S = 3.0
"""How long to wait for closed daemons to remove their files before keeping the dir."""


def conversation_dir_name(root_id: str) -> str:
    """The private dir's name for a root conversation id (stable across processes)."""
    digest = hashlib.sha256(f"abt-conversation\0{root_id}".encode()).hexdigest()
    return CONVERSATION_DIR_PREFIX + digest[:CONVERSATION_DIGEST_LEN]


def _fits(directory: Path) -> bool:
    return len(str(directory)) + 1 + SESSION_NAME_BUDGET <= UNIX_SOCKET_PATH_LIMIT


def socket_base(settings: Settings) -> Path:
    """The shared dir: where operator-shared sessions live and conversation dirs are made.

    A wrapper socket dir (`AGENT_BROWSER_TOOLS_SOCKET_DIR`) is created private; the user's
    `AGENT_BROWSER_SOCKET_DIR` and the engine's native default are used as they are, unless
    the native default is too long for socket paths (then the short private dir is used).
    """
    if settings.socket_dir is not None:
        return ensure_private_dir(settings.socket_dir)
    explicit = settings.env.get("AGENT_BROWSER_SOCKET_DIR")
    if explicit:
        return Path(explicit).expanduser()
    native = native_socket_dir(settings.env)
    if _fits(native):
        return native
    return ensure_private_dir(short_private_socket_dir(settings.env))


def conversation_socket_dir(base: Path, root_id: str, env: Mapping[str, str]) -> Path:
    """The conversation's private dir under `base` (under the short dir when too long).

    Raises `PrivateDirError` when the dir is a symlink or owned by someone else.
    """
    name = conversation_dir_name(root_id)
    own = base / name
    if not _fits(own):
        own = ensure_private_dir(short_private_socket_dir(env)) / name
    return ensure_private_dir(own)


def check_session_name(name: str, source: str) -> str:
    """A name the operator may share: a plain engine session name, not a managed one."""
    if not _SESSION_NAME.fullmatch(name) or name.startswith(_RESERVED_PREFIX):
        raise SettingsError(
            f"{source} {name!r} is not a shareable session name: use 1-32 letters, digits, "
            f"'.', '_' or '-' (not starting with '{_RESERVED_PREFIX}', which names the "
            "conversations' own browsers)."
        )
    return name


def shared_session_names(settings: Settings, extra: Iterable[str] = ()) -> frozenset[str]:
    """Operator-shared session names from config, env and host flags (validated)."""
    section: Any = settings.merged_config.get("isolation", {})
    if not isinstance(section, Mapping):
        raise SettingsError("config [isolation] must be a table; fix or remove it.")
    configured: Any = section.get("shared_sessions", ())
    if isinstance(configured, str):
        configured = [configured]
    if not isinstance(configured, Sequence) or not all(isinstance(n, str) for n in configured):
        raise SettingsError(f"config {SHARED_SESSIONS_KEY} must be a list of strings.")
    names = [check_session_name(n, SHARED_SESSIONS_KEY) for n in configured]
    raw_env = settings.env.get(SHARED_SESSIONS_ENV, "")
    names += [
        check_session_name(p.strip(), SHARED_SESSIONS_ENV) for p in raw_env.split(",") if p.strip()
    ]
    names += [check_session_name(n, SHARED_SESSION_OPTION) for n in extra]
    return frozenset(names)


@dataclass(frozen=True)
class SocketScope:
    """Which socket dir a call's session lives in."""

    base: Path
    own: Path
    shared_sessions: frozenset[str]

    def is_shared(self, session: str | None, namespace: str | None) -> bool:
        """Operator-shared: a named session in the base namespace (never a namespaced one)."""
        return session is not None and namespace is None and session in self.shared_sessions

    def dir_for(self, session: str | None, namespace: str | None) -> Path:
        return self.base if self.is_shared(session, namespace) else self.own


def resolve_scope(settings: Settings, root_id: str, shared: frozenset[str]) -> SocketScope:
    """Create (if needed) and check the conversation's dir; see the module docstring."""
    base = socket_base(settings)
    return SocketScope(base, conversation_socket_dir(base, root_id, settings.env), shared)


def _daemon_alive(pid_file: Path) -> bool:
    try:
        pid = int(pid_file.read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):
        return False
    return True


def holds_browsers(directory: Path, *, besides: Collection[str] = ()) -> bool:
    """A socket, or a pid file of a running daemon, anywhere in the dir (namespaces too),
    of a session not named in `besides`."""
    with contextlib.suppress(OSError):
        for path in directory.rglob("*"):
            if path.stem in besides:
                continue
            if path.suffix == ".sock" or (path.suffix == ".pid" and _daemon_alive(path)):
                return True
    return False


def namespaces_with_browsers(directory: Path) -> list[str]:
    """Namespaces (as the engine names their dirs) that hold a browser: `close --all` only
    closes the namespace it is given, so each needs its own."""
    root = directory / "namespaces"
    with contextlib.suppress(OSError):
        return sorted(p.name for p in root.iterdir() if p.is_dir() and holds_browsers(p))
    return []


async def remove_if_idle(
    own: Path, wait_s: float = DAEMON_EXIT_WAIT_S, closing: Collection[str] | None = None
) -> bool:
    """Remove the conversation's dir once no daemon lives in it; True when it is gone.

    A closed daemon answers before it deletes its files, so wait (at most `wait_s`) for the
    sessions just closed (`closing`; None: all of them), but not at all when another browser
    still runs there. What the engine leaves behind after a close (`.config`, `.target`
    files) goes with the dir.
    """
    if not own.is_dir() or own.is_symlink():
        return False
    if closing is not None and holds_browsers(own, besides=closing):
        return False
    deadline = time.monotonic() + wait_s
    while holds_browsers(own):
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(0.1)
    shutil.rmtree(own, ignore_errors=True)
    return not own.exists()
