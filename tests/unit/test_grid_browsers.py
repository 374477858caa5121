"""One conversation's grid browsers: when one is asked for, ended, refused (a stub grid; the
real one is in tests/real/tools/agent_browser/test_grid_mode.py and test_grid_attacks.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.engine.grid_client import GridSession, GridStatus
from agent_browser_tools.grid_browsers import GridBrowsers
from agent_browser_tools.grid_errors import GridLimit
from agent_browser_tools.grid_settings import GridConfig
from agent_browser_tools.state.journal import ConversationLog
from agent_browser_tools.state.models import SessionKey


class StubGrid:
    def __init__(self) -> None:
        self.created: list[str] = []
        self.deleted: list[str] = []

    async def status(self) -> GridStatus:
        return GridStatus(free=8, total=8, sessions=())

    async def create(
        self, capabilities: Mapping[str, Any], owner: str, wait_s: float
    ) -> GridSession:
        session_id = f"s{len(self.created)}"
        self.created.append(session_id)
        return GridSession(session_id, f"ws://grid:4444/session/{session_id}/se/cdp")

    async def delete(self, session_id: str) -> None:
        self.deleted.append(session_id)

    async def delete_owned(self, owner: str) -> int:
        return 0


def _browsers(tmp_path: Path, limit: int = 4) -> tuple[GridBrowsers, StubGrid]:
    config = GridConfig(url="http://grid:4444", max_per_conversation=limit)
    browsers = GridBrowsers(config, ConversationLog(), tmp_path, "conv")
    stub = StubGrid()
    browsers.client = stub  # type: ignore[assignment]
    return browsers, stub


KEY = SessionKey(session="s")


@pytest.mark.parametrize(
    "args",
    [
        ["--session", "s", "close"],
        ["--session", "s", "quit"],
        ["--session", "s", "exit", "--all"],
        ["--session", "s", "connect", "9222"],
        ["--session", "s", "--cdp", "9222", "open", "https://a.test"],
    ],
)
def test_a_call_that_ends_or_attaches_itself_gets_no_grid_browser(
    tmp_path: Path, args: list[str]
) -> None:
    browsers, stub = _browsers(tmp_path)
    asyncio.run(browsers.before(args, "/dir", KEY))
    assert stub.created == [] and browsers.endpoint("/dir", KEY) is None


def test_a_session_gets_one_grid_browser_and_its_close_aliases_end_it(tmp_path: Path) -> None:
    browsers, stub = _browsers(tmp_path)
    for _ in range(2):
        asyncio.run(browsers.before(["--session", "s", "open", "https://a.test"], "/dir", KEY))
    assert stub.created == ["s0"]
    assert browsers.endpoint("/dir", KEY) == "ws://grid:4444/session/s0/se/cdp"
    assert browsers.endpoint("/other", KEY) is None
    asyncio.run(browsers.after(["--session", "s", "quit"], "/dir"))
    assert stub.deleted == ["s0"] and browsers.open_browsers() == []


def test_a_conversation_at_its_limit_is_refused_before_the_grid_is_asked(tmp_path: Path) -> None:
    browsers, stub = _browsers(tmp_path, limit=1)
    asyncio.run(browsers.before(["--session", "s", "open", "x"], "/dir", KEY))
    other = SessionKey(session="t")
    with pytest.raises(GridLimit, match="grid_max_per_conversation"):
        asyncio.run(browsers.before(["--session", "t", "open", "x"], "/dir", other))
    assert stub.created == ["s0"]


def test_a_session_the_journal_cannot_take_is_ended_at_once(tmp_path: Path) -> None:
    browsers, stub = _browsers(tmp_path)

    def full_disk(browser: object) -> None:
        raise OSError("No space left on device")

    browsers._log.record_grid_browser = full_disk  # type: ignore[method-assign]
    with pytest.raises(OSError):
        asyncio.run(browsers.before(["--session", "s", "open", "x"], "/dir", KEY))
    assert stub.deleted == ["s0"]


def test_the_grids_origins_include_every_endpoint_it_handed_out(tmp_path: Path) -> None:
    browsers, _ = _browsers(tmp_path)
    asyncio.run(browsers.before(["--session", "s", "open", "x"], "/dir", KEY))
    endpoints = browsers.endpoints()
    assert endpoints.matches("http://grid:4444/status")
    assert not endpoints.matches("http://grid:5555/")
