"""Outer output of a code cell: selected images and the `outputPath` file.

Images: only handles this cell's `browser()` calls returned can be selected (the host checks
that); here each one is rechecked on disk (regular file, same size and mtime as when it was
returned), must be an inline image type within the per-image bound
(`settings.inline_image_max_bytes`), and all of them together within `MAX_IMAGE_BYTES`. When
the operator omits image responses (`settings.image_responses`) the same checks run and the
selection names the files but carries no image blocks.

`outputPath`: the result data is written atomically (temp file + rename, mode 0600), objects
as pretty JSON with a trailing newline and strings as-is, relative to the execution dir, a
leading `@` stripped. It must not be one of the cell's browser artifacts. This small writer
may later give way to a shared artifact-aware writer.
"""

from __future__ import annotations

import base64
import json
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_browser_tools.private_fs import write_private_file
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.tool_result import ImageBlock
from agent_browser_tools.tools.code.cell import ImageHandle

MAX_IMAGE_BYTES = 20 * 1024 * 1024
INLINE_MIME_TYPES = frozenset({"image/png", "image/jpeg", "image/webp", "image/gif"})
_EXTENSION_MIME = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".webp": "image/webp",
    ".gif": "image/gif",
}
OUTPUT_SOURCE = "code-result"


@dataclass
class ImageSelection:
    blocks: list[ImageBlock] = field(default_factory=list)
    rows: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    category: FailureCategory | None = None
    omitted: bool = False
    """The images were checked but not attached: the operator omits image responses."""


def _check_image(handle: ImageHandle, per_image_max: int) -> tuple[str | None, str, bool]:
    """(problem, mime type, problem means missing/changed)."""
    mime = handle.mime_type or _EXTENSION_MIME.get(Path(handle.path).suffix.lower(), "")
    try:
        info = os.stat(handle.resolved)
    except OSError as exc:
        return f"image {handle.path} is gone ({exc.strerror})", mime, True
    if not stat.S_ISREG(info.st_mode):
        return f"image {handle.path} is not a regular file", mime, True
    if info.st_size != handle.size or info.st_mtime_ns != handle.mtime_ns:
        return f"image {handle.path} changed on disk after the cell's call returned it", mime, True
    if mime not in INLINE_MIME_TYPES:
        return f"image {handle.path} has type {mime or 'unknown'}, not an inline image", mime, False
    if handle.size > per_image_max:
        return (
            f"image {handle.path} is {handle.size} bytes, over the {per_image_max}-byte inline "
            "image limit",
            mime,
            False,
        )
    return None, mime, False


def load_images(handles: Sequence[ImageHandle], per_image_max: int) -> ImageSelection:
    """Recheck and read the selected images, in selection order."""
    out = ImageSelection()
    total = 0
    for handle in handles:
        problem, mime, missing = _check_image(handle, per_image_max)
        if problem is None:
            total += handle.size
            if total > MAX_IMAGE_BYTES:
                problem = f"selected images exceed {MAX_IMAGE_BYTES} bytes in total"
        if problem is None:
            try:
                data = Path(handle.resolved).read_bytes()
            except OSError as exc:
                problem, missing = f"image {handle.path} could not be read ({exc.strerror})", True
            else:
                if len(data) != handle.size:
                    problem, missing = f"image {handle.path} changed while it was read", True
        if problem is not None:
            out.error = f"emitImage(): {problem}."
            out.category = (
                FailureCategory.ARTIFACT_MISSING if missing else FailureCategory.VALIDATION_ERROR
            )
            out.blocks, out.rows = [], []
            return out
        out.blocks.append(
            ImageBlock(
                data=base64.b64encode(data).decode("ascii"), mime_type=mime, path=handle.path
            )
        )
        out.rows.append(
            {"id": handle.id, "path": handle.path, "mimeType": mime, "bytes": handle.size}
        )
    return out


def _same_file(a: Path, b: Path) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def resolve_output_path(raw: str, cwd: Path) -> tuple[str, Path]:
    """(path as given without a leading `@`, absolute path)."""
    text = raw[1:] if raw.startswith("@") else raw
    path = Path(text)
    return text, path if path.is_absolute() else cwd / path


def write_output(raw: str, cwd: Path, data: Any, artifacts: Iterable[str]) -> dict[str, Any]:
    """Write the result data; returns `details.outputFile` (status saved or failed)."""
    shown, absolute = resolve_output_path(raw, cwd)
    record: dict[str, Any] = {
        "path": shown,
        "absolutePath": str(absolute),
        "source": OUTPUT_SOURCE,
    }
    for artifact in artifacts:
        candidate = Path(artifact) if Path(artifact).is_absolute() else cwd / artifact
        if _same_file(candidate, absolute):
            record.update(
                status="failed",
                error=f"outputPath is the browser artifact {artifact}; choose another file "
                "(the artifact was kept).",
            )
            return record
    text = data if isinstance(data, str) else json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    payload = text.encode("utf-8")
    try:
        absolute.parent.mkdir(parents=True, exist_ok=True)
        write_private_file(absolute, payload)
    except OSError as exc:
        record.update(status="failed", error=f"could not write {absolute}: {exc}")
        return record
    record.update(status="saved", bytes=len(payload))
    return record
