"""The conversation's bounded recent artifact manifest, and each call's receipts from it.

Every call that writes or references a file gets `details.artifactManifest`: the rows this call
changed or referenced (its saved files, with `storageScope: explicit-path`, and its spill files,
`kind: spill`, kept in the wrapper's state dir) plus the conversation manifest's counts. Each row
has `retentionState`: `live` (on disk when recorded), `missing`, `pending` (a recording until
`record stop`) or `ephemeral` (a spill in a scratch state dir removed when the server exits),
and `storageScope`: `explicit-path`, `persistent-session` (the state dir's spill dir) or
`process-temp` (the scratch dir).

Why bounded: a long conversation must not grow the wrapper's memory with every screenshot.
The cap ages out the oldest metadata rows only; it never deletes a file (an explicit saved
file is the caller's, and spill files are removed only by the `state` prune command).
A stale file (not written by this call) is neither changed nor a new receipt, so it is left
out; a later row for the same file (a recording's stop after its start) replaces the earlier.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_browser_tools.results.media import media_type

VERSION = 1
DEFAULT_MAX_ENTRIES = 100
SPILL_KIND = "spill"
EXPLICIT = "explicit-path"
PERSISTENT = "persistent-session"
PROCESS_TEMP = "process-temp"
_COPIED = (
    "path",
    "absolutePath",
    "kind",
    "command",
    "subcommand",
    "cwd",
    "session",
    "namespace",
    "extension",
    "mediaType",
    "requestedPath",
    "exists",
    "sizeBytes",
    "step",
)


def file_rows(artifacts: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Manifest rows for a call's file artifacts (stale files left out)."""
    rows: list[dict[str, Any]] = []
    for artifact in artifacts:
        if artifact.get("status") == "stale":
            continue
        row = {k: artifact[k] for k in _COPIED if k in artifact}
        state = artifact.get("state")
        retention = {"missing": "missing", "pending": "pending"}.get(str(state), "live")
        row.update(retentionState=retention, storageScope=EXPLICIT)
        rows.append(row)
    return rows


def spill_row(path: str, *, ephemeral: bool) -> dict[str, Any]:
    """A manifest row for a spill file the wrapper wrote for this call."""
    target = Path(path)
    row: dict[str, Any] = {"path": path, "absolutePath": path, "kind": SPILL_KIND}
    try:
        row.update(exists=True, sizeBytes=target.stat().st_size)
    except OSError:
        row["exists"] = False
    media = media_type(target)
    if media:
        row["mediaType"] = media
    retention = "ephemeral" if ephemeral else "live"
    if not row["exists"]:
        retention = "missing"
    row.update(retentionState=retention, storageScope=PROCESS_TEMP if ephemeral else PERSISTENT)
    return row


def verification_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """`artifactVerification` entries for spill rows (file artifacts already have theirs)."""
    entries: list[dict[str, Any]] = []
    for row in rows:
        if row.get("storageScope") == EXPLICIT:
            continue
        retention = row.get("retentionState")
        entry = {k: row[k] for k in ("path", "absolutePath", "kind", "mediaType") if k in row}
        entry.update(
            {
                k: row[k]
                for k in ("exists", "sizeBytes", "retentionState", "storageScope")
                if k in row
            }
        )
        if retention == "live":
            entry["state"] = "verified"
        elif retention == "missing":
            entry.update(state="missing", limitation="The spill file is no longer on disk.")
        else:
            entry.update(
                state="unverified",
                limitation="This spill file is in a scratch dir removed when the server exits.",
            )
        entries.append(entry)
    return entries


class ArtifactManifest:
    """One conversation's recent artifact rows, newest last, at most `max_entries`."""

    def __init__(self, max_entries: int = DEFAULT_MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._rows: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
        self.evicted_count = 0
        """Metadata rows aged out so far (their files were left alone)."""

    def entries(self) -> list[dict[str, Any]]:
        return [dict(row) for row in self._rows.values()]

    def record(self, rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Add this call's rows (a row for a known file replaces it, keeping its creation
        time), age out the oldest beyond the cap, and return the call's receipt."""
        now = int(time.time() * 1000)
        receipts: list[dict[str, Any]] = []
        for given in rows:
            row = dict(given)
            key = (str(row["storageScope"]), str(row.get("absolutePath") or row["path"]))
            earlier = self._rows.pop(key, None)
            row["createdAtMs"] = earlier["createdAtMs"] if earlier else now
            row["updatedAtMs"] = now
            self._rows[key] = row
            receipts.append(dict(row))
        while len(self._rows) > self.max_entries:
            self._rows.popitem(last=False)  # metadata only: the file stays where it is
            self.evicted_count += 1
        return {
            "version": VERSION,
            "entries": receipts,
            "totalEntries": len(self._rows),
            "maxEntries": self.max_entries,
            "liveCount": sum(1 for r in self._rows.values() if r["retentionState"] == "live"),
            "evictedCount": self.evicted_count,
            "updatedAtMs": now,
        }
