"""Launch records in the journal: they survive a restart, and old journals still load."""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.state.journal import ConversationLog
from agent_browser_tools.state.models import AppLaunch, ConversationState, SessionKey
from agent_browser_tools.state.sqlite_journal import SqliteJournal


def _launch(state: str = "launching", **changes: object) -> AppLaunch:
    base = AppLaunch(
        launch_id="electron-abc",
        app_name="App",
        executable="/opt/app/app",
        profile_dir="/state/electron/electron-abc/profile",
        session=SessionKey(session="el-abc"),
        state=state,  # type: ignore[arg-type]
    )
    return base.model_copy(update=changes)


def test_the_latest_record_of_a_launch_survives_a_restart(tmp_path: Path) -> None:
    first = SqliteJournal(tmp_path, "c1")
    log = ConversationLog(first)
    log.record_app(_launch())
    log.record_app(_launch("running", pid=41, pid_start=7, port=40123))
    first.close()
    again = SqliteJournal(tmp_path, "c1")
    restored = ConversationLog(again).state.app_launches["electron-abc"]
    again.close()
    assert (restored.state, restored.pid, restored.pid_start, restored.port) == (
        "running",
        41,
        7,
        40123,
    )


def test_a_state_written_before_launch_records_existed_still_loads() -> None:
    old = {"managed_session": "abt-1", "sessions": {}, "last_seq": 3}
    state = ConversationState.model_validate(old)
    assert state.app_launches == {}
    minimal = AppLaunch.model_validate(
        {
            "launch_id": "e",
            "app_name": "a",
            "executable": "/x",
            "profile_dir": "/p",
            "session": {"session": "el-e"},
        }
    )
    assert minimal.state == "launching" and minimal.pid is None
