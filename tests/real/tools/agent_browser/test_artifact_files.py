"""Saved files on the real engine: where they land, what they are, and the fields that name
them (`savedFilePath`, `imagePath`, per-step artifacts, the artifact manifest)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import REPORT_TEXT, FixtureServer
from tests.support.tools import ab

pytestmark = pytest.mark.real_engine


def _only(result: ToolResult) -> dict[str, Any]:
    (entry,) = result.details["artifacts"]
    assert isinstance(entry, dict)
    return entry


async def test_a_hidden_dir_screenshot_lands_where_it_was_asked(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """Left alone, the engine reads `.dogfood/run/foo.png` as a selector and saves into its
    own temp dir; the wrapper hands it the absolute path instead."""
    await ab(browser_tools, "open", fixture_site.url("/page-a.html"))
    shot = await ab(browser_tools, "screenshot", ".dogfood/run/foo.png")
    wanted = tmp_path / ".dogfood" / "run" / "foo.png"
    assert shot.details["effectiveArgs"][-1] == str(wanted)
    entry = _only(shot)
    assert entry["state"] == "verified" and entry["absolutePath"] == str(wanted), shot.text
    assert entry["artifactType"] == "image" and entry["extension"] == ".png"
    assert entry["cwd"] == str(tmp_path) and entry["session"] == shot.details["sessionName"]
    assert shot.details["imagePath"] == str(wanted)
    (image,) = shot.images
    assert image.path == str(wanted)


async def test_pdf_and_download_name_their_saved_file(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/downloads.html"))
    pdf = await ab(browser_tools, "pdf", "out/page.pdf")
    entry = _only(pdf)
    assert entry["mediaType"] == "application/pdf", pdf.text
    assert pdf.details["savedFilePath"] == entry["path"]
    assert pdf.details["savedFile"] == {"command": "pdf", "kind": "pdf", "path": entry["path"]}
    (use,) = [a for a in pdf.details["nextActions"] if a["id"] == "use-saved-artifact"]
    assert use["artifactPath"] == entry["path"] and "params" not in use
    download = await ab(browser_tools, "download", "#report-link", "out/report.txt")
    saved = download.details["savedFile"]
    assert saved["kind"] == "download" and saved["command"] == "download", download.text
    assert Path(download.details["savedFilePath"]).read_text() == REPORT_TEXT
    assert "imagePath" not in download.details and not download.images
    receipt = download.details["artifactManifest"]
    assert receipt["totalEntries"] == 2, "the conversation's manifest keeps both files"
    (row,) = receipt["entries"]
    assert (row["retentionState"], row["storageScope"]) == ("live", "explicit-path")


async def test_state_save_is_a_verified_encrypted_artifact(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """Saved state is encrypted (`<path>.enc`): the artifact names the file the engine wrote,
    its bytes are not the JSON a model could read back, and `state load` still takes it."""
    await ab(browser_tools, "open", fixture_site.url("/storage.html"))
    saved = await ab(browser_tools, "state", "save", "states/site.json")
    entry = _only(saved)
    assert saved.details["successCategory"] == "artifact-saved", saved.text
    path = tmp_path / "states" / "site.json.enc"
    assert entry["kind"] == "state" and entry["path"] == str(path), entry
    assert not (tmp_path / "states" / "site.json").exists()
    raw = path.read_bytes()
    assert b"cookies" not in raw and b"session_id" not in raw
    assert entry.get("mediaType") != "application/json"
    (row,) = saved.details["artifactManifest"]["entries"]
    assert row["kind"] == "state" and row["retentionState"] == "live"
    await ab(browser_tools, "cookies", "clear")
    loaded = await ab(browser_tools, "state", "load", "states/site.json")
    assert not loaded.is_error, loaded.text
    assert "Loaded saved browser state (cookies and site storage) from states/site.json" in (
        loaded.text
    )
    cookies = await ab(browser_tools, "cookies")
    assert "session_id" in {c["name"] for c in cookies.details["data"]["cookies"]}


async def test_a_differing_diff_names_its_verified_image_and_a_match_claims_none(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/page-a.html"))
    await ab(browser_tools, "screenshot", "base.png")
    await ab(browser_tools, "open", fixture_site.url("/page-b.html"))
    changed = await ab(
        browser_tools, "diff", "screenshot", "--baseline", "base.png", "--output", "d/diff.png"
    )
    assert changed.text.startswith("Screenshots differ: "), changed.text
    assert " pixels (" in changed.text.splitlines()[0]
    assert f"Saved diff image: {tmp_path / 'd' / 'diff.png'}" in changed.text
    assert _only(changed)["mediaType"] == "image/png"
    assert not changed.images and "imagePath" not in changed.details
    assert '{"' not in changed.text, "the engine's counters are said in words, not as JSON"
    await ab(browser_tools, "screenshot", "same.png")
    # The engine writes no diff image when the screenshots match, though it names one: the
    # most common outcome of a visual check is a success that says so, claiming no file.
    same = await ab(
        browser_tools, "diff", "screenshot", "--baseline", "same.png", "--output", "d/same.png"
    )
    assert same.details["successCategory"] == "completed", same.text
    assert not same.is_error
    assert same.text.startswith("Screenshots match: 0 of "), same.text
    assert "no diff image was written" in same.text
    assert "artifacts" not in same.details and "artifactVerification" not in same.details
    assert same.details["data"]["match"] is True
    assert same.details["data"]["diffPath"] is None
    assert not (tmp_path / "d" / "same.png").exists()
    unasked = await ab(browser_tools, "diff", "screenshot", "--baseline", "base.png")
    assert "No diff image was asked for: add `--output <file>.png`" in unasked.text


async def test_batch_steps_carry_their_own_artifacts_and_saved_files(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/downloads.html"))
    rows = [
        ["screenshot", "b/one.png"],
        ["pdf", "b/two.pdf"],
        ["click", "#export"],
        ["wait", "--download", "b/export.csv"],
    ]
    batch = await ab(browser_tools, "batch", "--bail", stdin=json.dumps(rows))
    assert batch.details["artifactVerification"]["verifiedCount"] == 3, batch.text
    shot, pdf, click, wait = batch.details["batchSteps"]
    assert shot["imagePath"] == str(tmp_path / "b" / "one.png")
    assert shot["artifactVerification"]["verified"] is True
    assert [a["kind"] for a in shot["artifacts"]] == ["image"]
    assert pdf["savedFilePath"] == str(tmp_path / "b" / "two.pdf")
    assert "artifacts" not in click
    assert wait["savedFile"]["subcommand"] == "--download"
    assert Path(wait["savedFilePath"]).read_text().startswith("id,name,qty")
    assert batch.details["imagePath"] == shot["imagePath"]


async def test_a_spilled_snapshot_is_a_manifest_row_and_verified(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/dense.html"))
    snap = await ab(browser_tools, "snapshot", "-i")
    spill = snap.details["fullOutputPath"]
    (row,) = snap.details["artifactManifest"]["entries"]
    assert row["path"] == spill and row["kind"] == "spill"
    assert (row["retentionState"], row["storageScope"]) == ("live", "persistent-session")
    (entry,) = snap.details["artifactVerification"]["artifacts"]
    assert entry["state"] == "verified" and entry["storageScope"] == "persistent-session"


@pytest.mark.parametrize(
    ("start", "stop", "kind"),
    [
        (("trace", "start"), ("trace", "stop", "rec/run.trace"), "trace"),
        (("profiler", "start"), ("profiler", "stop", "rec/run.cpuprofile"), "profile"),
        (("network", "har", "start"), ("network", "har", "stop", "rec/run.har"), "har"),
    ],
)
async def test_recorded_files_are_typed_by_their_bytes(
    browser_tools: BrowserTools,
    fixture_site: FixtureServer,
    start: tuple[str, ...],
    stop: tuple[str, ...],
    kind: str,
) -> None:
    """Traces, CPU profiles and HARs are JSON whatever their suffix says."""
    await ab(browser_tools, "open", fixture_site.url("/page-a.html"))
    assert not (await ab(browser_tools, *start)).is_error
    saved = await ab(browser_tools, *stop)
    entry = _only(saved)
    assert (entry["kind"], entry["state"]) == (kind, "verified"), saved.text
    assert entry["mediaType"] == "application/json"
    assert entry["extension"] == Path(stop[-1]).suffix
