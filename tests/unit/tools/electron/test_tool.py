"""`agent_browser_electron` through `BrowserTools`, where no app starts: the operator gate,
refusals before anything exists, status of nothing, and a partial cleanup that keeps the live
profile and names the exact retry (a `sleep` process stands in for the app's tree)."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine import apps
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.settings import Settings
from agent_browser_tools.state.models import AppLaunch, SessionKey
from tests.support.leftovers import gone


def _tools(tmp_path: Path, **env: str) -> BrowserTools:
    settings = Settings.load(
        env={"AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"), **env}, cwd=tmp_path
    )
    return BrowserTools(settings=settings, cwd=tmp_path)


@pytest_asyncio.fixture
async def tools(tmp_path: Path) -> AsyncIterator[BrowserTools]:
    conversation = _tools(
        tmp_path,
        AGENT_BROWSER_TOOLS_ALLOW_ELECTRON="1",
        AGENT_BROWSER_TOOLS_ELECTRON_APP_DIRS=str(tmp_path / "apps"),
    )
    await conversation.call("agent_browser_tools", {"enable": ["electron"]})
    try:
        yield conversation
    finally:
        await conversation.aclose()


def _state(tools: BrowserTools, launch_id: str) -> str:
    return tools.runtime.log.state.app_launches[launch_id].state


async def electron(tools: BrowserTools, **params: Any) -> ToolResult:
    return await tools.call("agent_browser_electron", params)


async def test_list_and_launch_need_the_operator_capability(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    try:
        enabled = await tools.call("agent_browser_tools", {"enable": ["electron"]})
        assert enabled.details["enable"] == {"electron": "enabled"}
        for params in ({"action": "list"}, {"action": "launch", "appName": "Code"}):
            result = await electron(tools, **params)
            assert result.details["failureCategory"] == "policy-blocked", result.text
            assert result.details["policy"]["rule"] == "operator-capability"
            assert "allow_electron" in result.details["policy"]["allowWith"]
        status = await electron(tools, action="status")
        assert not status.is_error, status.text  # inspection of own launches always works
    finally:
        await tools.aclose()
    assert not (tmp_path / "state" / "electron").exists()


async def test_refusals_happen_before_anything_exists(tools: BrowserTools, tmp_path: Path) -> None:
    outside = await electron(tools, action="launch", executablePath="/etc/passwd")
    assert outside.details["failureCategory"] == "policy-blocked", outside.text
    assert outside.details["policy"]["rule"] == "file-root"
    state_dir = await electron(tools, action="launch", appPath=str(tmp_path / "state"))
    assert state_dir.details["failureCategory"] == "policy-blocked", state_dir.text
    args = await electron(tools, action="launch", appName="X", appArgs=["--", "--inspect"])
    assert args.details["failureCategory"] == "validation-error", args.text
    for arg in (
        "/etc/passwd",
        "--folder-uri=file:///etc",
        "../../etc",
        "file://evil.host/x",
        "src/../../../../etc/shadow",
        "--log-net-log=a/../../x",
        "--utility-cmd-prefix=sh",
        "--disable-web-security",
        "--extensionDevelopmentPath=/tmp/x",
    ):
        opened = await electron(tools, action="launch", appName="X", appArgs=[arg])
        assert opened.details["failureCategory"] == "policy-blocked", (arg, opened.text)
        assert opened.details["policy"]["rule"] == "operator-flag"
    unknown = await electron(tools, action="cleanup", launchId="electron-nope")
    assert unknown.details["failureCategory"] == "validation-error", unknown.text
    assert tools.runtime.log.state.app_launches == {}
    assert not (tmp_path / "state" / "electron").exists()


async def test_an_executable_in_the_workspace_with_forged_evidence_never_starts(
    tools: BrowserTools, tmp_path: Path
) -> None:
    """The model can write `resources/app.asar` next to any executable of the workspace (an
    `outputPath`, a download): the workspace is no place to start programs from."""
    tool = tmp_path / "scripts"
    (tool / "resources").mkdir(parents=True)
    script = tool / "build.sh"
    script.write_text("#!/bin/sh\ntouch ran\n")
    script.chmod(0o755)
    forged = await electron(tools, action="list", outputPath="scripts/resources/app.asar")
    assert not forged.is_error, forged.text
    launched = await electron(tools, action="launch", executablePath=str(script))
    assert launched.details["failureCategory"] == "policy-blocked", launched.text
    assert launched.details["policy"]["allowWith"] == "[policy] electron_app_dirs"
    assert not (tmp_path / "ran").exists() and not (tool / "ran").exists()
    assert tools.runtime.log.state.app_launches == {}


async def test_status_of_nothing_and_list_bounds(tools: BrowserTools) -> None:
    status = await electron(tools, action="status", all=True)
    assert status.details["electron"] == {"statuses": []}
    assert "No app launches" in status.text
    listed = await electron(tools, action="list", maxResults=500)
    assert not listed.is_error, listed.text
    assert listed.details["compiledElectron"]["maxResults"] == 200
    assert len(listed.details["electron"]["apps"]) <= 200


async def test_a_partial_cleanup_keeps_the_profile_and_names_the_retry(
    tools: BrowserTools, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stand_in = subprocess.Popen(["sleep", "60"], start_new_session=True)
    profile = tmp_path / "state" / "electron" / "electron-t1" / "profile"
    profile.mkdir(parents=True)
    launch = AppLaunch(
        launch_id="electron-t1",
        app_name="Sleeper",
        executable="/bin/sleep",
        profile_dir=str(profile),
        session=SessionKey(session="el-t1"),
        state="running",
        pid=stand_in.pid,
        pid_start=apps.start_ticks(stand_in.pid),
    )
    tools.runtime.log.record_app(launch)

    async def refuses_to_die(pid: int, start: int | None, grace_s: float = 0) -> list[int]:
        return [pid]

    monkeypatch.setattr(apps, "stop_tree", refuses_to_die)
    failed = await electron(tools, action="cleanup", launchId="electron-t1")
    assert failed.details["failureCategory"] == "cleanup-failed", failed.text
    (retry,) = failed.details["nextActions"]
    assert retry["params"] == {"action": "cleanup", "launchId": "electron-t1"}
    assert profile.is_dir(), "a live app's profile is never removed"
    assert _state(tools, "electron-t1") == "cleanup-failed"

    monkeypatch.undo()
    cleaned = await electron(tools, action="cleanup", launchId="electron-t1")
    assert not cleaned.is_error, cleaned.text
    stand_in.wait(timeout=10)
    deadline = time.monotonic() + 5
    while not gone(stand_in.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(stand_in.pid) and not profile.exists()
    assert _state(tools, "electron-t1") == "cleaned"


async def test_output_path_saves_the_electron_data_inside_the_roots_only(
    tools: BrowserTools, tmp_path: Path
) -> None:
    saved = await electron(tools, action="status", all=True, outputPath="out/status.json")
    assert saved.details["outputFile"]["status"] == "saved", saved.text
    assert json.loads((tmp_path / "out" / "status.json").read_text()) == {"statuses": []}
    refused = await electron(tools, action="status", outputPath="/etc/abt-status.json")
    assert refused.details["failureCategory"] == "policy-blocked", refused.text
    assert not Path("/etc/abt-status.json").exists()


async def test_a_launch_cancelled_before_its_spawn_leaves_nothing(
    tools: BrowserTools, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = tmp_path / "apps" / "standin"
    shutil.copytree(Path(__file__).parents[3] / "fixtures" / "electron_app", app)
    reached = asyncio.Event()

    async def never_spawns(*args: Any, **kwargs: Any) -> apps.Started:
        reached.set()
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")

    monkeypatch.setattr(apps, "start_app", never_spawns)
    task = asyncio.create_task(electron(tools, action="launch", appPath=str(app)))
    await asyncio.wait_for(reached.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (record,) = tools.runtime.log.state.app_launches.values()
    assert (record.state, record.pid, record.note) == ("cleaned", None, "never started")
    assert not (tmp_path / "state" / "electron" / record.launch_id).exists()


async def test_a_restored_record_whose_evidence_does_not_match_is_not_reused(
    tmp_path: Path,
) -> None:
    """After a restart the pid is alive with its start time, but it is not the app (its
    command line names no profile of ours): probe and direct calls refuse as tab-drift."""
    impostor = subprocess.Popen(["sleep", "60"], start_new_session=True)
    profile = tmp_path / "state" / "electron" / "electron-r1" / "profile"
    profile.mkdir(parents=True)
    (profile / "DevToolsActivePort").write_text("45678\n/devtools/browser/x\n")
    record = AppLaunch(
        launch_id="electron-r1",
        app_name="Restored",
        executable="/opt/app/app",
        profile_dir=str(profile),
        session=SessionKey(session="el-r1"),
        state="running",
        pid=impostor.pid,
        pid_start=apps.start_ticks(impostor.pid),
        port=45678,
    )
    first = _tools(tmp_path, AGENT_BROWSER_TOOLS_ALLOW_ELECTRON="1")
    first.runtime.log.record_app(record)
    await first.call("agent_browser_tools", {"enable": ["electron"]})
    first.close_on_exit = False
    await first.aclose()
    restored = BrowserTools(
        settings=first.settings,
        cwd=tmp_path,
        conversation_id=first.conversation_id,
        close_on_exit=False,
    )
    try:
        status = await electron(restored, action="status")
        (row,) = status.details["electron"]["statuses"]
        assert row["processAlive"] and not row["reusable"], row
        probed = await electron(restored, action="probe")
        assert probed.details["failureCategory"] == "tab-drift", probed.text
        assert "no longer names the launch's profile" in probed.text
        direct = await restored.call(
            "agent_browser", {"args": ["--session", "el-r1", "get", "url"]}
        )
        assert direct.details["failureCategory"] == "tab-drift", direct.text
        assert "no longer runs with the launch's profile" in direct.text
    finally:
        await restored.aclose()
        impostor.kill()
        impostor.wait(timeout=10)


async def test_windows_answers_unsupported_discovery(
    tools: BrowserTools, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_browser_tools.tools.electron import discovery

    monkeypatch.setattr(discovery, "supported", lambda platform="win32": False)
    listed = await electron(tools, action="list")
    assert listed.is_error and listed.details["electron"] == {"apps": [], "supported": False}
    assert "unsupported on Windows" in listed.text
