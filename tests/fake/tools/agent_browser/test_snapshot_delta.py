"""A native `snapshot --delta` partial answer whose complete-refs read fails (fake engine:
the real engine cannot be made to fail only that read)."""

from __future__ import annotations

from pathlib import Path

from tests.fake.tools.agent_browser.test_argv import PAGE, _call, _tools
from tests.support.fake import FakeEngine

REFS = {"e1": {"role": "button", "name": "Go"}}


async def test_failed_complete_refs_read_drops_refs_instead_of_recording_an_empty_page(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    fake_engine.on(
        {"contains": ["snapshot", "--delta"]},
        times=1,
        envelope={
            "data": {
                "origin": PAGE,
                "snapshot": {
                    "kind": "full",
                    "revision": 1,
                    "tree": '- button "Go" [ref=e1]',
                    "refs": REFS,
                },
            }
        },
    )
    full = await _call(tools, {"args": ["snapshot", "-i", "--delta"]})
    assert not full.is_error, full.text
    assert '- button "Go" [ref=e1]' in full.text and "Snapshot: 1 refs" in full.text
    assert full.details["refSnapshot"]["refs"] == REFS

    fake_engine.reset()
    fake_engine.on(
        {"contains": ["snapshot", "--delta"]},
        envelope={
            "data": {
                "origin": PAGE,
                "snapshot": {"kind": "unchanged", "revision": 2, "baseRevision": 1},
            }
        },
    )
    fake_engine.on(
        {"command": ["snapshot"]},
        envelope={"success": False, "data": None, "error": "Browser not responding"},
    )
    partial = await _call(tools, {"args": ["snapshot", "-i", "--delta"]})
    assert "Snapshot delta: unchanged (revision 2 against base revision 1)." in partial.text
    assert partial.details["snapshotDeltaRefs"]["status"] == "failed"
    assert "complete-refs read failed" in partial.text
    read = fake_engine.argvs()[-1]
    assert read[-2:] == ["snapshot", "-i"] and "--delta" not in read

    fake_engine.reset()
    click = await _call(tools, {"args": ["click", "@e1"]})
    assert click.is_error and click.details["failureCategory"] == "stale-ref"
    assert "complete-refs read failed" in click.text
    assert fake_engine.calls() == []


async def test_batch_ending_in_a_partial_delta_reads_complete_refs_after_the_batch(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    rows = [
        {
            "command": ["snapshot", "-i", "--delta"],
            "success": True,
            "result": {
                "origin": PAGE,
                "snapshot": {"kind": "unchanged", "revision": 4, "baseRevision": 3},
            },
            "error": None,
        }
    ]
    fake_engine.on({"command": ["batch"]}, json=rows)
    fake_engine.on(
        {"command": ["snapshot"]},
        envelope={"data": {"origin": PAGE, "snapshot": '- button "Go" [ref=e1]', "refs": REFS}},
    )
    stdin = '[["snapshot", "-i", "--delta"]]'
    result = await _call(tools, {"args": ["batch"], "stdin": stdin})
    assert not result.is_error, result.text
    assert "Snapshot delta: unchanged (revision 4 against base revision 3)." in result.text
    assert "Complete refs: 1 read" in result.text
    assert result.details["refSnapshot"]["refs"] == REFS
    argvs = fake_engine.argvs()
    assert argvs[-1][-2:] == ["snapshot", "--interactive"], "the read runs after the batch"


async def test_no_complete_refs_read_when_a_later_batch_step_may_have_changed_the_page(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Refs read after the batch would describe a page the model never saw."""
    tools = _tools(fake_engine, tmp_path)
    partial = {"origin": PAGE, "snapshot": {"kind": "unchanged", "revision": 4, "baseRevision": 3}}
    rows = [
        {"command": ["snapshot", "-i", "--delta"], "success": True, "result": partial},
        {"command": ["click", "#go"], "success": True, "result": {"clicked": "#go"}},
    ]
    fake_engine.on({"command": ["batch"]}, json=[{**r, "error": None} for r in rows])
    stdin = '[["snapshot", "-i", "--delta"], ["click", "#go"]]'
    result = await _call(tools, {"args": ["batch"], "stdin": stdin})
    assert "snapshotDeltaRefs" not in result.details and "Complete refs" not in result.text
    spawned = fake_engine.argvs()
    assert not any(argv[-2:] == ["snapshot", "--interactive"] for argv in spawned)
