"""When the wrapper may select another tab by itself, and when it only reports the switch
(fake engine, exact argv): never in an attached browser, never after a call that may have
opened the tab."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.state.models import SessionKey
from tests.fake.tools.agent_browser.test_argv import MANAGED, PAGE
from tests.fake.tools.agent_browser.test_session_contract import (
    _call,
    _tabs,
    _tools,
    fake_engine_rules,
)
from tests.support.fake import FakeEngine

OTHER = "https://b.test/other"


def _switched(fake: FakeEngine) -> bool:
    return any(argv[-2:] == ["tab", "t1"] for argv in fake.argvs())


def _actions(result: Any) -> dict[str, Any]:
    return {a["id"]: a["params"] for a in result.details.get("nextActions", [])}


async def _opened_attached(fake: FakeEngine, tmp_path: Path) -> BrowserTools:
    tools = _tools(fake, tmp_path, AGENT_BROWSER_CDP="9222")
    fake_engine_rules(fake)
    opened = await _call(tools, {"args": ["open", PAGE]})
    assert opened.details["attachedBrowserSession"] is True, opened.text
    return tools


async def test_a_tab_the_user_switched_in_an_attached_browser_is_reported_not_switched_back(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = await _opened_attached(fake_engine, tmp_path)
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": OTHER}})
    fake_engine.on(
        {"command": ["tab", "list"]}, envelope=_tabs(("t1", PAGE, False), ("t2", OTHER, True))
    )
    fake_engine.on({"command": ["tab", "t1"]}, envelope={"data": {"tabId": "t1", "url": PAGE}})
    fake_engine.on({"command": ["get", "title"]}, envelope={"data": {"title": "B"}})
    read = await _call(tools, {"args": ["get", "title"]})
    assert not read.is_error, read.text
    assert not _switched(fake_engine), fake_engine.argvs()
    assert any("did not switch tabs" in w and "attached" in w for w in read.details["warnings"])
    actions = _actions(read)
    assert actions["select-recorded-tab"] == {"args": ["tab", "t1"]}
    assert actions["list-tabs-after-tab-switch"] == {"args": ["tab", "list"]}
    state = tools.runtime.log.state.session(SessionKey(session=MANAGED))
    assert state.target is not None and state.target.url == OTHER
    assert state.ref_invalidation is not None


async def test_a_blank_reading_in_an_attached_browser_is_reported_not_switched_back(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = await _opened_attached(fake_engine, tmp_path)
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": "about:blank"}})
    fake_engine.on(
        {"command": ["tab", "list"]},
        envelope=_tabs(("t1", PAGE, False), ("t2", "about:blank", True)),
    )
    fake_engine.on({"command": ["tab", "t1"]}, envelope={"data": {"tabId": "t1", "url": PAGE}})
    read = await _call(tools, {"args": ["get", "url"]})
    assert not _switched(fake_engine), fake_engine.argvs()
    assert _actions(read)["select-recorded-tab"] == {"args": ["tab", "t1"]}, read.text


async def test_a_popup_reading_blank_after_a_click_is_not_abandoned(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """A click may open a popup that reads about:blank while it loads: the wrapper reports
    where the old page is instead of selecting it (which would abandon the popup)."""
    tools = _tools(fake_engine, tmp_path)
    fake_engine_rules(fake_engine)
    assert not (await _call(tools, {"args": ["open", PAGE]})).is_error
    fake_engine.on({"command": ["click"]}, envelope={"data": {"clicked": True}})
    rows = [
        {"command": ["get", "url"], "success": True, "result": {"url": "about:blank"}},
        {"command": ["get", "title"], "success": True, "result": {"title": ""}},
    ]
    fake_engine.on({"command": ["batch"]}, json=rows)
    fake_engine.on(
        {"command": ["tab", "list"]},
        envelope=_tabs(("t1", PAGE, False), ("t2", "about:blank", True)),
    )
    fake_engine.on({"command": ["tab", "t1"]}, envelope={"data": {"tabId": "t1", "url": PAGE}})
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": PAGE}})
    clicked = await _call(tools, {"args": ["click", "#open-popup"]})
    assert not clicked.is_error, clicked.text
    assert not _switched(fake_engine), fake_engine.argvs()
    assert any("may have opened this tab" in w for w in clicked.details["warnings"])
    assert _actions(clicked)["select-recorded-tab"] == {"args": ["tab", "t1"]}


async def test_a_restored_tab_in_an_attached_browser_is_reported_not_switched(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, AGENT_BROWSER_CDP="9222")
    (tmp_path / "auth.json").write_text('{"cookies": [], "origins": []}')
    fake_engine_rules(fake_engine)
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": OTHER}})
    fake_engine.on(
        {"command": ["tab", "list"]}, envelope=_tabs(("t2", OTHER, True), ("t1", PAGE, False))
    )
    fake_engine.on({"command": ["tab", "t1"]}, envelope={"data": {"tabId": "t1", "url": PAGE}})
    opened = await _call(tools, {"args": ["--state", "auth.json", "open", PAGE]})
    assert not opened.is_error, opened.text
    assert not _switched(fake_engine), fake_engine.argvs()
    assert any("attached browser" in w for w in opened.details["warnings"]), opened.text
