"""The persistent conversation journal: append-only SQLite under the state dir.

One database (`journal.sqlite3`, mode 0600, in a 0700 dir) holds every conversation's events.
Rows are only ever inserted; state is rebuilt by folding them (`reducers.fold`), so a
restarted server resumes refs, targets and enabled tools, and an intent without a completion
(the process died mid-call) leaves the page target unknown rather than wrong.

The schema is versioned in `meta`. A newer schema than this code knows is refused with a clear
message (never guessed at); older versions are migrated (`database`, which opens it).

A failure says whose fault it is, because the fixes differ: a full, read-only or failing
filesystem (`SQLITE_FULL`, `SQLITE_IOERR`, ..., or an `OSError`) needs room or repair and the
journal in it is fine (`JournalStorageError`; moving it aside would only lose history), while
anything else SQLite refuses (`SQLITE_CORRUPT`, `SQLITE_NOTADB`, a foreign schema) means the
file must be moved aside.

Opening writes nothing: a conversation's row is added with its first event, so a conversation
can start (and list its tools) on a full disk and fail only the call that cannot be recorded.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import TypeAdapter, ValidationError

from agent_browser_tools.state.database import DB_NAME as DB_NAME
from agent_browser_tools.state.database import SCHEMA_VERSION as SCHEMA_VERSION
from agent_browser_tools.state.database import STATE_DIR_FIX as STATE_DIR_FIX
from agent_browser_tools.state.database import JournalError as JournalError
from agent_browser_tools.state.database import JournalStorageError as JournalStorageError
from agent_browser_tools.state.database import journal_error as journal_error
from agent_browser_tools.state.database import open_database as open_database
from agent_browser_tools.state.models import JournalEvent

_EVENT = TypeAdapter(JournalEvent)


class JournalWriteError(JournalError):
    """One event could not be stored (disk full, read-only remount, I/O error).

    Each event is its own transaction, so every row acknowledged before stays; the event that
    failed is not in the journal. `kind` says which (an `intent` fails before the dispatch, a
    `completion` after it)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class ConversationInfo:
    id: str
    created_at: float
    updated_at: float
    events: int


class SqliteJournal:
    """The `Journal` of one conversation, stored in the shared database."""

    def __init__(self, state_dir: Path, conversation_id: str) -> None:
        self._conn = open_database(state_dir)
        self._path = state_dir / DB_NAME
        self.conversation_id = conversation_id

    def append(self, event: JournalEvent) -> None:
        try:
            self._insert(event)
        except (sqlite3.Error, OSError) as exc:
            raise JournalWriteError(
                f"could not record this call in the conversation journal {self._path} ({exc})",
                event.kind,
            ) from exc

    def _insert(self, event: JournalEvent) -> None:
        now = time.time()
        payload = event.model_dump_json()
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute(
                "INSERT INTO conversations(id, created_at, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET updated_at = excluded.updated_at",
                (self.conversation_id, now, now),
            )
            self._conn.execute(
                "INSERT INTO events(conversation_id, seq, kind, payload, created_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (self.conversation_id, event.seq, event.kind, payload, now),
            )

    def events(self) -> Iterable[JournalEvent]:
        try:
            rows = self._conn.execute(
                "SELECT seq, payload FROM events WHERE conversation_id = ? ORDER BY seq",
                (self.conversation_id,),
            ).fetchall()
        except sqlite3.Error as exc:
            raise journal_error(self._path, exc) from exc
        events = []
        for seq, payload in rows:
            try:
                events.append(_EVENT.validate_python(json.loads(payload)))
            except (ValidationError, ValueError) as exc:
                raise JournalError(
                    f"journal event {seq} of conversation {self.conversation_id} is not "
                    f"readable ({exc.__class__.__name__}); prune the conversation with "
                    f"`agent-browser-tools state prune --conversation {self.conversation_id}`."
                ) from exc
        return events

    def close(self) -> None:
        self._conn.close()


def list_conversations(state_dir: Path) -> list[ConversationInfo]:
    conn = open_database(state_dir)
    try:
        rows = conn.execute(
            "SELECT c.id, c.created_at, c.updated_at, COUNT(e.seq) FROM conversations c "
            "LEFT JOIN events e ON e.conversation_id = c.id GROUP BY c.id ORDER BY c.updated_at"
        ).fetchall()
    except sqlite3.Error as exc:
        raise journal_error(state_dir / DB_NAME, exc) from exc
    finally:
        conn.close()
    return [ConversationInfo(r[0], r[1], r[2], r[3]) for r in rows]


def prune(state_dir: Path, *, older_than_s: float | None = None, ids: Iterable[str] = ()) -> int:
    """Delete whole conversations (never single events); returns how many were removed."""
    conn = open_database(state_dir)
    targets = set(ids)
    try:
        if older_than_s is not None:
            cutoff = time.time() - older_than_s
            targets |= {
                row[0]
                for row in conn.execute(
                    "SELECT id FROM conversations WHERE updated_at < ?", (cutoff,)
                )
            }
        with conn:
            conn.execute("BEGIN IMMEDIATE")
            for ident in targets:
                conn.execute("DELETE FROM events WHERE conversation_id = ?", (ident,))
                conn.execute("DELETE FROM conversations WHERE id = ?", (ident,))
    except sqlite3.Error as exc:
        raise journal_error(state_dir / DB_NAME, exc) from exc
    finally:
        conn.close()
    return len(targets)
