"""`agent_browser_network_source` end to end on the fake engine: the exact batch it spawns,
refusals that spawn nothing, the page target it leaves alone, and its workspace candidates."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.discovery import clear_engine_cache
from agent_browser_tools.planning.sessions import managed_base_name
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.state.models import SessionKey
from tests.support.fake import FakeEngine, fake_settings

CONVERSATION = "conv-netsrc-1"
MANAGED = managed_base_name(CONVERSATION)
PAGE = "https://shop.test/orders.html"
FAILED_URL = "https://shop.test/api/v1/orders/missing"
NAME = "agent_browser_network_source"


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> Iterator[None]:
    clear_engine_cache()
    yield
    clear_engine_cache()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "src").mkdir(parents=True)
    (root / "src" / "api.ts").write_text(
        'export const load = () =>\n  fetch("/api/v1/orders/missing");\n', encoding="utf-8"
    )
    return root


async def _tools(fake: FakeEngine, tmp_path: Path, cwd: Path) -> BrowserTools:
    tools = BrowserTools(
        settings=fake_settings(fake, tmp_path), conversation_id=CONVERSATION, cwd=cwd
    )
    assert tools.runtime.engine.path == str(fake.path)
    enabled = await tools.call("agent_browser_tools", {"enable": ["network"]})
    assert not enabled.is_error, enabled.text
    fake.reset()
    return tools


def _rows(url: str = FAILED_URL, status: int = 404) -> list[dict[str, Any]]:
    row = {"requestId": "7.2", "url": url, "method": "GET", "resourceType": "Fetch"}
    return [
        {"command": ["network", "request", "7.2"], "success": True, "error": None,
         "result": {**row, "status": status}},
    ]  # fmt: skip


async def _open(tools: BrowserTools, fake: FakeEngine) -> None:
    fake.on({"command": ["open"]}, envelope={"data": {"url": PAGE, "title": "Orders"}})
    opened = await tools.call("agent_browser", {"args": ["open", PAGE]})
    assert not opened.is_error, opened.text


async def test_a_request_id_runs_one_batch_and_finds_the_workspace_literal(
    fake_engine: FakeEngine, tmp_path: Path, workspace: Path
) -> None:
    tools = await _tools(fake_engine, tmp_path, workspace)
    await _open(tools, fake_engine)
    fake_engine.on({"command": ["batch"]}, json=_rows())
    result: ToolResult = await tools.call(NAME, {"requestId": "7.2"})
    assert not result.is_error, result.text
    call = fake_engine.calls()[-1]
    assert call["argv"] == ["--json", "--session", MANAGED, "batch"]
    assert json.loads(str(call["stdin"])) == [["network", "request", "7.2"]]
    found = result.details["networkSourceLookup"]
    assert found["status"] == "failed-requests-found"
    first = found["candidates"][0]
    assert (first["file"], first["line"], first["column"]) == ("src/api.ts", 2, 10)
    assert "src/api.ts:2:10" in result.text
    # The request's URL is evidence, not the page: the session's target is still the page.
    entry = tools.runtime.log.state.session(SessionKey(session=MANAGED))
    assert entry.target is not None and entry.target.url == PAGE
    await tools.aclose()


async def test_an_explicit_session_and_empty_namespace_prefix_the_batch(
    fake_engine: FakeEngine, tmp_path: Path, workspace: Path
) -> None:
    tools = await _tools(fake_engine, tmp_path, workspace)
    fake_engine.on({"command": ["batch"]}, json=_rows(status=200))
    params = {"filter": "orders", "session": "work", "namespace": ""}
    result = await tools.call(NAME, params)
    assert fake_engine.argvs()[-1] == ["--json", "--namespace", "", "--session", "work", "batch"]
    assert result.details["networkSourceLookup"]["status"] == "no-failed-requests"
    await tools.aclose()


@pytest.mark.parametrize(
    "params",
    [{}, {"filter": "-x"}, {"requestId": "1", "sessionMode": "fresh"}, {"filter": "a", "args": []}],
)
async def test_refused_inputs_spawn_nothing(
    fake_engine: FakeEngine, tmp_path: Path, workspace: Path, params: dict[str, Any]
) -> None:
    tools = await _tools(fake_engine, tmp_path, workspace)
    result = await tools.call(NAME, params)
    assert result.is_error and result.details["failureCategory"] == "validation-error"
    assert fake_engine.calls() == []
    await tools.aclose()


async def test_a_stale_request_id_fails_but_the_filtered_rows_are_still_analysed(
    fake_engine: FakeEngine, tmp_path: Path, workspace: Path
) -> None:
    tools = await _tools(fake_engine, tmp_path, workspace)
    rows = [
        {"command": ["network", "request", "9.9"], "success": False, "result": None,
         "error": "Request not found"},
        {"command": ["network", "requests", "--filter", "orders"], "success": True,
         "error": None, "result": {"requests": [_rows()[0]["result"]]}},
    ]  # fmt: skip
    fake_engine.on({"command": ["batch"]}, json=rows, exit=1)
    result = await tools.call(NAME, {"requestId": "9.9", "filter": "orders"})
    assert result.is_error
    found = result.details["networkSourceLookup"]
    assert found["status"] == "failed-requests-found"
    assert "`network request 9.9` failed: Request not found" in found["limitations"]
    await tools.aclose()


async def test_authorization_headers_userinfo_and_query_tokens_never_come_back(
    fake_engine: FakeEngine, tmp_path: Path, workspace: Path
) -> None:
    """Attack: a failed request whose URL, headers and body carry credentials; none of them
    may reach the visible text or any details field."""
    url = "https://alice:hunter2pw@shop.test/api/v1/orders/missing?access_token=SECRETTOK9&p=2"
    row = {
        "requestId": "7.2",
        "url": url,
        "method": "GET",
        "resourceType": "Fetch",
        "status": 401,
        "headers": {"Authorization": "Bearer SECRETBEARER123456", "Cookie": "sid=SECRETSID77"},
        "responseBody": '{"error": "bad token SECRETTOK9", "password": "hunter2pw"}',
    }
    tools = await _tools(fake_engine, tmp_path, workspace)
    fake_engine.on(
        {"command": ["batch"]},
        json=[{"command": ["network", "request", "7.2"], "success": True, "result": row}],
    )
    result = await tools.call(NAME, {"requestId": "7.2", "url": url})
    shown = result.text + json.dumps(result.details)
    for secret in ("hunter2pw", "SECRETTOK9", "SECRETBEARER123456", "SECRETSID77"):
        assert secret not in shown, secret
    found = result.details["networkSourceLookup"]
    assert found["status"] == "failed-requests-found"
    assert found["failedRequests"][0]["url"].startswith("https://alice:%5BREDACTED%5D@")
    await tools.aclose()


async def test_the_state_dir_and_dotfiles_in_the_workspace_are_never_searched(
    fake_engine: FakeEngine, tmp_path: Path, workspace: Path
) -> None:
    """Attack: the operator put the server's state dir inside the execution dir, and a planted
    file there (and a `.env`, and a hidden dir) carries the literal; only the source is read."""
    state = workspace / "abt-state"
    settings = fake_settings(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_STATE_DIR=str(state))
    tools = BrowserTools(settings=settings, conversation_id=CONVERSATION, cwd=workspace)
    enabled = await tools.call("agent_browser_tools", {"enable": ["network"]})
    assert not enabled.is_error, enabled.text
    planted = 'fetch("/api/v1/orders/missing") // SECRET-STATE\n'
    (state / "spill").mkdir(parents=True, exist_ok=True)
    (state / "spill" / "page.ts").write_text(planted, encoding="utf-8")
    (workspace / ".env").write_text(planted, encoding="utf-8")
    (workspace / ".hidden").mkdir()
    (workspace / ".hidden" / "x.ts").write_text(planted, encoding="utf-8")
    await _open(tools, fake_engine)
    fake_engine.on({"command": ["batch"]}, json=_rows())
    result = await tools.call(NAME, {"requestId": "7.2"})
    found = result.details["networkSourceLookup"]
    assert [c.get("file") for c in found["candidates"]] == ["src/api.ts"]
    assert any("server's own" in note for note in found["limitations"])
    assert "SECRET-STATE" not in result.text + json.dumps(result.details)
    await tools.aclose()
