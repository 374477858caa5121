"""Recording lifecycles on the scripted fake engine.

Honest limit: this machine has no ffmpeg and engine 0.39.4 refuses `record start` without it
(see `tests/real/tools/agent_browser/test_recording_real.py`), so no real take can start here.
The fake answers with the engine's own shapes (read from its recording handler: start ->
`{started, path}`, restart -> `{restarted: true, previousPath, path}`, stop -> `{path, frames}`
or the error `No recording in progress`), and the tests write the files a real take would.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_browser_tools.api import BrowserTools
from tests.fake.tools.agent_browser.test_argv import PAGE, _call, _open_rule, _settings, _tools
from tests.support.fake import FakeEngine


def _start_rule(fake: FakeEngine, path: Path, sheet: Path | None = None) -> None:
    data: dict[str, object] = {"started": True, "path": str(path)}
    if sheet is not None:
        data["contactSheetPath"] = str(sheet)
    fake.on({"command": ["record", "start"]}, envelope={"data": data}, times=1)


def _ids(result: object) -> list[str]:
    details = getattr(result, "details", {})
    return [a["id"] for a in details.get("nextActions", [])]


async def _recording(fake: FakeEngine, tmp_path: Path, name: str) -> tuple[BrowserTools, Path]:
    tools = _tools(fake, tmp_path, name)
    video = tmp_path / f"{name}.webm"
    _open_rule(fake)
    _start_rule(fake, video, tmp_path / f"{name}-sheet.png")
    await _call(tools, {"args": ["open", PAGE]})
    started = await _call(tools, {"args": ["record", "start", str(video), "--contact-sheet"]})
    assert started.details["successCategory"] == "artifact-pending", started.text
    return tools, video


async def test_the_reservation_survives_a_restart_of_the_server(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Journaled: a resumed conversation still refuses the reserved destination (video and its
    contact sheet) before dispatch, and a later failure offers the exact stop."""
    tools, video = await _recording(fake_engine, tmp_path, "rec-resume")
    tools.close_on_exit = False
    await tools.aclose()
    resumed = BrowserTools(
        settings=_settings(fake_engine, tmp_path), conversation_id="rec-resume", cwd=tmp_path
    )
    fake_engine.reset()
    for path in (video, tmp_path / "rec-resume-sheet.png"):
        shot = await _call(resumed, {"args": ["screenshot", str(path)]})
        assert shot.details["failureCategory"] == "validation-error", shot.text
        assert "reserved until `record stop`" in shot.text
    assert fake_engine.calls() == [], "refused before anything reached the engine"
    fake_engine.on({"command": ["click"]}, envelope={"error": "Element not found: #x"})
    failed = await _call(resumed, {"args": ["click", "#x"]})
    assert "stop-pending-recording" in _ids(failed), failed.text
    assert "recordingPersistenceWarning" not in failed.details, "the journal is durable"
    await resumed.aclose()


async def test_in_memory_state_warns_that_the_reservation_is_not_durable(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = BrowserTools(settings=_settings(fake_engine, tmp_path), cwd=tmp_path, persist=False)
    fake_engine.reset()
    _start_rule(fake_engine, tmp_path / "mem.webm")
    started = await _call(tools, {"args": ["record", "start", str(tmp_path / "mem.webm")]})
    assert "server restarts" in started.details["recordingPersistenceWarning"]
    assert any("server restarts" in w for w in started.details["warnings"])
    await tools.aclose()


async def test_restart_confirmed_by_the_engine_finalizes_the_prior_take(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """`restarted: true`: the prior video is checked on disk (verified: the fake wrote it
    during the call), its contact sheet is kept but unverified, the new take is pending."""
    tools, video = await _recording(fake_engine, tmp_path, "rec-restart")
    sheet = tmp_path / "rec-restart-sheet.png"
    sheet.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    take2 = tmp_path / "take2.webm"
    answer = {"restarted": True, "previousPath": str(video), "path": str(take2)}
    fake_engine.on(
        {"command": ["record", "restart"]}, envelope={"data": answer}, touch_file=str(video)
    )
    restarted = await _call(tools, {"args": ["record", "restart", str(take2)]})
    assert not restarted.is_error, restarted.text
    rows = {(e["path"], e.get("subcommand")): e for e in restarted.details["artifacts"]}
    assert rows[(str(video), "restart-finalized")]["state"] == "verified"
    kept = rows[(str(sheet), "restart-kept")]
    assert kept["state"] == "unverified" and "no terminal evidence" in kept["limitation"]
    assert rows[(str(take2), None)]["state"] == "pending"
    entry = next(iter(tools.runtime.log.state.sessions.values()))
    assert entry.recording is not None and entry.recording.path == str(take2)
    await tools.aclose()


async def test_a_restart_without_the_engines_confirmation_keeps_the_prior_take(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools, video = await _recording(fake_engine, tmp_path, "rec-unconfirmed")
    take2 = tmp_path / "take2.webm"
    fake_engine.on({"command": ["record", "restart"]}, envelope={"data": {"path": str(take2)}})
    await _call(tools, {"args": ["record", "restart", str(take2)]})
    entry = next(iter(tools.runtime.log.state.sessions.values()))
    assert entry.recording is not None and entry.recording.path == str(video)
    fake_engine.on({"command": ["record", "restart"]}, envelope={"error": "Recording failed"})
    failed = await _call(tools, {"args": ["record", "restart", str(tmp_path / "t3.webm")]})
    assert "stop-pending-recording" in _ids(failed), "a rejected restart keeps the stop"
    await tools.aclose()


async def test_a_stop_with_no_recording_in_progress_retires_without_inventing_a_miss(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The file of the earlier take exists: it stays unverified, never `missing`; the
    reservation is retired, so later failures no longer offer a stop."""
    tools, video = await _recording(fake_engine, tmp_path, "rec-none")
    video.write_bytes(b"\x1a\x45\xdf\xa3" + b"\0" * 64)
    fake_engine.on({"command": ["record", "stop"]}, envelope={"error": "No recording in progress"})
    stopped = await _call(tools, {"args": ["record", "stop"]})
    assert stopped.details["failureCategory"] != "artifact-missing", stopped.text
    (row,) = stopped.details["artifacts"]
    assert row["subcommand"] == "not-in-progress" and row["state"] == "unverified"
    assert row["exists"] is True
    fake_engine.on({"command": ["click"]}, envelope={"error": "Element not found: #x"})
    later = await _call(tools, {"args": ["click", "#x"]})
    assert "stop-pending-recording" not in _ids(later)
    await tools.aclose()


async def test_a_successful_stop_coalesces_the_reserved_path(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """A stop answer without a path still verifies the reserved file."""
    tools, video = await _recording(fake_engine, tmp_path, "rec-stop")
    fake_engine.on(
        {"command": ["record", "stop"]}, envelope={"data": {"frames": 12}}, touch_file=str(video)
    )
    stopped = await _call(tools, {"args": ["record", "stop"]})
    paths = {e["path"]: e["state"] for e in stopped.details["artifacts"]}
    assert paths[str(video)] == "verified", stopped.text
    await tools.aclose()


async def test_close_abandons_the_take_and_later_failures_stop_offering_a_stop(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools, video = await _recording(fake_engine, tmp_path, "rec-close")
    fake_engine.on({"command": ["close"]}, envelope={"data": {"closed": True}})
    closed = await _call(tools, {"args": ["close"]})
    rows = [e for e in closed.details["artifacts"] if e["kind"] == "video"]
    assert rows[0]["subcommand"] == "close-abandoned" and rows[0]["state"] == "missing"
    assert rows[0]["path"] == str(video), "only a confirmed absent file is missing"
    assert not closed.is_error, "an abandoned take does not fail the close"
    assert "stop-pending-recording" not in _ids(closed)
    await tools.aclose()


async def test_a_take_whose_browser_is_gone_offers_close_pending_recording(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The wrapper closed the browser (conversation end) with the take pending: a stop is
    impossible, so failures offer the close that retires it, with the cleanup-only reason."""
    tools, _ = await _recording(fake_engine, tmp_path, "rec-gone")
    await tools.aclose()  # the wrapper's own close: the browser is gone, the take remembered
    resumed = BrowserTools(
        settings=_settings(fake_engine, tmp_path), conversation_id="rec-gone", cwd=tmp_path
    )
    fake_engine.on({"command": ["get", "url"]}, envelope={"error": "Browser not launched"})
    failed = await _call(resumed, {"args": ["get", "url"]})
    assert failed.is_error, failed.text
    assert failed.details.get("managedSessionCleanupOnlyReason") == "recording-browser-gone", (
        failed.text
    )
    ids = _ids(failed)
    assert "close-pending-recording" in ids and "stop-pending-recording" not in ids
    (close,) = [a for a in failed.details["nextActions"] if a["id"] == "close-pending-recording"]
    fake_engine.on({"command": ["close"]}, envelope={"data": {"closed": True}})
    closed = await resumed.call("agent_browser", close["params"])
    assert closed.details["artifacts"][0]["subcommand"] == "close-abandoned", closed.text
    entry = next(iter(resumed.runtime.log.state.sessions.values()))
    assert entry.recording is None
    await resumed.aclose()


async def test_a_batch_may_not_start_a_recording_after_a_close_row(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "rec-batch")
    rows = [["close"], ["record", "start", str(tmp_path / "b.webm")]]
    refused = await _call(tools, {"args": ["batch"], "stdin": json.dumps(rows)})
    assert refused.details["failureCategory"] == "validation-error", refused.text
    assert "follows the close in step 1" in refused.text
    assert fake_engine.calls() == []
    await tools.aclose()


async def test_recording_results_export_a_receipt_even_when_they_fail(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The receipt records the failed attempt; saving it does not make the call succeed."""
    tools = _tools(fake_engine, tmp_path, "rec-receipt")
    fake_engine.on(
        {"command": ["record", "start"]}, envelope={"error": "ffmpeg not found"}, times=1
    )
    receipt = tmp_path / "receipt.json"
    failed = await _call(
        tools,
        {"args": ["record", "start", str(tmp_path / "r.webm")], "outputPath": str(receipt)},
    )
    assert failed.is_error and failed.details["outputFile"]["source"] == "recording-receipt"
    saved = json.loads(receipt.read_text())
    assert saved["source"] == "recording-receipt" and saved["success"] is False
    assert saved["attempt"]["error"] == "ffmpeg not found"
    assert (saved["command"], saved["subcommand"]) == ("record", "start")
    assert saved["artifacts"] == [], "no artifact is invented for a failed start"
    _start_rule(fake_engine, tmp_path / "r.webm")
    pending = await _call(
        tools,
        {"args": ["record", "start", str(tmp_path / "r.webm")], "outputPath": str(receipt)},
    )
    saved = json.loads(receipt.read_text())
    assert pending.details.get("successCategory") == "artifact-pending", pending.text
    assert saved["artifactVerification"]["pendingCount"] == 1
    await tools.aclose()


async def test_a_later_batch_step_failing_while_a_take_is_pending_offers_the_stop(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "rec-batch-fail")
    video = str(tmp_path / "b.webm")
    start = {"command": ["record", "start", video], "success": True, "result": {"path": video}}
    click = {"command": ["click", "#x"], "success": False, "result": None}
    # The recording is a slow step: it runs as its own engine call, the click as the next.
    fake_engine.on({"command": ["batch"]}, json=[{**start, "error": None}], times=1)
    fake_engine.on({"command": ["batch"]}, json=[{**click, "error": "Element not found"}])
    rows = [["record", "start", video], ["click", "#x"]]
    failed = await _call(tools, {"args": ["batch", "--bail"], "stdin": json.dumps(rows)})
    assert failed.is_error, failed.text
    (stop,) = [a for a in failed.details["nextActions"] if a["id"] == "stop-pending-recording"]
    assert stop["params"]["args"] == ["record", "stop"]
    await tools.aclose()


async def test_a_timed_out_start_still_exports_its_receipt(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "rec-timeout")
    fake_engine.on({"command": ["record", "start"]}, hang=True)
    receipt = tmp_path / "timeout-receipt.json"
    params = {"args": ["record", "start", str(tmp_path / "t.webm")], "timeoutMs": 1_000}
    slow = await _call(tools, {**params, "outputPath": str(receipt)})
    assert slow.details["failureCategory"] == "timeout", slow.text
    saved = json.loads(receipt.read_text())
    assert saved["attempt"]["timedOut"] is True and saved["success"] is False
    await tools.aclose()
