"""A conversation's workspace on a shared server: where it is, how it is named, what is left.

The name must not be the conversation id (or give it away): it shows in every path the model
sees. The dirs must be private, a planted symlink must not become a workspace, and the files a
conversation saved outlive it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agent_browser_tools.workspaces import (
    DIR_NAME,
    KEY_FILE,
    WorkspaceUnavailable,
    open_workspace,
    release_workspace,
    workspace_name,
)

CONVERSATION = "3f9a1c7e5b2d4a6f8e0c1b3d5f7a9c2e"


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_workspace_is_private_and_under_the_execution_dir(tmp_path: Path) -> None:
    state, served = tmp_path / "state", tmp_path / "served"
    served.mkdir()
    workspace = open_workspace(state, served, CONVERSATION)
    assert workspace.parent == served / DIR_NAME
    assert _mode(workspace) == 0o700 and _mode(workspace.parent) == 0o700
    assert _mode(state / KEY_FILE) == 0o600
    assert open_workspace(state, served, CONVERSATION) == workspace  # resumed: the same dir
    other = open_workspace(state, served, CONVERSATION[::-1])
    assert other != workspace and other.parent == workspace.parent


def test_the_name_is_keyed_and_gives_the_id_away_in_no_form(tmp_path: Path) -> None:
    name = workspace_name(b"k" * 32, CONVERSATION)
    assert len(name) == 32 and int(name, 16) >= 0
    assert CONVERSATION[:8] not in name and CONVERSATION[-8:] not in name
    assert name != workspace_name(b"j" * 32, CONVERSATION), "another server, another name"
    assert name == workspace_name(b"k" * 32, CONVERSATION)
    first = open_workspace(tmp_path / "s1", tmp_path, CONVERSATION).name
    second = open_workspace(tmp_path / "s2", tmp_path, CONVERSATION).name
    assert first != second, "each state dir has its own key"


def test_a_damaged_key_is_refused_not_used(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    (state / KEY_FILE).write_bytes(b"short")
    with pytest.raises(OSError, match="damaged"):
        open_workspace(state, tmp_path, CONVERSATION)


def test_a_planted_symlink_never_becomes_a_workspace(tmp_path: Path) -> None:
    state, served, elsewhere = tmp_path / "state", tmp_path / "served", tmp_path / "elsewhere"
    served.mkdir()
    elsewhere.mkdir()
    (served / DIR_NAME).symlink_to(elsewhere)
    with pytest.raises(WorkspaceUnavailable) as caught:
        open_workspace(state, served, CONVERSATION)
    assert "symlink" in str(caught.value) and "AGENT_BROWSER_TOOLS_CWD" in str(caught.value)
    assert list(elsewhere.iterdir()) == []


def test_an_execution_dir_that_cannot_hold_workspaces_names_the_fix(tmp_path: Path) -> None:
    served = tmp_path / "served"
    served.write_text("a file, not a dir")  # root ignores permissions; this fails for anyone
    with pytest.raises(WorkspaceUnavailable) as caught:
        open_workspace(tmp_path / "state", served, CONVERSATION)
    message = str(caught.value)
    assert str(served / DIR_NAME) in message and "writable directory" in message


def test_files_outlive_the_conversation_and_an_empty_workspace_does_not(
    tmp_path: Path,
) -> None:
    kept = open_workspace(tmp_path / "state", tmp_path, CONVERSATION)
    (kept / "shot.png").write_bytes(b"\x89PNG")
    assert release_workspace(kept) is False
    assert (kept / "shot.png").read_bytes() == b"\x89PNG"
    empty = open_workspace(tmp_path / "state", tmp_path, CONVERSATION[::-1])
    assert release_workspace(empty) is True and not empty.exists()
    assert release_workspace(empty) is False  # already gone: nothing to do
