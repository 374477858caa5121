"""`agent_browser_code` bridge limits on the fake engine: IPC caps, floods, cancellation.

A worker that breaks a cap is killed (process group SIGKILL) and the cell fails with
`validation-error`; cancelling the calling task kills the worker, settles the active inner
call (journaled as target-unknown) and re-raises.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.sandbox.bridge import Limits, run_cell
from agent_browser_tools.state.models import SessionKey
from tests.fake.sandbox.test_sandbox import (  # noqa: F401  (autouse fixture)
    MANAGED,
    _fresh_engine_cache,
    cell,
    engine_calls,
    my_workers,
    runtime,
)
from tests.support.fake import FakeEngine


async def test_flooding_the_bridge_kills_the_worker(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    rt = runtime(fake_engine, tmp_path)
    result = await cell(rt, "for (;;) browser({ args: ['x'.repeat(1000)] })", timeoutMs=30_000)
    assert result.details["failureCategory"] == "validation-error"
    assert "IPC volume" in result.details["error"]


async def test_one_oversized_message_kills_the_worker(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    rt = runtime(fake_engine, tmp_path)
    result = await cell(rt, "await browser({ args: ['x'.repeat(2 * 1024 * 1024)] })")
    assert result.details["failureCategory"] == "validation-error"
    assert "worker message exceeded" in result.details["error"]
    assert engine_calls(fake_engine) == []


class _NullHost:
    async def call(self, call_id: int, request: Any, encode_error: str | None) -> dict[str, Any]:
        return {"success": True}

    def oversized(self, call_id: int, size: int, limit: int) -> dict[str, Any]:
        return {"success": False}

    def select_image(self, image_id: str, path: str) -> str | None:
        return "no"

    def undispatched(self, call_id: int, request: Any) -> None:
        return None


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


async def test_a_flooding_worker_process_is_killed(tmp_path: Path) -> None:
    """A worker that ignores the protocol and floods stdout is killed by the parent."""
    script = tmp_path / "flood.py"
    script.write_text(
        "import os, sys\nopen(sys.argv[1], 'w').write(str(os.getpid()))\n"
        'line = b\'{"type":"emit","value":0}\\n\'\n'
        "while True:\n    sys.stdout.buffer.write(line * 1000)\n"
    )
    pid_file = tmp_path / "pid"
    loop = asyncio.get_running_loop()
    outcome = await run_cell(
        "",
        _NullHost(),
        deadline=loop.time() + 20,
        limits=Limits(emit_bytes=10**9),
        argv=[sys.executable, str(script), str(pid_file)],
    )
    assert outcome.status == "violation"
    assert "IPC volume" in str(outcome.violation)
    assert not _alive(int(pid_file.read_text()))


async def test_cancellation_kills_the_worker_and_settles_the_inner_call(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    rt = runtime(fake_engine, tmp_path)
    fake_engine.on({"command": ["click"]}, hang=True)
    task = asyncio.create_task(cell(rt, "await browser({ args: ['click', '#slow'] })"))
    for _ in range(100):
        if any("click" in argv for argv in fake_engine.argvs()):
            break
        await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    state = rt.log.state
    assert state.pending_intents == {}
    assert state.session(SessionKey(session=MANAGED)).target_unknown
    assert my_workers() == []


async def test_deadline_during_an_inner_call_leaves_the_target_unknown(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    rt = runtime(fake_engine, tmp_path)
    fake_engine.on({"command": ["click"]}, hang=True)
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await cell(rt, "await browser({ args: ['click', '#slow'] }); return 1", timeoutMs=1500)
    assert loop.time() - started < 3.5
    assert result.details["failureCategory"] == "timeout"
    assert result.details["codeRun"]["timedOut"] is True
    assert rt.log.state.pending_intents == {}
    assert rt.log.state.session(SessionKey(session=MANAGED)).target_unknown
    actions = [a["id"] for a in result.details["nextActions"]]
    assert actions == ["verify-page-target-after-timeout"]
    assert "verify-page-target-after-timeout" in result.text
    assert my_workers() == []


async def test_an_internal_error_stops_the_cell_at_once(
    fake_engine: FakeEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_browser_tools.tools import agent_browser

    async def broken(rt: Any, params: Any) -> dict[str, Any]:
        raise RuntimeError("wrapper bug")

    monkeypatch.setattr(agent_browser, "run_observation", broken)
    rt = runtime(fake_engine, tmp_path)
    loop = asyncio.get_running_loop()
    started = loop.time()
    result = await cell(rt, "await browser({ args: ['get', 'url'] }); return 1", timeoutMs=60_000)
    assert loop.time() - started < 5
    assert result.details["failureCategory"] == "upstream-error"
    assert "wrapper bug" in result.details["error"]
    assert result.details["failures"][0]["failureCategory"] == "upstream-error"
    assert my_workers() == []


async def test_deeply_nested_output_is_refused(fake_engine: FakeEngine, tmp_path: Path) -> None:
    rt = runtime(fake_engine, tmp_path)
    for depth, needle in ((150, "nests deeper than 100"), (1500, "nests deeper than")):
        code = f"let a = []; for (let i = 0; i < {depth}; i++) a = [a]; emit(a)"
        result = await cell(rt, code)
        assert result.details["failureCategory"] == "validation-error", result.text
        assert needle in result.details["error"]
    nested = "let a = 1; for (let i = 0; i < 50; i++) a = [a]; return a"
    assert not (await cell(rt, nested)).is_error


async def test_shutdown_survives_a_host_call_that_absorbs_cancellation() -> None:
    """Regression: an inner call that turns cancellation into a failed observation used to
    leave the call server waiting for the next request forever, hanging the cell."""
    from agent_browser_tools.sandbox.bridge import _Cell

    class Absorbing(_NullHost):
        async def call(
            self, call_id: int, request: Any, encode_error: str | None
        ) -> dict[str, Any]:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                return {"success": False, "failureCategory": "aborted"}
            return {"success": True}

    cell = _Cell(Absorbing(), Limits())
    cell.server = asyncio.create_task(cell._serve())
    cell.queue.put_nowait((1, {"args": ["get", "url"]}, None))
    cell.queue.put_nowait((2, {"args": ["get", "url"]}, None))
    await asyncio.sleep(0.05)
    await asyncio.wait_for(cell.shutdown(), 5)
    assert cell.server.done()
    assert cell.out.undispatched == 1
