"""A shared server's conversation works in its own workspace, at the process boundary.

The fake engine logs each spawn's argv, working dir and engine variables, so these tests check
what the real engine would get: relative paths pinned inside the conversation's workspace, the
engine child running there, its own browsers downloading there (an operator-shared browser
keeping the operator's dir), `outputPath` written there; and a single-user conversation
unchanged. The escapes themselves are tried against the real engine
(`tests/real/test_workspace_escapes.py`, `tests/e2e/test_mcp_http_workspaces.py`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_browser_tools.api import BrowserTools
from tests.support.fake import FakeEngine, fake_settings
from tests.support.tools import assert_policy_blocked

SHARED = "team"
OPERATOR_DOWNLOADS = "/srv/operator-downloads"


def _tools(fake: FakeEngine, tmp_path: Path, conversation: str, **kw: Any) -> BrowserTools:
    settings = fake_settings(fake, tmp_path, AGENT_BROWSER_DOWNLOAD_PATH=OPERATOR_DOWNLOADS)
    served = tmp_path / "served"
    served.mkdir(exist_ok=True)
    return BrowserTools(
        settings=settings, conversation_id=conversation, cwd=served, persist=False, **kw
    )


def _calls(fake: FakeEngine) -> list[dict[str, Any]]:
    return [call for call in fake.calls() if call["argv"] != ["--version"]]


async def test_relative_paths_outputs_and_downloads_land_in_the_workspace(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "conv-a", shared_server=True, shared_sessions=[SHARED])
    workspace = tools.workspace
    assert workspace is not None
    assert workspace.parent == tmp_path / "served" / "agent-browser-workspaces"
    assert "conv-a" not in workspace.name
    try:
        fake_engine.reset()
        shot = await tools.call("agent_browser", {"args": ["screenshot", "shots/a.png"]})
        out = await tools.call("agent_browser", {"args": ["get", "url"], "outputPath": "u.json"})
        shared = await tools.call("agent_browser", {"args": ["--session", SHARED, "get", "url"]})
        assert "artifact" in shot.text  # the fake writes no image; the argv is what counts
        for result in (out, shared):
            assert not result.is_error, result.text
        own, *_, on_shared = _calls(fake_engine)
        assert own["argv"][-2:] == ["screenshot", str(workspace / "shots" / "a.png")]
        assert own["cwd"] == str(workspace)
        assert own["env"]["AGENT_BROWSER_DOWNLOAD_PATH"] == str(workspace / "downloads")
        assert on_shared["cwd"] == str(workspace)
        assert on_shared["env"]["AGENT_BROWSER_DOWNLOAD_PATH"] == OPERATOR_DOWNLOADS
        assert (workspace / "u.json").is_file()
        assert not (tmp_path / "served" / "u.json").exists()
    finally:
        await tools.aclose()
    assert (workspace / "u.json").is_file(), "a conversation's files outlive it"


async def test_another_conversations_workspace_is_refused_before_any_spawn(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    a = _tools(fake_engine, tmp_path, "conv-a", shared_server=True)
    b = _tools(fake_engine, tmp_path, "conv-b", shared_server=True)
    assert a.workspace is not None and b.workspace is not None
    try:
        saved = await a.call("agent_browser", {"args": ["get", "url"], "outputPath": "a.json"})
        assert not saved.is_error and (a.workspace / "a.json").is_file()
        fake_engine.reset()
        theirs = a.workspace / "a.json"
        before = theirs.read_bytes()
        attempts: list[dict[str, Any]] = [
            {"args": ["upload", "#f", str(theirs)]},
            {"args": ["state", "load", f"../{a.workspace.name}/a.json"]},
            {"args": ["open", theirs.as_uri()]},
            {"args": ["screenshot", str(theirs)]},
            {"args": ["get", "url"], "outputPath": str(theirs)},
            {"args": ["batch"], "stdin": json.dumps([["state", "save", str(theirs)]])},
            {"code": f"return await browser({{args: ['upload', '#f', {str(theirs)!r}]}})"},
        ]
        for params in attempts:
            tool = "agent_browser_code" if "code" in params else "agent_browser"
            result = await b.call(tool, params)
            if tool == "agent_browser":
                assert_policy_blocked(result, "other-workspace")
            else:
                inner = json.dumps(result.details["data"])
                assert "policy-blocked" in inner and "another conversation's workspace" in inner
        assert _calls(fake_engine) == []
        assert theirs.read_bytes() == before
    finally:
        await b.aclose()
        await a.aclose()
    assert not b.workspace.exists(), "an empty workspace goes with its conversation"


async def test_a_single_user_conversation_keeps_the_execution_dir(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "conv-solo")
    served = tmp_path / "served"
    try:
        assert tools.workspace is None and tools.runtime.cwd == served
        fake_engine.reset()
        await tools.call("agent_browser", {"args": ["screenshot", "a.png"]})
        [call] = _calls(fake_engine)
        assert call["argv"][-1] == str(served / "a.png") and call["cwd"] == str(served)
        assert call["env"]["AGENT_BROWSER_DOWNLOAD_PATH"] == OPERATOR_DOWNLOADS
    finally:
        await tools.aclose()
    assert not (served / "agent-browser-workspaces").exists()


async def test_a_workspace_removed_while_the_conversation_runs_comes_back(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """An operator cleaning up saved files mid-session must not break the conversation."""
    tools = _tools(fake_engine, tmp_path, "conv-g", shared_server=True)
    workspace = tools.workspace
    assert workspace is not None
    try:
        workspace.rmdir()
        out = await tools.call("agent_browser", {"args": ["get", "url"], "outputPath": "u.json"})
        assert not out.is_error, out.text
        assert (workspace / "u.json").is_file()
        assert workspace.stat().st_mode & 0o777 == 0o700
    finally:
        await tools.aclose()
