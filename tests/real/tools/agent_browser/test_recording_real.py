"""`record start` on the real engine of this machine, which has no ffmpeg: engine 0.39.4
checks for it at start and refuses with its own install advice. The attempt still retires the
session's refs (`page-transition`) with the proactive `Page state:` warning, opens no
reservation, and its receipt export records the failed attempt without inventing a file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.tools import ab, ref_for

pytestmark = [
    pytest.mark.real_engine,
    pytest.mark.skipif(shutil.which("ffmpeg") is not None, reason="needs a machine without ffmpeg"),
]


async def test_record_start_without_ffmpeg_shows_the_advice_and_retires_refs(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/form.html"))
    snap = await ab(browser_tools, "snapshot", "-i")
    old = ref_for(snap, "button", "Submit")
    receipt = tmp_path / "receipt.json"
    started = await ab(
        browser_tools, "record", "start", str(tmp_path / "take.webm"), outputPath=str(receipt)
    )
    assert started.is_error, started.text
    assert "Install ffmpeg" in started.text, "the engine's own advice is shown"
    assert any(w.startswith("Page state:") for w in started.details["warnings"])
    assert started.details["refSnapshotInvalidation"]["reason"] == "page-transition"
    assert "stop-pending-recording" not in json.dumps(started.details.get("nextActions", []))
    saved = json.loads(receipt.read_text())
    assert saved["source"] == "recording-receipt" and saved["attempt"]["success"] is False
    assert saved["artifacts"] == []
    click = await ab(browser_tools, "click", old)
    assert click.details["failureCategory"] == "stale-ref", click.text
