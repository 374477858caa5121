"""Process facts reach `details`, and a `session info` timeout touches no page state (fake
engine: the real one cannot be made to exit 3 with stderr, or to hang on `session info`)."""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.api import BrowserTools
from tests.support.fake import FakeEngine, fake_settings
from tests.support.tools import ab

PAGE = "https://a.test/"


async def test_a_nonzero_exit_and_stderr_reach_details(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake_engine.on(
        {"command": ["get", "title"]},
        stderr="engine: cdp socket closed\n",
        envelope={"success": False, "data": None, "error": "boom"},
        exit=3,
    )
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), persist=False)
    try:
        failed = await ab(tools, "get", "title")
    finally:
        await tools.aclose()
    assert failed.is_error
    assert failed.details["exitCode"] == 3
    assert "cdp socket closed" in failed.details["stderr"]
    assert failed.details["timedOut"] is False


async def test_a_session_info_timeout_leaves_the_page_and_offers_only_its_retry(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    opened = {"success": True, "data": {"url": PAGE, "title": "A"}, "error": None}
    fake_engine.on({"command": ["open"]}, json=opened)
    fake_engine.on({"command": ["session", "info"]}, hang=True, times=1)
    info = {"success": True, "data": {"active": True, "session": "s"}, "error": None}
    fake_engine.on({"command": ["session", "info"]}, json=info)
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), persist=False)
    try:
        assert not (await ab(tools, "open", PAGE)).is_error
        stopped = await ab(tools, "session", "info", timeoutMs=1000)
        assert stopped.details["failureCategory"] == "timeout", stopped.text
        assert stopped.details["timedOut"] is True and stopped.details["timeoutMs"] == 1000
        assert [a["id"] for a in stopped.details["nextActions"]] == ["retry-session-info"]
        assert stopped.details["sessionTabTarget"]["url"] == PAGE
        assert "sessionTabTargetUnknown" not in stopped.details
        (retry,) = stopped.details["nextActions"]
        followed = await tools.call("agent_browser", retry["params"])
        assert not followed.is_error, followed.text
        assert followed.details["data"]["active"] is True
    finally:
        await tools.aclose()
