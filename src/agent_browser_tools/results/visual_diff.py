"""What a `diff screenshot` found, in words: match or not, how many pixels, and whether an
image was written (the artifact lines below it say where, verified on disk).

The engine answers with its raw counters (`match`, `differentPixels`, `totalPixels`,
`mismatchPercentage`, `dimensionMismatch`, `diffPath`). A match is the most common outcome of
a visual check, and the engine then names the `--output` path without writing it: the line
says no image was written, so nobody goes looking for one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def diff_lines(data: Mapping[str, Any]) -> list[str] | None:
    """The verdict line of a screenshot comparison; None when `data` is not one."""
    match = data.get("match")
    if not isinstance(match, bool):
        return None
    differing, total = _count(data.get("differentPixels")), _count(data.get("totalPixels"))
    sizes = _sizes(data.get("dimensionMismatch"))
    if match:
        if differing is None:
            return ["Screenshots match; no diff image was written (nothing to show)."]
        of = f" of {total:,}" if total is not None else ""
        line = f"Screenshots match: {differing:,}{of} pixels differ"
        return [line + "; no diff image was written (nothing to show)."]
    if sizes is not None:
        line = f"Screenshots differ in size: {sizes}."
    elif differing is not None:
        share = _share(data.get("mismatchPercentage"))
        of = f" of {total:,}" if total is not None else ""
        line = f"Screenshots differ: {differing:,}{of} pixels{share}."
    else:
        line = "Screenshots differ."
    if data.get("diffPath") is None:
        line += " No diff image was asked for: add `--output <file>.png` to save one."
    return [line]


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _share(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f" ({value:.2f}%)"
    return ""


def _sizes(value: Any) -> str | None:
    """The engine's size mismatch, however it spells it (a string, or a mapping of sizes)."""
    if value is None or value is False:
        return None
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {_size(item)}" for key, item in value.items())
    return str(value)


def _size(value: Any) -> str:
    if isinstance(value, Mapping) and {"width", "height"} <= set(value):
        return f"{value['width']}x{value['height']}"
    return str(value)
