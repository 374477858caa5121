"""File roots at the process boundary (fake engine): a refused call spawns nothing, whichever
tool or batch form carries it, and an allowed relative path reaches the engine absolute.

The fake engine logs every spawn, so "refused before dispatch" is checked where it matters;
exact argv assertions are the fake's job (the real engine tests prove the escapes fail).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.fake.tools.agent_browser.test_argv import MANAGED, _settings, _tools
from tests.support.fake import FakeEngine, fake_settings
from tests.support.tools import assert_policy_blocked


def _assert_blocked(result: ToolResult, subject: str | None = None) -> dict[str, Any]:
    return assert_policy_blocked(result, "file-root", subject)


def _spawned(fake: FakeEngine) -> list[list[str]]:
    return [argv for argv in fake.argvs() if argv != ["--version"]]


async def test_refused_direct_calls_spawn_nothing(fake_engine: FakeEngine, tmp_path: Path) -> None:
    tools = _tools(fake_engine, tmp_path)
    attempts: list[tuple[dict[str, Any], str]] = [
        ({"args": ["open", "file:///etc/passwd"]}, "/etc/passwd"),
        ({"args": ["open", "File://localhost/etc/passwd"]}, "/etc/passwd"),
        ({"args": ["screenshot", "/tmp/x.png"]}, "/tmp/x.png"),
        ({"args": ["screenshot", "../x.png"]}, str(tmp_path.parent / "x.png")),
        ({"args": ["upload", "#f", "/etc/shadow"]}, "/etc/shadow"),
        ({"args": ["network", "har", "stop", "/tmp/x.har"]}, "/tmp/x.har"),
        ({"args": ["--download-path", "/tmp", "click", "#a"]}, "/tmp"),
        ({"args": ["state", "save", "/tmp/s.json"]}, "/tmp/s.json"),
        ({"args": ["get", "url"], "outputPath": "/tmp/out.json"}, "/tmp/out.json"),
        (
            {"args": ["upload", "#f", "state/journal.sqlite"]},
            str(tmp_path / "state/journal.sqlite"),
        ),
    ]
    for params, subject in attempts:
        _assert_blocked(await tools.call("agent_browser", params), subject)
    assert _spawned(fake_engine) == []


async def test_a_batch_with_one_bad_row_runs_no_row(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    rows = [["open", "https://a.test"], ["get", "title"], ["pdf", "/tmp/x.pdf"]]
    stdin = await tools.call("agent_browser", {"args": ["batch"], "stdin": json.dumps(rows)})
    assert _assert_blocked(stdin, "/tmp/x.pdf")
    assert stdin.text.count("batch row 3") == 1
    strings = await tools.call(
        "agent_browser", {"args": ["batch", "open https://a.test", "open file:///etc/passwd"]}
    )
    _assert_blocked(strings, "/etc/passwd")
    assert "batch row 2" in strings.text
    assert _spawned(fake_engine) == []


async def test_relative_paths_reach_the_engine_absolute(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    shot = tmp_path / "shots" / "a.png"
    shot.parent.mkdir()
    fake_engine.on(
        {"command": ["screenshot"]}, envelope={"data": {"path": str(shot)}}, touch_file=str(shot)
    )
    result = await tools.call("agent_browser", {"args": ["screenshot", "./shots/a.png"]})
    assert not result.is_error, result.text
    assert result.details["args"] == ["screenshot", "./shots/a.png"]  # the caller's words
    assert _spawned(fake_engine) == [["--json", "--session", MANAGED, "screenshot", str(shot)]]


async def test_batch_rows_reach_the_engine_absolute(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    answer = [{"command": ["get", "url"], "success": True, "result": {}, "error": None}]
    fake_engine.on({"command": ["batch"]}, json=answer)  # each step is a call of its own
    rows = [["get", "url"], ["pdf", "out/p.pdf"]]
    await tools.call("agent_browser", {"args": ["batch"], "stdin": json.dumps(rows)})
    calls = [c for c in fake_engine.calls() if c["argv"] != ["--version"]]
    sent = [row for c in calls for row in json.loads(str(c["stdin"]))]  # one call per step
    assert sent[1] == ["pdf", str(tmp_path / "out/p.pdf")]


async def test_operator_roots_and_unrestricted_mode(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    extra = tmp_path.parent / f"{tmp_path.name}-extra"
    extra.mkdir()
    settings = _settings(fake_engine, tmp_path)
    rooted = BrowserTools(settings=settings, cwd=tmp_path, file_roots=[extra])
    open_fs = BrowserTools(settings=settings, cwd=tmp_path, unrestricted_files=True)
    fake_engine.reset()
    ok = await rooted.call("agent_browser", {"args": ["pdf", str(extra / "a.pdf")]})
    assert ok.details.get("failureCategory") != "policy-blocked", ok.text
    assert (await open_fs.call("agent_browser", {"args": ["pdf", "/tmp/abt-x.pdf"]})).details.get(
        "failureCategory"
    ) != "policy-blocked"
    journal = str(tmp_path / "state" / "journal.sqlite")
    _assert_blocked(await open_fs.call("agent_browser", {"args": ["upload", "#f", journal]}))
    _assert_blocked(await open_fs.call("agent_browser", {"args": ["pdf", "agent-browser.json"]}))


async def test_client_roots_widen_one_conversation(fake_engine: FakeEngine, tmp_path: Path) -> None:
    client = tmp_path.parent / f"{tmp_path.name}-client"
    client.mkdir()
    tools = _tools(fake_engine, tmp_path)
    before = await tools.call("agent_browser", {"args": ["pdf", str(client / "a.pdf")]})
    _assert_blocked(before, str(client / "a.pdf"))
    assert tools.set_client_roots([client.as_uri(), "https://example.com/"]) == (client,)
    after = await tools.call("agent_browser", {"args": ["pdf", str(client / "a.pdf")]})
    assert after.details.get("failureCategory") != "policy-blocked", after.text


async def test_code_cells_obey_the_roots(fake_engine: FakeEngine, tmp_path: Path) -> None:
    tools = _tools(fake_engine, tmp_path)
    outside = await tools.call("agent_browser_code", {"code": "1", "outputPath": "/tmp/x.json"})
    _assert_blocked(outside, "/tmp/x.json")
    code = """
      const shot = await browser({args: ["screenshot", "/tmp/cell.png"]});
      const open = await browser({args: ["open", "file:///etc/passwd"]});
      return [shot.failureCategory, open.failureCategory];
    """
    inner = await tools.call("agent_browser_code", {"code": code})
    assert not inner.is_error, inner.text
    assert inner.details["data"] == ["policy-blocked", "policy-blocked"]
    assert _spawned(fake_engine) == []


async def test_action_and_qa_obey_the_roots(fake_engine: FakeEngine, tmp_path: Path) -> None:
    tools = _tools(fake_engine, tmp_path)
    enabled = await tools.call("agent_browser_tools", {"enable": ["action", "qa"]})
    assert not enabled.is_error, enabled.text
    select = {"action": "select", "role": "combobox", "name": "Size", "values": ["M"]}
    for params in (select, {"action": "click", "selector": "#b"}):
        result = await tools.call("agent_browser_action", {**params, "outputPath": "/tmp/a.json"})
        _assert_blocked(result, "/tmp/a.json")
    qa_url = await tools.call("agent_browser_qa", {"url": "file:///etc/passwd"})
    _assert_blocked(qa_url, "/etc/passwd")
    qa_shot = await tools.call(
        "agent_browser_qa", {"url": "https://a.test/", "screenshotPath": "/tmp/qa.png"}
    )
    _assert_blocked(qa_shot, "/tmp/qa.png")
    attached = await tools.call(
        "agent_browser_qa", {"attached": True, "expectedText": "x", "outputPath": "/tmp/q"}
    )
    _assert_blocked(attached, "/tmp/q")
    assert _spawned(fake_engine) == []


async def test_the_clients_first_root_is_the_execution_dir_unless_one_was_chosen(
    fake_engine: FakeEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, other, served = tmp_path / "project", tmp_path / "other", tmp_path / "served"
    for directory in (project, other, served):
        directory.mkdir()
    monkeypatch.chdir(served)
    free = BrowserTools(settings=fake_settings(fake_engine, tmp_path), persist=False)
    free.set_client_roots([project.as_uri(), other.as_uri()])
    assert free.runtime.cwd == project
    free.set_client_roots([(tmp_path / "gone").as_uri()])
    assert free.runtime.cwd == Path.cwd(), "a withdrawn root is no longer the execution dir"
    shared = BrowserTools(
        settings=fake_settings(fake_engine, tmp_path), persist=False, shared_server=True
    )
    shared.set_client_roots([project.as_uri()])
    assert shared.runtime.execution_dir == served, "a remote client's path is not this host's"
    assert shared.runtime.cwd.parent == served / "agent-browser-workspaces"
    await shared.aclose()
    chosen = BrowserTools(settings=fake_settings(fake_engine, tmp_path), cwd=other, persist=False)
    chosen.set_client_roots([project.as_uri()])
    assert chosen.runtime.cwd == other
    await free.aclose()
    await chosen.aclose()


async def test_a_deleted_execution_dir_is_a_validation_error_before_dispatch(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), cwd=workdir, persist=False)
    fake_engine.reset()
    workdir.rmdir()
    result = await tools.call("agent_browser", {"args": ["get", "url"]})
    assert result.details["failureCategory"] == "validation-error", result.text
    assert "no longer exists" in result.text and str(workdir) in result.text
    assert fake_engine.calls() == []
    await tools.aclose()
