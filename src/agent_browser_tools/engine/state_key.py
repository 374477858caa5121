"""The key the engine encrypts saved state with, so a state file is useless to read back.

Why: `state save` writes every cookie (HttpOnly session cookies and the operator's secrets
set as cookies included) and storage value of the browser into a file in the workspace, where
the model can read it back (`open file://...`, `upload`) or a page can take it. Engine 0.39.4
encrypts that file (AES-GCM, written as `<path>.enc`) when `AGENT_BROWSER_ENCRYPTION_KEY` is in
the daemon's environment, and `state load` decrypts it, so every browser we launch gets a key
and the model gets a file it can load but not read.

Which key, for the single user (stdio, the Python API, the CLI), in order:

1. the operator's own `AGENT_BROWSER_ENCRYPTION_KEY` (left in the child environment as is);
2. the engine's own key file, `~/.agent-browser/.encryption-key` (64 hex digits), created
   the way the engine creates it on its first `auth save` when it is missing. The engine
   prefers the environment's key over this file for its auth vault too, so any other key
   would make profiles saved with `agent-browser auth save` undecryptable; this one keeps
   the vault and the user's own terminal (`export AGENT_BROWSER_ENCRYPTION_KEY=$(cat
   ~/.agent-browser/.encryption-key)`) working with the same files;
3. when that file cannot be used (unreadable, not a key, a directory someone else owns), a
   private key in the state dir.

On a server several conversations share, one key for all would let B load a file A saved
where B can name it (the server's dir stays a root for everyone by absolute path): encryption
stops B reading it, not loading it into B's browser. There each conversation's browsers get
their own key instead, an HMAC of a private base key (state dir) and the conversation's root
id (`scoped_key`): stable, so a resumed conversation loads what it saved, and never the
operator's key or the user's home file (nothing is created in the home there). The
operator-shared sessions, everyone's by the operator's choice, share one key of their own.
The engine's auth vault needs the user's key, so it is refused to the model on such a server
(the `shared-store` rule of `planning.policy`).

Every place is out of reach of a tool call (`planning.file_config.forbidden_places`), and the
key goes only into the engine child's environment, never into argv or output.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from pathlib import Path

from agent_browser_tools.private_fs import PrivateDirError, ensure_private_dir, read_or_create_key

KEY_ENV = "AGENT_BROWSER_ENCRYPTION_KEY"
ENGINE_KEY_FILE = Path(".agent-browser") / ".encryption-key"
"""Relative to `$HOME`: where engine 0.39.4 keeps its auto-generated key."""
PRIVATE_KEY_FILE = "engine-encryption.key"
"""In the state dir: the single user's fallback key."""
BASE_KEY_FILE = "state-key-base"
"""In the state dir: the shared server's base key (32 random bytes) for `scoped_key`."""
SHARED_SESSIONS_SCOPE = "shared-sessions"
"""The scope of the operator-shared sessions' key (a conversation's is `conversation_scope`)."""

_KEY = re.compile(r"^[0-9a-fA-F]{64}$")


def conversation_scope(root_id: str) -> str:
    """The key scope of one conversation's own browsers (never equal to the shared one)."""
    return "conversation:" + root_id


def child_key(env: Mapping[str, str], state_dir: Path, scope: str | None = None) -> str | None:
    """The key to put into the engine child's environment: the single user's (`scope` None;
    None when the operator's own is already there), else the key of `scope` on a shared
    server, which replaces any inherited one."""
    if scope is not None:
        return scoped_key(state_dir, scope)
    if env.get(KEY_ENV):
        return None
    home = Path(env.get("HOME", "~")).expanduser()
    key = _shared_key(home / ENGINE_KEY_FILE)
    return key if key is not None else _private_key(state_dir / PRIVATE_KEY_FILE)


def scoped_key(state_dir: Path, scope: str) -> str:
    """A shared server's key for `scope` (64 hex digits, the form the engine requires)."""
    path = ensure_private_dir(state_dir) / BASE_KEY_FILE
    base = read_or_create_key(path, lambda: secrets.token_bytes(32))
    if len(base) != 32:
        raise OSError(f"{path} is damaged; remove it and restart the server")
    message = b"engine-state-key\x00" + scope.encode("utf-8", "surrogatepass")
    return hmac.new(base, message, hashlib.sha256).hexdigest()


def _shared_key(path: Path) -> str | None:
    try:
        ensure_private_dir(path.parent)
        return _read_or_create(path, follow_symlinks=True)
    except (OSError, PrivateDirError):
        return None


def _private_key(path: Path) -> str:
    ensure_private_dir(path.parent)
    try:
        key = _read_or_create(path)
    except OSError:  # a symlink or a directory in our place
        key = None
    if key is None:  # a broken file of ours: replace it
        path.unlink(missing_ok=True)
        key = _read_or_create(path)
    if key is None:
        raise OSError(f"cannot create the state encryption key {path}")
    return key


def _read_or_create(path: Path, *, follow_symlinks: bool = False) -> str | None:
    """The hex key in `path`, created when missing (`read_or_create_key`); None when the
    file holds no key. The user's own file may be a symlink (dotfiles); ours may not."""
    raw = read_or_create_key(
        path, lambda: (secrets.token_hex(32) + "\n").encode(), follow_symlinks=follow_symlinks
    )
    text = raw.decode("ascii", errors="replace").strip()
    return text if _KEY.match(text) else None
