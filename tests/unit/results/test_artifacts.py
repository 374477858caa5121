"""Artifact verification on disk: fresh, stale, empty, missing, pending and unchanged."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from agent_browser_tools.results.artifacts import (
    ArtifactRequest,
    find_alias,
    summarize,
    verify_entry,
)
from agent_browser_tools.taxonomy import ArtifactKind

SHOT = ArtifactRequest(
    kind=ArtifactKind.IMAGE,
    requested="shot.png",
    data_fields=("path",),
    pending=False,
    command="screenshot",
)


def _file(tmp_path: Path, age_s: float, content: bytes = b"\x89PNG data") -> Path:
    path = tmp_path / "shot.png"
    path.write_bytes(content)
    stamp = time.time() - age_s
    os.utime(path, (stamp, stamp))
    return path


def _window(seconds: float = 1.0) -> tuple[float, float]:
    now = time.time()
    return now - seconds, now


def test_a_file_written_in_the_command_window_is_verified(tmp_path: Path) -> None:
    path = _file(tmp_path, age_s=0.5)
    entry = verify_entry(SHOT, {"path": str(path)}, cwd=tmp_path, window=_window())
    assert entry is not None
    assert entry["state"] == "verified" and entry["status"] == "saved"
    assert entry["sizeBytes"] == path.stat().st_size and entry["absolutePath"] == str(path)


@pytest.mark.parametrize(
    ("age_s", "state"),
    [
        (2.5, "verified"),  # 1.5 s before a 1 s window: inside the contract's 2 s tolerance
        (8.0, "unverified"),  # older than the window allows
        (3600.0, "unverified"),
    ],
)
def test_the_mtime_window_has_a_two_second_tolerance(
    tmp_path: Path, age_s: float, state: str
) -> None:
    path = _file(tmp_path, age_s=age_s)
    entry = verify_entry(SHOT, {"path": str(path)}, cwd=tmp_path, window=_window(1.0))
    assert entry is not None and entry["state"] == state
    if state == "unverified":
        assert entry["status"] == "stale" and "updatedAtMs" in entry


def test_an_empty_file_is_not_evidence(tmp_path: Path) -> None:
    path = _file(tmp_path, age_s=0.1, content=b"")
    entry = verify_entry(SHOT, {"path": str(path)}, cwd=tmp_path, window=_window())
    assert entry is not None and (entry["state"], entry["status"]) == ("unverified", "empty")


def test_an_absent_file_is_missing_and_counted(tmp_path: Path) -> None:
    entry = verify_entry(SHOT, {"path": str(tmp_path / "no.png")}, cwd=tmp_path, window=_window())
    assert entry is not None and entry["state"] == "missing" and entry["exists"] is False
    counts = summarize([entry])
    assert counts["missingCount"] == 1 and counts["verifiedCount"] == 0
    assert counts["verified"] is False


def test_relative_requested_paths_resolve_against_the_execution_dir(tmp_path: Path) -> None:
    _file(tmp_path, age_s=0.1)
    entry = verify_entry(SHOT, {}, cwd=tmp_path, window=_window())
    assert entry is not None and entry["state"] == "verified"
    assert entry["absolutePath"] == str(tmp_path / "shot.png")


def test_an_unchanged_if_changed_screenshot_produces_no_artifact(tmp_path: Path) -> None:
    _file(tmp_path, age_s=0.1)  # even an existing fresh file at the requested path
    data = {"changed": False, "revision": 3}
    assert verify_entry(SHOT, data, cwd=tmp_path, window=_window()) is None


def test_a_recording_is_pending_without_touching_the_disk(tmp_path: Path) -> None:
    video = ArtifactRequest(ArtifactKind.VIDEO, "take.webm", ("path",), True, "record start")
    entry = verify_entry(video, {"path": "take.webm"}, cwd=tmp_path, window=_window())
    assert entry is not None and entry["state"] == "pending"
    assert entry["status"] == "pending" and "exists" not in entry
    assert entry["recordingState"] == "openRecording" and entry["willExistOnStop"] is True
    assert "mediaType" not in entry, "no file yet: nothing to read a type from"
    assert summarize([entry])["pendingCount"] == 1


@pytest.mark.parametrize(
    ("content", "media"),
    [
        (b"\x89PNG\r\n\x1a\n" + b"\0" * 16, "image/png"),
        (b"\xff\xd8\xff\xe0" + b"\0" * 16, "image/jpeg"),
        (b"GIF89a" + b"\0" * 16, "image/gif"),
        (b"RIFF\0\0\0\0WEBPVP8 " + b"\0" * 8, "image/webp"),
        (b"%PDF-1.7\n", "application/pdf"),
        (b"not an image at all", None),
        (b"\x89PN", None),  # truncated
    ],
)
def test_media_type_comes_from_the_header_never_the_suffix(
    tmp_path: Path, content: bytes, media: str | None
) -> None:
    path = _file(tmp_path, age_s=0.1, content=content)  # always named shot.png
    entry = verify_entry(SHOT, {"path": str(path)}, cwd=tmp_path, window=_window())
    assert entry is not None and entry.get("mediaType") == media


def test_aliases_through_hard_links_dangling_symlinks_and_dot_dot_are_caught(
    tmp_path: Path,
) -> None:
    shot = tmp_path / "a.png"
    shot.write_bytes(b"x")
    os.link(shot, tmp_path / "hard.png")
    (tmp_path / "dangling.png").symlink_to(tmp_path / "later.png")
    assert find_alias([("step 1", "a.png"), ("step 2", "hard.png")], tmp_path) is not None
    assert find_alias([("step 1", "later.png"), ("step 2", "dangling.png")], tmp_path)
    assert find_alias([("step 1", "a.png"), ("step 2", "new/../a.png")], tmp_path)
    assert find_alias([("step 1", "a.png"), ("step 2", "b.png")], tmp_path) is None


def test_an_entry_names_its_type_extension_cwd_and_browser(tmp_path: Path) -> None:
    path = _file(tmp_path, age_s=0.1)
    entry = verify_entry(
        SHOT,
        {"path": str(path)},
        cwd=tmp_path,
        window=_window(),
        identity={"session": "abt-1", "namespace": "ns"},
    )
    assert entry is not None
    assert entry["artifactType"] == entry["kind"] == "image"
    assert entry["extension"] == ".png" and entry["cwd"] == str(tmp_path)
    assert entry["session"] == "abt-1" and entry["namespace"] == "ns"
    assert entry["requestedPath"] == "shot.png" and "tempPath" not in entry


def test_a_screenshot_the_engine_saved_in_its_temp_dir_is_copied_where_it_was_asked(
    tmp_path: Path,
) -> None:
    temp = tmp_path / "engine-tmp" / "screenshot-1.png"
    temp.parent.mkdir()
    temp.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    entry = verify_entry(SHOT, {"path": str(temp)}, cwd=tmp_path, window=_window())
    assert entry is not None
    assert entry["path"] == "shot.png" and entry["tempPath"] == str(temp)
    assert entry["state"] == "verified" and entry["status"] == "repaired-from-temp"
    assert (tmp_path / "shot.png").read_bytes() == temp.read_bytes()


def test_a_temp_screenshot_that_cannot_be_copied_stays_unverified(tmp_path: Path) -> None:
    temp = tmp_path / "screenshot-1.png"
    temp.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    (tmp_path / "taken").write_text("a file where the dir should be")
    request = ArtifactRequest(ArtifactKind.IMAGE, "taken/shot.png", ("path",), False, "screenshot")
    entry = verify_entry(request, {"path": str(temp)}, cwd=tmp_path, window=_window())
    assert entry is not None and entry["state"] == "unverified"
    assert entry["status"] == "upstream-temp-only" and str(temp) in entry["limitation"]


def test_a_screenshot_written_where_asked_is_not_overwritten_from_a_temp_report(
    tmp_path: Path,
) -> None:
    wanted = _file(tmp_path, age_s=0.1, content=b"\x89PNG\r\n\x1a\nreal")
    temp = tmp_path / "other.png"
    temp.write_bytes(b"\x89PNG\r\n\x1a\ntemp")
    entry = verify_entry(SHOT, {"path": str(temp)}, cwd=tmp_path, window=_window())
    assert entry is not None and entry["status"] == "saved" and entry["tempPath"] == str(temp)
    assert wanted.read_bytes().endswith(b"real")


def test_a_url_payload_is_never_a_local_file(tmp_path: Path) -> None:
    entry = verify_entry(
        SHOT, {"path": "data:image/png;base64,AAAA"}, cwd=tmp_path, window=_window()
    )
    assert entry is not None and entry["path"] == "shot.png" and entry["state"] == "missing"


def test_a_folder_at_the_reported_path_is_never_a_saved_file(tmp_path: Path) -> None:
    """`screenshot shots` with `shots/` a folder: the engine saves inside it; the folder itself
    must not pass as the verified screenshot (nor feed imagePath)."""
    (tmp_path / "shots").mkdir()
    request = ArtifactRequest(ArtifactKind.IMAGE, "shots", ("path",), False, "screenshot")
    entry = verify_entry(request, {"path": str(tmp_path / "shots")}, cwd=tmp_path, window=_window())
    assert entry is not None and entry["state"] != "verified"
    assert entry["status"] == "not-a-file"


def test_temp_repair_copies_only_a_fresh_image_and_never_through_a_link(tmp_path: Path) -> None:
    """The copy source must be a fresh image; a link planted at the requested path is replaced,
    never followed to overwrite the file it points at."""
    not_image = tmp_path / "engine-tmp.png"
    not_image.write_text("id_rsa contents")
    entry = verify_entry(SHOT, {"path": str(not_image)}, cwd=tmp_path, window=_window())
    assert entry is not None and entry["state"] == "unverified"
    assert not (tmp_path / "shot.png").exists()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (tmp_path / "shot.png").symlink_to(victim)
    temp = tmp_path / "screenshot-1.png"
    temp.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 32)
    verify_entry(SHOT, {"path": str(temp)}, cwd=tmp_path, window=_window())
    assert victim.read_text() == "keep me"
    assert not list(tmp_path.glob(".*.partial"))
