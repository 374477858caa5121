"""Artifact verification against engine claims the real engine cannot be made to fake."""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.api import BrowserTools
from tests.fake.tools.agent_browser.test_argv import _call, _tools
from tests.support.fake import FakeEngine


async def test_engine_success_naming_an_absent_file_fails_closed(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    absent = tmp_path / "never-written.png"
    tools: BrowserTools = _tools(fake_engine, tmp_path)  # resets the fake: script it after
    fake_engine.on({"command": ["screenshot"]}, envelope={"data": {"path": str(absent)}})
    result = await _call(tools, {"args": ["screenshot", str(absent)]})
    assert result.is_error
    assert result.details["failureCategory"] == "artifact-missing"
    assert result.details["artifactVerification"]["missingCount"] == 1
    assert "successCategory" not in result.details
    assert not result.images


async def test_engine_written_file_is_verified(fake_engine: FakeEngine, tmp_path: Path) -> None:
    target = tmp_path / "report.pdf"
    tools = _tools(fake_engine, tmp_path)
    fake_engine.on(
        {"command": ["pdf"]}, envelope={"data": {"path": str(target)}}, touch_file=str(target)
    )
    result = await _call(tools, {"args": ["pdf", str(target)]})
    assert result.details["successCategory"] == "artifact-saved", result.text
    entry = result.details["artifacts"][0]
    assert entry["state"] == "verified" and entry["kind"] == "pdf"


async def test_recording_is_pending_until_stop(fake_engine: FakeEngine, tmp_path: Path) -> None:
    video = tmp_path / "take.webm"
    tools = _tools(fake_engine, tmp_path)
    fake_engine.on({"command": ["record", "start"]}, envelope={"data": {"path": str(video)}})
    result = await _call(tools, {"args": ["record", "start", str(video)]})
    assert result.details["successCategory"] == "artifact-pending", result.text
    assert result.details["artifactVerification"]["pendingCount"] == 1
    ids = [action["id"] for action in result.details["nextActions"]]
    assert "stop-pending-recording" in ids


async def test_duplicate_destinations_in_one_batch_are_rejected_before_dispatch(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    shot = str(tmp_path / "a.png")
    alias = str(tmp_path / "." / "a.png")
    stdin = f'[["screenshot", "{shot}"], ["screenshot", "{alias}"]]'
    result = await _call(tools, {"args": ["batch", "--bail"], "stdin": stdin})
    assert result.details["failureCategory"] == "validation-error"
    assert "same file" in result.text
    assert fake_engine.calls() == []


async def test_a_dialog_like_timeout_offers_dialog_recovery(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    fake_engine.on({"command": ["eval"]}, hang=True)
    slow = await _call(tools, {"args": ["eval", "--stdin"], "stdin": "alert('hi')"})
    ids = [action["id"] for action in slow.details["nextActions"]]
    assert slow.details["failureCategory"] == "timeout"
    assert slow.details["timedOut"] is True and slow.details["timeoutMs"] == 8_000
    assert "inspect-dialog-after-timeout" in ids and "dismiss-dialog-after-timeout" in ids
    assert "verify-page-target-after-timeout" in ids, "the eval may have changed the page"


async def test_headed_fresh_launch_hands_off_without_claiming_visibility(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    lifecycle = {"launched": True, "effectiveLaunch": {"browserLaunched": True}}
    fake_engine.on(
        {"command": ["open"]}, envelope={"data": {"url": "https://a.test/", "lifecycle": lifecycle}}
    )
    result = await _call(
        tools, {"args": ["--headed", "open", "https://a.test/"], "sessionMode": "fresh"}
    )
    window = result.details["browserWindow"]
    assert window == {
        "mode": "headed",
        "ownership": "wrapper-managed",
        "sessionName": result.details["sessionName"],
        "visibility": "unverified",
    }
    assert "complete the login there" in result.text
    plain = await _call(tools, {"args": ["open", "https://a.test/"]})
    assert "browserWindow" not in plain.details


async def test_parent_dirs_of_a_requested_artifact_exist_before_the_engine_runs(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    nested = tmp_path / "evidence" / "run1"
    # The fake writes the file only if its dir already exists, as the engine does.
    fake_engine.on(
        {"command": ["screenshot"]},
        envelope={"data": {"path": str(nested / "shot.png")}},
        touch_file=str(nested / "shot.png"),
    )
    result = await _call(tools, {"args": ["screenshot", "evidence/run1/shot.png"]})
    assert result.details["successCategory"] == "artifact-saved", result.text
    assert nested.is_dir()


async def test_an_artifact_dir_that_cannot_be_made_fails_before_dispatch(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    (tmp_path / "taken").write_text("a file where a dir should be")
    args = ["screenshot", "taken/run1/shot.png"]
    result = await _call(tools, {"args": args})
    assert result.details["failureCategory"] == "validation-error", result.text
    assert result.details["agentBrowserStarted"] is False
    assert str(tmp_path / "taken" / "run1") in result.text
    (action,) = result.details["nextActions"]
    assert action["id"] == "verify-artifact-path" and action["params"] == {"args": args}
    assert fake_engine.calls() == [], "nothing reached the engine"


PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5b0000000049454e44ae426082"
)


async def test_a_diff_image_is_verified_but_not_sent_inline(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Only a plain screenshot is a view of the page; a diff picture stays evidence on disk."""
    tools = _tools(fake_engine, tmp_path)
    diff = tmp_path / "diff.png"
    fake_engine.on(
        {"command": ["diff", "screenshot"]},
        envelope={"data": {"diffPath": str(diff), "match": False}},
    )
    diff.write_bytes(PNG_1X1)  # a real PNG, written within the call's verification window
    result = await _call(
        tools, {"args": ["diff", "screenshot", "--baseline", "base.png", "--output", "diff.png"]}
    )
    assert result.details["artifacts"][0]["state"] == "verified", result.text
    assert result.details["imageObservations"][0]["pixels"] == {"width": 1, "height": 1}
    assert not result.images, "no inline image for a diff"
    assert result.details["command"] == "diff screenshot"


async def test_a_differing_diff_whose_image_is_missing_still_fails_closed(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """Only the engine's own `match: true` excuses the missing file; a difference that names
    an image it did not write is `artifact-missing`, as every other artifact."""
    tools = _tools(fake_engine, tmp_path)
    answer = {"diffPath": str(tmp_path / "diff.png"), "match": False, "differentPixels": 7}
    fake_engine.on({"command": ["diff", "screenshot"]}, envelope={"data": answer})
    result = await _call(
        tools, {"args": ["diff", "screenshot", "--baseline", "base.png", "--output", "diff.png"]}
    )
    assert result.details["failureCategory"] == "artifact-missing", result.text
    assert result.is_error


async def test_a_matching_diff_claims_no_image_even_where_a_file_is_there(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """A file at the `--output` path that the engine did not write (left from before) is not
    evidence of this comparison: a match claims no image."""
    tools = _tools(fake_engine, tmp_path)
    (tmp_path / "diff.png").write_bytes(PNG_1X1)
    answer = {"diffPath": str(tmp_path / "diff.png"), "match": True, "differentPixels": 0}
    answer["dimensionMismatch"] = None
    fake_engine.on({"command": ["diff", "screenshot"]}, envelope={"data": answer})
    result = await _call(
        tools, {"args": ["diff", "screenshot", "--baseline", "base.png", "--output", "diff.png"]}
    )
    assert not result.is_error, result.text
    assert "artifacts" not in result.details
    assert result.details["data"]["diffPath"] is None
    assert "Screenshots match: 0 pixels differ" in result.text


async def test_a_contradictory_match_is_verified_like_any_other_diff(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """`match: true` with differing pixels is not the engine's matched answer: the image it
    names is checked on disk, and missing fails closed."""
    tools = _tools(fake_engine, tmp_path)
    answer = {"diffPath": str(tmp_path / "diff.png"), "match": True, "differentPixels": 7}
    answer["dimensionMismatch"] = None
    fake_engine.on({"command": ["diff", "screenshot"]}, envelope={"data": answer})
    result = await _call(
        tools, {"args": ["diff", "screenshot", "--baseline", "base.png", "--output", "diff.png"]}
    )
    assert result.details["failureCategory"] == "artifact-missing", result.text


WEBM_HEAD = b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm" + b"\0" * 16


async def test_a_contact_sheet_is_pending_while_recording_and_verified_evidence_after_stop(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """On the fake engine: video recording needs ffmpeg, which this machine lacks (the real
    engine refuses `record start` without it), so the engine's receipts are scripted. The
    contact sheet is an image artifact: pending while recording, checked on disk after stop,
    described in imageObservations but not sent inline (only plain screenshots are)."""
    tools = _tools(fake_engine, tmp_path)
    video, sheet = tmp_path / "take.webm", tmp_path / "take-sheet.png"
    receipt = {"path": str(video), "contactSheetPath": str(sheet)}
    fake_engine.on({"command": ["record", "start"]}, envelope={"data": receipt})
    started = await _call(tools, {"args": ["record", "start", "take.webm", "--contact-sheet"]})
    assert started.details["successCategory"] == "artifact-pending", started.text
    pending = {e["kind"]: e for e in started.details["artifacts"]}
    assert pending["contact-sheet"]["state"] == "pending"
    assert pending["contact-sheet"]["willExistOnStop"] is True
    assert started.details["artifactVerification"]["pendingCount"] == 2
    fake_engine.on({"command": ["record", "stop"]}, envelope={"data": receipt})
    video.write_bytes(WEBM_HEAD)
    sheet.write_bytes(PNG_1X1)
    stopped = await _call(tools, {"args": ["record", "stop"]})
    assert stopped.details["successCategory"] == "artifact-saved", stopped.text
    saved = {e["kind"]: e for e in stopped.details["artifacts"]}
    assert saved["contact-sheet"]["state"] == "verified"
    assert saved["contact-sheet"]["mediaType"] == "image/png"
    assert saved["video"]["mediaType"] == "video/webm"
    (observation,) = stopped.details["imageObservations"]
    assert observation["path"] == str(sheet) and observation["capture"] == "unknown"
    assert not stopped.images and "imagePath" not in stopped.details
    assert "Saved contact sheet: " + str(sheet) in stopped.text


async def test_a_screenshot_the_engine_put_in_its_temp_dir_is_repaired_to_the_asked_path(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The engine answered with its own temp file instead of the requested path."""
    tools = _tools(fake_engine, tmp_path)
    temp = tmp_path / "engine-tmp" / "screenshot-1.png"
    temp.parent.mkdir()
    fake_engine.on({"command": ["screenshot"]}, envelope={"data": {"path": str(temp)}})
    temp.write_bytes(PNG_1X1)
    result = await _call(tools, {"args": ["screenshot", "evidence/shot.png"]})
    (entry,) = result.details["artifacts"]
    wanted = tmp_path / "evidence" / "shot.png"
    assert entry["path"] == str(wanted) and entry["tempPath"] == str(temp), result.text
    assert entry["status"] == "repaired-from-temp" and wanted.read_bytes() == PNG_1X1
    assert result.details["imagePath"] == str(wanted)
    assert f"Reported path: {temp}" in result.text


async def test_a_missing_file_gets_an_artifact_path_action(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    absent = tmp_path / "report.pdf"
    tools = _tools(fake_engine, tmp_path)
    fake_engine.on({"command": ["pdf"]}, envelope={"data": {"path": str(absent)}})
    result = await _call(tools, {"args": ["pdf", str(absent)]})
    assert result.details["failureCategory"] == "artifact-missing"
    (action,) = [a for a in result.details["nextActions"] if a["id"] == "verify-artifact-path"]
    assert action["artifactPath"] == str(absent) and "params" not in action
    assert result.details["savedFilePath"] == str(absent), "a reported path is still named"
    assert result.details["artifactManifest"]["entries"][0]["retentionState"] == "missing"
