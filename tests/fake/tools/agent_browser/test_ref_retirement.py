"""Commands that retire refs on every attempt (recording, WebMCP calls), on the fake engine:
exact journal effects for outcomes the real engine cannot be made to give on demand (a WebMCP
tool on a page, a batch whose snapshot follows the recording)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fake.tools.agent_browser.test_argv import PAGE, _call, _open_rule, _tools
from tests.support.fake import FakeEngine

REFS = {"e1": {"role": "button", "name": "Go"}}
SNAPSHOT = {"data": {"origin": PAGE, "snapshot": '- button "Go" [ref=e1]', "refs": REFS}}


async def test_a_webmcp_invoke_retires_refs_even_when_it_fails(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "retire-webmcp")
    _open_rule(fake_engine)
    fake_engine.on({"command": ["snapshot"]}, envelope=SNAPSHOT)
    fake_engine.on({"command": ["webmcp", "invoke"]}, envelope={"error": "tool threw"})
    await _call(tools, {"args": ["open", PAGE]})
    await _call(tools, {"args": ["snapshot", "-i"]})
    invoked = await _call(tools, {"args": ["webmcp", "invoke", "save"]})
    assert invoked.is_error
    assert any(w.startswith("Page state:") for w in invoked.details["warnings"])
    click = await _call(tools, {"args": ["click", "@e1"]})
    assert click.details["failureCategory"] == "stale-ref", click.text
    await tools.aclose()


async def test_a_snapshot_after_the_recording_in_one_batch_keeps_its_refs(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "retire-batch")
    _open_rule(fake_engine)
    record = {"command": ["record", "start", "t.webm"], "success": True, "result": {}}
    snap = {"command": ["snapshot", "-i"], "success": True, "result": SNAPSHOT["data"]}
    # The recording is a slow step: it runs as its own engine call, the snapshot as the next.
    fake_engine.on({"command": ["batch"]}, json=[{**record, "error": None}], times=1)
    fake_engine.on({"command": ["batch"]}, json=[{**snap, "error": None}], times=1)
    await _call(tools, {"args": ["open", PAGE]})
    stdin = json.dumps([["record", "start", "t.webm"], ["snapshot", "-i"]])
    batch = await _call(tools, {"args": ["batch"], "stdin": stdin})
    assert any(w.startswith("Page state:") for w in batch.details["warnings"]), batch.text
    entry = next(iter(tools.runtime.log.state.sessions.values()))
    assert entry.ref_snapshot is not None and "e1" in entry.ref_snapshot.refs
    assert len(batch.details["batchSteps"]) == 2
    assert sum(1 for argv in fake_engine.argvs() if "batch" in argv) == 2
    await tools.aclose()
