"""`agent-browser-tools state list|prune` over a real journal."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agent_browser_tools.hosts.cli.main import main
from agent_browser_tools.state.journal import ConversationLog
from agent_browser_tools.state.models import SessionKey
from agent_browser_tools.state.sqlite_journal import DB_NAME, SqliteJournal


def _seed(state: Path, *names: str) -> None:
    for name in names:
        journal = SqliteJournal(state, name)
        ConversationLog(journal).intent(f"{name}-1", "agent_browser", SessionKey(session="s"), ())
        journal.close()


def test_list_and_prune(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    state = tmp_path / "state"
    monkeypatch.setenv("AGENT_BROWSER_TOOLS_STATE_DIR", str(state))
    _seed(state, "keep", "stale", "named")
    conn = sqlite3.connect(state / DB_NAME)
    conn.execute("UPDATE conversations SET updated_at = 0 WHERE id = 'stale'")
    conn.commit()
    conn.close()
    assert main(["state", "list"]) == 0
    listing = capsys.readouterr().out
    assert "3 conversation(s)" in listing and "stale  events=1" in listing
    assert main(["state", "prune", "--older-than-days", "1", "--conversation", "named"]) == 0
    assert "pruned 2 conversation(s)" in capsys.readouterr().out
    main(["state", "list"])
    remaining = capsys.readouterr().out
    assert "keep" in remaining and "stale" not in remaining and "named" not in remaining
    assert main(["state", "prune"]) == 2
    assert "--older-than-days" in capsys.readouterr().out
