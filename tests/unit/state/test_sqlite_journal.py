"""The persistent journal: append-only rows, a fold that resumes state, versioned schema."""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

from agent_browser_tools.state.journal import ConversationLog
from agent_browser_tools.state.models import (
    RefInfo,
    RefsRecorded,
    SessionKey,
    TargetObserved,
)
from agent_browser_tools.state.sqlite_journal import (
    DB_NAME,
    SCHEMA_VERSION,
    JournalError,
    JournalStorageError,
    SqliteJournal,
    journal_error,
    list_conversations,
    prune,
)

KEY = SessionKey(session="abt-test")


def _log(state_dir: Path, conversation: str = "c1") -> tuple[ConversationLog, SqliteJournal]:
    journal = SqliteJournal(state_dir, conversation)
    return ConversationLog(journal), journal


def test_state_survives_a_restart_and_files_are_private(tmp_path: Path) -> None:
    log, journal = _log(tmp_path)
    log.intent("call-1", "agent_browser", KEY, ("snapshot", "-i"))
    log.complete(
        "call-1",
        KEY,
        True,
        [
            TargetObserved(url="http://x.test/a", title="A"),
            RefsRecorded(
                refs={"e1": RefInfo(role="button", name="Go")}, target_url="http://x.test/a"
            ),
        ],
    )
    log.record_activation(("qa",))
    journal.close()

    resumed, again = _log(tmp_path)
    entry = resumed.state.session(KEY)
    assert entry.target is not None and entry.target.url == "http://x.test/a"
    assert entry.ref_snapshot is not None and "e1" in entry.ref_snapshot.refs
    assert resumed.state.activated_tools == ("qa",)
    again.close()
    assert stat.S_IMODE((tmp_path / DB_NAME).stat().st_mode) == 0o600
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o700


def test_an_interrupted_intent_leaves_the_target_unknown_after_restart(tmp_path: Path) -> None:
    log, journal = _log(tmp_path)
    log.intent("call-1", "agent_browser", KEY, ("open", "http://x.test/a"))
    log.complete("call-1", KEY, True, [TargetObserved(url="http://x.test/a")])
    log.intent("call-2", "agent_browser", KEY, ("click", "@e3"))  # the process dies here
    journal.close()

    resumed, again = _log(tmp_path)
    entry = resumed.state.session(KEY)
    assert entry.target_unknown is True
    assert entry.ref_snapshot is None and entry.ref_invalidation is not None
    again.close()


def test_conversations_are_separate_listed_and_pruned(tmp_path: Path) -> None:
    for name in ("old", "new"):
        log, journal = _log(tmp_path, name)
        log.intent(f"{name}-1", "agent_browser", KEY, ("get", "url"))
        journal.close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute("UPDATE conversations SET updated_at = 0 WHERE id = 'old'")
    conn.commit()
    conn.close()
    assert {c.id for c in list_conversations(tmp_path)} == {"old", "new"}
    assert prune(tmp_path, older_than_s=3600) == 1
    assert [c.id for c in list_conversations(tmp_path)] == ["new"]
    assert prune(tmp_path, ids=["new"]) == 1
    assert list_conversations(tmp_path) == []


def test_a_newer_schema_is_refused_with_a_clear_message(tmp_path: Path) -> None:
    _log(tmp_path)[1].close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute(
        "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),)
    )
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="newer agent-browser-tools"):
        SqliteJournal(tmp_path, "c1")


def test_an_unversioned_journal_is_migrated(tmp_path: Path) -> None:
    _log(tmp_path)[1].close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute("DELETE FROM meta")
    conn.commit()
    conn.close()
    journal = SqliteJournal(tmp_path, "c1")
    journal.close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    (version,) = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    conn.close()
    assert int(version) == SCHEMA_VERSION


def test_garbage_instead_of_a_database_is_reported_not_crashed(tmp_path: Path) -> None:
    (tmp_path / DB_NAME).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalError, match="not a usable journal"):
        SqliteJournal(tmp_path, "c1")


def test_an_unreadable_event_names_the_prune_fix(tmp_path: Path) -> None:
    log, journal = _log(tmp_path)
    log.intent("call-1", "agent_browser", KEY, ("get", "url"))
    journal.close()
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute('UPDATE events SET payload = \'{"kind": "mystery"}\'')
    conn.commit()
    conn.close()
    with pytest.raises(JournalError, match="state prune --conversation c1"):
        _log(tmp_path)


def test_sensitive_launch_values_are_not_journaled_or_repeated(tmp_path: Path) -> None:
    from agent_browser_tools.planning.sessions import _relaunch_guard
    from agent_browser_tools.state.models import SessionActivated

    log, journal = _log(tmp_path)
    token_url = "ws://127.0.0.1:9222/devtools?token=cdpSecretValue123"
    log.intent("call-1", "agent_browser", KEY, ("open", "x"))
    log.complete(
        "call-1",
        KEY,
        True,
        [SessionActivated(ownership="managed", launch_flags=(f"--cdp={token_url}", "--headed"))],
    )
    journal.close()
    raw = b"".join(path.read_bytes() for path in tmp_path.glob(DB_NAME + "*"))
    assert b"cdpSecretValue123" not in raw
    assert _relaunch_guard((), log.state, KEY) == ("--headed",)


def test_opening_writes_nothing_until_the_first_event(tmp_path: Path) -> None:
    """A conversation that only lists tools (or meets a full disk) leaves no empty row, and
    its first event registers it in the same transaction."""
    log, journal = _log(tmp_path, "quiet")
    assert list_conversations(tmp_path) == []
    log.intent("call-1", "agent_browser", KEY, ("get", "url"))
    log.complete("call-1", KEY, True, [])
    journal.close()
    [info] = list_conversations(tmp_path)
    assert (info.id, info.events) == ("quiet", 2)
    assert info.updated_at >= info.created_at


def _sqlite_error(code: int, message: str) -> sqlite3.OperationalError:
    exc = sqlite3.OperationalError(message)
    exc.sqlite_errorcode = code
    return exc


@pytest.mark.parametrize(
    "code", [sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR | (19 << 8), sqlite3.SQLITE_READONLY]
)
def test_a_storage_fault_is_not_blamed_on_the_journal(tmp_path: Path, code: int) -> None:
    """Full, failing or read-only storage asks for room or repair, never to move the journal
    aside (which would only lose history); extended codes count by their primary code."""
    error = journal_error(tmp_path / DB_NAME, _sqlite_error(code, "disk trouble"))
    assert isinstance(error, JournalStorageError)
    assert "free space on its filesystem" in str(error) and "move it aside" not in str(error)
    assert "AGENT_BROWSER_TOOLS_STATE_DIR" in str(error)


@pytest.mark.parametrize(
    "code", [sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_ERROR]
)
def test_a_damaged_journal_is_to_be_moved_aside(tmp_path: Path, code: int) -> None:
    error = journal_error(tmp_path / DB_NAME, _sqlite_error(code, "malformed"))
    assert not isinstance(error, JournalStorageError)
    assert "move it aside" in str(error)


def test_a_state_dir_that_is_a_file_is_a_storage_fault(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("a file, not a dir")
    with pytest.raises(JournalStorageError, match="must be a real directory"):
        SqliteJournal(tmp_path / "state", "c1")
