"""Results a model can use, on the real engine: artifacts, images, downloads, outputPath,
network filters and native-text redaction."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import (
    AUTH_TOKEN_COOKIE,
    JWT_LOCAL_STORAGE,
    REPORT_TEXT,
    SESSION_ID_COOKIE,
    FixtureServer,
)
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, ref_for, tools_settings

pytestmark = pytest.mark.real_engine


async def test_screenshot_gives_an_inline_image_and_a_verified_artifact(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    shot = await ab(browser_tools, "screenshot", str(tmp_path / "shot.png"))
    assert not shot.is_error, shot.text
    assert shot.details["successCategory"] == "artifact-saved"
    verification = shot.details["artifactVerification"]
    assert verification["verifiedCount"] == 1 and verification["missingCount"] == 0
    (image,) = shot.images
    assert image.mime_type == "image/png" and len(image.data) > 1000
    observation = shot.details["imageObservations"][0]
    assert observation["pixels"]["width"] > 100 and observation["capture"] == "viewport"


async def test_a_viewport_screenshot_has_measured_geometry_that_maps_a_known_box(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """`#box` sits at document (100, 1200); scrolled by 1000 px, the measured crop starts at
    y = 1000, so the box's viewport position plus the crop origin gives its document place."""
    await ab(browser_tools, "open", fixture_site.url("/geometry.html"))
    assert not (await ab(browser_tools, "scroll", "down", "1000")).is_error
    shot = await ab(browser_tools, "screenshot", str(tmp_path / "view.png"))
    (observation,) = shot.details["imageObservations"]
    geometry = observation["geometry"]
    assert geometry["status"] == "measured", geometry
    crop, scale = geometry["crop"], geometry["pixelsPerCssPixel"]
    assert crop["y"] == 1000 and crop["width"] * scale["x"] == observation["pixels"]["width"]
    box = (await ab(browser_tools, "get", "box", "#box")).details["data"]
    assert (crop["x"] + box["x"], crop["y"] + box["y"]) == (100, 1200)


async def test_a_screenshot_into_a_new_nested_folder_is_saved_and_typed_by_its_bytes(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """The engine does not create the folder; the wrapper does, before the call."""
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    shot = await ab(browser_tools, "screenshot", "evidence/run1/shot.png")
    assert shot.details["successCategory"] == "artifact-saved", shot.text
    (entry,) = shot.details["artifacts"]
    assert entry["absolutePath"] == str(tmp_path / "evidence" / "run1" / "shot.png")
    assert entry["state"] == "verified" and entry["mediaType"] == "image/png"


async def test_stale_preexisting_file_at_the_requested_path_is_not_verified(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """The engine reports the path it was asked for; an old file there proves nothing."""
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    old = tmp_path / "old.pdf"
    old.write_bytes(b"%PDF-old")
    past = time.time() - 3600
    os.utime(old, (past, past))
    pdf = await ab(browser_tools, "pdf", str(old))
    entry = pdf.details["artifacts"][0]
    if entry["state"] == "verified":
        assert old.stat().st_mtime > past + 60, "verified only because the engine rewrote it"
    else:
        assert entry["state"] == "unverified" and entry["status"] == "stale"


async def test_anchor_and_blob_downloads_are_verified(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/downloads.html"))
    snap = await ab(browser_tools, "snapshot", "-i")
    report = tmp_path / "dl" / "report.txt"
    anchor = await ab(
        browser_tools, "download", ref_for(snap, "link", "Download report"), str(report)
    )
    assert anchor.details["artifactVerification"]["verifiedCount"] == 1, anchor.text
    assert report.read_text() == REPORT_TEXT
    blob_path = tmp_path / "dl" / "export.csv"
    blob = await ab(browser_tools, "download", "#export", str(blob_path))
    assert blob.details["artifactVerification"]["verifiedCount"] == 1, blob.text
    assert blob_path.read_text().startswith("id,name,qty")


async def test_output_path_saves_data_as_pretty_json(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    result = await browser_tools.call(
        "agent_browser",
        {
            "args": ["eval", "--stdin"],
            "stdin": "({title: document.title})",
            "outputPath": "@logs/page.json",
        },
    )
    saved = tmp_path / "logs" / "page.json"
    assert result.details["outputFile"]["status"] == "saved", result.text
    assert "Output file: logs/page.json" in result.text
    assert saved.read_text().endswith("\n")
    assert "Clean Page" in json.loads(saved.read_text())["result"].__str__()


async def test_output_path_may_not_alias_the_screenshot(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    target = str(tmp_path / "same.png")
    result = await browser_tools.call(
        "agent_browser", {"args": ["screenshot", target], "outputPath": target}
    )
    assert result.details["failureCategory"] == "validation-error"
    assert not Path(target).exists(), "nothing may be dispatched"


async def test_network_requests_current_origin_filter(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    await ab(
        browser_tools,
        "eval",
        "--stdin",
        stdin="fetch('http://localhost:1/elsewhere').catch(() => 0); 1",
    )
    result = await ab(browser_tools, "network", "requests", "--current-origin")
    info = result.details["networkRequestsPageFilter"]
    assert "--current-origin" not in result.details["effectiveArgs"]
    assert info["currentUrl"] == fixture_site.url("/clean.html")
    urls = [row["url"] for row in result.details["data"]["requests"]]
    assert urls and all(u.startswith(fixture_site.base_url) for u in urls)
    ids = [a["id"] for a in result.details["nextActions"]]
    assert "clear-network-requests-before-repro" in ids


async def test_network_filter_next_actions_only_name_rows_still_shown(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """The failing `/api/fail` fetch is hidden by `--current-url`: no action may point at it."""
    await ab(browser_tools, "open", fixture_site.url("/api-fail.html"))
    await ab(browser_tools, "wait", "500")
    everything = await ab(browser_tools, "network", "requests")
    assert any("/api/fail" in row["url"] for row in everything.details["data"]["requests"])
    result = await ab(browser_tools, "network", "requests", "--current-url")
    shown = {row.get("requestId") for row in result.details["data"]["requests"]}
    assert all("/api/fail" not in row["url"] for row in result.details["data"]["requests"])
    inspect = [a for a in result.details["nextActions"] if a["id"] == "inspect-network-request"]
    assert inspect and all(a["params"]["args"][-1] in shown for a in inspect), inspect


async def test_native_text_cookie_and_storage_reads_are_redacted(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/storage.html"))
    cookies = await ab(browser_tools, "--json", "false", "cookies")
    storage = await ab(browser_tools, "--json", "false", "storage", "local")
    structured = await ab(browser_tools, "storage", "local")
    everything = json.dumps([r.details for r in (cookies, storage, structured)]) + "".join(
        r.text for r in (cookies, storage, structured)
    )
    for secret in (SESSION_ID_COOKIE, AUTH_TOKEN_COOKIE, JWT_LOCAL_STORAGE):
        assert secret not in everything
    assert "theme" in storage.text and "dark" in storage.text, "benign values stay visible"


async def test_dense_snapshot_is_compacted_with_a_spill_and_parseable_json(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/dense.html"))
    prose = await ab(browser_tools, "snapshot", "-i")
    assert len(prose.text) <= 16_000
    compaction = prose.details["snapshotCompaction"]
    assert compaction["compacted"] is True
    spill = Path(prose.details["fullOutputPath"])
    assert spill.stat().st_mode & 0o777 == 0o600
    read = f'read it with agent_browser {{"args": ["spill", "{spill.name}"]}}'
    assert read in prose.text, "the line says exactly how to read the spill through the tool"
    assert "Edit 500" in spill.read_text(), "the spill holds the whole tree"
    assert len(prose.details["refSnapshot"]["refs"]) > 1000, "refs stay complete in details"
    omitted = prose.details["data"]["highValueControlRefIds"]
    assert omitted and "Omitted high-value controls" in prose.text
    assert all(f"@{ref}" in prose.text for ref in omitted), "listed ids are named in the text"
    as_json = await ab(browser_tools, "--json", "snapshot", "-i")
    parsed = json.loads(as_json.text)
    assert len(as_json.text) <= 16_000
    assert parsed["success"] is True and parsed["observationPath"]


async def test_wrapper_snapshot_search_filter_and_diff(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/dense.html"))
    await ab(browser_tools, "snapshot", "-i")
    found = await ab(browser_tools, "snapshot", "-i", "--search", "Edit 42", "--diff")
    assert "--search" not in found.details["effectiveArgs"]
    assert "--diff" not in found.details["effectiveArgs"]
    info = found.details["snapshotFilter"]
    assert info["search"] == "Edit 42" and info["matchedRefs"] >= 1
    assert found.details["snapshotDiff"]["addedRefs"] == []
    assert "Edit 42" in found.text and len(found.text) < 16_000
    rendered = info["renderedTextMatches"]
    assert info["renderedTextTotalMatches"] >= 1 and any("Edit 42" in m["text"] for m in rendered)
    # One list in page order (issue 33): rendered matches are merged, not listed apart.
    assert "in page order" in found.text and "Rendered page text:" not in found.text
    assert len(found.details["refSnapshot"]["refs"]) > 1000, "the full ref map, not the matches"
    buttons = await ab(browser_tools, "snapshot", "-i", "--filter", "role=searchbox")
    assert buttons.details["snapshotFilter"]["role"] == "searchbox"
    bad = await ab(browser_tools, "snapshot", "--search", "x")
    assert bad.details["failureCategory"] == "validation-error" and "-i" in bad.text


async def test_native_delta_snapshots_keep_follow_up_refs_usable(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    """`snapshot -i --delta`: a full answer reads like a snapshot; a partial one shows the
    revision data, and one ordinary read keeps the complete ref map for the next action."""
    await ab(browser_tools, "open", fixture_site.url("/form.html"))
    full = await ab(browser_tools, "snapshot", "-i", "--delta")
    assert full.details["data"]["snapshot"]["kind"] == "full", "native object kept in details"
    assert '- textbox "Full name"' in full.text
    name = ref_for(full, "textbox", "Full name")
    await ab(browser_tools, "fill", name, "Ada")
    changed = await ab(browser_tools, "snapshot", "-i", "--delta")
    assert "Snapshot delta: changed" in changed.text and ": Ada" in changed.text, changed.text
    assert changed.details["snapshotDeltaRefs"]["status"] == "read"
    assert len(changed.details["refSnapshot"]["refs"]) == len(full.details["refSnapshot"]["refs"])
    script = (
        "const b = document.createElement('button'); b.textContent = 'Added later';"
        "b.onclick = () => { document.title = 'added-clicked'; };"
        "document.body.append(b); 1"
    )
    await ab(browser_tools, "eval", script)
    added = await ab(browser_tools, "snapshot", "-i", "--delta")
    new_ref = ref_for(added, "button", "Added later")
    assert f'- add {new_ref} button "Added later"' in added.text, added.text
    clicked = await ab(browser_tools, "click", new_ref)
    assert not clicked.is_error, clicked.text
    title = await ab(browser_tools, "get", "title")
    assert "added-clicked" in title.text
    same = await ab(browser_tools, "snapshot", "-i", "--delta")
    assert "Snapshot delta: unchanged" in same.text
    submit = ref_for(same, "button", "Submit")
    await ab(browser_tools, "eval", "document.querySelector('button[type=submit]').remove(); 1")
    removed = await ab(browser_tools, "snapshot", "-i", "--delta")
    assert f"- remove {submit}" in removed.text, removed.text
    refused = await ab(browser_tools, "click", submit)
    assert refused.details["failureCategory"] == "stale-ref", "a removed ref is not re-resolved"


async def test_viewport_probe_reports_scroll_position(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/long.html"))
    await ab(browser_tools, "scroll", "down", "800")
    result = await ab(browser_tools, "snapshot", "--viewport")
    viewport = result.details["snapshotViewport"]
    assert viewport["scrollY"] > 0 and viewport["documentHeight"] > viewport["innerHeight"]


async def test_covered_click_offers_overlay_inspection(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/modal.html"))
    blocked = await ab(browser_tools, "click", "#buy")
    assert blocked.is_error and "covered by" in blocked.text
    ids = [action["id"] for action in blocked.details["nextActions"]]
    assert ids[0] == "inspect-overlay-state"
    full = await ab(browser_tools, *blocked.details["nextActions"][0]["params"]["args"])
    (candidate,) = full.details["overlayBlockers"]["candidates"]
    assert candidate["name"] == "Close" and "inside the dialog" in candidate["reason"]
    dismissed = await ab(browser_tools, *candidate["args"])
    assert not dismissed.is_error
    bought = await ab(browser_tools, "click", "#buy")
    assert not bought.is_error, bought.text


async def test_record_start_retires_refs_and_says_so(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """Recording can swap the page it captures, so every attempt retires the refs from before
    it, and the result says so up front. The engine needs ffmpeg to record; where it is
    missing (as on the CI machine) the attempt fails, and the refs are retired all the same."""
    await ab(browser_tools, "open", fixture_site.url("/form.html"))
    ref = ref_for(await ab(browser_tools, "snapshot", "-i"), "textbox", "Full name")
    started = await ab(browser_tools, "record", "start", "take.webm")
    assert any(w.startswith("Page state:") for w in started.details["warnings"]), started.text
    try:
        refused = await ab(browser_tools, "fill", ref, "Ada")
        assert refused.details["failureCategory"] == "stale-ref", refused.text
        assert refused.details["staleRef"]["reason"] != "browser-lost"
        fresh = await ab(browser_tools, "snapshot", "-i")
        filled = await ab(browser_tools, "fill", ref_for(fresh, "textbox", "Full name"), "Ada")
        assert not filled.is_error, filled.text
    finally:
        if not started.is_error:
            (pending,) = started.details["artifacts"]
            assert pending["status"] == "pending" and pending["willExistOnStop"] is True
            stopped = await ab(browser_tools, "record", "stop")
            assert stopped.details["artifacts"][0]["state"] == "verified", stopped.text


async def test_the_spill_a_compacted_snapshot_names_is_read_back_through_the_tool(
    browser_tools: BrowserTools, engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """The model sees only prose: the call is copied from the snapshot's own line, each next
    call from the window's `More:` line, and the windows reassemble the spilled tree exactly;
    another conversation over the same state dir cannot read it (its spills are its own)."""
    await ab(browser_tools, "open", fixture_site.url("/dense.html"))
    snap = await ab(browser_tools, "snapshot", "-i")
    spill = Path(snap.details["fullOutputPath"])
    whole = spill.read_text(encoding="utf-8")
    line = snap.text.rsplit("\n", 1)[1]
    assert line.startswith(f"Full snapshot ({len(whole):,} characters): read it with ")
    assert str(spill) not in snap.text, "the state dir path is for details, not the model"
    call = line.split("read it with agent_browser ", 1)[1]
    parts: list[str] = []
    for _ in range(100):
        window = await browser_tools.call("agent_browser", json.loads(call))
        assert not window.is_error, window.text
        assert len(window.text) <= 16_000
        head, rest = window.text.split("\n", 1)
        body, tail = rest.rsplit("\n", 1)
        assert head.startswith(f"Spill {spill.name}: characters {len(''.join(parts))}-")
        assert body == window.details["data"]["text"]
        parts.append(body)
        if tail == "End of the spill.":
            assert not window.details.get("nextActions")
            break
        assert tail.startswith("More: agent_browser ")
        call = tail.removeprefix("More: agent_browser ")
        (more,) = window.details["nextActions"]
        assert more["params"] == json.loads(call), "the next action and the line agree"
    assert "".join(parts) == whole
    assert len(parts) > 2, "a 60k tree takes several windows"

    as_json = await ab(browser_tools, "--json", "snapshot", "-i")
    reads = json.loads(as_json.text)["spillReads"]
    name = Path(as_json.details["fullOutputPath"]).name
    assert reads["fullOutputPath"] == {"args": ["spill", name]}, "JSON callers get the params"

    other = BrowserTools(settings=tools_settings(engine_env, tmp_path / "state"), cwd=tmp_path)
    try:
        mine, theirs = browser_tools.runtime.spill_dir, other.runtime.spill_dir
        assert mine.parent == theirs.parent and mine != theirs, "same state dir, two owners"
        stranger = await other.call("agent_browser", {"args": ["spill", spill.name]})
    finally:
        await other.aclose()
    assert stranger.is_error and stranger.details["failureCategory"] == "validation-error"
    assert f"No spill named {spill.name} in this conversation" in stranger.text
