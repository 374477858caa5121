"""`agent_browser_electron` on the real engine, with a STAND-IN Electron app.

The machine has no Electron build, so these tests launch `tests/fixtures/electron_app`: an app
folder with an Electron layout (`resources/app/package.json` with `main`) whose executable is a
shell script that execs Debian's Chromium headless in app mode on the app's page (see the
fixture's README for how it differs from a real Electron app). Everything the wrapper does is
real: evidence check, private profile, OS-chosen debug port, the engine's `connect`, journal,
cleanup. Each test counts the processes it leaves (`tests/support/leftovers.py`).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.leftovers import baseline, gone, left_after_exit, new_processes_left
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, ref_for, tools_settings

pytestmark = pytest.mark.real_engine

FIXTURE_APP = Path(__file__).parents[3] / "fixtures" / "electron_app"
ALLOW = {"AGENT_BROWSER_TOOLS_ALLOW_ELECTRON": "1"}


def standin_app(workspace: Path) -> Path:
    """A copy of the stand-in app in `apps/` of the workspace, a dir the operator vouches for
    (`open_tools`): launches never start programs elsewhere in the model's file roots."""
    target = workspace / "apps" / "standin"
    shutil.copytree(FIXTURE_APP, target)
    return target


def open_tools(engine_env: EngineEnv, tmp_path: Path, **kwargs: Any) -> BrowserTools:
    vouched = {"AGENT_BROWSER_TOOLS_ELECTRON_APP_DIRS": str(tmp_path / "apps")}
    settings = tools_settings(engine_env, tmp_path / "state", **ALLOW, **vouched)
    return BrowserTools(settings=settings, cwd=tmp_path, **kwargs)


async def electron(tools: BrowserTools, **params: Any) -> ToolResult:
    return await tools.call("agent_browser_electron", params)


@pytest_asyncio.fixture
async def tools(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[BrowserTools]:
    conversation = open_tools(engine_env, tmp_path)
    enabled = await conversation.call("agent_browser_tools", {"enable": ["electron"]})
    assert enabled.details["enable"] == {"electron": "enabled"}, enabled.text
    try:
        yield conversation
    finally:
        await conversation.aclose()


async def port_answers(port: int) -> bool:
    try:
        _r, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    return True


async def assert_all_gone(launch: dict[str, Any]) -> None:
    assert gone(launch["pid"]), f"app pid {launch['pid']} still runs"
    assert not await port_answers(launch["port"]), "the debug port still answers"
    assert not Path(launch["userDataDir"]).exists(), "the profile was not removed"
    assert not Path(launch["userDataDir"]).parent.exists(), "the launch dir was not removed"


async def test_launch_probe_direct_click_status_cleanup_leaves_nothing(
    tools: BrowserTools, engine_env: EngineEnv, tmp_path: Path
) -> None:
    before = baseline()
    app = standin_app(tmp_path)
    launched = await electron(tools, action="launch", appPath=str(app))
    assert not launched.is_error, launched.text
    launch = launched.details["electron"]["launch"]
    session = launch["sessionName"]
    assert launch["state"] == "running" and launch["port"] > 0
    assert launch["userDataDir"].startswith(str(tmp_path / "state"))
    assert "Greet" in launched.text  # the default snapshot handoff
    compiled = launched.details["compiledElectron"]
    assert compiled["argv"][1:3] == [
        f"--user-data-dir={launch['userDataDir']}",
        "--remote-debugging-port=0",
    ]

    probed = await electron(tools, action="probe", launchId=launch["launchId"])
    assert not probed.is_error, probed.text
    probe = probed.details["electron"]["probe"]
    assert probe["url"].endswith("/resources/app/index.html")
    assert probe["title"] == "Stand-in Electron App"

    snapshot = await ab(tools, "--session", session, "snapshot", "-i")
    assert not snapshot.is_error, snapshot.text
    clicked = await ab(tools, "--session", session, "click", ref_for(snapshot, "button", "Greet"))
    assert not clicked.is_error, clicked.text
    text = await ab(tools, "--session", session, "get", "text", "#out")
    assert text.details["data"]["text"] == "Clicked 1 time(s)", text.text

    status = await electron(tools, action="status", launchId=launch["launchId"])
    (row,) = status.details["electron"]["statuses"]
    assert row["processAlive"] and row["portOpen"] and row["reusable"], status.text
    assert row["userDataDirState"] == "present"

    cleaned = await electron(tools, action="cleanup", launchId=launch["launchId"])
    assert not cleaned.is_error, cleaned.text
    (outcome,) = cleaned.details["electron"]["cleanup"]
    assert outcome["complete"] and outcome["userDataDirState"] == "absent", outcome
    await assert_all_gone(launch)
    after = await electron(tools, action="status", launchId=launch["launchId"])
    assert after.details["electron"]["statuses"][0]["state"] == "cleaned"
    assert await asyncio.to_thread(new_processes_left, before) == []
    assert await asyncio.to_thread(left_after_exit, before, engine_env.socket_dir) == []


async def test_an_apps_old_ref_is_refused_as_stale_not_warned_about(
    tools: BrowserTools, tmp_path: Path
) -> None:
    """Contract row 137 (deviation): no soft `electronRefFreshness` warning. An app's session
    has the browser's hard guard: after a reload the old ref is refused before dispatch."""
    launched = await electron(tools, action="launch", appPath=str(standin_app(tmp_path)))
    assert not launched.is_error, launched.text
    launch = launched.details["electron"]["launch"]
    session = launch["sessionName"]
    snapshot = await ab(tools, "--session", session, "snapshot", "-i")
    greet = ref_for(snapshot, "button", "Greet")
    reloaded = await ab(tools, "--session", session, "reload")
    assert not reloaded.is_error, reloaded.text

    clicked = await ab(tools, "--session", session, "click", greet)

    assert clicked.details["failureCategory"] == "stale-ref", clicked.text
    for result in (launched, snapshot, reloaded, clicked):
        assert "electronRefFreshness" not in result.details
    text = await ab(tools, "--session", session, "get", "text", "#out")
    assert text.details["data"]["text"] == "Not clicked yet", "the stale click never ran"
    cleaned = await electron(tools, action="cleanup", launchId=launch["launchId"])
    assert not cleaned.is_error, cleaned.text
    await assert_all_gone(launch)


async def test_a_killed_app_fails_the_next_call_as_tab_drift_with_recovery(
    tools: BrowserTools, engine_env: EngineEnv, tmp_path: Path
) -> None:
    before = baseline()
    launched = await electron(tools, action="launch", appPath=str(standin_app(tmp_path)))
    assert not launched.is_error, launched.text
    launch = launched.details["electron"]["launch"]
    os.killpg(launch["pid"], signal.SIGKILL)  # the app runs in its own session/group
    for _ in range(50):
        if gone(launch["pid"]):
            break
        await asyncio.sleep(0.1)

    probed = await electron(tools, action="probe", launchId=launch["launchId"])
    assert probed.details["failureCategory"] == "tab-drift", probed.text
    ids = [a["id"] for a in probed.details["nextActions"]]
    assert {"electron-status", "electron-cleanup", "electron-relaunch"} <= set(ids)

    direct = await ab(tools, "--session", launch["sessionName"], "snapshot", "-i")
    assert direct.details["failureCategory"] == "tab-drift", direct.text
    assert any(a["id"] == "electron-cleanup" for a in direct.details["nextActions"])

    cleaned = await electron(tools, action="cleanup", launchId=launch["launchId"])
    assert not cleaned.is_error, cleaned.text
    await assert_all_gone(launch)
    assert await asyncio.to_thread(new_processes_left, before) == []
    assert await asyncio.to_thread(left_after_exit, before, engine_env.socket_dir) == []


async def test_a_restarted_server_shows_the_recorded_launch_and_cleans_it(
    engine_env: EngineEnv, tmp_path: Path
) -> None:
    before = baseline()
    app = standin_app(tmp_path)
    first = open_tools(engine_env, tmp_path, conversation_id="electron-restart")
    await first.call("agent_browser_tools", {"enable": ["electron"]})
    launched = await electron(first, action="launch", appPath=str(app), handoff="tabs")
    assert not launched.is_error, launched.text
    launch = launched.details["electron"]["launch"]
    first.close_on_exit = False  # the server "dies": nothing is cleaned on the way out
    await first.aclose()

    second = open_tools(engine_env, tmp_path, conversation_id="electron-restart")
    try:
        status = await electron(second, action="status")
        (row,) = status.details["electron"]["statuses"]
        assert row["launchId"] == launch["launchId"] and row["state"] == "running"
        assert row["reusable"] and row["pid"] == launch["pid"], status.text
        probed = await electron(second, action="probe")
        assert not probed.is_error, probed.text
        cleaned = await electron(second, action="cleanup", launchId=launch["launchId"])
        assert not cleaned.is_error, cleaned.text
    finally:
        await second.aclose()
    await assert_all_gone(launch)
    assert await asyncio.to_thread(new_processes_left, before) == []
    assert await asyncio.to_thread(left_after_exit, before, engine_env.socket_dir) == []


async def test_the_end_of_the_conversation_cleans_its_launches(
    engine_env: EngineEnv, tmp_path: Path
) -> None:
    before = baseline()
    tools = open_tools(engine_env, tmp_path)
    try:
        await tools.call("agent_browser_tools", {"enable": ["electron"]})
        launched = await electron(
            tools,
            action="launch",
            executablePath=str(standin_app(tmp_path) / "standin-app"),
            handoff="connect",
        )
        assert not launched.is_error, launched.text
    finally:
        await tools.aclose()
    await assert_all_gone(launched.details["electron"]["launch"])
    assert await asyncio.to_thread(new_processes_left, before) == []
    assert await asyncio.to_thread(left_after_exit, before, engine_env.socket_dir) == []


async def test_plain_chromium_and_sh_are_refused_and_start_nothing(
    tools: BrowserTools, tmp_path: Path
) -> None:
    before = baseline()
    shell = tmp_path / "sh"
    shutil.copy2("/bin/sh", shell)
    vouched = tmp_path / "apps" / "sh"  # a dir the operator vouches for: the evidence decides
    vouched.parent.mkdir()
    shutil.copy2("/bin/sh", vouched)
    refused = {
        "/bin/sh": "policy-blocked",  # not in a file root nor an install root
        "/usr/bin/chromium": "policy-blocked",
        "/usr/lib/chromium/chromium": "validation-error",  # install root, no evidence
        str(vouched): "validation-error",  # vouched dir, no evidence
        str(shell): "policy-blocked",  # the workspace is no place to start programs from
    }
    for path, category in refused.items():
        result = await electron(tools, action="launch", executablePath=path)
        assert result.details["failureCategory"] == category, (path, result.text)
    by_folder = await electron(tools, action="launch", appPath="/usr/lib/chromium")
    assert by_folder.details["failureCategory"] == "validation-error", by_folder.text
    assert "no Electron evidence" in by_folder.text
    assert tools.runtime.log.state.app_launches == {}
    assert await asyncio.to_thread(new_processes_left, before, 0.5) == []


async def test_a_launch_cancelled_after_its_spawn_is_cleaned_up(
    tools: BrowserTools, engine_env: EngineEnv, tmp_path: Path
) -> None:
    before = baseline()
    app = standin_app(tmp_path)
    task = asyncio.create_task(electron(tools, action="launch", appPath=str(app)))
    for _ in range(500):  # cancel as soon as the app process exists (during readiness)
        if any(r.pid is not None for r in tools.runtime.log.state.app_launches.values()):
            break
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (record,) = tools.runtime.log.state.app_launches.values()
    assert record.pid is not None and record.state == "cleaned", record
    assert gone(record.pid)
    assert not Path(record.profile_dir).parent.exists()
    assert await asyncio.to_thread(new_processes_left, before) == []
    assert await asyncio.to_thread(left_after_exit, before, engine_env.socket_dir) == []


async def test_a_launch_whose_target_type_never_appears_fails_and_cleans_up(
    tools: BrowserTools, engine_env: EngineEnv, tmp_path: Path
) -> None:
    """The stand-in shows only a `page` target, so a `webview` launch is never ready."""
    before = baseline()
    app = standin_app(tmp_path)
    failed = await electron(
        tools, action="launch", appPath=str(app), targetType="webview", timeoutMs=2000
    )
    assert failed.details["failureCategory"] == "timeout", failed.text
    electron_details = failed.details["electron"]
    assert [t["type"] for t in electron_details["failure"]["targets"]] == ["page"]
    assert set(electron_details["failure"]["outputTails"]) == {"stdout", "stderr"}
    assert electron_details["cleanup"]["complete"], electron_details["cleanup"]
    assert electron_details["launch"]["state"] == "cleaned"
    await assert_all_gone(electron_details["launch"])
    assert await asyncio.to_thread(new_processes_left, before) == []
    assert await asyncio.to_thread(left_after_exit, before, engine_env.socket_dir) == []
