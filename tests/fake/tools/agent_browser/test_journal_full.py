"""A full disk under the state dir mid-session: that call fails clearly, history stays.

The state dir is a tiny tmpfs that the test fills up after a first call succeeded, so SQLite
meets a real `database or disk is full`; mounting needs root (skipped with the reason
otherwise). The fake engine answers the calls: the fault under test is the journal's.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.discovery import clear_engine_cache
from agent_browser_tools.state.sqlite_journal import DB_NAME, JournalWriteError
from agent_browser_tools.tools.registry import journal_write_failed
from tests.support.fake import FakeEngine, fake_settings
from tests.support.tmpfs import fill, mounted_tmpfs


@pytest.fixture
def tiny_fs(tmp_path: Path) -> Iterator[Path]:
    """A 512 KiB tmpfs, unmounted afterwards."""
    with mounted_tmpfs(tmp_path / "tiny") as point:
        yield point


@pytest.fixture
def socket_base() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="abt-f", dir="/tmp"))
    clear_engine_cache()
    try:
        yield path
    finally:
        clear_engine_cache()
        shutil.rmtree(path, ignore_errors=True)


def _rows(state: Path) -> list[tuple[int, str]]:
    conn = sqlite3.connect(state / DB_NAME)
    try:
        return conn.execute("SELECT seq, kind FROM events ORDER BY seq").fetchall()
    finally:
        conn.close()


async def test_disk_full_fails_the_call_and_keeps_acknowledged_rows(
    fake_engine: FakeEngine, tmp_path: Path, tiny_fs: Path, socket_base: Path
) -> None:
    fake_engine.on({"command": ["get"]}, envelope={"data": {"url": "https://a.test/"}})
    settings = fake_settings(
        fake_engine,
        tmp_path,
        AGENT_BROWSER_TOOLS_STATE_DIR=str(tiny_fs / "state"),
        AGENT_BROWSER_SOCKET_DIR=str(socket_base),
    )
    args = {"args": ["get", "url"]}
    async with BrowserTools(settings=settings, conversation_id="c1", cwd=tmp_path) as tools:
        assert not (await tools.call("agent_browser", args)).is_error
        acknowledged = _rows(tiny_fs / "state")
        assert [kind for _, kind in acknowledged] == ["intent", "completion"]
        filler = fill(tiny_fs)
        failed = await tools.call("agent_browser", args)
        assert failed.is_error
        assert failed.details["failureCategory"] == "aborted"
        assert failed.details["journalWriteFailed"] == "intent"
        assert "did not run" in failed.text and "full" in failed.text
        filler.unlink()
        assert _rows(tiny_fs / "state") == acknowledged
        assert not (await tools.call("agent_browser", args)).is_error
    after = _rows(tiny_fs / "state")
    # The acknowledged rows are intact and the next call is journaled after them (its intent
    # and completion; ownership taken at spawn may add a row of its own).
    assert after[:2] == acknowledged
    assert [kind for _, kind in after[2:4]] == ["intent", "completion"]


def test_a_lost_completion_says_the_call_ran() -> None:
    lost = journal_write_failed("agent_browser", JournalWriteError("disk full", "completion"))
    assert lost.is_error and lost.details["failureCategory"] == "aborted"
    assert "ran, but its outcome was not recorded" in lost.text and "get url" in lost.text
    early = journal_write_failed("agent_browser", JournalWriteError("disk full", "intent"))
    assert "did not run" in early.text
