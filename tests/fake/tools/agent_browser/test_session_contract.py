"""Session rules of the contract checked at the process boundary (fake engine): the
environment each browser gets, launch-time settings and what a launch result says."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.state.models import SessionKey
from tests.fake.tools.agent_browser.test_argv import CONVERSATION, MANAGED, PAGE
from tests.support.fake import FakeEngine, fake_settings

IDLE = "AGENT_BROWSER_IDLE_TIMEOUT_MS"


def _tools(fake: FakeEngine, tmp_path: Path, **env: str) -> BrowserTools:
    tmp_path.mkdir(parents=True, exist_ok=True)
    tools = BrowserTools(
        settings=fake_settings(fake, tmp_path, **env), conversation_id=CONVERSATION, cwd=tmp_path
    )
    assert tools.runtime.engine.path == str(fake.path)
    fake.reset()
    return tools


async def _call(tools: BrowserTools, params: dict[str, Any]) -> ToolResult:
    return await tools.call("agent_browser", params)


def _env_of(fake: FakeEngine, session: str) -> dict[str, str]:
    """The environment of the last spawn whose argv named `session`."""
    for call in reversed(fake.calls()):
        raw = call["argv"]
        assert isinstance(raw, list)
        argv = [str(a) for a in raw]
        if session in argv:
            env = call["env"]
            assert isinstance(env, dict)
            return {str(k): str(v) for k, v in env.items()}
    raise AssertionError(f"no spawn named {session}")


async def test_caller_sessions_keep_the_callers_idle_timeout(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Managed browsers get the wrapper's idle timeout on every spawn; a browser the caller
    named keeps the caller's own value when set, so their terminal and the wrapper agree,
    and else gets the wrapper's (a leak guard), the same on every spawn."""
    fake_engine_rules(fake_engine)
    tools = _tools(
        fake_engine, tmp_path, AGENT_BROWSER_TOOLS_IDLE_TIMEOUT_MS="120000", **{IDLE: "4242"}
    )
    await _call(tools, {"args": ["open", PAGE]})
    await _call(tools, {"args": ["--session", "mine", "open", PAGE]})
    assert _env_of(fake_engine, MANAGED)[IDLE] == "120000"
    assert _env_of(fake_engine, "mine")[IDLE] == "4242"

    unset = _tools(fake_engine, tmp_path / "unset", AGENT_BROWSER_TOOLS_IDLE_TIMEOUT_MS="120000")
    fake_engine_rules(fake_engine)
    await _call(unset, {"args": ["--session", "mine", "open", PAGE]})
    assert _env_of(fake_engine, "mine")[IDLE] == "120000"
    await _call(unset, {"args": ["open", PAGE]})
    await _call(unset, {"args": ["--session", "mine", "open", PAGE]})
    assert _env_of(fake_engine, "mine")[IDLE] == "120000"
    assert _env_of(fake_engine, MANAGED)[IDLE] == "120000"


async def test_one_ownership_rule_for_the_environment_and_the_idle_timeout_check(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """A name that merely starts with the managed slot's is the caller's for both the child
    environment and the `--idle-timeout` rule; a rotation of the slot is managed for both."""
    tools = _tools(
        fake_engine,
        tmp_path,
        AGENT_BROWSER_TOOLS_IDLE_TIMEOUT_MS="120000",
        AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS="--idle-timeout",
        **{IDLE: "4242"},
    )
    fake_engine_rules(fake_engine)
    lookalike = MANAGED + "x"
    mine = await _call(
        tools, {"args": ["--session", lookalike, "--idle-timeout", "5m", "open", PAGE]}
    )
    assert not mine.is_error, mine.text
    assert _env_of(fake_engine, lookalike)[IDLE] == "4242"
    rotated = MANAGED + "-abc123"
    refused = await _call(
        tools, {"args": ["--session", rotated, "--idle-timeout", "5m", "open", PAGE]}
    )
    assert refused.details["failureCategory"] == "validation-error", refused.text
    await _call(tools, {"args": ["--session", rotated, "open", PAGE]})
    assert _env_of(fake_engine, rotated)[IDLE] == "120000"


def fake_engine_rules(fake: FakeEngine) -> None:
    fake.on({"command": ["open"]}, envelope={"data": {"url": PAGE, "title": "A"}})


LAUNCHED = {"launched": True, "effectiveLaunch": {"browserLaunched": True}}


async def test_a_headed_batch_launch_hands_off_like_a_single_command(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    rows = [
        {
            "command": ["open", PAGE],
            "success": True,
            "result": {"url": PAGE, "title": "A", "lifecycle": LAUNCHED},
            "error": None,
        },
        {"command": ["get", "title"], "success": True, "result": {"title": "A"}, "error": None},
    ]
    fake_engine.on({"command": ["batch"]}, json=rows)
    stdin = f'[["open", "{PAGE}"], ["get", "title"]]'
    result = await _call(
        tools, {"args": ["--headed", "batch"], "stdin": stdin, "sessionMode": "fresh"}
    )
    assert not result.is_error, result.text
    window = result.details["browserWindow"]
    assert window["mode"] == "headed" and window["visibility"] == "unverified"
    assert window["sessionName"] == result.details["sessionName"]
    assert "complete the login there" in result.text


async def test_no_headed_handoff_when_the_batch_launched_nothing(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    rows = [{"command": ["get", "title"], "success": True, "result": {"title": "A"}, "error": None}]
    fake_engine.on({"command": ["batch"]}, json=rows)
    result = await _call(
        tools,
        {"args": ["--headed", "batch"], "stdin": '[["get", "title"]]', "sessionMode": "fresh"},
    )
    assert not result.is_error, result.text
    assert "browserWindow" not in result.details


async def test_a_managed_idle_timeout_other_than_the_servers_is_refused_with_restart_guidance(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(
        fake_engine,
        tmp_path,
        AGENT_BROWSER_TOOLS_IDLE_TIMEOUT_MS="120000",
        AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS="--idle-timeout",
    )
    fake_engine_rules(fake_engine)
    other = await _call(
        tools, {"args": ["--idle-timeout", "5m", "open", PAGE], "sessionMode": "fresh"}
    )
    assert other.details["failureCategory"] == "validation-error", other.text
    assert "AGENT_BROWSER_TOOLS_IDLE_TIMEOUT_MS=300000" in other.text
    assert "restarts the server" in other.text
    assert fake_engine.calls() == []
    same = await _call(
        tools, {"args": ["--idle-timeout", "2m", "open", PAGE], "sessionMode": "fresh"}
    )
    assert not same.is_error, same.text
    mine = await _call(tools, {"args": ["--session", "mine", "--idle-timeout", "5m", "open", PAGE]})
    assert not mine.is_error, "a caller-owned browser keeps its own flag"


def _tabs(*tabs: tuple[str, str, bool]) -> dict[str, Any]:
    rows = [{"tabId": t, "url": u, "active": a, "title": u} for t, u, a in tabs]
    return {"data": {"tabs": rows}}


async def test_a_blank_reading_reselects_the_tab_that_still_has_the_page(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """A restored/other tab took focus: `get url` says about:blank although nothing
    navigated; the wrapper selects the tab still on the recorded page instead of taking the
    blank one as the page."""
    tools = _tools(fake_engine, tmp_path)
    fake_engine_rules(fake_engine)
    assert not (await _call(tools, {"args": ["open", PAGE]})).is_error
    fake_engine.on({"command": ["get", "url"]}, times=1, envelope={"data": {"url": "about:blank"}})
    fake_engine.on(
        {"command": ["tab", "list"]},
        envelope=_tabs(("t1", PAGE, False), ("t2", "about:blank", True)),
    )
    fake_engine.on({"command": ["tab", "t1"]}, envelope={"data": {"tabId": "t1", "url": PAGE}})
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": PAGE}})
    read = await _call(tools, {"args": ["get", "url"]})
    assert any("re-selected tab t1" in w for w in read.details["warnings"]), read.text
    assert fake_engine.argvs()[-2][-2:] == ["tab", "t1"]
    state = tools.runtime.log.state.session(_managed())
    assert state.target is not None and state.target.url == PAGE


async def test_a_blank_reading_with_no_tab_left_is_recorded_with_exact_recovery(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    fake_engine_rules(fake_engine)
    assert not (await _call(tools, {"args": ["open", PAGE]})).is_error
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": "about:blank"}})
    fake_engine.on({"command": ["tab", "list"]}, envelope=_tabs(("t1", "about:blank", True)))
    read = await _call(tools, {"args": ["get", "url"]})
    warning = " ".join(read.details["warnings"])
    assert f"not {PAGE} where it was" in warning and f"open {PAGE}" in warning, read.text
    actions = {a["id"]: a["params"] for a in read.details["nextActions"]}
    assert actions["list-tabs-after-blank-target"] == {"args": ["tab", "list"]}
    assert actions["reopen-recorded-url"] == {"args": ["open", PAGE]}
    state = tools.runtime.log.state.session(_managed())
    assert state.target is not None and state.target.url == "about:blank"
    assert state.ref_invalidation is not None


async def test_an_explicit_navigation_to_about_blank_is_just_the_page(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    fake_engine_rules(fake_engine)
    assert not (await _call(tools, {"args": ["open", PAGE]})).is_error
    fake_engine.reset()
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": "about:blank"}})
    blank = await _call(tools, {"args": ["open", "about:blank"]})
    assert not blank.details.get("warnings"), blank.text
    assert not any(argv[-2:] == ["tab", "list"] for argv in fake_engine.argvs())


def _managed() -> SessionKey:
    return SessionKey(session=MANAGED)


async def test_an_expired_cleanup_reports_budget_phase_and_time_and_keeps_ownership(
    fake_engine: FakeEngine, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tools = _tools(
        fake_engine, tmp_path, AGENT_BROWSER_TOOLS_IMPLICIT_SESSION_CLOSE_TIMEOUT_MS="400"
    )
    fake_engine_rules(fake_engine)
    assert not (await _call(tools, {"args": ["open", PAGE]})).is_error
    fake_engine.on({"command": ["close"]}, hang=True)
    with caplog.at_level(logging.WARNING):
        await tools.aclose()
    (record,) = [r for r in caplog.records if "cleanup of managed browser" in r.getMessage()]
    message = record.getMessage()
    assert MANAGED in message and "budget 400 ms" in message and "'native close'" in message
    assert "stays owned" in message
    assert _managed() in tools.runtime.owned_sessions
    entry = tools.runtime.log.state.session(_managed())
    assert entry.active and not entry.closed, "a resumed conversation still owns it"


async def test_a_profile_launch_failure_offers_doctor_and_names_the_setting(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, AGENT_BROWSER_PROFILE="Work")
    error = "No Chrome user data directory found. Cannot resolve profile name."
    fake_engine.on({"command": ["open"]}, envelope={"error": error})
    failed = await _call(tools, {"args": ["open", PAGE]})
    assert failed.is_error
    actions = {a["id"]: a["params"] for a in failed.details["nextActions"]}
    assert actions["diagnose-browser-profile"] == {"args": ["doctor"]}
    assert any("profile 'Work'" in w and "profiles" in w for w in failed.details["warnings"])
    fake_engine.on({"command": ["get", "url"]}, envelope={"error": "net::ERR_FAILED"})
    other = await _call(tools, {"args": ["get", "url"]})
    assert "diagnose-browser-profile" not in [a["id"] for a in other.details.get("nextActions", [])]


async def test_managed_calls_record_the_dir_their_engine_ran_in(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    fake_engine_rules(fake_engine)
    managed = await _call(tools, {"args": ["open", PAGE]})
    assert managed.details["managedSessionCwd"] == str(tmp_path)
    mine = await _call(tools, {"args": ["--session", "mine", "open", PAGE]})
    assert "managedSessionCwd" not in mine.details


async def test_a_restored_tab_that_steals_focus_after_an_open_is_deselected(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    (tmp_path / "auth.json").write_text('{"cookies": [], "origins": []}')
    restored = "https://restored.test/inbox"
    fake_engine_rules(fake_engine)
    fake_engine.on({"command": ["get", "url"]}, times=1, envelope={"data": {"url": restored}})
    fake_engine.on(
        {"command": ["tab", "list"]}, envelope=_tabs(("t1", restored, True), ("t2", PAGE, False))
    )
    fake_engine.on({"command": ["tab", "t2"]}, envelope={"data": {"tabId": "t2", "url": PAGE}})
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": PAGE}})
    opened = await _call(tools, {"args": ["--state", "auth.json", "open", PAGE]})
    assert not opened.is_error, opened.text
    assert any("re-selected tab t2" in w for w in opened.details["warnings"]), opened.text
    assert ["tab", "t2"] in [argv[-2:] for argv in fake_engine.argvs()]

    plain = _tools(fake_engine, tmp_path / "plain")
    fake_engine_rules(fake_engine)
    assert not (await _call(plain, {"args": ["open", PAGE]})).is_error
    assert not any(argv[-2:] == ["get", "url"] for argv in fake_engine.argvs()), "no probe"


async def test_a_closed_browsers_page_stays_pending_until_a_navigation_consumes_it(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    page = PAGE + "#section-2"
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": page, "title": "A"}})
    assert not (await _call(tools, {"args": ["open", page]})).is_error
    await tools.aclose()

    resumed = _tools(fake_engine, tmp_path)
    refused = await _call(resumed, {"args": ["get", "title"]})
    assert refused.details["sessionTabReopenPending"] is True, refused.text
    (action,) = refused.details["nextActions"]
    assert action["params"] == {"args": ["open", page]}, "the fragment is kept"
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": page, "title": "A"}})
    reopened = await resumed.call("agent_browser", action["params"])
    assert reopened.details["sessionTabReopenPending"] is False, reopened.text
    fake_engine.on({"command": ["get", "title"]}, envelope={"data": {"title": "A"}})
    after = await _call(resumed, {"args": ["get", "title"]})
    assert "sessionTabReopenPending" not in after.details
    await resumed.aclose()


async def test_a_caller_tab_that_lost_focus_is_reselected_before_a_read(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Another tab took focus on the caller's session; the recorded page is still open in
    its own tab, so the wrapper selects it rather than reading the other tab."""
    tools = _tools(fake_engine, tmp_path)
    other = "https://b.test/other"
    fake_engine_rules(fake_engine)
    assert not (await _call(tools, {"args": ["--session", "mine", "open", PAGE]})).is_error
    fake_engine.on({"command": ["get", "url"]}, times=1, envelope={"data": {"url": other}})
    fake_engine.on(
        {"command": ["tab", "list"]}, envelope=_tabs(("t1", PAGE, False), ("t2", other, True))
    )
    fake_engine.on({"command": ["tab", "t1"]}, envelope={"data": {"tabId": "t1", "url": PAGE}})
    fake_engine.on({"command": ["get", "url"]}, envelope={"data": {"url": PAGE}})
    fake_engine.on({"command": ["get", "title"]}, envelope={"data": {"title": "A"}})
    read = await _call(tools, {"args": ["--session", "mine", "get", "title"]})
    assert not read.is_error, read.text
    assert any("re-selected tab t1" in w and other in w for w in read.details["warnings"])
    tail = [argv[-2:] for argv in fake_engine.argvs()]
    assert tail.index(["tab", "t1"]) < tail.index(["get", "title"]), "selected before the read"
