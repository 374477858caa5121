"""`outputPath`: save a result's data to a file the caller named.

Rules: relative paths resolve against the execution dir and a leading `@` is stripped; the
file holds `details.data` (objects/arrays as pretty JSON plus a newline, strings as-is), or the
visible text when there is no data; data is written already redacted; the write is atomic (no
half-written file); a destination that aliases a browser artifact of the same result is refused
so evidence is never overwritten by its own summary.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_browser_tools.results.artifacts import file_keys


@dataclass(frozen=True)
class OutputTarget:
    display: str
    absolute: Path


def resolve_output_path(raw: str, cwd: Path) -> OutputTarget:
    """Strip a leading `@`, resolve relative to `cwd`; raise ValueError for an empty path."""
    text = raw[1:] if raw.startswith("@") else raw
    if not text.strip():
        raise ValueError("outputPath is empty; give a file path such as logs/result.json.")
    path = Path(os.path.expanduser(text))
    return OutputTarget(display=text, absolute=path if path.is_absolute() else cwd / path)


def serialize(data: Any, text: str) -> tuple[bytes, str]:
    """(bytes to write, source) for the result's data, or its visible text without data."""
    if data is None:
        return text.encode("utf-8"), "text"
    if isinstance(data, str):
        return data.encode("utf-8"), "data"
    payload = json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n"
    return payload.encode("utf-8"), "data"


def aliases_artifact(target: OutputTarget, artifact_paths: list[str], cwd: Path) -> str | None:
    """The artifact path that is the same file as `target` (symlink, hard link, `..`), if any."""
    keys = file_keys(str(target.absolute), cwd)
    for path in artifact_paths:
        if keys & file_keys(path, cwd):
            return path
    return None


def write_output(target: OutputTarget, payload: bytes) -> None:
    """Atomic write: a temp file in the destination dir, then rename. Parents are created."""
    target.absolute.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".abt-out-", dir=target.absolute.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(tmp, target.absolute)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save(
    target: OutputTarget, data: Any, text: str, artifact_paths: list[str], cwd: Path
) -> dict[str, Any]:
    """Write the output file; returns `details.outputFile` (status saved or failed)."""
    info: dict[str, Any] = {"path": target.display, "absolutePath": str(target.absolute)}
    alias = aliases_artifact(target, artifact_paths, cwd)
    if alias is not None:
        info.update(
            status="failed",
            error=f"outputPath {target.display} is the same file as the browser artifact "
            f"{alias}; the artifact was kept and the data was not written.",
        )
        return info
    payload, source = serialize(data, text)
    try:
        write_output(target, payload)
    except OSError as exc:
        info.update(status="failed", error=f"could not write {target.display}: {exc}")
        return info
    info.update(status="saved", source=source, bytes=len(payload))
    return info
