"""A full disk under the state dir, through the command line: one line naming the real fix.

SQLite reports a full tmpfs as `disk I/O error` while creating its shared-memory index, which
used to read as a damaged journal ("move it aside"). The journal is fine; the disk needs room.
The state dir is a tiny tmpfs (skipped where mounting is impossible); no engine is involved.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_browser_tools.hosts.cli.main import main
from agent_browser_tools.state.journal import ConversationLog
from agent_browser_tools.state.models import SessionKey
from agent_browser_tools.state.sqlite_journal import SqliteJournal, list_conversations
from tests.support.cli import STATE_ENV, cli_env, one_line, run_cli
from tests.support.tmpfs import fill, mounted_tmpfs

CALL = ["call", "agent_browser", '{"args": ["get", "url"]}']


@pytest.fixture
def full_state(tmp_path: Path) -> Iterator[Path]:
    """A state dir holding one journaled conversation, on a filesystem that is now full."""
    with mounted_tmpfs(tmp_path / "tiny") as point:
        state = point / "state"
        _seed(state, "kept")
        fill(point)
        yield state


def _seed(state: Path, conversation: str) -> None:
    journal = SqliteJournal(state, conversation)
    ConversationLog(journal).intent("c-1", "agent_browser", SessionKey(session="s"), ())
    journal.close()


def _says_disk_full(line: str) -> None:
    assert "its filesystem is full" in line and "free space on its filesystem" in line
    assert "move it aside" not in line and STATE_ENV in line


@pytest.mark.parametrize(("args", "code"), [(CALL, 1), (["state", "list"], 1), (["serve"], 2)])
def test_a_full_disk_is_one_line_naming_free_space(
    tmp_path: Path, full_state: Path, args: list[str], code: int
) -> None:
    done = run_cli(args, cli_env(tmp_path, **{STATE_ENV: str(full_state)}))
    assert done.returncode == code and done.stdout == ""
    line = one_line(done.stderr)
    _says_disk_full(line)
    if args == ["serve"]:
        assert "--ephemeral-state" in line


def test_call_on_a_full_disk_suggests_ephemeral_state(tmp_path: Path, full_state: Path) -> None:
    done = run_cli(CALL, cli_env(tmp_path, **{STATE_ENV: str(full_state)}))
    assert "Or call with --ephemeral-state" in one_line(done.stderr)


def test_prune_that_fills_the_disk_is_one_line_and_keeps_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another process (a running server) keeps the journal open, so the checks pass and only
    the prune's own write meets the full disk."""
    with mounted_tmpfs(tmp_path / "tiny") as point:
        state = point / "state"
        _seed(state, "kept")
        holder = SqliteJournal(state, "server")  # keeps the WAL and its index in place
        try:
            filler = fill(point)
            monkeypatch.setenv(STATE_ENV, str(state))
            assert main(["state", "prune", "--conversation", "kept"]) == 1
            captured = capsys.readouterr()
            assert captured.out == ""
            _says_disk_full(one_line(captured.err))
            filler.unlink()
            assert [info.id for info in list_conversations(state)] == ["kept"]
        finally:
            holder.close()
