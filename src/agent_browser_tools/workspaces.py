"""One workspace dir per conversation on a server that several conversations share.

Over HTTP every conversation used to share the server's execution dir, so a file one saved
(`state save a/state.json`, a screenshot, an `outputPath`, a download) was another's to upload
to its own page, open as `file://` or overwrite. On a shared server each conversation gets its
own dir instead, used as its execution dir: relative paths, the engine child's working dir,
`outputPath` files and its browsers' downloads land there, and the file judge keeps every
other workspace (and the folder holding them) out of reach (`FileRoots.workspaces`).

Where: `<execution dir>/agent-browser-workspaces/<name>/`, so the operator finds what each
conversation saved next to the project the server runs in. Both dirs are private (0700).

Name: a keyed hash (HMAC-SHA256, key in the state dir) of the conversation id, never the id
itself: the id leaks into what the model sees (managed session names are derived from it), and
the dir name shows in every saved path, so neither may lead to the other.

End of a conversation: the files stay (they are what the user asked for: screenshots, saved
states, exports); an empty workspace is removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
from pathlib import Path

from agent_browser_tools.private_fs import ensure_private_dir, read_or_create_key

DIR_NAME = "agent-browser-workspaces"
"""The folder under the execution dir that holds every conversation's workspace."""
KEY_FILE = "workspace-key"
"""The HMAC key (in the state dir) that names workspaces."""
NAME_CHARS = 32


class WorkspaceUnavailable(ValueError):
    """The conversation's workspace cannot be created; the message names the dir and the fix."""


def workspaces_dir(execution_dir: Path) -> Path:
    """The folder holding the workspaces of a shared server running in `execution_dir`."""
    return execution_dir / DIR_NAME


def workspace_name(key: bytes, conversation_id: str) -> str:
    """The dir name of a conversation's workspace: stable for the id, and telling nothing
    about it to whoever sees the name."""
    digest = hmac.new(key, b"workspace\x00" + conversation_id.encode(), hashlib.sha256)
    return digest.hexdigest()[:NAME_CHARS]


def open_workspace(state_dir: Path, execution_dir: Path, conversation_id: str) -> Path:
    """Create (or reuse, for a resumed conversation) the conversation's private workspace and
    return it. Raises `WorkspaceUnavailable` naming the dir and the fix, or `OSError` when
    the state dir cannot hold the naming key."""
    key = _key(state_dir)
    parent = workspaces_dir(execution_dir)
    try:
        ensure_private_dir(parent)
        return ensure_private_dir(parent / workspace_name(key, conversation_id))
    except OSError as exc:
        raise WorkspaceUnavailable(
            f"cannot create this conversation's workspace under {parent} ({exc}); run the "
            "server in a writable directory or point AGENT_BROWSER_TOOLS_CWD / [tools] cwd at "
            "one"
        ) from exc


def release_workspace(workspace: Path) -> bool:
    """Remove the workspace if nothing was saved in it; a workspace with files is kept."""
    with contextlib.suppress(OSError):
        workspace.rmdir()
        return True
    return False


def _key(state_dir: Path) -> bytes:
    """The server's naming key: created once (0600), read afterwards (`read_or_create_key`:
    a process racing to create it reads the one that won)."""
    path = ensure_private_dir(state_dir) / KEY_FILE
    key = read_or_create_key(path, lambda: secrets.token_bytes(32))
    if len(key) != 32:
        raise OSError(f"{path} is damaged; remove it and restart the server")
    return key
