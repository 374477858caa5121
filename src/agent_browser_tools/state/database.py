"""Opening the journal database: what a host checks before it serves, without the journal.

Why a module of its own: `serve` must know the state dir can hold the journal before it
answers a client (`state.writable`), and the stdio front answers the handshake right after that
check; the journal proper (`sqlite_journal`) validates events with pydantic models, an import
that check does not need and the client would wait for.

The schema, its version, and the errors that say whose fault a failure is: see
`sqlite_journal`, which re-exports all of them.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from agent_browser_tools.private_fs import ensure_private_dir

SCHEMA_VERSION = 1
DB_NAME = "journal.sqlite3"
STATE_DIR_FIX = "set AGENT_BROWSER_TOOLS_STATE_DIR to a writable directory you own"
_STORAGE = frozenset(
    {
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_PERM,
    }
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    conversation_id TEXT NOT NULL REFERENCES conversations(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (conversation_id, seq)
);
"""


class JournalError(RuntimeError):
    """The journal cannot be used; the message says why and what to do."""


class JournalStorageError(JournalError):
    """The filesystem under the journal refuses (full, read-only, I/O error, permissions)."""


def _connect(path: Path) -> sqlite3.Connection:
    ensure_private_dir(path.parent)
    if not path.exists():
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        os.close(fd)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


def journal_error(path: Path, exc: sqlite3.Error | OSError) -> JournalError:
    """The `JournalError` for `exc` met while using the journal at `path`, naming the fix."""
    if isinstance(exc, sqlite3.Error) and _primary_code(exc) not in _STORAGE:
        return JournalError(
            f"{path} is not a usable journal ({exc}); move it aside or set "
            "AGENT_BROWSER_TOOLS_STATE_DIR to a fresh directory."
        )
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return JournalStorageError(
        f"cannot use the conversation journal {path} ({reason}{_full_note(path.parent)}); "
        f"free space on its filesystem or fix it, or {STATE_DIR_FIX}."
    )


def _primary_code(exc: sqlite3.Error) -> int | None:
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def _full_note(directory: Path) -> str:
    """SQLite often reports a full disk as a plain `disk I/O error`; say what it really is."""
    try:
        info = os.statvfs(directory)
    except OSError:
        return ""
    return "; its filesystem is full" if info.f_bavail == 0 else ""


def open_database(state_dir: Path) -> sqlite3.Connection:
    """Open (creating or migrating) the journal database; raise `JournalError` if unusable."""
    path = state_dir / DB_NAME
    conn: sqlite3.Connection | None = None
    try:
        conn = _connect(path)
        conn.executescript(_SCHEMA)
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None or int(row[0]) < SCHEMA_VERSION:
            _migrate(conn, int(row[0]) if row else 0)
        _make_private(state_dir)
    except (sqlite3.Error, OSError) as exc:
        if conn is not None:
            conn.close()
        raise journal_error(path, exc) from exc
    version = int(row[0]) if row else 0
    if version > SCHEMA_VERSION:
        conn.close()
        raise JournalError(
            f"{path} was written by a newer agent-browser-tools (journal schema {version}, this "
            f"version understands {SCHEMA_VERSION}). Upgrade agent-browser-tools, or use another "
            "AGENT_BROWSER_TOOLS_STATE_DIR."
        )
    return conn


def _make_private(state_dir: Path) -> None:
    for name in (DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm"):
        candidate = state_dir / name
        if candidate.exists():
            os.chmod(candidate, 0o600)


def _migrate(conn: sqlite3.Connection, version: int) -> None:
    """Bring an older journal to `SCHEMA_VERSION` (version 0 = freshly created tables)."""
    conn.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema_version', ?)",
        (str(SCHEMA_VERSION),),
    )
