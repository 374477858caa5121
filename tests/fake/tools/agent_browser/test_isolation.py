"""Conversation isolation at the process boundary: the socket dir every engine child gets.

The fake engine logs the `AGENT_BROWSER_SOCKET_DIR` of each spawn, so these tests check what
the real engine would use to find (or list, or close) browsers: the conversation's own dir,
or the shared base dir for an operator-shared session only.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.discovery import clear_engine_cache
from agent_browser_tools.engine.isolation import conversation_dir_name
from agent_browser_tools.tools.action.spec import SPEC as ACTION
from agent_browser_tools.tools.code.spec import SPEC as CODE
from agent_browser_tools.tools.qa.spec import SPEC as QA
from tests.support.fake import FakeEngine, fake_settings


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> Iterator[None]:
    clear_engine_cache()
    yield
    clear_engine_cache()


@pytest.fixture
def base() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="abt-f", dir="/tmp"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _tools(
    fake: FakeEngine,
    tmp_path: Path,
    base: Path,
    conversation: str,
    env_extra: dict[str, str] | None = None,
    **kwargs: Any,
) -> BrowserTools:
    settings = fake_settings(
        fake, tmp_path, AGENT_BROWSER_SOCKET_DIR=str(base), **(env_extra or {})
    )
    tools = BrowserTools(settings=settings, conversation_id=conversation, cwd=tmp_path, **kwargs)
    assert tools.runtime.engine.path == str(fake.path)
    fake.reset()
    return tools


def _dirs(fake: FakeEngine) -> list[str]:
    return [str(call["env"]["AGENT_BROWSER_SOCKET_DIR"]) for call in fake.calls()]  # type: ignore[index]


async def _ab(tools: BrowserTools, *args: str) -> dict[str, Any]:
    result = await tools.call("agent_browser", {"args": list(args)})
    return result.details


async def test_each_call_runs_in_the_conversations_own_dir_unless_shared(
    fake_engine: FakeEngine, tmp_path: Path, base: Path
) -> None:
    tools = _tools(
        fake_engine, tmp_path, base, "conv-a", shared_server=True, shared_sessions=["work"]
    )
    own = base / conversation_dir_name("conv-a")
    try:
        calls = [
            ("get", "url"),  # managed
            ("--session", "mine", "get", "url"),  # explicit: scoped to the conversation
            ("--session", "work", "get", "url"),  # operator-shared
            ("--namespace", "ns", "--session", "work", "get", "url"),  # namespaced: own
            ("session", "list"),
            ("--session", "work", "session", "list"),  # listing never runs in the shared dir
            ("--session", "work", "close", "--all"),  # nor does closing everything
            ("close", "--all"),
        ]
        for args in calls:
            await _ab(tools, *args)
        assert _dirs(fake_engine) == [
            str(own),
            str(own),
            str(base),
            str(own),
            str(own),
            str(own),
            str(own),
            str(own),
        ]
        assert os.stat(own).st_mode & 0o777 == 0o700
    finally:
        await tools.aclose()
    assert not own.exists()  # nothing lived there any more: removed at the end


async def test_a_path_as_session_name_spawns_nothing(
    fake_engine: FakeEngine, tmp_path: Path, base: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, base, "conv-b", shared_sessions=["work"])
    try:
        for name in ("../work", str(base / "work"), f"../{conversation_dir_name('x')}/abt-1"):
            details = await _ab(tools, "--session", name, "get", "url")
            assert details["failureCategory"] == "policy-blocked", details
            assert details["policy"]["rule"] == "session-name"
        assert fake_engine.calls() == []
    finally:
        await tools.aclose()


async def test_resumed_and_other_conversations(
    fake_engine: FakeEngine, tmp_path: Path, base: Path
) -> None:
    """A resumed id finds its own dir again; another conversation gets another dir. On a
    shared server a process-wide sub-agent group is ignored (it would merge them all)."""
    seen = []
    group = {"AGENT_BROWSER_TOOLS_ROOT": "group-from-env"}
    for conversation in ("conv-1", "conv-1", "conv-2"):
        tools = _tools(fake_engine, tmp_path, base, conversation, group, shared_server=True)
        # `open`: a resumed conversation whose browser was closed refuses page reads.
        await _ab(tools, "open", "https://a.test")
        seen.append(_dirs(fake_engine)[-1])
        await tools.aclose()
    assert seen[0] == seen[1] == str(base / conversation_dir_name("conv-1"))
    assert seen[2] == str(base / conversation_dir_name("conv-2"))
    # Without a shared server the env's group wins: sub-agents share their root's browsers.
    grouped = _tools(fake_engine, tmp_path, base, "child", group)
    await _ab(grouped, "get", "url")
    assert _dirs(fake_engine)[-1] == str(base / conversation_dir_name("group-from-env"))
    await grouped.aclose()


async def test_a_shared_server_closes_what_is_left_in_the_own_dir(
    fake_engine: FakeEngine, tmp_path: Path, base: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, base, "conv-c", shared_server=True)
    await _ab(tools, "--session", "mine", "get", "url")
    own = base / conversation_dir_name("conv-c")
    (own / "mine.sock").write_text("")  # what a live daemon leaves in its dir
    (own / "namespaces" / "ns1" / "run").mkdir(parents=True)
    (own / "namespaces" / "ns1" / "run" / "other.sock").write_text("")
    (own / "namespaces" / "idle" / "run").mkdir(parents=True)  # nothing runs there
    fake_engine.reset()
    await tools.aclose()
    assert sorted(fake_engine.argvs()) == [
        ["--json", "--namespace", "ns1", "close", "--all"],
        ["--json", "close", "--all"],
    ]
    assert _dirs(fake_engine) == [str(own)] * 2
    assert own.is_dir()  # the (fake) sockets are still there, so the dir is kept


async def test_shared_sessions_only_without_a_shared_server_keep_explicit_browsers(
    fake_engine: FakeEngine, tmp_path: Path, base: Path
) -> None:
    """An API/stdio/CLI conversation can be resumed: its explicit browsers stay open."""
    tools = _tools(fake_engine, tmp_path, base, "conv-d")
    await _ab(tools, "--session", "mine", "get", "url")
    own = base / conversation_dir_name("conv-d")
    (own / "mine.sock").write_text("")
    fake_engine.reset()
    await tools.aclose()
    assert fake_engine.argvs() == []
    assert own.is_dir()


async def test_the_model_cannot_read_the_shared_store_on_a_shared_server(
    fake_engine: FakeEngine, tmp_path: Path, base: Path
) -> None:
    shared = _tools(fake_engine, tmp_path, base, "conv-e", shared_server=True)
    details = await _ab(shared, "state", "list")
    assert details["failureCategory"] == "policy-blocked"
    assert details["policy"]["rule"] == "shared-store"
    assert fake_engine.calls() == []
    await shared.aclose()


async def test_compound_tools_cannot_name_a_path_session_either(
    fake_engine: FakeEngine, tmp_path: Path, base: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, base, "conv-f", shared_server=True)
    try:
        cell = await CODE.call(
            tools.runtime,
            {
                "code": "return (await browser({ args: ['get', 'url'] })).failureCategory",
                "session": "../work",
            },
        )
        assert cell.details.get("data") == "policy-blocked", cell.details
        for params in (
            {"action": "click", "selector": "#go", "session": "../work"},
            {
                "action": "select",
                "locator": "role",
                "value": "combobox",
                "values": ["a"],
                "session": "/tmp/work",
            },
        ):
            acted = await ACTION.call(tools.runtime, params)
            assert acted.details["failureCategory"] == "policy-blocked", acted.details
            assert acted.details["policy"]["rule"] == "session-name"
        assert fake_engine.calls() == []
    finally:
        await tools.aclose()


async def test_attached_qa_over_the_timeout_cap_is_refused_not_raised(
    fake_engine: FakeEngine, tmp_path: Path, base: Path
) -> None:
    """Compound tools plan before they lock; a policy refusal there is a result too."""
    tools = _tools(fake_engine, tmp_path, base, "conv-g")
    try:
        qa = await QA.call(
            tools.runtime, {"attached": True, "expectedText": "x", "timeoutMs": 10**9}
        )
        assert qa.details["failureCategory"] == "policy-blocked", qa.details
        assert qa.details["policy"]["rule"] == "timeout-cap"
        assert fake_engine.calls() == []
    finally:
        await tools.aclose()


async def test_a_planted_symlink_for_the_dir_refuses_the_call(
    fake_engine: FakeEngine, tmp_path: Path, base: Path
) -> None:
    """Another local user (or a stale link) must not choose where this conversation's
    browsers listen: the call is refused with the fix, and nothing runs."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (base / conversation_dir_name("conv-h")).symlink_to(elsewhere)
    tools = _tools(fake_engine, tmp_path, base, "conv-h")
    try:
        result = await tools.call("agent_browser", {"args": ["get", "url"]})
        assert result.details["failureCategory"] == "validation-error", result.details
        assert "must be a real directory, not a symlink" in result.text
        assert fake_engine.calls() == []
        assert list(elsewhere.iterdir()) == []
    finally:
        await tools.aclose()
