"""Measured screenshot geometry: which part of the document an image shows, at what scale.

Why: a model that wants to act on a point of a screenshot needs to know how image pixels map
to the page. The engine does not say, so a plain viewport or full-page screenshot is bracketed
by two samples of the page's scroll, viewport, document size and device pixel ratio (one
`eval` before the capture, one after). Only when both samples match and the image has exactly
the size the sampled CSS crop has at the sampled ratio is the mapping `measured`: image pixel
(px, py) is document CSS (crop.x + px / scale.x, crop.y + py / scale.y). Anything else
(a scroll or resize during the capture, a zoomed visual viewport, element captures, batches)
stays `unknown` with the reason. Cost: two engine calls per plain screenshot.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_browser_tools.input_limits import loads_json_text
from agent_browser_tools.tools.agent_browser.call import DirectCall
from agent_browser_tools.tools.agent_browser.helpers import helper_data

SAMPLE_JS = (
    "JSON.stringify({scrollX: Math.round(window.scrollX), scrollY: Math.round(window.scrollY),"
    " innerWidth: window.innerWidth, innerHeight: window.innerHeight,"
    " documentWidth: document.documentElement.scrollWidth,"
    " documentHeight: document.documentElement.scrollHeight,"
    " devicePixelRatio: window.devicePixelRatio,"
    " visualScale: window.visualViewport ? window.visualViewport.scale : 1})"
)
MEASURED_CAPTURES = ("viewport", "full-page")


async def sample(call: DirectCall) -> dict[str, Any] | None:
    """One reading of the page's geometry, or None when it could not be read."""
    data = await helper_data(call.rt, call.plan, ["eval", SAMPLE_JS])
    raw = data.get("result") if isinstance(data, Mapping) else None
    try:
        parsed = loads_json_text(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    if not isinstance(parsed, dict):
        return None
    if not all(isinstance(v, int | float) for v in parsed.values()):
        return None
    return parsed


def measure(
    capture: str,
    width: int,
    height: int,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """`geometry` for an image of `width` x `height` pixels (pure)."""
    samples = [s for s in (before, after) if s is not None]
    if capture not in MEASURED_CAPTURES:
        return _unknown(f"a {capture} capture has no document crop to measure", samples)
    if before is None or after is None:
        return _unknown("the page could not be sampled before and after the capture", samples)
    if dict(before) != dict(after):
        return _unknown("the page scrolled or resized during the capture", samples)
    if before.get("visualScale", 1) != 1:
        return _unknown("the visual viewport is zoomed", samples)
    ratio = float(before["devicePixelRatio"])
    if capture == "viewport":
        crop = {
            "x": before["scrollX"],
            "y": before["scrollY"],
            "width": before["innerWidth"],
            "height": before["innerHeight"],
        }
    else:
        crop = {
            "x": 0,
            "y": 0,
            "width": before["documentWidth"],
            "height": before["documentHeight"],
        }
    if (round(crop["width"] * ratio), round(crop["height"] * ratio)) != (width, height):
        return _unknown(
            f"the image is {width}x{height} pixels, not the sampled CSS crop "
            f"{crop['width']}x{crop['height']} at ratio {ratio}",
            samples,
        )
    scale = {"x": width / crop["width"], "y": height / crop["height"]}
    return {"status": "measured", "crop": crop, "pixelsPerCssPixel": scale, "samples": samples}


def _unknown(reason: str, samples: list[Mapping[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"status": "unknown", "reason": reason}
    if samples:
        out["samples"] = [dict(s) for s in samples]
    return out
