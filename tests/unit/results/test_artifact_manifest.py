"""The conversation's bounded artifact manifest: rows, receipts, spills and eviction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_browser_tools.results.artifact_manifest import (
    ArtifactManifest,
    file_rows,
    spill_row,
    verification_rows,
)


def _artifact(path: Path, state: str = "verified", status: str = "saved") -> dict[str, Any]:
    return {
        "kind": "image",
        "artifactType": "image",
        "path": str(path),
        "absolutePath": str(path),
        "command": "screenshot",
        "session": "abt-1",
        "state": state,
        "status": status,
        "limitation": "dropped: not a manifest field",
    }


def test_file_rows_say_how_each_file_is_kept(tmp_path: Path) -> None:
    rows = file_rows(
        [
            _artifact(tmp_path / "a.png"),
            _artifact(tmp_path / "gone.png", "missing", "missing"),
            _artifact(tmp_path / "take.webm", "pending", "pending"),
            _artifact(tmp_path / "old.png", "unverified", "stale"),  # not this call's file
        ]
    )
    assert [(Path(r["path"]).name, r["retentionState"]) for r in rows] == [
        ("a.png", "live"),
        ("gone.png", "missing"),
        ("take.webm", "pending"),
    ]
    assert {r["storageScope"] for r in rows} == {"explicit-path"}
    assert all("limitation" not in r and r["session"] == "abt-1" for r in rows)


def test_spill_rows_are_live_in_the_state_dir_and_ephemeral_in_a_scratch_dir(
    tmp_path: Path,
) -> None:
    spill = tmp_path / "observation-1.json"
    spill.write_text('{"success": true}\n')
    live = spill_row(str(spill), ephemeral=False)
    assert live["kind"] == "spill" and live["mediaType"] == "application/json"
    assert (live["retentionState"], live["storageScope"]) == ("live", "persistent-session")
    scratch = spill_row(str(spill), ephemeral=True)
    assert (scratch["retentionState"], scratch["storageScope"]) == ("ephemeral", "process-temp")
    gone = spill_row(str(tmp_path / "gone.json"), ephemeral=False)
    assert gone["retentionState"] == "missing" and gone["exists"] is False
    states = [e["state"] for e in verification_rows([live, scratch, gone])]
    assert states == ["verified", "unverified", "missing"]
    assert verification_rows(file_rows([_artifact(tmp_path / "a.png")])) == []


def test_a_receipt_lists_only_this_calls_rows_with_the_manifest_counts(tmp_path: Path) -> None:
    manifest = ArtifactManifest()
    manifest.record(file_rows([_artifact(tmp_path / "a.png")]))
    receipt = manifest.record(file_rows([_artifact(tmp_path / "b.png")]))
    assert [Path(r["path"]).name for r in receipt["entries"]] == ["b.png"]
    assert receipt["totalEntries"] == 2 and receipt["liveCount"] == 2
    assert receipt["version"] == 1 and receipt["evictedCount"] == 0


def test_a_later_row_for_the_same_file_replaces_the_earlier(tmp_path: Path) -> None:
    manifest = ArtifactManifest()
    video = tmp_path / "take.webm"
    first = manifest.record(file_rows([_artifact(video, "pending", "pending")]))
    second = manifest.record(file_rows([_artifact(video)]))
    (row,) = manifest.entries()
    assert row["retentionState"] == "live" and second["totalEntries"] == 1
    assert second["entries"][0]["createdAtMs"] == first["entries"][0]["createdAtMs"]


def test_eviction_ages_out_metadata_and_never_deletes_a_file(tmp_path: Path) -> None:
    manifest = ArtifactManifest(max_entries=2)
    files = [tmp_path / f"shot-{n}.png" for n in range(4)]
    for path in files:
        path.write_bytes(b"\x89PNG\r\n\x1a\n")
        receipt = manifest.record(file_rows([_artifact(path)]))
    assert [Path(r["path"]).name for r in manifest.entries()] == ["shot-2.png", "shot-3.png"]
    assert receipt["evictedCount"] == 2 and receipt["totalEntries"] == 2
    assert all(path.exists() for path in files), "eviction must leave the files alone"
