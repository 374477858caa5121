"""Scrub recorded files in place after the engine wrote them: HAR, trace and profile files.

Why in place: the model (or a page steering it) chose the path and will read the file next; a
scrubbed copy elsewhere would leave the raw one behind. The rewrite is atomic (temp file in the
same directory, then rename) and keeps the file's permission bits, so a reader never sees a
half-written file. A file that cannot be parsed or rewritten is reported, never silently kept:
the caller turns a `failed` outcome into a warning that names the file.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from agent_browser_tools.credentials.har import Scrub, scrub_har, scrub_json_text

MAX_SCRUB_BYTES = 256 * 1024 * 1024
"""Larger files are not read into memory to be scrubbed; the result warns instead."""

Status = Literal["scrubbed", "unchanged", "failed"]


@dataclass(frozen=True)
class FileScrub:
    """What happened to one recorded file."""

    path: str
    kind: str
    status: Status
    reason: str | None = None

    def as_dict(self) -> dict[str, str]:
        out = {"path": self.path, "kind": self.kind, "status": self.status}
        if self.reason:
            out["reason"] = self.reason
        return out

    def warning(self) -> str | None:
        if self.status != "failed":
            return None
        return (
            f"The {self.kind} file {self.path} could not be scrubbed ({self.reason}); it may "
            "hold credentials (URL tokens, auth headers, cookies, typed secrets). Delete it or "
            "keep it private."
        )


def scrub_file(path: Path, shown: str, kind: str, scrub: Scrub) -> FileScrub:
    """Scrub a HAR (`kind == "har"`) or a JSON trace/profile file in place."""
    try:
        target = path.resolve(strict=True)
        size = target.stat().st_size
        if size > MAX_SCRUB_BYTES:
            return FileScrub(shown, kind, "failed", f"larger than {MAX_SCRUB_BYTES} bytes")
        raw = target.read_bytes()
    except OSError as exc:
        return FileScrub(shown, kind, "failed", f"cannot read it: {exc.strerror or exc}")
    try:
        text = raw.decode("utf-8")
        new = _scrubbed_har(text, scrub) if kind == "har" else _scrubbed_json_text(text, scrub)
    except ValueError as exc:
        return FileScrub(shown, kind, "failed", f"not parseable: {exc}")
    if new == text:
        return FileScrub(shown, kind, "unchanged")
    try:
        rewrite_atomic(target, new.encode("utf-8"))
    except OSError as exc:
        return FileScrub(shown, kind, "failed", f"cannot rewrite it: {exc.strerror or exc}")
    return FileScrub(shown, kind, "scrubbed")


def _scrubbed_har(text: str, scrub: Scrub) -> str:
    doc = json.loads(text)
    clean = scrub_har(doc, scrub)
    if clean == doc:
        return text
    return json.dumps(clean, ensure_ascii=False, indent=2) + "\n"


def _scrubbed_json_text(text: str, scrub: Scrub) -> str:
    """Trace and profile files are scrubbed as text, and only when they are JSON text."""
    if text.lstrip()[:1] not in ("{", "["):
        raise ValueError("not JSON text")
    return scrub_json_text(text, scrub)


def rewrite_atomic(target: Path, payload: bytes) -> None:
    """Replace `target` with `payload` via a temp file in its directory, same mode bits."""
    mode = stat.S_IMODE(target.stat().st_mode)
    fd, tmp = tempfile.mkstemp(prefix=".abt-scrub-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
