"""Artifact verification: a file the engine says it saved is checked on disk before anyone
relies on it.

Each artifact gets an entry `{kind, artifactType, path, absolutePath, extension?, requestedPath?,
tempPath?, mediaType?, command, cwd, session?, namespace?, state, status, exists, sizeBytes?,
updatedAtMs?, limitation?}` where `state` is `verified`, `missing`, `unverified` (present but
not written by this command: its mtime is outside the command window, 2 s tolerance; or
empty; or only in the engine's temp dir) or `pending` (a recording, until `record stop`).
`mediaType` comes from the file's header (`media`), never its suffix. A screenshot the engine
saved somewhere other than the requested path keeps the requested `path`, names the engine's
file in `tempPath`, and is copied to the requested path when that file was not written
(`status: repaired-from-temp`). A missing non-pending artifact fails the call closed
(`artifact-missing`). Destinations are
compared canonically (existing ancestry resolved, Unicode-normalized, case-folded where the
filesystem folds case) so aliases are caught.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import sys
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_browser_tools.results.media import media_type
from agent_browser_tools.taxonomy import ArtifactKind, CommandMatch

MTIME_TOLERANCE_S = 2.0
IMAGE_KINDS = frozenset({ArtifactKind.IMAGE, ArtifactKind.DIFF_IMAGE, ArtifactKind.CONTACT_SHEET})
_CASE_FOLDING = sys.platform in ("darwin", "win32")
_NON_FILE = re.compile(r"^(data|blob|https?|javascript|mailto):", re.IGNORECASE)
"""Reported values that are URLs, never local files (not verified on disk)."""


@dataclass(frozen=True)
class ArtifactRequest:
    """An artifact a command will produce, known before dispatch."""

    kind: ArtifactKind
    requested: str | None
    data_fields: tuple[str, ...]
    pending: bool
    command: str
    step: int | None = None
    gating_flag: str | None = None
    """The flag that makes the command write a file at all (`wait --download [path]`)."""
    unwritten_when: tuple[tuple[str, object], ...] = ()
    """The answer fields and values that say no file was written (`ArtifactSlot`)."""


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
            gating_flag=slot.path_flag if slot.only_with_flag else None,
            unwritten_when=slot.unwritten_when,
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
            if isinstance(value, str) and value and not _NON_FILE.match(value):
                return value
    return None


def _base_entry(
    request: ArtifactRequest, path: str, cwd: Path, identity: Mapping[str, str] | None
) -> dict[str, Any]:
    """The fields every entry has: what, where asked and resolved, and for which browser."""
    target = resolve(path, cwd)
    entry: dict[str, Any] = {
        "kind": request.kind.value,
        "artifactType": request.kind.value,
        "path": path,
        "absolutePath": str(target),
        "command": request.command,
    }
    if target.suffix:
        entry["extension"] = target.suffix.lower()
    if request.requested:
        entry["requestedPath"] = request.requested
    if request.gating_flag:
        entry["subcommand"] = request.gating_flag
    if request.step is not None:
        entry["step"] = request.step
    entry["cwd"] = str(cwd)
    entry.update(identity or {})
    return entry


def verify_entry(
    request: ArtifactRequest,
    data: Any,
    *,
    cwd: Path,
    window: tuple[float, float],
    identity: Mapping[str, str] | None = None,
) -> dict[str, Any] | None:
    """Check one artifact after the command ran; None when the command produced none
    (e.g. `screenshot --if-changed` reporting `changed: false`). `identity` is the browser's
    `session` / `namespace`."""
    if isinstance(data, Mapping) and (data.get("changed") is False or _unwritten(request, data)):
        return None
    reported = _reported_path(data, request.data_fields)
    path = reported or request.requested
    if path is None:
        return None
    temp = _differing_screenshot_report(request, reported, cwd)
    entry = _base_entry(request, request.requested or path if temp else path, cwd, identity)
    if request.pending:
        entry.update(
            state="pending",
            status="pending",
            recordingState="openRecording",
            willExistOnStop=True,
            limitation="Recording in progress: the file is checked on disk after `record stop`.",
        )
        return entry
    target = Path(entry["absolutePath"])
    if temp is None:
        _check_on_disk(entry, target, window)
        return entry
    entry["tempPath"] = temp
    temp_file = resolve(temp, cwd)
    copied = repair_from_temp(target, temp_file, window)
    _check_on_disk(entry, target, window)
    if copied is True and entry["state"] == "verified":
        entry["status"] = "repaired-from-temp"
    elif isinstance(copied, str) and entry["state"] != "verified" and _fresh(temp_file, window):
        entry.update(
            state="unverified",
            status="upstream-temp-only",
            limitation=f"The engine saved the image at {temp}, not at the requested path; "
            f"{copied}.",
        )
    return entry


def unclaimed(request: ArtifactRequest, data: Any) -> Any:
    """`data` without the paths of a file the answer itself says was not written (a matching
    `diff screenshot` still names its `--output`): no result claims a file that is not there."""
    if not isinstance(data, Mapping) or not _unwritten(request, data):
        return data
    return {key: None if key in request.data_fields else value for key, value in data.items()}


def _unwritten(request: ArtifactRequest, data: Mapping[str, Any]) -> bool:
    """Every field the slot names holds its value, of the same type (`1` is not `True`, a
    missing field is not `None`)."""
    if not request.unwritten_when:
        return False
    return all(
        field in data and type(data[field]) is type(value) and data[field] == value
        for field, value in request.unwritten_when
    )


def _differing_screenshot_report(
    request: ArtifactRequest, reported: str | None, cwd: Path
) -> str | None:
    """The engine's own path for a screenshot asked to go elsewhere (it wrote a temp file)."""
    if request.kind is not ArtifactKind.IMAGE or not request.requested or not reported:
        return None
    if canonical(reported, cwd) == canonical(request.requested, cwd):
        return None
    return reported


def repair_from_temp(requested: Path, temp: Path, window: tuple[float, float]) -> bool | str:
    """Copy the engine's fresh temp screenshot to the requested path when the requested file
    was not written. True: copied; False: the requested file was written anyway; a string:
    why it could not be repaired."""
    if _fresh(requested, window):
        return False
    if not _fresh(temp, window) or not (media_type(temp) or "").startswith("image/"):
        return "the engine's temp output is not a fresh image file either"
    if requested.is_symlink() or (requested.exists() and not requested.is_file()):
        return "the requested path is a link or a folder; nothing was copied over it"
    return _copy_into_place(temp, requested)


def _copy_into_place(source: Path, requested: Path) -> bool | str:
    """Copy through a temp file beside the destination, then rename: no half-written file,
    and a link planted at the destination is replaced, never followed."""
    partial = requested.with_name(f".{requested.name}.{os.getpid()}.partial")
    try:
        shutil.copyfile(source, partial, follow_symlinks=False)
        os.replace(partial, requested)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        return f"copying it there failed ({exc.strerror or exc})"
    return True


def _fresh(path: Path, window: tuple[float, float]) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    start, end = window
    inside = start - MTIME_TOLERANCE_S <= info.st_mtime <= end + MTIME_TOLERANCE_S
    return stat.S_ISREG(info.st_mode) and inside and info.st_size > 0


def _check_on_disk(entry: dict[str, Any], target: Path, window: tuple[float, float]) -> None:
    """Existence, size, mtime against the command window, and the header's media type."""
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
        return
    if not stat.S_ISREG(info.st_mode):
        entry.update(
            state="unverified",
            status="not-a-file",
            exists=True,
            limitation="The reported path is a folder or a special file, not a saved file.",
        )
        return
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
