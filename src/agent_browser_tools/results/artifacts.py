"""Artifact verification: a file the engine says it saved is checked on disk before anyone
relies on it.

Each artifact gets an entry `{kind, path, absolutePath?, requestedPath?, mediaType?, command,
state, status, exists, sizeBytes?, updatedAtMs?, limitation?}` where `state` is `verified`,
`missing`, `unverified` (present but not written by this command: its mtime is outside the
command window, 2 s tolerance; or empty) or `pending` (a recording, until `record stop`).
A missing non-pending artifact fails the call closed (`artifact-missing`). Destinations are
compared canonically (existing ancestry resolved, Unicode-normalized, case-folded where the
filesystem folds case) so aliases are caught.
"""

from __future__ import annotations

import os
import struct
import sys
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_browser_tools.taxonomy import ArtifactKind, CommandMatch

MTIME_TOLERANCE_S = 2.0
HEADER_BYTES = 16
"""Enough of a file's start to recognise the formats below (never a full-file validation)."""
IMAGE_KINDS = frozenset({ArtifactKind.IMAGE, ArtifactKind.DIFF_IMAGE, ArtifactKind.CONTACT_SHEET})
_CASE_FOLDING = sys.platform in ("darwin", "win32")


@dataclass(frozen=True)
class ArtifactRequest:
    """An artifact a command will produce, known before dispatch."""

    kind: ArtifactKind
    requested: str | None
    data_fields: tuple[str, ...]
    pending: bool
    command: str
    step: int | None = None


def requests_for(match: CommandMatch | None, step: int | None = None) -> list[ArtifactRequest]:
    if match is None:
        return []
    return [
        ArtifactRequest(
            kind=slot.kind,
            requested=path,
            data_fields=slot.data_fields,
            pending=slot.pending_until is not None,
            command=match.spec.name,
            step=step,
        )
        for slot, path in match.artifact_requests()
    ]


def resolve(path: str, cwd: Path) -> Path:
    candidate = Path(os.path.expanduser(path))
    return candidate if candidate.is_absolute() else cwd / candidate


def canonical(path: str, cwd: Path) -> str:
    """A comparison key: resolve the existing ancestry (symlinks), keep the rest, normalize."""
    full = resolve(path, cwd)
    existing, rest = full, []
    # `lexists`: a dangling symlink is an existing entry; realpath follows it to its target.
    while not os.path.lexists(existing) and existing != existing.parent:
        rest.append(existing.name)
        existing = existing.parent
    base = Path(os.path.realpath(existing))
    # The missing remainder has no symlinks yet, and writers create it as plain directories,
    # so `new/../x` lands on `x`: normalize it lexically.
    key = os.path.normpath(base.joinpath(*reversed(rest)))
    key = unicodedata.normalize("NFC", key)
    return key.casefold() if _CASE_FOLDING else key


def file_keys(path: str, cwd: Path) -> set[object]:
    """Keys under which two destinations are the same file: the canonical path, and for an
    existing file its (device, inode), which also catches hard links."""
    keys: set[object] = {canonical(path, cwd)}
    try:
        info = resolve(path, cwd).stat()
    except OSError:
        return keys
    keys.add((info.st_dev, info.st_ino))
    return keys


def find_alias(paths: Iterable[tuple[str, str]], cwd: Path) -> str | None:
    """First pair of destinations that resolve to one file, as a readable message."""
    seen: dict[object, str] = {}
    for label, path in paths:
        keys = file_keys(path, cwd)
        earlier = next((seen[k] for k in keys if k in seen), None)
        if earlier is not None:
            return (
                f"{label} ({path}) and {earlier} resolve to the same file; use distinct "
                "destinations so one cannot satisfy the other's verification."
            )
        seen.update(dict.fromkeys(keys, f"{label} ({path})"))
    return None


def _reported_path(data: Any, fields: Sequence[str]) -> str | None:
    if isinstance(data, Mapping):
        for name in fields:
            value = data.get(name)
            if isinstance(value, str) and value:
                return value
    return None


def verify_entry(
    request: ArtifactRequest, data: Any, *, cwd: Path, window: tuple[float, float]
) -> dict[str, Any] | None:
    """Check one artifact after the command ran; None when the command produced none
    (e.g. `screenshot --if-changed` reporting `changed: false`)."""
    if isinstance(data, Mapping) and data.get("changed") is False:
        return None
    path = _reported_path(data, request.data_fields) or request.requested
    if path is None:
        return None
    entry: dict[str, Any] = {"kind": request.kind.value, "path": path, "command": request.command}
    if request.requested and request.requested != path:
        entry["requestedPath"] = request.requested
    if request.step is not None:
        entry["step"] = request.step
    if request.pending:
        entry.update(
            state="pending",
            status="pending",
            recordingState="openRecording",
            willExistOnStop=True,
            limitation="Recording in progress: the file is checked on disk after `record stop`.",
        )
        return entry
    target = resolve(path, cwd)
    entry["absolutePath"] = str(target)
    media = media_type(target)
    if media:
        entry["mediaType"] = media
    try:
        info = target.stat()
    except OSError:
        entry.update(
            state="missing",
            status="missing",
            exists=False,
            limitation="The engine reported this file but it is not on disk.",
        )
        return entry
    entry.update(exists=True, sizeBytes=info.st_size, updatedAtMs=int(info.st_mtime * 1000))
    start, end = window
    fresh = start - MTIME_TOLERANCE_S <= info.st_mtime <= end + MTIME_TOLERANCE_S
    if not fresh:
        entry.update(
            state="unverified",
            status="stale",
            limitation="The file was not written during this command (an older file is there).",
        )
    elif info.st_size == 0:
        entry.update(state="unverified", status="empty", limitation="The file is empty.")
    else:
        entry.update(state="verified", status="saved")
    return entry


def media_type(path: Path) -> str | None:
    """The media type a file's first bytes show (PNG, JPEG, GIF, WebP, PDF), never its suffix:
    a `.png` the engine wrote as JPEG, or a text file named `.png`, must not be called PNG.
    None when unknown, unreadable or truncated."""
    try:
        with path.open("rb") as handle:
            head = handle.read(HEADER_BYTES)
    except OSError:
        return None
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if head.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    if head.startswith(b"%PDF-"):
        return "application/pdf"
    return None


def summarize(entries: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """`artifactVerification`: counts per state, for agents to branch on."""

    def count(state: str) -> int:
        return sum(1 for e in entries if e.get("state") == state)

    return {
        "verified": bool(entries) and count("verified") == len(entries),
        "verifiedCount": count("verified"),
        "missingCount": count("missing"),
        "pendingCount": count("pending"),
        "unverifiedCount": count("unverified"),
        "artifacts": [dict(e) for e in entries],
    }


def image_dimensions(path: Path) -> tuple[str, int, int] | None:
    """(mime type, width, height) from a PNG/JPEG/WebP header, without decoding pixels."""
    try:
        with path.open("rb") as handle:
            head = handle.read(64 * 1024)
    except OSError:
        return None
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24:
        width, height = struct.unpack(">II", head[16:24])
        return "image/png", width, height
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP" and head[12:16] == b"VP8X":
        width = int.from_bytes(head[24:27], "little") + 1
        height = int.from_bytes(head[27:30], "little") + 1
        return "image/webp", width, height
    if head.startswith(b"\xff\xd8"):
        return _jpeg_dimensions(head)
    return None


def _jpeg_dimensions(head: bytes) -> tuple[str, int, int] | None:
    index = 2
    while index + 9 < len(head):
        if head[index] != 0xFF:
            return None
        marker = head[index + 1]
        length = struct.unpack(">H", head[index + 2 : index + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", head[index + 5 : index + 9])
            return "image/jpeg", width, height
        index += 2 + length
    return None
