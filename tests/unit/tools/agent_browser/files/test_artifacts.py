"""`artifacts.preflight` (aliased destinations refused before dispatch) and `artifacts.attach`
(categories, inline images) over entries verified from the captured `screenshot`/`download`
answers, with the capture's `<TMP>` placeholder pointed at this test's directory."""

from __future__ import annotations

import base64
import os
import struct
import time
import zlib
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.engine.envelope import Envelope, OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.tools.agent_browser.files.artifacts import attach, preflight, verify
from agent_browser_tools.tools.agent_browser.observe import observe
from tests.support.envelopes import envelope, raw_outcome
from tests.support.plans import FORM, managed, page, plan

STATE = managed(page(FORM, refs_from=FORM))
INLINE_MAX = 1_000_000


def _png(width: int, height: int) -> bytes:
    """The smallest PNG header `image_dimensions` reads: signature, IHDR, IEND."""

    def chunk(kind: bytes, payload: bytes) -> bytes:
        body = kind + payload
        return struct.pack(">I", len(payload)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


def _attach(
    call: ExecutionPlan, answer: Envelope, cwd: Path, inline_max: int = INLINE_MAX
) -> tuple[Observation, list[Any]]:
    """Observe, verify on disk as the executor does, then attach."""
    obs = observe(call, answer)
    entries = verify(call, answer, raw_outcome(), cwd)
    return obs, list(attach(call, obs, entries, inline_max))


def _screenshot(tmp_path: Path, *flags: str) -> tuple[ExecutionPlan, Envelope]:
    shot = str(tmp_path / "shot.png")
    return plan(["screenshot", *flags, shot], STATE), envelope("screenshot", tmp=tmp_path)


# --- preflight ------------------------------------------------------------------------------


def test_distinct_destinations_pass(tmp_path: Path) -> None:
    shot = plan(["screenshot", "shot.png"], STATE)
    assert preflight(shot, tmp_path, None) is None
    assert preflight(shot, tmp_path, "result.json") is None


@pytest.mark.parametrize("output", ["shot.png", "./sub/../shot.png", "@shot.png"])
def test_an_output_path_aliasing_the_screenshot_is_refused(tmp_path: Path, output: str) -> None:
    """One file cannot verify two artifacts: the later write would satisfy both checks."""
    message = preflight(plan(["screenshot", "shot.png"], STATE), tmp_path, output)
    assert message is not None
    assert message.startswith(f"outputPath ({tmp_path}/")
    assert "and `screenshot` (shot.png) resolve to the same file" in message


def test_an_empty_output_path_is_refused(tmp_path: Path) -> None:
    message = preflight(plan(["get", "url"], STATE), tmp_path, "@")
    assert message == "outputPath is empty; give a file path such as logs/result.json."


def test_two_batch_steps_writing_one_file_are_refused_by_step(tmp_path: Path) -> None:
    batch = plan(["batch"], STATE, rows=[["screenshot", "a.png"], ["screenshot", "./a.png"]])
    message = preflight(batch, tmp_path, None)
    assert message is not None
    assert message.startswith("step 2 `screenshot` (./a.png) and step 1 `screenshot` (a.png)")
    other = plan(["batch"], STATE, rows=[["screenshot", "a.png"], ["pdf", "b.pdf"]])
    assert preflight(other, tmp_path, None) is None


# --- attach ---------------------------------------------------------------------------------


def test_no_entries_leave_the_observation_alone(tmp_path: Path) -> None:
    call = plan(["get", "text", "h1"], STATE)
    obs, blocks = _attach(call, envelope("get_text"), tmp_path)
    assert blocks == [] and "artifacts" not in obs.extra and "imageObservations" not in obs.extra
    assert obs.success_category is SuccessCategory.COMPLETED


def test_a_verified_screenshot_is_saved_and_shown_inline(tmp_path: Path) -> None:
    data = _png(3, 2)
    (tmp_path / "shot.png").write_bytes(data)
    obs, blocks = _attach(*_screenshot(tmp_path), tmp_path)
    assert obs.success and obs.success_category is SuccessCategory.ARTIFACT_SAVED
    (block,) = blocks
    assert block.mime_type == "image/png" and block.path == str(tmp_path / "shot.png")
    assert base64.b64decode(block.data) == data
    assert obs.extra["artifactVerification"]["verifiedCount"] == 1
    (image,) = obs.extra["imageObservations"]
    assert image["pixels"] == {"width": 3, "height": 2}
    assert image["capture"] == "viewport"


def test_an_image_over_the_inline_limit_is_described_but_not_inlined(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(_png(3, 2))
    obs, blocks = _attach(*_screenshot(tmp_path), tmp_path, inline_max=10)
    assert blocks == []
    assert obs.success_category is SuccessCategory.ARTIFACT_SAVED
    assert len(obs.extra["imageObservations"]) == 1


@pytest.mark.parametrize(("flags", "capture"), [(("--full",), "full-page"), (("@e13",), "element")])
def test_the_capture_kind_follows_the_screenshot_argv(
    tmp_path: Path, flags: tuple[str, ...], capture: str
) -> None:
    (tmp_path / "shot.png").write_bytes(_png(4, 4))
    obs, _ = _attach(*_screenshot(tmp_path, *flags), tmp_path)
    assert obs.extra["imageObservations"][0]["capture"] == capture


def test_a_reported_file_missing_on_disk_fails_closed(tmp_path: Path) -> None:
    """The engine said success; without the file that would be a false success."""
    obs, blocks = _attach(*_screenshot(tmp_path), tmp_path)
    assert blocks == []
    assert not obs.success and obs.success_category is None
    assert obs.failure_category is FailureCategory.ARTIFACT_MISSING
    assert obs.error == (
        f"agent-browser reported success but the artifact is not on disk: {tmp_path / 'shot.png'}"
    )


def test_a_stale_file_is_unverified_and_not_shown(tmp_path: Path) -> None:
    """An older file at the path says nothing about what this command wrote."""
    path = tmp_path / "shot.png"
    path.write_bytes(_png(3, 2))
    old = time.time() - 3600
    os.utime(path, (old, old))
    obs, blocks = _attach(*_screenshot(tmp_path), tmp_path)
    assert obs.success and obs.success_category is SuccessCategory.ARTIFACT_UNVERIFIED
    assert blocks == [] and "imageObservations" not in obs.extra


def test_a_verified_download_is_saved_without_an_image(tmp_path: Path) -> None:
    (tmp_path / "report.txt").write_text("quarterly report\n", encoding="utf-8")
    call = plan(["download", "a[download]", str(tmp_path / "report.txt")], STATE)
    obs, blocks = _attach(call, envelope("download", tmp=tmp_path), tmp_path)
    assert obs.success_category is SuccessCategory.ARTIFACT_SAVED
    assert blocks == [] and "imageObservations" not in obs.extra
    assert obs.extra["artifacts"][0]["kind"] == "download"


@pytest.mark.parametrize("prefix", [[], ["--session", "mine"]], ids=["managed", "explicit-session"])
def test_a_pending_recording_asks_to_stop_it_in_the_same_session(
    tmp_path: Path, prefix: list[str]
) -> None:
    call = plan([*prefix, "record", "start", "rec.webm"], STATE)
    answer = Envelope(mode=OutputMode.JSON, success=True, data={"path": "rec.webm"})
    obs, blocks = _attach(call, answer, tmp_path)
    assert obs.success_category is SuccessCategory.ARTIFACT_PENDING and blocks == []
    (action,) = obs.next_actions
    assert action.id == "stop-pending-recording"
    assert action.params == {"args": [*prefix, "record", "stop"]}


def test_a_failed_call_keeps_its_failure_and_shows_no_image(tmp_path: Path) -> None:
    (tmp_path / "shot.png").write_bytes(_png(3, 2))
    call, answer = _screenshot(tmp_path)
    entries = verify(call, answer, raw_outcome(), tmp_path)
    obs = Observation(success=False, failure_category=FailureCategory.UPSTREAM_ERROR)
    assert attach(call, obs, entries, INLINE_MAX) == []
    assert obs.failure_category is FailureCategory.UPSTREAM_ERROR
    assert obs.success_category is None
    assert obs.extra["artifactVerification"]["verified"] is True
