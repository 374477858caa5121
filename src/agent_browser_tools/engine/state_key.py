"""The key the engine encrypts saved state with, so a state file is useless to read back.

Why: `state save` writes every cookie (HttpOnly session cookies and the operator's secrets
set as cookies included) and storage value of the browser into a file in the workspace, where
the model can read it back (`open file://...`, `upload`) or a page can take it. Engine 0.39.4
encrypts that file (AES-GCM, written as `<path>.enc`) when `AGENT_BROWSER_ENCRYPTION_KEY` is in
the daemon's environment, and `state load` decrypts it, so every browser we launch gets a key
and the model gets a file it can load but not read.

Which key, in order:

1. the operator's own `AGENT_BROWSER_ENCRYPTION_KEY` (left in the child environment as is);
2. the engine's own key file, `~/.agent-browser/.encryption-key` (64 hex digits), created
   the way the engine creates it on its first `auth save` when it is missing. The engine
   prefers the environment's key over this file for its auth vault too, so any other key
   would make profiles saved with `agent-browser auth save` undecryptable; this one keeps
   the vault and the user's own terminal (`export AGENT_BROWSER_ENCRYPTION_KEY=$(cat
   ~/.agent-browser/.encryption-key)`) working with the same files;
3. when that file cannot be used (unreadable, not a key, a directory someone else owns), a
   private key in the state dir.

Both places are never reachable from a tool call (`planning.file_config.forbidden_places`),
and the key goes only into the engine child's environment, never into argv or output.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import tempfile
from collections.abc import Mapping
from pathlib import Path

from agent_browser_tools.private_fs import PrivateDirError, ensure_private_dir

KEY_ENV = "AGENT_BROWSER_ENCRYPTION_KEY"
ENGINE_KEY_FILE = Path(".agent-browser") / ".encryption-key"
"""Relative to `$HOME`: where engine 0.39.4 keeps its auto-generated key."""
PRIVATE_KEY_FILE = "engine-encryption.key"
"""In the state dir: the fallback key."""

_KEY = re.compile(r"^[0-9a-fA-F]{64}$")


def child_key(env: Mapping[str, str], state_dir: Path) -> str | None:
    """The key to put into the engine child's environment, or None when the operator's own
    is already there."""
    if env.get(KEY_ENV):
        return None
    home = Path(env.get("HOME", "~")).expanduser()
    key = _shared_key(home / ENGINE_KEY_FILE)
    return key if key is not None else _private_key(state_dir / PRIVATE_KEY_FILE)


def _shared_key(path: Path) -> str | None:
    try:
        ensure_private_dir(path.parent)
        return _read_or_create(path)
    except (OSError, PrivateDirError):
        return None


def _private_key(path: Path) -> str:
    ensure_private_dir(path.parent)
    key = _read_or_create(path)
    if key is None:  # a broken file of ours: replace it
        path.unlink(missing_ok=True)
        key = _read_or_create(path)
    if key is None:
        raise OSError(f"cannot create the state encryption key {path}")
    return key


def _read_or_create(path: Path) -> str | None:
    """The key in `path`, creating the file (0600, atomically: another server starting at
    the same moment reads the same key) when it is missing; None when it holds no key."""
    if not path.exists():
        fd, tmp = tempfile.mkstemp(prefix=".tmp-key-", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(secrets.token_hex(32) + "\n")
            os.chmod(tmp, 0o600)
            with contextlib.suppress(FileExistsError):  # another server made it first
                os.link(tmp, path)
        finally:
            Path(tmp).unlink(missing_ok=True)
    text = path.read_text(encoding="ascii", errors="replace").strip()
    return text if _KEY.match(text) else None
