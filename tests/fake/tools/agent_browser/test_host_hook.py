"""The host's `before_execute` callback: awaited before each ordinary engine dispatch.

The fake engine logs every spawn, so these tests can say exactly which dispatches the callback
saw, that it ran before the engine did, and that a refusal or a cancellation left the engine
untouched.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools, SyncBrowserTools
from agent_browser_tools.tools.agent_browser import DispatchContext
from tests.support.fake import FakeEngine, fake_settings

URL = "https://a.test/"
Seen = list[tuple[str, DispatchContext, int]]


def _engine(fake: FakeEngine) -> FakeEngine:
    fake.on({"command": ["open"]}, envelope={"data": {"url": URL, "title": "A"}})
    fake.on({"contains": ["batch"]}, envelope={"data": [{"success": True, "result": {"url": URL}}]})
    return fake


def _opens(fake: FakeEngine) -> int:
    return sum(1 for argv in fake.argvs() if "open" in argv)


def _dispatched(fake: FakeEngine) -> int:
    """Engine calls that act (the planner's one read of the binary's `--version`, which
    picks the taxonomy, runs nothing)."""
    return sum(1 for argv in fake.argvs() if argv != ["--version"])


def _recorder(fake: FakeEngine, seen: Seen, *, refuse_at: int | None = None) -> Any:
    async def before_execute(tool_call_id: str, ctx: DispatchContext) -> None:
        await asyncio.sleep(0)
        seen.append((tool_call_id, ctx, _dispatched(fake)))
        if refuse_at is not None and len(seen) == refuse_at:
            raise RuntimeError("host checkpoint store is full")

    return before_execute


async def test_the_callback_runs_before_the_dispatch_with_the_call_id_and_context(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake = _engine(fake_engine)
    seen: Seen = []
    tools = BrowserTools(
        settings=fake_settings(fake, tmp_path), cwd=tmp_path, before_execute=_recorder(fake, seen)
    )
    args = ["--session", "work", "cookies", "set", "sid", "s3cr3t-value"]
    result = await tools.call("agent_browser", {"args": args}, tool_call_id="call-7")
    assert not result.is_error, result.text
    (call_id, ctx, engine_calls_before), *rest = seen
    assert not rest and call_id == "call-7"
    assert engine_calls_before == 0 and len(fake.calls()) >= 1
    assert ctx.tool == ctx.outer_tool == "agent_browser"
    assert ctx.session == "work" and ctx.args[:4] == ("--session", "work", "cookies", "set")
    assert "s3cr3t-value" not in json.dumps([ctx.args, ctx.effective_args])
    await tools.aclose()


async def test_helper_probes_do_not_call_it_again(fake_engine: FakeEngine, tmp_path: Path) -> None:
    """`open` gets the wrapper's url/title probe: two engine spawns, one callback."""
    fake = _engine(fake_engine)
    seen: Seen = []
    tools = BrowserTools(
        settings=fake_settings(fake, tmp_path), cwd=tmp_path, before_execute=_recorder(fake, seen)
    )
    result = await tools.call("agent_browser", {"args": ["click", "#go"]})
    assert not result.is_error, result.text
    assert len(fake.calls()) >= 2 and len(seen) == 1
    await tools.aclose()


async def test_the_selector_miss_recovery_snapshot_does_not_call_it(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """A `find` miss makes the wrapper take its own `snapshot -i`: a follow-up, no callback."""
    fake = _engine(fake_engine)
    fake.on({"command": ["find"]}, envelope={"success": False, "error": "Element not found: Save"})
    seen: Seen = []
    tools = BrowserTools(
        settings=fake_settings(fake, tmp_path), cwd=tmp_path, before_execute=_recorder(fake, seen)
    )
    args = ["find", "role", "button", "click", "--name", "Save"]
    result = await tools.call("agent_browser", {"args": args})
    assert result.details["failureCategory"] == "selector-not-found", result.text
    assert any("snapshot" in argv for argv in fake.argvs())  # the recovery ran
    assert [ctx.args[0] for _, ctx, _ in seen] == ["find"]
    await tools.aclose()


async def test_a_raising_callback_blocks_the_dispatch_as_policy_blocked(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake = _engine(fake_engine)
    seen: Seen = []
    before = _recorder(fake, seen, refuse_at=1)
    tools = BrowserTools(
        settings=fake_settings(fake, tmp_path), cwd=tmp_path, before_execute=before
    )
    result = await tools.call("agent_browser", {"args": ["open", URL]})
    assert result.is_error and result.details["failureCategory"] == "policy-blocked"
    assert result.details["policy"]["rule"] == "host-before-execute"
    assert "host checkpoint store is full" in result.text
    assert _opens(fake) == 0
    await tools.aclose()


async def test_each_inner_code_call_gets_the_outer_id_and_a_refusal_fails_only_that_call(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake = _engine(fake_engine)
    seen: Seen = []
    before = _recorder(fake, seen, refuse_at=2)
    tools = BrowserTools(
        settings=fake_settings(fake, tmp_path), cwd=tmp_path, before_execute=before
    )
    code = """
      const first = await browser({ args: ['open', 'https://a.test/'] });
      const second = await browser({ args: ['open', 'https://a.test/two'] });
      emit({ first: first.success, second: second.failureCategory });
    """
    result = await tools.call("agent_browser_code", {"code": code}, tool_call_id="outer-1")
    assert result.details["data"] == {"first": True, "second": "policy-blocked"}, result.text
    assert [(i, c.tool, c.outer_tool) for i, c, _ in seen] == [
        ("outer-1", "agent_browser", "agent_browser_code"),
        ("outer-1", "agent_browser", "agent_browser_code"),
    ]
    assert _opens(fake) == 1  # the refused second open never reached the engine
    await tools.aclose()


async def test_advanced_tools_call_it_with_their_own_tool_name(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake = _engine(fake_engine)
    seen: Seen = []
    tools = BrowserTools(
        settings=fake_settings(fake, tmp_path), cwd=tmp_path, before_execute=_recorder(fake, seen)
    )
    await tools.call("agent_browser_tools", {"enable": ["action"]})
    result = await tools.call("agent_browser_action", {"action": "click", "selector": "#go"})
    assert seen and seen[0][1].tool == "agent_browser_action", result.text
    assert seen[0][1].outer_tool == "agent_browser_action"
    await tools.aclose()


async def test_cancelling_the_call_cancels_the_waiting_callback(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    fake = _engine(fake_engine)
    entered, cancelled = asyncio.Event(), asyncio.Event()

    async def before_execute(tool_call_id: str, ctx: DispatchContext) -> None:
        entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.set()
            raise

    tools = BrowserTools(
        settings=fake_settings(fake, tmp_path), cwd=tmp_path, before_execute=before_execute
    )
    task = asyncio.create_task(tools.call("agent_browser", {"args": ["open", URL]}))
    await asyncio.wait_for(entered.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cancelled.is_set() and _opens(fake) == 0
    await tools.aclose()


def test_sync_tools_take_a_sync_callback(fake_engine: FakeEngine, tmp_path: Path) -> None:
    fake = _engine(fake_engine)
    seen: list[tuple[str, str]] = []

    def before_execute(tool_call_id: str, ctx: DispatchContext) -> None:
        seen.append((tool_call_id, " ".join(ctx.args)))
        if "blocked" in ctx.args[-1]:
            raise PermissionError("not this URL")

    with SyncBrowserTools(
        settings=fake_settings(fake, tmp_path), cwd=tmp_path, before_execute=before_execute
    ) as tools:
        assert tools.tool_specs("anthropic")[0]["name"] == "agent_browser"
        ok = tools.call("agent_browser", {"args": ["open", URL]}, tool_call_id="s-1")
        assert not ok.is_error, ok.text
        refused = tools.call("agent_browser", {"args": ["open", "https://blocked.test/"]})
        assert refused.details["failureCategory"] == "policy-blocked"
        assert "not this URL" in refused.text
    assert seen[0] == ("s-1", f"open {URL}") and len(seen) == 2
    assert _opens(fake) == 1


async def test_a_veto_comes_before_the_wrappers_own_reads_and_folders(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """A vetoed ref click sends not even the ref re-read, and a vetoed screenshot creates no
    folder and takes no geometry sample: the host sees the call before anything happens."""
    fake = _engine(fake_engine)
    refs = {"e1": {"role": "button", "name": "Go"}}
    snapshot = {"origin": URL, "snapshot": '- button "Go" [ref=e1]', "refs": refs}
    fake.on({"command": ["snapshot", "-i"]}, envelope={"data": snapshot})
    veto = [False]

    def before_execute(tool_call_id: str, ctx: DispatchContext) -> None:
        if veto[0]:
            raise RuntimeError("paused by the operator")

    tools = BrowserTools(
        settings=fake_settings(fake, tmp_path), cwd=tmp_path, before_execute=before_execute
    )
    try:
        await tools.call("agent_browser", {"args": ["open", URL]})
        await tools.call("agent_browser", {"args": ["snapshot", "-i"]})
        veto[0] = True
        before = len(fake.calls())
        clicked = await tools.call("agent_browser", {"args": ["click", "@e1"]})
        shot = await tools.call("agent_browser", {"args": ["screenshot", "deep/new/x.png"]})
    finally:
        await tools.aclose()
    assert clicked.details["failureCategory"] == "policy-blocked"
    assert shot.details["failureCategory"] == "policy-blocked"
    assert fake.calls()[before:] == [] or all("close" in argv for argv in fake.argvs()[before:]), (
        fake.argvs()[before:]
    )
    assert not (tmp_path / "deep").exists()
