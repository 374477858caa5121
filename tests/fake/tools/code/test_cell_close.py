"""`close` inside a cell closes only the cell's browser; reopening that name in the cell keeps
it the conversation's managed browser, which the conversation still closes at its end.

The contract (Pi) rotates the automatic managed slot on close, so there a reopened fixed name
becomes a caller-owned session the agent must close itself. Here a plain close does not
rotate the slot: the reopen is the same managed session, and `aclose()` closes it, so no
browser is left behind.
"""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.api import BrowserTools
from tests.support.fake import FakeEngine, fake_settings


def _closes(fake: FakeEngine) -> list[list[str]]:
    return [argv for argv in fake.argvs() if "close" in argv]


async def test_a_cell_close_and_reopen_stays_on_its_managed_identity(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": "https://a.test/"}})
    fake_engine.on({"command": ["close"]}, envelope={"data": {"closed": True}})
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), cwd=tmp_path)
    await tools.call("agent_browser", {"args": ["open", "https://a.test/"]})
    await tools.call("agent_browser", {"args": ["--session", "mine", "open", "https://a.test/"]})
    managed = tools.runtime.log.state.managed_session
    assert managed is not None
    code = """
      const closed = await browser({ args: ['close'] });
      const reopened = await browser({ args: ['open', 'https://a.test/'] });
      emit([closed.success, reopened.success, reopened.sessionName]);
    """
    result = await tools.call("agent_browser_code", {"code": code})
    assert result.details["data"] == [True, True, managed], result.text
    assert _closes(fake_engine) == [["--json", "--session", managed, "close"]]
    state = tools.runtime.log.state
    assert state.managed_session == managed
    assert state.sessions[managed].ownership == "managed" and state.sessions[managed].active
    await tools.aclose()
    closes = _closes(fake_engine)
    assert closes[-1] == ["--json", "--session", managed, "close"] and len(closes) == 2
    assert not any("mine" in argv for argv in closes)  # the caller's browser is left alone
